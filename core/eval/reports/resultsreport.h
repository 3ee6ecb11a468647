#pragma once
// Gathers the results a report covers into exporting::Report (core/export/reportmodel.h): the
// run stores of eRAG, end-to-end and claim-judging runs, and retrieval evaluations of a project's
// datasets. One collector for `ragscope-cli report` and the GUI's File > Export / Report, so both
// write the same figures as the commands and pages that show them (computeEragReport,
// computeE2eReport, readJudgeReport, evaluate).
//
//   ReportSources s;
//   s.stores = {"runs/erag-good.db", "runs/claims.db"};
//   exporting::Report r = collectReport(s, options);   // reads files: call off the GUI thread
//   for (const auto& p : r.problems) ...                // a source that could not be read

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/export/reportmodel.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/stats/bootstrap.h"

namespace ragscope::core::eval {

struct ReportSources {
  std::optional<std::filesystem::path> project;  // its datasets' runs (retrieval) and its stores
  bool projectStores = true;                     // false: the project's retrieval runs only
  std::vector<std::filesystem::path> stores;     // more run stores, after the project's
  // KILT evaluations (core/eval/kilt/kiltreport.h), each a task file and a predictions file; a
  // project's datasets with a "kilt" and "kilt-predictions" parts are evaluated too.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> kilt;
  // Human labels for the run stores' "Human labels" sections
  // (core/eval/reports/humanlabelsreport.h): a labels store or a project file (its labels store).
  // Unset: the project's labels store, when it has one.
  std::optional<std::filesystem::path> labels;
};

struct ReportOptions {
  stats::BootstrapOptions bootstrap;  // B = 0: no intervals
  EvalSettings retrieval;             // measures and conventions of retrieval evaluations
  bool readOutsideParts = false;      // read project parts outside the project's folder
  bool keepDistributions = false;     // keep each metric's bootstrap resample means (PDF charts)
  // Set from another thread to stop: checked between sources and by the bootstrap. What was
  // collected by then is returned incomplete; the caller, who set it, discards it.
  const std::atomic<bool>* cancel = nullptr;
};

// The report of one run store (eRAG, end-to-end or claim judging), opened read-only; nullopt
// with *error set when it cannot be read.
std::optional<exporting::ReportRun> reportOfStore(const std::filesystem::path& path,
                                                  const stats::BootstrapOptions& bootstrap,
                                                  std::string* error,
                                                  bool keepDistributions = false);

// The report of one retrieval evaluation: every measure's per-query values and its mean with
// a bootstrap CI over the evaluated queries.
exporting::ReportRun reportOfRetrieval(const EvalResult& result,
                                       const stats::BootstrapOptions& bootstrap,
                                       bool keepDistributions = false);

exporting::Report collectReport(const ReportSources& sources, const ReportOptions& options);

}  // namespace ragscope::core::eval
