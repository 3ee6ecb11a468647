#include "core/retrieval/esretriever.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/retrieval/requesttemplate.h"
#include "core/util/jsonkeep.h"
#include "core/util/textescape.h"

namespace ragscope::core {

namespace {

// Ids may be numbers in the source document; ids are always strings (core/data/README.md, "Data
// model and loading").
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

// What search() reads of an error reply: error.reason, error.type, or error as a string.
JsonKeep errorKeep() {
  JsonKeep keep;
  JsonKeep& error = keep.step("error");
  error.step("reason");
  error.step("type");
  return keep;
}

// What parseHits() reads: the first k hits and, in each, _id, _score and the two _source fields,
// so a reply of millions of hits costs O(k) memory (core/util/jsonkeep.h).
JsonKeep hitsKeep(std::size_t k, const std::string& idField, const std::string& textField) {
  auto hit = std::make_shared<JsonKeep>();
  hit->step("_id");
  hit->step("_score");
  JsonKeep& source = hit->step("_source");
  if (!idField.empty()) source.step(idField);  // field names are keys, never dot paths here
  source.step(textField);
  JsonKeep keep;
  JsonKeep& hits = keep.path("hits.hits");
  hits.firstElements = k;
  hits.elements = hit;
  return keep;
}

}  // namespace

std::string esSearchUrl(std::string_view indexUrl) {
  // The fragment never reaches the server; the query (routing=..., preference=...) must stay
  // after the path, not be glued in front of "/_search".
  std::string_view url = indexUrl;
  const std::size_t hash = url.find('#');
  if (hash != std::string_view::npos) url = url.substr(0, hash);
  const std::size_t question = url.find('?');
  std::string_view query =
      question == std::string_view::npos ? std::string_view() : url.substr(question);
  std::string path(url.substr(0, std::min(question, url.size())));
  while (!path.empty() && path.back() == '/') path.pop_back();
  constexpr std::string_view kSearch = "/_search";
  const bool hasSearch = path.size() >= kSearch.size() &&
                         path.compare(path.size() - kSearch.size(), kSearch.size(), kSearch) == 0;
  if (!hasSearch) path += kSearch;
  return path + std::string(query);
}

EsRetriever::EsRetriever(EsOptions options) : m_options(std::move(options)) {
  if (m_options.fields.empty()) m_options.fields = {"text"};
  if (m_options.textField.empty()) m_options.textField = m_options.fields.front();
  m_searchUrl = esSearchUrl(m_options.url);
}

std::string EsRetriever::requestBody(const Query& query, std::size_t k, std::string* error) const {
  if (!m_options.queryTemplate.empty())
    return fillRequestTemplate(m_options.queryTemplate, query, k, error).value_or("");
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
  const std::string where = "POST " + shownUrl(m_searchUrl);
  auto fail = [&](const std::string& problem) {
    if (error) *error = where + ": " + problem;
    return std::vector<ScoredDoc>{};
  };
  if (k == 0) return {};
  HttpPostOptions http;
  http.timeoutMs = m_options.timeoutMs;
  if (std::string problem;
      !addAuthorization({m_options.apiKeyEnv, m_options.apiKey}, "ApiKey", http, &problem))
    return fail(problem);
  std::string why;
  const std::string body = requestBody(query, k, &why);
  if (body.empty()) return fail(why);
  HttpReply reply;
  if (!httpPostJson(m_searchUrl, body, http, &reply, error)) return {};
  if (reply.status < 200 || reply.status >= 300) {
    // ES explains itself in error.reason; show that, else the start of the body.
    std::string reason;
    nlohmann::json j;
    if (parseJsonKeeping(reply.body, errorKeep(), &j, nullptr)) {
      try {
        if (j.contains("error") && j["error"].is_object())
          reason = j["error"].value("reason", j["error"].value("type", ""));
        else if (j.contains("error") && j["error"].is_string())
          reason = j["error"].get<std::string>();
      } catch (const nlohmann::json::exception&) {
      }
    }
    return fail("HTTP " + std::to_string(reply.status) + ": " +
                (reason.empty() ? snippet(reply.body) : snippet(reason)));
  }
  std::vector<ScoredDoc> out;
  std::string problem;
  if (!parseHits(reply.body, k, m_options.idField, m_options.textField, &out, &problem))
    return fail(problem);
  return out;
}

bool EsRetriever::parseHits(const std::string& body, std::size_t k, const std::string& idField,
                            const std::string& textField, std::vector<ScoredDoc>* out,
                            std::string* problem) {
  out->clear();
  auto fail = [&](const std::string& why) {
    *problem = why;
    out->clear();
    return false;
  };
  nlohmann::json j;
  if (std::string why; !parseJsonKeeping(body, hitsKeep(k, idField, textField), &j, &why))
    return fail("reply is not JSON (" + escapeControlChars(why) + "): " + snippet(body));
  if (!j.is_object() || !j.contains("hits") || !j["hits"].is_object() ||
      !j["hits"].contains("hits") || !j["hits"]["hits"].is_array())
    return fail("reply has no hits.hits array: " + snippet(body));
  const auto& hits = j["hits"]["hits"];
  for (std::size_t i = 0; i < hits.size() && out->size() < k; ++i) {
    const auto& h = hits[i];
    const std::string at = "hits.hits[" + std::to_string(i) + "]";
    if (!h.is_object()) return fail(at + " is not an object");
    ScoredDoc d;
    const nlohmann::json* src =
        h.contains("_source") && h["_source"].is_object() ? &h["_source"] : nullptr;
    if (!idField.empty()) {
      if (!src || !src->contains(idField) || !idOf((*src)[idField], &d.id))
        return fail(at + "._source." + idField + " is missing or not a string/integer");
    } else if (!h.contains("_id") || !idOf(h["_id"], &d.id)) {
      return fail(at + "._id is missing or not a string");
    }
    if (!h.contains("_score") || !h["_score"].is_number())
      return fail(at + "._score is missing or not a number (sorted queries have none)");
    d.score = h["_score"].get<double>();
    if (src && src->contains(textField) && (*src)[textField].is_string())
      d.text = (*src)[textField].get<std::string>();
    out->push_back(std::move(d));
  }
  return true;
}

}  // namespace ragscope::core
