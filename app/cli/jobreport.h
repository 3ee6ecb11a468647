#pragma once
// How ragscope-cli runs a core job and tells its outcome, the same for generate, erag, e2e and
// resume: Ctrl-C as cancel and a progress line on stderr around the core call, then per stage the
// store, status, counts, tokens, cost and how to continue, then the job's results (eRAG and
// end-to-end summaries or JSON, the answers file).

#include <functional>

#include "app/cli/joboptions.h"
#include "core/eval/api/job.h"

namespace ragscope::cli {

// Runs `work` with Ctrl-C as its stop request (a second Ctrl-C is left to the default handler)
// and, unless quiet, a progress line a second on stderr.
core::eval::JobResult runInterruptible(
    bool quiet, const std::function<core::eval::JobResult(const core::eval::JobCallbacks&)>& work);

// The result options every command reads stores with (CIs: B = 10,000, seed 42, percentile 95%).
core::eval::ResultOptions cliResultOptions();

struct ReportOptions {
  bool json = false;  // eRAG / end-to-end values as JSON on stdout instead of the summaries
  std::optional<double> budgetUsd;  // for the "paused" hint
};

// Prints the outcome; returns the exit code: 0 done, 1 done with errors, cancelled or paused
// (resumable), 2 failed or the results could not be computed.
int reportJob(const core::eval::JobResult& result, const ReportOptions& options);

// Plans `spec` over `dataset` (the BM25 step included), prints the plan's warnings and calls,
// then either the estimate (`estimate`) or runs it and reports (reportJob). Returns the exit code.
// With a batch mode in `execution`, the calls go to a batch file or the Batch API, and the
// estimate prices them at the endpoint's batch prices.
int runJobCommand(const core::eval::JobSpec& spec, const core::Dataset& dataset, bool estimate,
                  bool quiet, const ReportOptions& report,
                  const core::eval::ExecutionOptions& execution = {});

}  // namespace ragscope::cli
