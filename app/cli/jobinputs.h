#pragma once
// Input handling shared by the LLM job commands of ragscope-cli (generate, erag, e2e,
// erag-correlate): usage errors, the argument walk and inputs generate/erag/e2e share, numeric and
// --format option values, and loading datasets with their diagnostics printed. Each helper prints
// its own "ragscope-cli: ..." line so every command reports the same failure the same way. What a
// job records and how it runs is core's (core/eval/job.h).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "app/cli/joboptions.h"

namespace ragscope::cli {

// Prints "ragscope-cli: <message>" and the command's help on stderr; returns exit code 2.
int usageError(const std::string& message, const char* help);

// Takes the argument after args[i] into `into` (advancing i); false when args[i] is the last.
bool nextValue(const Args& args, std::size_t& i, std::string& into);

// The inputs generate, erag and e2e share, from --dataset (repeatable), --format, --run,
// --template, --k and --quiet.
struct JobInputArgs {
  std::vector<std::string> datasets;
  std::string format;
  std::string runPath;
  std::string templatePath;
  std::size_t k = 5;
  bool quiet = false;
};

// Walks the arguments of a job over a dataset (generate, erag, e2e), so the options they share
// parse and fail the same way everywhere: the LLM job options, --help (prints `help` and the job
// options) and the shared inputs (--k from 1 to maxK). Any other argument goes to `own(i)`, which
// may take a value (advancing i) and returns an exit code to end the command, or nothing to go
// on. Returns the command's exit code when it must end here (0 after --help, 2 on usage errors).
std::optional<int> parseJobArgs(const Args& args, JobOptions& options, JobInputArgs& inputs,
                                std::size_t maxK, const char* help,
                                const std::function<std::optional<int>(std::size_t& i)>& own);

// Prints the first 20 diagnostics of `report` on stderr.
void printLoadDiagnostics(const core::LoadReport& report);

// Parses a whole unsigned decimal number (no '-'); false on anything else or on overflow.
bool parseUnsigned(const std::string& text, std::uint64_t& out);

// Parses a whole finite decimal number; false on anything else.
bool parseFiniteDouble(const std::string& text, double& out);

// Parses a whole decimal integer in [min, max]; false on anything else.
bool parseCount(const std::string& text, long min, long max, std::size_t& out);

// "OPTION: expected an integer from MIN to MAX, got 'TEXT'": the one wording of the usage error
// of every count option whose value is out of its range (or not a number at all).
std::string countRangeError(const std::string& option, std::uint64_t min, std::uint64_t max,
                            const std::string& text);

// Resolves a --format value: empty gives no format (auto-detect); false for an unknown name.
bool parseFormatOption(const std::string& name, std::optional<core::Format>& out);

// Loads the --dataset parts; on errors or when there are no queries prints the diagnostics and
// "ragscope-cli: <job>: the dataset has ..." and returns nothing.
std::optional<core::Dataset> loadJobDataset(const std::vector<std::string>& paths,
                                            const std::optional<core::Format>& format,
                                            const core::LoadOptions& options,
                                            const std::string& job);

// The --dataset parts loaded with --format resolved (an unknown --format is a usage error with
// `help`); on a failure prints why and returns nothing.
std::optional<core::Dataset> loadJobInputs(const JobInputArgs& args, const std::string& job,
                                           const char* help);

}  // namespace ragscope::cli
