#include "core/retrieval/requesttemplate.h"

#include <charconv>

namespace ragscope::core {

namespace {

std::string jsonString(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::optional<std::string> fillRequestTemplate(std::string_view tmpl, const Query& query,
                                               std::size_t k, std::string* error) {
  std::string out;
  out.reserve(tmpl.size() + query.text.size() + 16);
  for (std::size_t i = 0; i < tmpl.size();) {
    if (tmpl.compare(i, 9, "{{query}}") == 0) {
      out += jsonString(query.text);
      i += 9;
    } else if (tmpl.compare(i, 12, "{{query_id}}") == 0) {
      out += jsonString(query.id);
      i += 12;
    } else if (tmpl.compare(i, 5, "{{k}}") == 0) {
      out += std::to_string(k);
      i += 5;
    } else {
      out += tmpl[i++];
    }
  }
  if (!nlohmann::json::accept(out)) {
    if (error)
      *error =
          "the request template does not give JSON (placeholders: {{query}}, {{query_id}}, {{k}}; "
          "{{query}} brings its own quotes)";
    return std::nullopt;
  }
  return out;
}

bool checkRequestTemplate(std::string_view tmpl, std::string* error) {
  Query sample;
  sample.id = "q1";
  sample.text = "a \"sample\" query";
  return fillRequestTemplate(tmpl, sample, 10, error).has_value();
}

const nlohmann::json* jsonAtPath(const nlohmann::json& root, std::string_view path) {
  const nlohmann::json* at = &root;
  while (!path.empty()) {
    const std::size_t dot = path.find('.');
    const std::string_view step = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (at->is_object()) {
      const auto it = at->find(std::string(step));
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array()) {
      std::size_t index = 0;
      const auto [end, ec] = std::from_chars(step.data(), step.data() + step.size(), index);
      if (ec != std::errc() || end != step.data() + step.size() || index >= at->size())
        return nullptr;
      at = &(*at)[index];
    } else {
      return nullptr;
    }
  }
  return at;
}

}  // namespace ragscope::core
