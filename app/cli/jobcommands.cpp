// ragscope-cli generate and resume over the core job API (core/eval/api/job.h). `generate` is one
// RAG answer per query; `resume` continues any stored run from its store alone (its scores then
// follow as after a run).
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
#include "app/cli/kiltoutputs.h"
#include "app/cli/options.h"
#include "app/cli/pathroles.h"
#include "core/eval/api/job.h"
#include "core/export/json.h"
#include "core/store/runstore.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
using nlohmann::json;

constexpr const char* kGenerateIntro =
    R"(One chat call per query of the dataset with the default RAG prompt: the question and the texts
(from the dataset's corpus) of the run's top-k documents in trec_eval order (k default 5), or no
documents without --run. Every answer is committed to the run store as it arrives; a killed or
cancelled run continues with `ragscope-cli resume RUN.db` and repeats no finished call.
--template FILE replaces the default prompt ({question} and {documents} placeholders).
--out writes JSONL lines {"qid","answer","heuristic","error"}.
)";

constexpr const char* kResumeIntro =
    R"(Continues a stored run with the settings in its store: items with a stored result are skipped,
items pending or in flight when the run stopped are redone. --retry-errors also redoes items
whose call failed. The API key variable's name is stored; --api-key-env overrides it. The other
options override the stored ones for this session.

Files are written only where this command line says: --out for a generate run's answers or an
eRAG run's labels, --claims-out for a judging run's claims. Paths a store names for its output or
claims file are shown as a note and not used, since a store may come from someone else. The
store's response cache is used only when it already is a ragscope response cache; otherwise the
default cache is (or the one --cache names).

--batch sends the calls left through the endpoint's Batch API, --batch-file FILE writes them as
Batch API input lines (see `ragscope-cli batch --help`). A run whose calls went to the Batch API
continues there: a batch it submitted and did not import yet (the process was killed while it
polled) is polled again, never submitted twice, and imported when it ends.

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
  std::string out;
  CommandLine cli("generate");
  cli.synopsis(
      "--dataset PATH [--dataset PATH]... [--run RUNFILE [--k K]] [--out answers.jsonl] "
      "[options] [LLM job options]");
  cli.intro(kGenerateIntro);
  addJobInputOptions(cli, inputs, 10000);
  cli.path("--out", "FILE", out, "write the answers as JSONL").output();
  std::string kiltOut;
  cli.path("--kilt-out", "FILE", kiltOut,
           "also write the answers as a KILT predictions file (each answer with the pages of "
           "the documents its prompt showed), for `ragscope-cli kilt-eval`; needs --out")
      .output();
  addJobOptions(cli, jobOptions);
  if (auto exit = cli.parse(args)) return *exit;
  if (inputs.datasets.empty()) return cli.usageError("generate needs --dataset PATH");
  if (!kiltOut.empty() && out.empty())
    return cli.usageError("--kilt-out needs --out (the answers it is made from)");
  spec.out = out;
  spec.run.type =
      inputs.runPath.empty() ? eval::RunSource::Type::None : eval::RunSource::Type::File;
  const int code = runJobFromCommandLine(spec, inputs, jobOptions, cli, false);
  if (code != 0 || kiltOut.empty() || jobOptions.estimate) return code;
  return writeGenerateKiltPredictions(inputs, out, kiltOut, cli);
}

int resumeCommand(const Args& args) {
  JobOptions jobOptions;
  std::vector<std::string> stores;
  eval::ResumeOverrides overrides;
  bool quiet = false;
  std::string out, claimsOut, labels;
  CommandLine cli("resume");
  cli.synopsis("RUN.db [options] [LLM job options]");
  cli.intro(kResumeIntro);
  cli.positionals("RUN.db", stores, 1);
  cli.positionalRoles({{PathRole::InputAndOutput, "RUN.db"}});
  cli.flag("--retry-errors", overrides.retryErrors, "also redo the items whose call failed");
  cli.flag("--trust-endpoint", overrides.trustEndpoint,
           "confirm the store's endpoint (and where its key comes from) after checking its URL");
  cli.path("--out", "FILE", out,
           "where a generate run's answers, an eRAG run's labels or an assessment's qrels go")
      .output();
  cli.path("--claims-out", "FILE", claimsOut, "where a judging run's claims go").output();
  cli.path("--labels", "PROJECT", labels,
           "an assessment: the project (or labels store) its grades go to as relevance labels "
           "of the judge, as `assess --labels`")
      .input(labelsSourcePaths("--labels", core::PathUse::ReadAndWritten));
  cli.text("--labels-scope", "NAME", overrides.labelsScope, "with --labels: as assess's");
  cli.text("--annotator", "NAME", overrides.annotator, "with --labels: as assess's");
  cli.flag("-q, --quiet", quiet, "no progress line or notes on stderr");
  addJobOptions(cli, jobOptions);
  if (auto exit = cli.parse(args)) return *exit;
  if (stores.empty()) return cli.usageError("resume needs RUN.db");
  if (!jobOptions.batchFile.empty() && jobOptions.batch)
    return cli.usageError(
        "--batch-file writes the calls to a file, --batch sends them: choose one");
  const std::string& storePath = stores.front();
  if (cli.given("--out")) overrides.out = out;
  if (cli.given("--claims-out")) overrides.claimsOut = claimsOut;
  if (cli.given("--labels")) overrides.labels = labels;
  if (labels.empty() && (!overrides.labelsScope.empty() || !overrides.annotator.empty()))
    return cli.usageError("--labels-scope and --annotator go with --labels");
  for (const char* fixed :
       {"--generator", "--judge", "--model", "--judge-model", "--structured-outputs", "--store"}) {
    if (cli.given(fixed))
      return cli.usageError(std::string(fixed) +
                            " is part of the stored run and cannot change on resume");
  }
  // What this command line says overrides the stored settings for this session.
  if (cli.given("--api-key-env")) overrides.apiKeyEnv = jobOptions.apiKeyEnv;
  if (cli.given("--concurrency")) overrides.concurrency = jobOptions.concurrency;
  if (cli.given("--rpm")) overrides.requestsPerMinute = jobOptions.rpm;
  if (cli.given("--timeout")) overrides.timeoutSeconds = jobOptions.timeoutSeconds;
  if (cli.given("--max-tokens")) overrides.maxTokens = jobOptions.maxTokens;
  if (cli.given("--price-in")) overrides.pricePer1kInput = jobOptions.priceIn;
  if (cli.given("--price-out")) overrides.pricePer1kOutput = jobOptions.priceOut;
  if (cli.given("--budget")) overrides.budgetUsd = jobOptions.budget;
  if (cli.given("--no-cache")) overrides.useCache = false;
  if (cli.given("--cache")) overrides.cachePath = jobOptions.cache;

  std::string err;
  auto job = eval::openStoredJob(storePath, overrides, &err);
  if (!job) {
    std::cerr << "ragscope-cli: " << err << "\n";
    return 2;
  }
  // Writing a batch file sends nothing (answers come only from heuristics and the cache).
  if (!jobOptions.batchFile.empty()) job->endpointTrusted = true;
  if (!job->endpointTrusted && !jobOptions.estimate) {
    // Nothing is sent: the store, not the user, chose this endpoint.
    std::cerr
        << "ragscope-cli: resume: " << eval::untrustedEndpointMessage(*job)
        << ".\nNothing was sent. If you know this endpoint and want this run's prompts (and the "
           "key) sent there, run again with --trust-endpoint.\n";
    return 2;
  }
  if (!job->trustNote.empty() && !quiet)
    std::cerr << "ragscope-cli: warning: " << job->trustNote << "\n";
  // The store's own paths are never used: say what it suggested and how to accept it.
  for (const auto& s : job->settings.suggested) {
    if (quiet) break;
    std::cerr
        << "ragscope-cli: note: the store names " << s.path.string() << " for " << s.what
        << "; it is not used (a store does not choose where ragscope writes). To use it, pass "
        << s.option << " with that path.\n";
  }
  const auto before = job->store->counts();
  if (jobOptions.estimate) {
    std::string note;
    auto cache = eval::openJobCache(job->settings.endpoint, job->settings.limits, &note);
    // Calls sent as a batch cost the endpoint's batch prices.
    if (jobOptions.batch || !jobOptions.batchFile.empty())
      job->settings.endpoint = eval::batchPriced(job->settings.endpoint);
    printEstimate(eval::estimateStoredJob(*job, overrides.retryErrors, cache.get()),
                  job->settings.endpoint);
    return 0;
  }
  if (!quiet) {
    std::cerr << "resume: " << job->record.kind << " run, status \"" << job->record.status << "\", "
              << before.done << "/" << before.total << " done, " << before.errors << " errors\n";
  }
  eval::ExecutionOptions execution;
  execution.retryErrors = overrides.retryErrors;
  // --batch-file / --batch: the calls left go to a file or the Batch API; a run whose calls went
  // to the Batch API continues there (its open batches are polled, never sent twice).
  execution.batch = jobBatchOptions(jobOptions, quiet);
  const auto result = runInterruptible(quiet, [&](const eval::JobCallbacks& callbacks) {
    return eval::resumeJob(*job, execution, cliResultOptions(), callbacks);
  });
  ReportOptions report;
  report.budgetUsd = job->settings.limits.budgetUsd;
  return reportJob(result, report);
}

}  // namespace ragscope::cli
