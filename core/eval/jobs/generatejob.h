#pragma once
// The "generate" job: one chat call per query with the RAG prompt (the question and the texts of
// the run's top-k documents, or no documents without a run). Items are keyed "gen:<qid>".
//
//   auto plan = planGenerate(dataset, run, 5, defaultRagTemplate());
//   store.addItems(plan.items, &err);

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

struct GeneratePlan {
  std::vector<store::NewItem> items;
  std::size_t missingDocuments = 0;  // run entries whose text is not in the corpus (left out)
  std::size_t queriesWithoutRanking = 0;
  std::vector<std::string> warnings;  // the first few problems, for people
};

inline constexpr std::string_view kGenerateKeyPrefix = "gen:";

GeneratePlan planGenerate(const Dataset& dataset, const Run* run, std::size_t k,
                          std::string_view templateText);

// JSONL, one line per item in plan order: {"qid","answer","heuristic","error"}; items without a
// result carry error "not run (<status>)". Written to a temporary file and renamed.
bool writeAnswersJsonl(store::RunStore& store, const std::filesystem::path& path,
                       std::string* error);

// An answers file read back (what writeAnswersJsonl writes; "heuristic" and "error" optional).
// Each line needs "qid" (string or integer) and "answer" (string); a line whose "error" is a
// string keeps it as `error` (its answer is not judged). Problems name file, line and field.
struct StoredAnswer {
  std::string qid;
  std::string answer;
  std::string error;
  std::uint64_t line = 0;
};
Loaded<std::vector<StoredAnswer>> readAnswersJsonl(const std::filesystem::path& path);

}  // namespace ragscope::core::eval
