#pragma once
// Options shared by every LLM job of ragscope-cli (generate, erag, e2e, claims, resume): endpoints,
// key *name*, concurrency and rate, store and cache paths, estimate and budget, turned into the
// core job API's endpoint and limits (core/eval/api/jobspec.h).

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "core/eval/api/jobspec.h"
#include "core/eval/engine/batchrun.h"
#include "core/eval/engine/runengine.h"
#include "core/llm/provider.h"

namespace ragscope::cli {

struct JobOptions {
  std::string generator = "offline";  // base URL or "offline"
  std::string judge = "offline";
  std::string model;
  std::string judgeModel;
  bool structuredOutputs = false;  // the judge honours response_format's JSON schema
  std::string apiKeyEnv;           // the variable's name; its value is never stored
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
  // Batch calls (core/eval/engine/batchrun.h): write the calls to a file, or send them as batches.
  std::string batchFile;
  bool batch = false;
  double batchPollSeconds = 10.0;  // first wait between polls (then x1.5, at most 5 minutes)
  std::optional<double> batchPriceIn;
  std::optional<double> batchPriceOut;
};

// Declares the LLM job options on `cli`, in their own help section; `cli.given("--budget")` then
// tells which were on the command line (resume overrides only those).
void addJobOptions(CommandLine& cli, JobOptions& options);

core::llm::EndpointConfig generatorEndpoint(const JobOptions& options);
core::llm::EndpointConfig judgeEndpoint(const JobOptions& options);

// The limits a job records: concurrency, budget and response cache.
core::eval::JobLimits jobLimits(const JobOptions& options);

// The batch mode --batch-file or --batch asks for (Live when neither), with a status line a poll
// on stderr unless `quiet`.
core::eval::BatchOptions jobBatchOptions(const JobOptions& options, bool quiet);

// --batch (help text `batchHelp`) and --batch-poll S, as every command that can send its calls
// through the Batch API declares them (the LLM jobs, `retrieve` for a dense index's embeddings).
void addBatchApiOptions(CommandLine& cli, bool& batch, double& pollSeconds,
                        const std::string& batchHelp);
// The Batch API's options when `batch` (else Live), first poll after `pollSeconds`, with a status
// line a poll on stderr unless `quiet`.
core::eval::BatchOptions batchApiOptions(bool batch, double pollSeconds, bool quiet);

// The exit code of a job that ran: 0 done; 1 done with errors, cancelled or paused (resumable);
// 2 failed.
int exitCodeFor(core::eval::RunOutcome outcome);

void printEstimate(const core::eval::Estimate& estimate, const core::llm::EndpointConfig& endpoint);

}  // namespace ragscope::cli
