#pragma once
// What a remote retriever sends and where it finds its answers, as the user writes them for a
// service ragscope does not know.
//
// A request template is a JSON body with placeholders: {{query}} becomes the query text as a JSON
// string (quotes included, escaped), {{query_id}} the query's id the same way, {{k}} the depth as
// a number. So `{"q": {{query}}, "top_k": {{k}}}` sends {"q": "what is \"x\"?", "top_k": 10}. A
// template must give valid JSON; checkRequestTemplate() says so once, when it is configured, not
// with a 400 from the service on every query.
//
// A reply path is a dot path into JSON: keys, and numbers for array positions
// ("data.hits", "doc.pid", "scores.0"). The empty path is the value itself.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/data/model.h"

namespace ragscope::core {

// The body for one query; nullopt + *error when the result is not JSON.
std::optional<std::string> fillRequestTemplate(std::string_view tmpl, const Query& query,
                                               std::size_t k, std::string* error);
// True when the template gives JSON for a sample query; else false and *error.
bool checkRequestTemplate(std::string_view tmpl, std::string* error);

// The value at `path` in `root`, or null when a step is missing (a key absent, an index out of
// range, a step into a scalar).
const nlohmann::json* jsonAtPath(const nlohmann::json& root, std::string_view path);

}  // namespace ragscope::core
