#pragma once
// The one way exports write JSON (CLI --json/--format json output, files written for other tools).
//
//   writeJson(std::cout, doc, 2);                      // pretty, followed by a newline
//   std::string error;
//   if (!writeJsonFile(path, doc, &error)) report(error);
//
// Never throws on data: nlohmann's dump() throws type_error 316 on a string that is not UTF-8
// (a file name, a qid or a diagnostic quoting raw input), so every write uses
// error_handler_t::replace and such bytes come out as U+FFFD. Non-ASCII text is written as UTF-8,
// not \u escapes.
// Deterministic: the same value gives the same bytes. nlohmann::json keeps object keys sorted
// (std::map); nlohmann::ordered_json keeps them in insertion order, so the order the code built
// them in. Doubles are written with as few digits as read back as the same double (whatever the
// process locale), NaN and infinities as null.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace ragscope::core::exporting {

// The text of `value`: compact on one line with indent < 0, else pretty with `indent` spaces.
std::string jsonText(const nlohmann::json& value, int indent = -1);
std::string jsonText(const nlohmann::ordered_json& value, int indent = -1);

// Writes jsonText(value, indent) and a newline to `out`; returns false if the stream failed.
bool writeJson(std::ostream& out, const nlohmann::json& value, int indent = -1);
bool writeJson(std::ostream& out, const nlohmann::ordered_json& value, int indent = -1);

// Writes jsonText(value, indent) and a newline to `path` atomically (temporary file in the same
// folder, renamed over `path`; see core/util/atomicfile.h), so a reader never sees half a file.
// With `fsyncFile` the data reaches the disk before the rename. On failure returns false and sets
// *error (when given) to "<path>: <what failed>[: <reason>]".
bool writeJsonFile(const std::filesystem::path& path, const nlohmann::json& value,
                   std::string* error, int indent = 2, bool fsyncFile = true);
bool writeJsonFile(const std::filesystem::path& path, const nlohmann::ordered_json& value,
                   std::string* error, int indent = 2, bool fsyncFile = true);

}  // namespace ragscope::core::exporting
