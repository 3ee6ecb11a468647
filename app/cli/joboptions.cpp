#include "app/cli/joboptions.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli/jobinputs.h"

namespace ragscope::cli {

namespace {

using core::llm::EndpointConfig;

bool toDouble(const std::string& text, double& out) {
  double v = 0;
  if (!parseFiniteDouble(text, v) || v < 0) return false;
  out = v;
  return true;
}

bool toCount(const std::string& text, std::size_t& out) {
  std::uint64_t v = 0;
  if (!parseUnsigned(text, v) || v == 0 || v > 100000) return false;
  out = static_cast<std::size_t>(v);
  return true;
}

}  // namespace

OptionParse parseJobOption(const Args& args, std::size_t& i, JobOptions& o, std::string& error) {
  std::string name = args[i];
  std::optional<std::string> glued;
  if (name.rfind("--", 0) != 0) return OptionParse::NotMine;
  if (const auto eq = name.find('='); eq != std::string::npos) {
    glued = name.substr(eq + 1);
    name = name.substr(0, eq);
  }
  static const std::set<std::string> kFlags = {"--estimate", "--no-cache"};
  static const std::set<std::string> kValued = {
      "--generator", "--judge",   "--model",      "--judge-model", "--api-key-env",
      "--concurrency", "--rpm",   "--timeout",    "--store",       "--cache",
      "--budget",    "--max-tokens", "--price-in", "--price-out"};
  if (kFlags.count(name)) {
    if (glued) {
      error = name + " takes no value";
      return OptionParse::Error;
    }
    if (name == "--estimate") o.estimate = true;
    if (name == "--no-cache") o.noCache = true;
    o.given.insert(name);
    return OptionParse::Consumed;
  }
  if (!kValued.count(name)) return OptionParse::NotMine;
  std::string value;
  if (glued) {
    value = *glued;
  } else if (i + 1 < args.size()) {
    value = args[++i];
  } else {
    error = name + " needs a value";
    return OptionParse::Error;
  }
  o.given.insert(name);
  auto bad = [&](const char* what) {
    error = name + ": '" + value + "' is not " + what;
    return OptionParse::Error;
  };
  if (name == "--generator") {
    o.generator = value;
  } else if (name == "--judge") {
    o.judge = value;
  } else if (name == "--model") {
    o.model = value;
  } else if (name == "--judge-model") {
    o.judgeModel = value;
  } else if (name == "--api-key-env") {
    o.apiKeyEnv = value;
  } else if (name == "--concurrency") {
    if (!toCount(value, o.concurrency)) return bad("a count from 1 to 100000");
  } else if (name == "--rpm") {
    if (!toDouble(value, o.rpm)) return bad("a non-negative number");
  } else if (name == "--timeout") {
    if (!toDouble(value, o.timeoutSeconds) || o.timeoutSeconds == 0) return bad("a positive number of seconds");
  } else if (name == "--store") {
    o.store = value;
  } else if (name == "--cache") {
    o.cache = value;
  } else if (name == "--budget") {
    double v = 0;
    if (!toDouble(value, v)) return bad("a non-negative amount in USD");
    o.budget = v;
  } else if (name == "--max-tokens") {
    std::size_t v = 0;
    if (!toCount(value, v)) return bad("a positive count");
    o.maxTokens = static_cast<int>(v);
  } else if (name == "--price-in") {
    if (!toDouble(value, o.priceIn)) return bad("a non-negative price");
  } else if (name == "--price-out") {
    if (!toDouble(value, o.priceOut)) return bad("a non-negative price");
  }
  return OptionParse::Consumed;
}

ArgStep takeJobOption(const Args& args, std::size_t& i, JobOptions& options, const char* help,
                      int& exitCode) {
  std::string error;
  switch (parseJobOption(args, i, options, error)) {
    case OptionParse::Consumed:
      return ArgStep::Taken;
    case OptionParse::Error:
      exitCode = usageError(error, help);
      return ArgStep::Exit;
    case OptionParse::NotMine:
      break;
  }
  return ArgStep::NotMine;
}

const char* jobOptionsHelp() {
  return R"(LLM job options:
  --generator URL|offline  generator endpoint: an OpenAI-compatible base URL such as
                           http://127.0.0.1:8000/v1, or "offline" (default) for the lexical
                           heuristic reader (labelled heuristic, not an LLM)
  --judge URL|offline      judge endpoint for judging jobs (default offline: lexical heuristics)
  --model NAME             generator model name (default "default")
  --judge-model NAME       judge model name (default: --model)
  --api-key-env VAR        environment variable holding the API key; only its name is stored
  --concurrency N          calls in flight at most (default 8); a killed run loses at most N
  --rpm N                  requests per minute at most (default unlimited)
  --timeout S              seconds per call attempt (default 60)
  --max-tokens N           completion tokens per call at most (default 512)
  --price-in P, --price-out P
                           USD per 1k prompt / completion tokens (default 0), for cost figures,
                           --estimate and --budget
  --store RUN.db           the run store (default ./ragscope-<job>-<time>.db); resume with
                           `ragscope-cli resume RUN.db`
  --cache PATH             response cache (default $XDG_CACHE_HOME/ragscope/responses.sqlite or
                           ~/.cache/ragscope/responses.sqlite); a repeated call is never re-sent
  --no-cache               neither read nor write the response cache
  --estimate               print calls, estimated tokens (prompt bytes / 4, completions at
                           --max-tokens) and cost, then exit without calling anything
  --budget USD             pause the run (status "paused: budget") before its cost would exceed
                           USD; resume with a higher --budget
)";
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
  return c;
}

EndpointConfig judgeEndpoint(const JobOptions& o) {
  EndpointConfig c = generatorEndpoint(o);
  c.name = "judge";
  c.baseUrl = o.judge == "offline" ? "offline" : o.judge;
  c.model = !o.judgeModel.empty() ? o.judgeModel : (!o.model.empty() ? o.model : "");
  if (c.model.empty() && c.baseUrl != "offline") c.model = "default";
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
