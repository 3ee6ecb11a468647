#pragma once
// Summaries of retrieval evaluations shared by the GUI's summary table and `ragscope-cli eval`:
// labels that tell runs apart, which measures take a bootstrap CI of their mean, and each
// measure's mean, CI and n, what every summary table shows (core/stats/README.md, "Summaries").
//
//   std::vector<std::string> labels = runLabels(results);   // "rank (BM25/trec_results_dl19.txt)"
//   std::vector<MeasureSummary> s = summarizeRun(results[0], BootstrapOptions{});

#include <cstddef>
#include <string>
#include <vector>

#include "core/metrics/retrievalevaluator.h"
#include "core/stats/bootstrap.h"

namespace ragscope::core::stats {

// One label per result: the run tag (the file when the run has none); runs whose tags collide
// (rank_llm's DL19 runs are all tagged "rank") get " (<folder>/<file>)" appended, and the full
// path when even that collides.
std::vector<std::string> runLabels(const std::vector<EvalResult>& results);

// The same for runs not yet evaluated: (tag, source file) per run, e.g. a dataset's runs.
struct RunName {
  std::string tag;
  std::string source;
};
std::vector<std::string> runLabels(const std::vector<RunName>& runs);

// Whether a column's `all` value is the plain mean of its per-query values, so a bootstrap of the
// mean and paired tests apply (not counts, sums or geometric means).
bool supportsStatistics(const MeasureColumn& column);

// One measure's per-query values of a result, in the result's query (qid) order.
std::vector<double> perQueryValues(const EvalResult& result, std::size_t column,
                                   std::vector<std::string>* qids = nullptr);

struct MeasureSummary {
  double mean = 0.0;      // the `all` value, as trec_eval prints it
  Interval ci{0.0, 0.0};  // bootstrap CI of the mean; NaN bounds when not applicable
  std::size_t n = 0;      // queries averaged over (num_q)
};

// One entry per column of `result` (runid included, with NaN CI). CIs only for columns that
// supportsStatistics(), from bootstrap(perQueryValues, options); resamples 0 = no CIs.
std::vector<MeasureSummary> summarizeRun(const EvalResult& result, const BootstrapOptions& options);

}  // namespace ragscope::core::stats
