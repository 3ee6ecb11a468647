// The record callbacks' helpers of the JSON loaders (see jsonfields.h and core/data/README.md).

#include "core/data/jsonfields.h"

#include <limits>
#include <utility>

#include "core/data/jsonguard.h"
#include "core/data/linereader.h"

namespace ragscope::core {

using nlohmann::json;

// ---- RecordProblems ---------------------------------------------------------------------------

RecordProblems::RecordProblems(std::string file, std::uint64_t line, std::string prefix)
    : m_file(std::move(file)), m_line(line), m_prefix(std::move(prefix)) {}

std::string RecordProblems::fieldPath(std::string_view field) const {
  if (m_prefix.empty()) return std::string(field);
  if (field.empty() || field == "record") return m_prefix;  // the element itself
  if (field.front() == '[') return m_prefix + std::string(field);
  return m_prefix + "." + std::string(field);
}

void RecordProblems::add(Severity s, std::string_view field, std::string problem) {
  Diagnostic d;
  d.severity = s;
  d.file = m_file;
  d.line = m_line;
  d.field = fieldPath(field);
  d.problem = std::move(problem);
  if (s == Severity::Error) ++m_errors;
  m_items.push_back(std::move(d));
}

void RecordProblems::error(std::string_view field, std::string problem) {
  add(Severity::Error, field, std::move(problem));
}

void RecordProblems::warning(std::string_view field, std::string problem) {
  add(Severity::Warning, field, std::move(problem));
}

// ---- field helpers ----------------------------------------------------------------------------

std::string indexedField(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

std::string jsonTypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    default:
      return "value";
  }
}

namespace {

// The value under `key` for the field readers below, absent or null alike giving nullptr (and a
// "missing" error under `name` when the field is required).
template <class Json>
Json* presentField(Json& obj, std::string_view key, RecordProblems& problems, bool required,
                   std::string_view name) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) problems.error(name, "missing");
    return nullptr;
  }
  return &*it;
}

}  // namespace

std::optional<std::string> jsonId(const json& obj, std::string_view key, RecordProblems& problems,
                                  bool required, std::string_view field) {
  const std::string_view name = field.empty() ? key : field;
  const json* it = presentField(obj, key, problems, required, name);
  if (!it) return std::nullopt;
  auto id = jsonIdToString(*it);
  if (!id) {
    problems.error(name, "must be a string or an integer, not " + jsonTypeName(*it));
    return std::nullopt;
  }
  if (id->empty()) {
    problems.error(name, "is empty");
    return std::nullopt;
  }
  return id;
}

std::optional<std::string> jsonString(json& obj, std::string_view key, RecordProblems& problems,
                                      bool required, std::string_view field) {
  const std::string_view name = field.empty() ? key : field;
  json* it = presentField(obj, key, problems, required, name);
  if (!it) return std::nullopt;
  if (!it->is_string()) {
    problems.error(name, "must be a string, not " + jsonTypeName(*it));
    return std::nullopt;
  }
  return std::move(it->get_ref<std::string&>());
}

std::optional<long long> jsonInteger(const json& value) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned()) {
      auto u = value.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()))
        return std::nullopt;
      return static_cast<long long>(u);
    }
    return value.get<std::int64_t>();
  }
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    std::string_view t = trim(s);
    if (t.empty() || t.size() > 18) return std::nullopt;
    long long v = 0;
    bool negative = false;
    std::size_t i = 0;
    if (t[0] == '-' || t[0] == '+') {
      negative = t[0] == '-';
      i = 1;
      if (t.size() == 1) return std::nullopt;
    }
    for (; i < t.size(); ++i) {
      if (t[i] < '0' || t[i] > '9') return std::nullopt;
      v = v * 10 + (t[i] - '0');
    }
    return negative ? -v : v;
  }
  return std::nullopt;
}

}  // namespace ragscope::core
