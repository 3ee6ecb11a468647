#pragma once
// Input handling shared by the LLM job commands of ragscope-cli (generate, erag, e2e,
// erag-correlate): usage errors, the argument walk and inputs generate/erag/e2e share, numeric and
// --format option values, the prompt template, loading datasets and runs with their diagnostics
// printed, and the stored settings and run store every job creates. Each helper prints its own
// "ragscope-cli: ..." line so every command reports the same failure the same way.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/llm/provider.h"
#include "core/store/runstore.h"
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

// Local time as YYYYMMDD-HHMMSS, for default run store names.
std::string timestamp();

// The settings entry of one input file: absolute path, format name (if any) and content hash.
nlohmann::json inputEntry(const std::filesystem::path& path, const std::string& format);

// Prints the first 20 diagnostics of `report` on stderr.
void printLoadDiagnostics(const core::LoadReport& report);

// Parses a whole unsigned decimal number (no '-'); false on anything else or on overflow.
bool parseUnsigned(const std::string& text, std::uint64_t& out);

// Parses a whole finite decimal number; false on anything else.
bool parseFiniteDouble(const std::string& text, double& out);

// Parses a whole decimal integer in [min, max]; false on anything else.
bool parseCount(const std::string& text, long min, long max, std::size_t& out);

// Resolves a --format value: empty gives no format (auto-detect); false for an unknown name.
bool parseFormatOption(const std::string& name, std::optional<core::Format>& out);

// The --template file's text, or the default RAG template when `path` is empty; on a read failure
// prints the error and returns nothing.
std::optional<std::string> readTemplateOrDefault(const std::string& path);

// Loads the --dataset parts; on errors or when there are no queries prints the diagnostics and
// "ragscope-cli: <job>: the dataset has ..." and returns nothing.
std::optional<core::Dataset> loadJobDataset(const std::vector<std::string>& paths,
                                            const std::optional<core::Format>& format,
                                            const core::LoadOptions& options,
                                            const std::string& job);

// The dataset (--format resolved, parts loaded) and the prompt template of a job; on a failure
// prints why (an unknown --format as a usage error with `help`) and returns nothing.
struct JobInputs {
  core::Dataset dataset;
  std::string templateText;
};
std::optional<JobInputs> loadJobInputs(const JobInputArgs& args, const std::string& job,
                                       const char* help);

// The settings every job stores: its job name, datasets (with hashes), k, template source and
// output file, and the options resume restores (concurrency, budget, cache). The caller adds its
// own (run, queries, ...).
nlohmann::json jobSettings(const std::string& job, const JobInputArgs& args, const std::string& out,
                           const JobOptions& options);

// Creates the run store (--store, default ragscope-<job>-<time>.db) with the run record and the
// planned items, and unless quiet says "<job>: N calls to ..., store PATH" on stderr; prints the
// error and returns false on failure.
bool createJobStore(core::store::RunStore& store, const std::string& job, nlohmann::json settings,
                    const std::string& templateText, const core::llm::EndpointConfig& endpoint,
                    const std::vector<core::store::NewItem>& items, const JobOptions& options,
                    bool quiet);

// Reads a TREC run; on errors prints the diagnostics and "ragscope-cli: <job>: the run has errors".
std::optional<core::Run> loadJobRun(const std::string& path, const core::LoadOptions& options,
                                    const std::string& job);

}  // namespace ragscope::cli
