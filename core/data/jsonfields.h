#pragma once
// What the JSON loaders' record callbacks use to read one record (see core/data/README.md): the
// RecordProblems that collects a record's diagnostics with file, line and field path, and the
// field readers (ids, strings, integers) that report a wrong type in the loaders' words. The
// record readers themselves are in jsonlines.h.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"

namespace ragscope::core {

// Collects the diagnostics of one record, with file, line and a field-path prefix filled in
// ("results[3]" for an element of a whole-file document; empty for a JSON line).
class RecordProblems {
 public:
  RecordProblems(std::string file, std::uint64_t line, std::string prefix);

  void error(std::string_view field, std::string problem);
  void warning(std::string_view field, std::string problem);
  bool hasErrors() const { return m_errors > 0; }
  std::uint64_t line() const { return m_line; }
  // "results[3].query" for field "query"; the prefix alone for an empty field or "record"
  // (loaders name a whole JSON line "record"; inside a document the element path says it).
  std::string fieldPath(std::string_view field) const;
  std::vector<Diagnostic>& items() { return m_items; }

 private:
  void add(Severity s, std::string_view field, std::string problem);

  std::string m_file;
  std::uint64_t m_line;
  std::string m_prefix;
  std::vector<Diagnostic> m_items;
  std::size_t m_errors = 0;
};

// An id: a JSON string as is, an integer in decimal. Anything else is an error; nullopt then
// (or when absent and !required: no diagnostic).
std::optional<std::string> jsonId(const nlohmann::json& obj, std::string_view key,
                                  RecordProblems& problems, bool required,
                                  std::string_view field = {});
// (Bare values: jsonIdToString in jsonguard.h.)

// A string member: absent or null -> nullopt (error when required); other types -> error.
std::optional<std::string> jsonString(nlohmann::json& obj, std::string_view key,
                                      RecordProblems& problems, bool required,
                                      std::string_view field = {});

// An integer given as a number or a decimal string (KILT fixtures write "start_paragraph_id": "1").
std::optional<long long> jsonInteger(const nlohmann::json& value);

// Human text for a JSON value's type ("a number", "null", ...).
std::string jsonTypeName(const nlohmann::json& value);
// "field[i]": where in a record a problem is (messages name list elements so).
std::string indexedField(std::string_view field, std::size_t i);

}  // namespace ragscope::core
