#pragma once
// Inputs shared by the LLM job commands of ragscope-cli (generate, erag, e2e, judge): the dataset
// options they declare alike, and loading the dataset with its diagnostics printed. Each helper
// prints its own "ragscope-cli: ..." line so every command reports the same failure the same way.
// What a job records and how it runs is core's (core/eval/api/job.h).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/joboptions.h"
#include "app/cli/options.h"
#include "core/data/dataset.h"
#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/eval/api/jobspec.h"

namespace ragscope::cli {

// The inputs generate, erag, e2e and judge share, from --dataset (repeatable), --format, --run,
// --template, --k and --quiet.
struct JobInputArgs {
  std::vector<std::string> datasets;
  std::string format;
  std::string runPath;
  std::string templatePath;
  std::size_t k = 5;
  bool quiet = false;
};

// Declares those options on `cli`, --k from 1 to maxK.
void addJobInputOptions(CommandLine& cli, JobInputArgs& inputs, std::size_t maxK);

// Prints the first 20 diagnostics of `report` on stderr.
void printLoadDiagnostics(const core::LoadReport& report);

// Loads the --dataset parts with --format resolved (an unknown --format is a usage error of
// `cli`); on errors or when there are no queries prints the diagnostics and
// "ragscope-cli: <job>: the dataset has ..." and returns nothing.
std::optional<core::Dataset> loadJobInputs(const JobInputArgs& args, const std::string& job,
                                           const CommandLine& cli);

// The end every job command shares: fills what `spec` takes from the command line alike (k,
// template, run file, generator endpoint, limits, store, front end; the command has set its kind,
// run type and own settings), loads the dataset, then plans, runs and reports the job
// (runJobCommand). Returns the exit code.
int runJobFromCommandLine(core::eval::JobSpec spec, const JobInputArgs& inputs,
                          const JobOptions& jobOptions, const CommandLine& cli, bool json);

}  // namespace ragscope::cli
