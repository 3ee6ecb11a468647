#pragma once
// A report run's "Human labels" section (core/export/reportmodel.h ReportHumanLabels;
// core/eval/inputs/README.md, "Human labels and PPI"): the project's current labels of the run
// counted by kind and annotator, their agreement with the judge and between annotators
// (core/labels/labelagreement.h), and the prediction-powered estimate of each judged metric
// beside its judge-only and human-only means. Reads the run store: call off the GUI thread.
//
//   labels::LabelStore store;  store.openReadOnly(path, &err);
//   addHumanLabels(run, "runs/claims.db", store.current(), store.path().string());

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/eval/inputs/ppiinputs.h"
#include "core/export/reportmodel.h"
#include "core/labels/label.h"

namespace ragscope::core::eval {

// Fills run.humanLabels (always set: an empty section says the run has no label yet). The
// run's labels are those whose scope names `runStore` (core/labels/labelscope.h), relative scopes
// read against `labelsStore`'s folder (the project's).
void addHumanLabels(exporting::ReportRun& run, const std::filesystem::path& runStore,
                    const std::vector<labels::Label>& current, const std::string& labelsStore);

// One estimate as the report keeps it.
exporting::ReportPpi reportPpiOf(const PpiEstimate& estimate);

// The question of each of the run's queries that `questions` knows and the run does not.
void addQuestions(exporting::ReportRun& run, const std::map<std::string, std::string>& questions);

}  // namespace ragscope::core::eval
