#pragma once
// Nuggetizer's JSONL layout of assigned nuggets (core/trecrag/README.md, "Nuggets"), read
// strictly so that a file nuggetizer wrote scores here exactly as nuggetizer scores it:
//
//   {"qid": "2024-145979", "query": "...", "nuggets": [
//      {"text": "...", "importance": "vital", "assignment": "support"}, ...], ...}
//
// One object per line (blank lines skipped), one line per query. Members other than these
// (nuggetizer's "answer_text", "run_id", ...) are ignored. Refused, as file:line: field: problem
// (field "nuggets[2].assignment"): a line that is not a JSON object or repeats a member name
// (core/util/jsonstrict.h), a missing or empty qid (a string, or an integer read in decimal), a
// qid given on an earlier line, a query that is not a string, nuggets that are not an array, a
// nugget that is not an object or lacks a string text, an importance other than "vital" or
// "okay", an assignment other than "support", "partial_support" or "not_support" (never read as
// 0: nuggetizer's own scoring would count a misspelt "Support" as unsupported without a word), a
// file without any query.
//
//   auto file = readAssignedNuggets(path);   // LoadOptions: Stop at the first error
//   if (!file.report.ok() || file.report.hasErrors()) print file.report.diagnostics;

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"

namespace ragscope::core::trecrag {

enum class Importance { Vital, Okay };
enum class Assignment { Support, PartialSupport, NotSupport };

// The spellings nuggetizer writes, and nullopt for any other text.
std::optional<Importance> importanceFromName(std::string_view name);
std::optional<Assignment> assignmentFromName(std::string_view name);
const char* importanceName(Importance importance);
const char* assignmentName(Assignment assignment);

struct Nugget {
  std::string text;
  Importance importance = Importance::Okay;
  Assignment assignment = Assignment::NotSupport;
};

struct NuggetQuery {
  std::string qid;
  std::string query;
  std::vector<Nugget> nuggets;
  std::uint64_t line = 0;
};

Loaded<std::vector<NuggetQuery>> readAssignedNuggets(const std::filesystem::path& path,
                                                     const LoadOptions& options = {});

}  // namespace ragscope::core::trecrag
