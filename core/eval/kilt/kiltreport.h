#pragma once
// A KILT evaluation (core/eval/kilt/kilteval.h) as a report run (core/export/reportmodel.h), so
// KILT runs appear in the JSON, CSV and PDF reports: kind "kilt", its metrics named by group
// ("downstream/em", "retrieval/Rprec", "kilt/KILT-em"), each item's values, settings (gold,
// predictions, ks, rank keys, the groups) and KILT's conventions.

#include <filesystem>
#include <string>

#include "core/eval/kilt/kilteval.h"
#include "core/export/reportmodel.h"
#include "core/stats/bootstrap.h"

namespace ragscope::core::eval {

// "downstream/em": the report's name of a KILT metric.
std::string kiltReportMetricName(const KiltMetricSummary& m);

// The run of an evaluation made with the report's bootstrap (B = 0: no CIs); with
// `keepDistributions` each metric keeps its resample means for the PDF's charts.
exporting::ReportRun reportOfKilt(const KiltEvaluation& evaluation,
                                  const stats::BootstrapOptions& bootstrap,
                                  bool keepDistributions = false);

// Evaluates GOLD against GUESS (ks 1,5, wikipedia_id, as KILT's eval_downstream) and makes its
// run; nullopt with *error ("GUESS: why") when the files cannot be scored.
std::optional<exporting::ReportRun> reportOfKiltFiles(const std::filesystem::path& gold,
                                                      const std::filesystem::path& guess,
                                                      const stats::BootstrapOptions& bootstrap,
                                                      std::string* error,
                                                      bool keepDistributions = false);

}  // namespace ragscope::core::eval
