#include "core/retrieval/esretriever.h"

#include <nlohmann/json.hpp>

#include "core/retrieval/requesttemplate.h"

namespace ragscope::core {

namespace {

// Ids may be numbers in the source document; ids are always strings (SPEC §2).
bool idOf(const nlohmann::json& v, std::string* out) {
  if (v.is_string()) {
    *out = v.get<std::string>();
    return true;
  }
  if (v.is_number_integer()) {
    *out = v.dump();
    return true;
  }
  return false;
}

}  // namespace

EsRetriever::EsRetriever(EsOptions options) : m_options(std::move(options)) {
  if (m_options.fields.empty()) m_options.fields = {"text"};
  if (m_options.textField.empty()) m_options.textField = m_options.fields.front();
  std::string u = m_options.url;
  while (!u.empty() && u.back() == '/') u.pop_back();
  if (u.size() < 8 || u.compare(u.size() - 8, 8, "/_search") != 0) u += "/_search";
  m_searchUrl = u;
}

std::string EsRetriever::requestBody(const Query& query, std::size_t k, std::string* error) const {
  if (!m_options.queryTemplate.empty()) return fillRequestTemplate(m_options.queryTemplate, query, k, error).value_or("");
  const std::string& text = query.text;
  nlohmann::json body;
  body["size"] = k;
  if (m_options.fields.size() == 1)
    body["query"]["match"][m_options.fields.front()] = {{"query", text}};
  else
    body["query"]["multi_match"] = {{"query", text}, {"fields", m_options.fields}};
  nlohmann::json source = nlohmann::json::array({m_options.textField});
  if (!m_options.idField.empty()) source.push_back(m_options.idField);
  body["_source"] = source;
  // Replace bad UTF-8 rather than throw: a query is text the user gave us.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<ScoredDoc> EsRetriever::search(const Query& query, std::size_t k, std::string* error) {
  const std::string where = "POST " + redactUrl(m_searchUrl);
  auto fail = [&](const std::string& problem) {
    if (error) *error = where + ": " + problem;
    return std::vector<ScoredDoc>{};
  };
  if (k == 0) return {};
  HttpPostOptions http;
  http.timeoutMs = m_options.timeoutMs;
  if (std::string problem; !addAuthorization({m_options.apiKeyEnv, m_options.apiKey}, "ApiKey", http, &problem))
    return fail(problem);
  std::string why;
  const std::string body = requestBody(query, k, &why);
  if (body.empty()) return fail(why);
  HttpReply reply;
  if (!httpPostJson(m_searchUrl, body, http, &reply, error)) return {};
  if (reply.status < 200 || reply.status >= 300) {
    // ES explains itself in error.reason; show that, else the start of the body.
    std::string reason;
    try {
      auto j = nlohmann::json::parse(reply.body);
      if (j.contains("error") && j["error"].is_object())
        reason = j["error"].value("reason", j["error"].value("type", ""));
      else if (j.contains("error") && j["error"].is_string())
        reason = j["error"].get<std::string>();
    } catch (const nlohmann::json::exception&) {
    }
    return fail("HTTP " + std::to_string(reply.status) + ": " +
                (reason.empty() ? snippet(reply.body) : reason));
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(reply.body);
  } catch (const nlohmann::json::exception& e) {
    return fail("reply is not JSON (" + std::string(e.what()) + "): " + snippet(reply.body));
  }
  if (!j.is_object() || !j.contains("hits") || !j["hits"].is_object() ||
      !j["hits"].contains("hits") || !j["hits"]["hits"].is_array())
    return fail("reply has no hits.hits array: " + snippet(reply.body));
  std::vector<ScoredDoc> out;
  const auto& hits = j["hits"]["hits"];
  for (std::size_t i = 0; i < hits.size() && out.size() < k; ++i) {
    const auto& h = hits[i];
    const std::string at = "hits.hits[" + std::to_string(i) + "]";
    if (!h.is_object()) return fail(at + " is not an object");
    ScoredDoc d;
    const nlohmann::json* src = h.contains("_source") && h["_source"].is_object() ? &h["_source"]
                                                                                   : nullptr;
    if (!m_options.idField.empty()) {
      if (!src || !src->contains(m_options.idField) || !idOf((*src)[m_options.idField], &d.id))
        return fail(at + "._source." + m_options.idField + " is missing or not a string/integer");
    } else if (!h.contains("_id") || !idOf(h["_id"], &d.id)) {
      return fail(at + "._id is missing or not a string");
    }
    if (!h.contains("_score") || !h["_score"].is_number())
      return fail(at + "._score is missing or not a number (sorted queries have none)");
    d.score = h["_score"].get<double>();
    if (src && src->contains(m_options.textField) && (*src)[m_options.textField].is_string())
      d.text = (*src)[m_options.textField].get<std::string>();
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ragscope::core
