// ragscope-cli generate and resume over the core job API (core/eval/job.h). `generate` is one RAG
// answer per query; `resume` continues any stored run from its store alone (its scores then follow
// as after a run).
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/joboptions.h"
#include "app/cli/jobreport.h"
#include "core/eval/job.h"
#include "core/export/json.h"
#include "core/store/runstore.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
using nlohmann::json;

constexpr const char* kGenerateHelp =
    R"(usage: ragscope-cli generate --dataset PATH [--dataset PATH]... [--format F]
                             [--run RUNFILE [--k K]] [--template FILE] [--out answers.jsonl]
                             [--quiet] [LLM job options]

One chat call per query of the dataset with the default RAG prompt: the question and the texts
(from the dataset's corpus) of the run's top-k documents in trec_eval order (k default 5), or no
documents without --run. Every answer is committed to the run store as it arrives; a killed or
cancelled run continues with `ragscope-cli resume RUN.db` and repeats no finished call.
--template FILE replaces the default prompt ({question} and {documents} placeholders).
--out writes JSONL lines {"qid","answer","heuristic","error"}.

)";

constexpr const char* kResumeHelp =
    R"(usage: ragscope-cli resume RUN.db [--retry-errors] [--api-key-env VAR] [--budget USD]
                           [--concurrency N] [--rpm N] [--timeout S] [--cache PATH] [--no-cache]
                           [--out FILE] [--claims-out FILE] [--trust-endpoint] [--estimate]
                           [--quiet]

Continues a stored run with the settings in its store: items with a stored result are skipped,
items pending or in flight when the run stopped are redone. --retry-errors also redoes items
whose call failed. The API key variable's name is stored; --api-key-env overrides it. The other
options override the stored ones for this session.

Files are written only where this command line says: --out for a generate run's answers or an
eRAG run's labels, --claims-out for a judging run's claims. Paths a store names for its output or
claims file are shown as a note and not used, since a store may come from someone else. The
store's response cache is used only when it already is a ragscope response cache; otherwise the
default cache is (or the one --cache names).

A store names the endpoint its calls go to and where their key comes from. A run started on this
machine resumes as it is; a store from elsewhere (or one naming an endpoint you never used here
with that key) is refused until you check its URL and confirm it with --trust-endpoint, which
records the endpoint in $XDG_CONFIG_HOME/ragscope/trusted-endpoints.json.
)";

}  // namespace

int generateCommand(const Args& args) {
  JobOptions jobOptions;
  JobInputArgs inputs;
  eval::JobSpec spec;
  spec.kind = eval::JobKind::Generate;
  const auto ended = parseJobArgs(
      args, jobOptions, inputs, 10000, kGenerateHelp, [&](std::size_t& i) -> std::optional<int> {
        const std::string& a = args[i];
        std::string out;
        if (a != "--out") return usageError("generate: unknown argument '" + a + "'", kGenerateHelp);
        if (!nextValue(args, i, out)) return usageError("--out needs a path", kGenerateHelp);
        spec.out = out;
        return std::nullopt;
      });
  if (ended) return *ended;
  if (inputs.datasets.empty()) return usageError("generate needs --dataset PATH", kGenerateHelp);
  spec.k = inputs.k;
  spec.templatePath = inputs.templatePath;
  spec.run.type = inputs.runPath.empty() ? eval::RunSource::Type::None : eval::RunSource::Type::File;
  spec.run.file = inputs.runPath;
  spec.endpoint = generatorEndpoint(jobOptions);
  spec.limits = jobLimits(jobOptions);
  spec.store = jobOptions.store;
  spec.frontEnd = "cli";

  const auto dataset = loadJobInputs(inputs, "generate", kGenerateHelp);
  if (!dataset) return 2;
  ReportOptions report;
  report.budgetUsd = jobOptions.budget;
  return runJobCommand(spec, *dataset, jobOptions.estimate, inputs.quiet, report);
}

int resumeCommand(const Args& args) {
  JobOptions jobOptions;
  std::string storePath;
  eval::ResumeOverrides overrides;
  bool quiet = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    int exitCode = 0;
    const ArgStep step = takeJobOption(args, i, jobOptions, kResumeHelp, exitCode);
    if (step == ArgStep::Exit) return exitCode;
    if (step == ArgStep::Taken) continue;
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kResumeHelp << "\n" << jobOptionsHelp();
      return 0;
    }
    if (a == "--retry-errors") {
      overrides.retryErrors = true;
    } else if (a == "--trust-endpoint") {
      overrides.trustEndpoint = true;
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else if (a == "--out") {
      if (i + 1 >= args.size()) return usageError("--out needs a path", kResumeHelp);
      overrides.out = args[++i];
    } else if (a == "--claims-out") {
      if (i + 1 >= args.size()) return usageError("--claims-out needs a path", kResumeHelp);
      overrides.claimsOut = args[++i];
    } else if (a.rfind("-", 0) == 0) {
      return usageError("resume: unknown option '" + a + "'", kResumeHelp);
    } else if (storePath.empty()) {
      storePath = a;
    } else {
      return usageError("resume takes one run store", kResumeHelp);
    }
  }
  if (storePath.empty()) return usageError("resume needs RUN.db", kResumeHelp);
  for (const char* fixed : {"--generator", "--judge", "--model", "--judge-model", "--store"}) {
    if (jobOptions.given.count(fixed)) {
      return usageError(std::string(fixed) + " is part of the stored run and cannot change on resume",
                        kResumeHelp);
    }
  }
  // What this command line says overrides the stored settings for this session.
  const auto& given = jobOptions.given;
  if (given.count("--api-key-env")) overrides.apiKeyEnv = jobOptions.apiKeyEnv;
  if (given.count("--concurrency")) overrides.concurrency = jobOptions.concurrency;
  if (given.count("--rpm")) overrides.requestsPerMinute = jobOptions.rpm;
  if (given.count("--timeout")) overrides.timeoutSeconds = jobOptions.timeoutSeconds;
  if (given.count("--max-tokens")) overrides.maxTokens = jobOptions.maxTokens;
  if (given.count("--price-in")) overrides.pricePer1kInput = jobOptions.priceIn;
  if (given.count("--price-out")) overrides.pricePer1kOutput = jobOptions.priceOut;
  if (given.count("--budget")) overrides.budgetUsd = jobOptions.budget;
  if (given.count("--no-cache")) overrides.useCache = false;
  if (given.count("--cache")) overrides.cachePath = jobOptions.cache;

  std::string err;
  auto job = eval::openStoredJob(storePath, overrides, &err);
  if (!job) {
    std::cerr << "ragscope-cli: " << err << "\n";
    return 2;
  }
  if (!job->endpointTrusted && !jobOptions.estimate) {
    // Nothing is sent: the store, not the user, chose this endpoint.
    std::cerr << "ragscope-cli: resume: " << eval::untrustedEndpointMessage(*job)
              << ".\nNothing was sent. If you know this endpoint and want this run's prompts (and the "
                 "key) sent there, run again with --trust-endpoint.\n";
    return 2;
  }
  if (!job->trustNote.empty() && !quiet) std::cerr << "ragscope-cli: warning: " << job->trustNote << "\n";
  // The store's own paths are never used: say what it suggested and how to accept it.
  for (const auto& s : job->settings.suggested) {
    if (quiet) break;
    std::cerr << "ragscope-cli: note: the store names " << s.path.string() << " for " << s.what
              << "; it is not used (a store does not choose where ragscope writes). To use it, pass "
              << s.option << " with that path.\n";
  }
  const auto before = job->store->counts();
  if (jobOptions.estimate) {
    std::string note;
    auto cache = eval::openJobCache(job->settings.endpoint, job->settings.limits, &note);
    printEstimate(eval::estimateStoredJob(*job, overrides.retryErrors, cache.get()), job->settings.endpoint);
    return 0;
  }
  if (!quiet) {
    std::cerr << "resume: " << job->record.kind << " run, status \"" << job->record.status << "\", " << before.done
              << "/" << before.total << " done, " << before.errors << " errors\n";
  }
  eval::ExecutionOptions execution;
  execution.retryErrors = overrides.retryErrors;
  const auto result = runInterruptible(quiet, [&](const eval::JobCallbacks& callbacks) {
    return eval::resumeJob(*job, execution, cliResultOptions(), callbacks);
  });
  ReportOptions report;
  report.budgetUsd = job->settings.limits.budgetUsd;
  return reportJob(result, report);
}

}  // namespace ragscope::cli
