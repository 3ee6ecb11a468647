#include "core/retrieval/httpretriever.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace ragscope::core {

bool HttpRetriever::parseReply(const std::string& body, std::size_t k, std::vector<ScoredDoc>* out,
                               std::string* problem) {
  out->clear();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception& e) {
    *problem = "reply is not JSON (" + std::string(e.what()) + "): " + snippet(body);
    return false;
  }
  const nlohmann::json* list = &j;
  if (j.is_object() && j.contains("results")) list = &j["results"];
  if (!list->is_array()) {
    *problem = "reply is not a JSON array of {id, score, text?} (nor {\"results\": [...]}): " +
               snippet(body);
    return false;
  }
  std::size_t withScore = 0;
  for (std::size_t i = 0; i < list->size() && out->size() < k; ++i) {
    const auto& e = (*list)[i];
    const std::string at = "[" + std::to_string(i) + "]";
    if (!e.is_object()) {
      *problem = "reply" + at + " is not an object";
      return false;
    }
    ScoredDoc d;
    if (!e.contains("id")) {
      *problem = "reply" + at + ".id is missing";
      return false;
    }
    const auto& id = e["id"];
    if (id.is_string())
      d.id = id.get<std::string>();
    else if (id.is_number_integer())
      d.id = id.dump();
    else {
      *problem = "reply" + at + ".id is not a string or integer";
      return false;
    }
    if (e.contains("score") && !e["score"].is_null()) {
      if (!e["score"].is_number()) {
        *problem = "reply" + at + ".score is not a number";
        return false;
      }
      d.score = e["score"].get<double>();
      ++withScore;
    }
    if (e.contains("text") && e["text"].is_string()) d.text = e["text"].get<std::string>();
    out->push_back(std::move(d));
  }
  if (withScore != 0 && withScore != out->size()) {
    *problem = "reply gives a score for " + std::to_string(withScore) + " of " +
               std::to_string(out->size()) + " results; give all or none";
    return false;
  }
  if (withScore == 0)
    for (std::size_t i = 0; i < out->size(); ++i)
      (*out)[i].score = static_cast<double>(out->size() - i);
  return true;
}

std::vector<ScoredDoc> HttpRetriever::search(const Query& query, std::size_t k, std::string* error) {
  const std::string where = "POST " + redactUrl(m_options.url);
  if (k == 0) return {};
  HttpPostOptions http;
  http.timeoutMs = m_options.timeoutMs;
  if (!m_options.apiKeyEnv.empty()) {
    const char* key = std::getenv(m_options.apiKeyEnv.c_str());
    if (!key || !*key) {
      if (error) *error = where + ": environment variable " + m_options.apiKeyEnv + " is not set";
      return {};
    }
    http.headers.push_back(authorizationHeader(key, "Bearer"));
  }
  const nlohmann::json request = {{"query", query.text}, {"k", k}};
  HttpReply reply;
  if (!httpPostJson(m_options.url,
                    request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), http,
                    &reply, error))
    return {};
  if (reply.status < 200 || reply.status >= 300) {
    if (error)
      *error = where + ": HTTP " + std::to_string(reply.status) + ": " + snippet(reply.body);
    return {};
  }
  std::vector<ScoredDoc> out;
  std::string problem;
  if (!parseReply(reply.body, k, &out, &problem)) {
    if (error) *error = where + ": " + problem;
    return {};
  }
  return out;
}

}  // namespace ragscope::core
