#include "app/cli/joboptions.h"

#include <cmath>
#include <cstdio>
#include <iostream>

namespace ragscope::cli {

using core::llm::EndpointConfig;

void addJobOptions(CommandLine& cli, JobOptions& o) {
  cli.section("LLM job options");
  cli.text("--generator", "URL|offline", o.generator,
           "generator endpoint: an OpenAI-compatible base URL such as http://127.0.0.1:8000/v1, "
           "or \"offline\" (default) for the lexical heuristic reader (labelled heuristic, not "
           "an LLM)");
  cli.text("--judge", "URL|offline", o.judge,
           "judge endpoint for judging jobs (default offline: lexical heuristics)");
  cli.text("--model", "NAME", o.model, "generator model name (default \"default\")");
  cli.text("--judge-model", "NAME", o.judgeModel, "judge model name (default: --model)");
  cli.flag("--structured-outputs", o.structuredOutputs,
           "the judge endpoint honours response_format with a JSON schema: claim lists and "
           "verdicts are asked for and read as schema-bound JSON (a reply that is not the "
           "schema's JSON is unparsed); default: read as text lines");
  cli.text("--api-key-env", "VAR", o.apiKeyEnv,
           "environment variable holding the API key; only its name is stored");
  cli.integer("--concurrency", "N", o.concurrency, 1, 100000,
              "calls in flight at most (default 8); a killed run loses at most N");
  cli.number("--rpm", "N", o.rpm, NumberBounds::atLeast(0),
             "requests per minute at most (default 0: unlimited)");
  cli.number("--timeout", "S", o.timeoutSeconds, NumberBounds::above(0),
             "seconds per call attempt (default 60)");
  cli.integer("--max-tokens", "N", o.maxTokens, 1, 100000,
              "completion tokens per call at most (default 512)");
  cli.number("--price-in", "P", o.priceIn, NumberBounds::atLeast(0),
             "USD per 1k prompt tokens (default 0), for cost figures, --estimate and --budget");
  cli.number("--price-out", "P", o.priceOut, NumberBounds::atLeast(0),
             "USD per 1k completion tokens (default 0)");
  cli.path("--store", "RUN.db", o.store,
           "the run store (default ./ragscope-<job>-<time>.db); resume with `ragscope-cli resume "
           "RUN.db`")
      .output();
  cli.path("--cache", "PATH", o.cache,
           "response cache (default $XDG_CACHE_HOME/ragscope/responses.sqlite or "
           "~/.cache/ragscope/responses.sqlite); a repeated call is never re-sent")
      .inputAndOutput();
  cli.flag("--no-cache", o.noCache, "neither read nor write the response cache");
  cli.flag("--estimate", o.estimate,
           "print calls, estimated tokens (prompt bytes / 4, completions at --max-tokens) and "
           "cost, then exit without calling anything");
  cli.number("--budget", "USD", o.budget, NumberBounds::atLeast(0),
             "pause the run (status \"paused: budget\") before its cost would exceed USD; resume "
             "with a higher --budget");
  cli.path("--batch-file", "FILE", o.batchFile,
           "plan the run, create its store with every call pending, write the calls as Batch API "
           "input lines (OpenAI's Batch API, vLLM's run_batch) and stop without sending "
           "anything; then `ragscope-cli batch import RUN.db results.jsonl` and `resume`")
      .output();
  addBatchApiOptions(cli, o.batch, o.batchPollSeconds,
                     "send the calls through the endpoint's Batch API (upload, create, poll, "
                     "download, import; one batch per judging phase); a killed run's `resume` "
                     "polls the same batch");
  cli.number("--batch-price-in", "P", o.batchPriceIn, NumberBounds::atLeast(0),
             "USD per 1k prompt tokens of batch calls (default: --price-in), for the estimate, "
             "the budget and the cost of imported answers");
  cli.number("--batch-price-out", "P", o.batchPriceOut, NumberBounds::atLeast(0),
             "USD per 1k completion tokens of batch calls (default: --price-out)");
  cli.section("Options");
}

void addBatchApiOptions(CommandLine& cli, bool& batch, double& pollSeconds,
                        const std::string& batchHelp) {
  cli.flag("--batch", batch, batchHelp);
  cli.number("--batch-poll", "S", pollSeconds, NumberBounds::above(0),
             "seconds before the first poll of a batch (default 10; then x1.5, at most 300)");
}

core::eval::BatchOptions jobBatchOptions(const JobOptions& o, bool quiet) {
  core::eval::BatchOptions b = batchApiOptions(o.batch, o.batchPollSeconds, quiet);
  if (!o.batchFile.empty()) {
    b.mode = core::eval::BatchMode::File;
    b.file = o.batchFile;
  }
  return b;
}

core::eval::BatchOptions batchApiOptions(bool batch, double pollSeconds, bool quiet) {
  core::eval::BatchOptions b;
  if (batch) b.mode = core::eval::BatchMode::Api;
  b.pollInitialSeconds = pollSeconds;
  if (!quiet)
    b.onStatus = [](const core::eval::BatchStatusUpdate& u) {
      const std::string next =
          u.nextPollSeconds > 0
              ? ", next poll in " + std::to_string(std::lround(u.nextPollSeconds)) + " s"
              : std::string();
      std::fprintf(stderr, "  batch %s: %s, %lld/%lld done, %lld failed%s\n", u.batchId.c_str(),
                   u.status.c_str(), static_cast<long long>(u.counts.completed + u.counts.failed),
                   static_cast<long long>(u.counts.total), static_cast<long long>(u.counts.failed),
                   next.c_str());
    };
  return b;
}

EndpointConfig generatorEndpoint(const JobOptions& o) {
  // Offline: the one heuristic reader every front end records the same way.
  EndpointConfig c = core::eval::offlineReaderEndpoint();
  if (o.generator != "offline") {
    c.name = "generator";
    c.baseUrl = o.generator;
    c.model = o.model.empty() ? "default" : o.model;
  }
  c.apiKeyEnv = o.apiKeyEnv;
  c.timeoutSeconds = o.timeoutSeconds;
  c.concurrency = static_cast<int>(o.concurrency);
  c.requestsPerMinute = o.rpm;
  c.maxTokens = o.maxTokens;
  c.pricePer1kInput = o.priceIn;
  c.pricePer1kOutput = o.priceOut;
  c.batchPricePer1kInput = o.batchPriceIn;
  c.batchPricePer1kOutput = o.batchPriceOut;
  return c;
}

EndpointConfig judgeEndpoint(const JobOptions& o) {
  EndpointConfig c = generatorEndpoint(o);
  c.name = "judge";
  c.baseUrl = o.judge == "offline" ? "offline" : o.judge;
  c.model = !o.judgeModel.empty() ? o.judgeModel : (!o.model.empty() ? o.model : "");
  if (c.model.empty() && c.baseUrl != "offline") c.model = "default";
  c.structuredOutputs = o.structuredOutputs;
  return c;
}

core::eval::JobLimits jobLimits(const JobOptions& o) {
  core::eval::JobLimits limits;
  limits.concurrency = o.concurrency;
  limits.budgetUsd = o.budget;
  limits.useCache = !o.noCache;
  limits.cachePath = o.cache;
  return limits;
}

int exitCodeFor(core::eval::RunOutcome outcome) {
  switch (outcome) {
    case core::eval::RunOutcome::Done:
    case core::eval::RunOutcome::PausedBatch:  // the calls wait in a batch file or batch
      return 0;
    case core::eval::RunOutcome::DoneWithErrors:
    case core::eval::RunOutcome::Cancelled:
    case core::eval::RunOutcome::PausedBudget:
      return 1;
    case core::eval::RunOutcome::Failed:
      return 2;
  }
  return 2;
}

void printEstimate(const core::eval::Estimate& e, const EndpointConfig& endpoint) {
  std::cout << "estimate:\n"
            << "  calls           " << e.calls << " (" << e.alreadyDone << " items already done";
  if (e.cached) std::cout << ", " << e.cached << " of the calls answered by the cache";
  std::cout << ")\n"
            << "  prompt tokens   " << e.promptTokens << " (prompt bytes / 4)\n"
            << "  output tokens   " << e.completionTokens << " (at most " << endpoint.maxTokens
            << " per call)\n";
  char cost[64];
  std::snprintf(cost, sizeof cost, "%.4f", e.costUsd);
  std::cout << "  cost            $" << cost << " (at $" << endpoint.pricePer1kInput << " / $"
            << endpoint.pricePer1kOutput << " per 1k tokens in / out"
            << (endpoint.baseUrl == "offline" ? "; offline heuristics are free" : "") << ")\n";
}

}  // namespace ragscope::cli
