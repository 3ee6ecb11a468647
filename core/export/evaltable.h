#pragma once
// Retrieval evaluation results of several runs as one table, in CSV or JSON (`ragscope-cli eval
// --format csv|json`): rows (run, qid, measures...), each query's row with perQuery, then each
// run's `all` row with, per measure, the mean as trec_eval prints it, its percentile bootstrap CI
// (core/stats/runsummary.h) and n. Runs are labelled by their tag, or by tag (folder/file) when
// tags collide (stats::runLabels). Undefined values are empty cells (CSV) or null (JSON); integer
// measures (num_ret, ...) print without a fraction; relstring, a text measure, is left out.

#include <ostream>
#include <string>
#include <vector>

#include "core/metrics/retrievalevaluator.h"
#include "core/stats/bootstrap.h"

namespace ragscope::core::exporting {

struct EvalTableOptions {
  bool perQuery = false;                 // also one row per query (plain values)
  stats::BootstrapOptions bootstrap;     // the CIs of the `all` rows (resamples 0: none)
  std::vector<std::string> conventions;  // JSON "conventions": what the numbers mean
};

// CSV columns: run, qid, n, then M, M_ci_low, M_ci_high per measure.
void writeEvalCsv(std::ostream& out, const std::vector<EvalResult>& results,
                  const EvalTableOptions& options);

// {"columns", "rows", "runs", "bootstrap", "conventions"}; an `all` row holds {"mean", "ci_low",
// "ci_high", "n"} per measure.
void writeEvalJson(std::ostream& out, const std::vector<EvalResult>& results,
                   const EvalTableOptions& options);

}  // namespace ragscope::core::exporting
