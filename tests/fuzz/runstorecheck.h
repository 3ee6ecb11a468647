#pragma once
// What ragscope does with a run store someone handed over, in one call for the run-store fuzz
// targets: `runs` (looksLikeRunStore), `resume` (openStoredJob, whose resumeSettings reads the
// record's endpoint and settings), the statistics commands (readStoredScores), the results views
// (readEvaluation, both as an eRAG and as an end-to-end store) and the project page
// (storedRunsForDataset). Nothing is sent anywhere: no provider is made.

#include <filesystem>
#include <string>

namespace ragscope::fuzz {

void exerciseRunStore(const std::filesystem::path& path);

// The bytes of an empty run store of the current schema with a record of `kind`, made once per
// kind by RunStore::create: targets that craft stores start from a copy of them.
const std::string& emptyStoreBytes(const std::string& kind);

}  // namespace ragscope::fuzz
