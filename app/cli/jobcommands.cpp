// ragscope-cli generate / runs / resume: the LLM job plumbing over core/eval's run engine.
// `generate` is the first real job (one RAG answer per query); `resume` continues any stored run
// from its store alone; `runs` lists the stores in a folder.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/eragfinish.h"
#include "app/cli/jobinputs.h"
#include "app/cli/joboptions.h"
#include "core/data/dataset.h"
#include "core/data/loaders.h"
#include "core/eval/generatejob.h"
#include "core/eval/runengine.h"
#include "core/llm/llmjson.h"
#include "core/llm/prompts.h"
#include "core/llm/providerfactory.h"
#include "core/store/runstore.h"
#include "core/util/sha256.h"

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
                           [--out FILE] [--estimate] [--quiet]

Continues a stored run with the settings in its store: items with a stored result are skipped,
items pending or in flight when the run stopped are redone. --retry-errors also redoes items
whose call failed. The API key variable's name is stored; --api-key-env overrides it. The other
options override the stored ones for this session.
)";

constexpr const char* kRunsHelp = R"(usage: ragscope-cli runs [DIR] [--json]

Lists the run stores in DIR (default: the current folder) with their job, status and item counts.
A run killed mid-way still shows "running"; resume it.
)";

llm::OfflineRole offlineRoleFor(const std::string& kind) {
  return kind == "generate" ? llm::OfflineRole::Reader : llm::OfflineRole::Auto;
}

// What a job does once its calls are through (or stopped): for now, generate's --out file.
int finishJob(store::RunStore& runStore, const std::string& kind, const std::string& out) {
  if (kind == "erag" || kind == "e2e") {
    // eragcommand.cpp: labels and scores from the store; --out (or the stored labels path) is
    // eRAG's --labels-out.
    return finishEvaluationRun(runStore, {kind == "erag" ? out : std::string(), false});
  }
  if (kind == "generate" && !out.empty()) {
    std::string err;
    if (!eval::writeAnswersJsonl(runStore, out, &err)) {
      std::cerr << "ragscope-cli: " << err << "\n";
      return 2;
    }
    std::cout << "answers:    " << out << "\n";
  }
  return 0;
}

int execute(store::RunStore& runStore, const std::string& kind, const llm::EndpointConfig& endpoint,
            const JobOptions& jobOptions, bool retryErrors, const std::string& out, bool quiet) {
  auto cache = llm::isOfflineEndpoint(endpoint) ? nullptr : openCache(jobOptions);
  auto provider = llm::makeProvider(endpoint, offlineRoleFor(kind), cache.get());
  if (jobOptions.estimate) {
    printEstimate(eval::estimateRun(runStore, *provider, retryErrors, cache.get()), endpoint);
    return 0;
  }
  const auto summary = runJobItems(runStore, std::move(provider), jobOptions, retryErrors, quiet);
  printSummary(summary, runStore);
  if (summary.outcome == eval::RunOutcome::PausedBudget) {
    std::cout << "budget:     paused before exceeding $" << jobOptions.budget.value_or(0.0)
              << "; continue with: ragscope-cli resume " << runStore.path().string()
              << " --budget USD\n";
  } else if (summary.outcome == eval::RunOutcome::Cancelled) {
    std::cout << "continue:   ragscope-cli resume " << runStore.path().string() << "\n";
  } else if (summary.outcome == eval::RunOutcome::DoneWithErrors) {
    std::cout << "retry:      ragscope-cli resume " << runStore.path().string()
              << " --retry-errors\n";
  }
  const int finished = finishJob(runStore, kind, out);
  return finished != 0 ? finished : exitCodeFor(summary.outcome);
}

}  // namespace

int generateCommand(const Args& args) {
  JobOptions jobOptions;
  JobInputArgs inputs;
  std::string out;
  const auto ended = parseJobArgs(
      args, jobOptions, inputs, 10000, kGenerateHelp, [&](std::size_t& i) -> std::optional<int> {
        const std::string& a = args[i];
        if (a != "--out") return usageError("generate: unknown argument '" + a + "'", kGenerateHelp);
        if (!nextValue(args, i, out)) return usageError("--out needs a path", kGenerateHelp);
        return std::nullopt;
      });
  if (ended) return *ended;
  if (inputs.datasets.empty()) return usageError("generate needs --dataset PATH", kGenerateHelp);

  const auto loaded = loadJobInputs(inputs, "generate", kGenerateHelp);
  if (!loaded) return 2;
  const Dataset& dataset = loaded->dataset;
  const std::string& templateText = loaded->templateText;
  std::optional<Run> run;
  if (!inputs.runPath.empty()) {
    run = loadJobRun(inputs.runPath, LoadOptions{}, "generate");
    if (!run) return 2;
  }

  auto plan = eval::planGenerate(dataset, run ? &*run : nullptr, inputs.k, templateText);
  for (const auto& w : plan.warnings) std::cerr << "warning: " << w << "\n";
  if (plan.missingDocuments > plan.warnings.size()) {
    std::cerr << "warning: " << plan.missingDocuments << " run documents in all are not in the corpus\n";
  }

  const llm::EndpointConfig endpoint = generatorEndpoint(jobOptions);
  if (jobOptions.estimate) {
    auto cache = llm::isOfflineEndpoint(endpoint) ? nullptr : openCache(jobOptions);
    printItemsEstimate(plan.items, endpoint, cache.get());
    return 0;
  }

  json settings = jobSettings("generate", inputs, out, jobOptions);
  settings["run"] = inputs.runPath.empty() ? json() : inputEntry(inputs.runPath, "trec-run");
  settings["queries"] = dataset.queries.size();
  settings["missing_documents"] = plan.missingDocuments;

  store::RunStore runStore;
  if (!createJobStore(runStore, "generate", std::move(settings), templateText, endpoint, plan.items,
                      jobOptions, inputs.quiet)) {
    return 2;
  }
  return execute(runStore, "generate", endpoint, jobOptions, false, out, inputs.quiet);
}

int resumeCommand(const Args& args) {
  JobOptions jobOptions;
  std::string storePath;
  std::string out;
  bool outGiven = false;
  bool retryErrors = false;
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
      retryErrors = true;
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else if (a == "--out") {
      if (i + 1 >= args.size()) return usageError("--out needs a path", kResumeHelp);
      out = args[++i];
      outGiven = true;
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

  store::RunStore runStore;
  std::string err;
  if (!runStore.open(storePath, &err)) {
    std::cerr << "ragscope-cli: " << err << "\n";
    return 2;
  }
  const auto record = runStore.run();
  const json& settings = record.settings;
  llm::EndpointConfig endpoint = llm::endpointFromJson(record.endpoint);

  // Stored settings, overridden by what this command line says.
  JobOptions effective = jobOptions;
  if (!jobOptions.given.count("--api-key-env")) effective.apiKeyEnv = endpoint.apiKeyEnv;
  endpoint.apiKeyEnv = effective.apiKeyEnv;
  if (!jobOptions.given.count("--concurrency")) {
    effective.concurrency = settings.value("concurrency", static_cast<std::size_t>(endpoint.concurrency));
  }
  endpoint.concurrency = static_cast<int>(effective.concurrency);
  if (jobOptions.given.count("--rpm")) endpoint.requestsPerMinute = jobOptions.rpm;
  if (jobOptions.given.count("--timeout")) endpoint.timeoutSeconds = jobOptions.timeoutSeconds;
  if (jobOptions.given.count("--max-tokens")) endpoint.maxTokens = jobOptions.maxTokens;
  if (jobOptions.given.count("--price-in")) endpoint.pricePer1kInput = jobOptions.priceIn;
  if (jobOptions.given.count("--price-out")) endpoint.pricePer1kOutput = jobOptions.priceOut;
  if (!jobOptions.given.count("--budget") && settings.contains("budget_usd") &&
      settings["budget_usd"].is_number()) {
    effective.budget = settings["budget_usd"].get<double>();
  }
  if (!jobOptions.given.count("--cache") && !jobOptions.given.count("--no-cache") &&
      settings.contains("cache")) {
    if (settings["cache"].is_boolean()) effective.noCache = !settings["cache"].get<bool>();
    if (settings["cache"].is_string()) effective.cache = settings["cache"].get<std::string>();
  }
  if (!outGiven && settings.contains("out") && settings["out"].is_string()) {
    out = settings["out"].get<std::string>();
  }

  const auto before = runStore.counts();
  if (!quiet && !effective.estimate) {
    std::cerr << "resume: " << record.kind << " run, status \"" << record.status << "\", "
              << before.done << "/" << before.total << " done, " << before.errors << " errors\n";
  }
  return execute(runStore, record.kind, endpoint, effective, retryErrors, out, quiet);
}

int runsCommand(const Args& args) {
  std::string dir = ".";
  bool asJson = false;
  bool dirGiven = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kRunsHelp;
      return 0;
    }
    if (a == "--json") {
      asJson = true;
    } else if (a.rfind("-", 0) == 0 || dirGiven) {
      return usageError("runs: unexpected argument '" + a + "'", kRunsHelp);
    } else {
      dir = a;
      dirGiven = true;
    }
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::cerr << "ragscope-cli: " << dir << ": not a folder\n";
    return 2;
  }
  std::vector<std::filesystem::path> stores;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && store::RunStore::looksLikeRunStore(entry.path())) {
      stores.push_back(entry.path());
    }
  }
  std::sort(stores.begin(), stores.end());
  json list = json::array();
  for (const auto& path : stores) {
    store::RunStore s;
    std::string err;
    if (!s.open(path, &err)) {
      list.push_back({{"path", path.string()}, {"error", err}});
      continue;
    }
    const auto record = s.run();
    const auto c = s.counts();
    list.push_back({{"path", path.string()},
                    {"kind", record.kind},
                    {"status", record.status},
                    {"total", c.total},
                    {"done", c.done},
                    {"errors", c.errors},
                    {"not_run", c.pending + c.cancelled},
                    {"cost_usd", c.costUsd},
                    {"updated", record.updated}});
  }
  if (asJson) {
    std::cout << list.dump(2) << "\n";
    return 0;
  }
  if (list.empty()) {
    std::cout << "no run stores in " << dir << "\n";
    return 0;
  }
  std::cout << std::left << std::setw(40) << "run" << std::setw(10) << "job" << std::setw(18)
            << "status" << std::right << std::setw(8) << "items" << std::setw(8) << "done"
            << std::setw(8) << "errors" << std::setw(9) << "not run" << "  updated\n";
  for (const auto& r : list) {
    if (r.contains("error")) {
      std::cout << std::left << std::setw(40) << r["path"].get<std::string>() << "unreadable: "
                << r["error"].get<std::string>() << "\n";
      continue;
    }
    std::cout << std::left << std::setw(40)
              << std::filesystem::path(r["path"].get<std::string>()).filename().string()
              << std::setw(10) << r["kind"].get<std::string>() << std::setw(18)
              << r["status"].get<std::string>() << std::right << std::setw(8)
              << r["total"].get<std::size_t>() << std::setw(8) << r["done"].get<std::size_t>()
              << std::setw(8) << r["errors"].get<std::size_t>() << std::setw(9)
              << r["not_run"].get<std::size_t>() << "  " << r["updated"].get<std::string>() << "\n";
  }
  return 0;
}

}  // namespace ragscope::cli
