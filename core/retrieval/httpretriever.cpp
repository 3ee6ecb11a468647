#include "core/retrieval/httpretriever.h"

#include <nlohmann/json.hpp>

#include "core/retrieval/requesttemplate.h"
#include "core/util/jsonkeep.h"
#include "core/util/textescape.h"

namespace ragscope::core {

namespace {

// What parseReply reads of a reply: the first k results (the list is cut at k, in list order)
// and in each only its id, score and text, so a reply of millions of results costs O(k) memory
// (core/util/jsonkeep.h). Results past k are never looked at, in the whole document either.
JsonKeep replyKeep(std::size_t k, const HttpReplyPaths& paths) {
  auto result = std::make_shared<JsonKeep>();
  result->path(paths.id);
  if (!paths.score.empty()) result->path(paths.score);
  if (!paths.text.empty()) result->path(paths.text);
  JsonKeep keep;
  auto keepList = [&](JsonKeep& list) {
    list.firstElements = k;
    list.elements = result;
  };
  if (!paths.results.empty()) {
    keepList(keep.path(paths.results));
  } else {
    keepList(keep);                  // the reply is the array...
    keepList(keep.step("results"));  // ...or an object with one under "results"
  }
  return keep;
}

}  // namespace

bool HttpRetriever::parseReply(const std::string& body, std::size_t k, std::vector<ScoredDoc>* out,
                               std::string* problem, const HttpReplyPaths& paths) {
  out->clear();
  nlohmann::json j;
  if (std::string why; !parseJsonKeeping(body, replyKeep(k, paths), &j, &why)) {
    *problem = "reply is not JSON (" + escapeControlChars(why) + "): " + snippet(body);
    return false;
  }
  const nlohmann::json* list = &j;
  if (!paths.results.empty()) {
    list = jsonAtPath(j, paths.results);
    if (!list || !list->is_array()) {
      *problem = "reply has no array at '" + paths.results + "': " + snippet(body);
      return false;
    }
  } else if (j.is_object() && j.contains("results")) {
    list = &j["results"];
  }
  if (!list->is_array()) {
    *problem = "reply is not a JSON array of {id, score, text?} (nor {\"results\": [...]}): " +
               snippet(body);
    return false;
  }
  std::size_t withScore = 0;
  for (std::size_t i = 0; i < list->size() && out->size() < k; ++i) {
    const auto& e = (*list)[i];
    const std::string at = "reply[" + std::to_string(i) + "]";
    ScoredDoc d;
    const nlohmann::json* id = jsonAtPath(e, paths.id);
    if (!id) {
      *problem = e.is_object() || e.is_array() ? at + "." + paths.id + " is missing"
                                               : at + " is not an object";
      return false;
    }
    if (id->is_string())
      d.id = id->get<std::string>();
    else if (id->is_number_integer())
      d.id = id->dump();
    else {
      *problem = at + "." + paths.id + " is not a string or integer";
      return false;
    }
    if (const nlohmann::json* score = jsonAtPath(e, paths.score);
        score && !paths.score.empty() && !score->is_null()) {
      if (!score->is_number()) {
        *problem = at + "." + paths.score + " is not a number";
        return false;
      }
      d.score = score->get<double>();
      ++withScore;
    }
    if (const nlohmann::json* text = jsonAtPath(e, paths.text);
        text && !paths.text.empty() && text->is_string())
      d.text = text->get<std::string>();
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

std::vector<ScoredDoc> HttpRetriever::search(const Query& query, std::size_t k,
                                             std::string* error) {
  const std::string where = "POST " + shownUrl(m_options.url);
  if (k == 0) return {};
  HttpPostOptions http;
  http.timeoutMs = m_options.timeoutMs;
  if (std::string problem;
      !addAuthorization({m_options.apiKeyEnv, m_options.apiKey}, "Bearer", http, &problem)) {
    if (error) *error = where + ": " + problem;
    return {};
  }
  std::string body;
  if (m_options.requestTemplate.empty()) {
    body = nlohmann::json{{"query", query.text}, {"k", k}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    std::string why;
    auto filled = fillRequestTemplate(m_options.requestTemplate, query, k, &why);
    if (!filled) {
      if (error) *error = where + ": " + why;
      return {};
    }
    body = std::move(*filled);
  }
  HttpReply reply;
  if (!httpPostJson(m_options.url, body, http, &reply, error)) return {};
  if (reply.status < 200 || reply.status >= 300) {
    if (error)
      *error = where + ": HTTP " + std::to_string(reply.status) + ": " + snippet(reply.body);
    return {};
  }
  std::vector<ScoredDoc> out;
  std::string problem;
  if (!parseReply(reply.body, k, &out, &problem, m_options.reply)) {
    if (error) *error = where + ": " + problem;
    return {};
  }
  return out;
}

}  // namespace ragscope::core
