#pragma once
// Options shared by every LLM job of ragscope-cli (generate, erag, e2e, claims, resume): endpoints,
// key *name*, concurrency and rate, store and cache paths, estimate and budget; plus the pieces
// every job needs around the engine (a progress line on stderr, Ctrl-C as cancel).

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "app/cli/commands.h"
#include "core/eval/runengine.h"
#include "core/llm/provider.h"
#include "core/llm/responsecache.h"

namespace ragscope::cli {

struct JobOptions {
  std::string generator = "offline";  // base URL or "offline"
  std::string judge = "offline";
  std::string model;
  std::string judgeModel;
  std::string apiKeyEnv;              // the variable's name; its value is never stored
  std::size_t concurrency = 8;
  double rpm = 0.0;
  double timeoutSeconds = 60.0;
  int maxTokens = 512;
  double priceIn = 0.0;   // USD per 1k prompt tokens
  double priceOut = 0.0;  // USD per 1k completion tokens
  std::string store;      // run store path
  std::string cache;      // empty: the user cache directory
  bool noCache = false;
  bool estimate = false;
  std::optional<double> budget;
  std::set<std::string> given;  // option names seen on the command line ("--budget", ...)
};

enum class OptionParse { NotMine, Consumed, Error };

// Looks at args[i] (and its value); on Consumed, `i` points at the last argument used.
// Accepts "--opt value" and "--opt=value".
OptionParse parseJobOption(const Args& args, std::size_t& i, JobOptions& options,
                           std::string& error);

// The options' help text, for each job's --help.
const char* jobOptionsHelp();

core::llm::EndpointConfig generatorEndpoint(const JobOptions& options);
core::llm::EndpointConfig judgeEndpoint(const JobOptions& options);

// Opens the response cache unless --no-cache; prints a warning and returns null on failure.
std::unique_ptr<core::llm::ResponseCache> openCache(const JobOptions& options);

// Runs the engine with a progress line on stderr; Ctrl-C cancels (a second Ctrl-C is left to the
// default handler).
core::eval::RunSummary runWithProgress(core::store::RunStore& store, core::llm::Provider& provider,
                                       const core::eval::EngineOptions& options, bool quiet);

void printEstimate(const core::eval::Estimate& estimate, const core::llm::EndpointConfig& endpoint);
void printSummary(const core::eval::RunSummary& summary, core::store::RunStore& store);

}  // namespace ragscope::cli
