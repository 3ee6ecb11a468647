#pragma once
// Which stored eRAG / end-to-end runs of a project were made from a loaded dataset, so the GUI can
// show a project's results as soon as its dataset is open (the demo project opens with its eRAG
// run on screen). A store belongs to the dataset when every input file its settings record is one
// of the dataset's parts, compared by file name: stores keep absolute provenance paths, and a
// project folder may have moved since the run.
//
//   auto pair = storedRunsForDataset(project.runStores resolved, dataset.parts);
//   if (pair.erag) page->openStores(*pair.erag, pair.e2e.value_or(""));

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/data/dataset.h"

namespace ragscope::core::eval {

struct StoredRunPair {
  std::optional<std::filesystem::path> erag;  // the first matching eRAG store
  std::optional<std::filesystem::path> e2e;   // an end-to-end store of the same system, if any
};

// Reads each store's run record (small SQLite reads: call off the GUI thread). Stores that cannot
// be opened are passed over. `datasetName` matches records of the GUI's first layout, which
// named the dataset (its display name) instead of its files.
StoredRunPair storedRunsForDataset(const std::vector<std::filesystem::path>& stores,
                                   const std::vector<DatasetPart>& parts,
                                   const std::string& datasetName = {});

// The claim-judging stores among `stores`, in their order. A judging store holds its answers,
// gold answers and chunks, so it is shown whatever dataset is loaded (the demo project opens with
// its claims run on the Claims page). Same reading rules as above.
std::vector<std::filesystem::path> storedJudgeRuns(
    const std::vector<std::filesystem::path>& stores);

}  // namespace ragscope::core::eval
