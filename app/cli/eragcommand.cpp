// ragscope-cli erag / e2e / erag-correlate (SPEC §6): eRAG document labels from the RAG's own
// generator, end-to-end generation with all top-k documents, and the correlation of retrieval
// evaluation methods with end-to-end quality (the eRAG paper's Table 1). The jobs run on the
// shared LLM job plumbing (joboptions.h, core/eval/runengine.h): every call is committed to the
// run store, a killed run continues with `ragscope-cli resume RUN.db`.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/eragfinish.h"
#include "app/cli/jobinputs.h"
#include "app/cli/joboptions.h"
#include "core/data/dataset.h"
#include "core/data/loaders.h"
#include "core/eval/correlationanalysis.h"
#include "core/eval/e2ejob.h"
#include "core/eval/eragjob.h"
#include "core/eval/runengine.h"
#include "core/llm/llmjson.h"
#include "core/llm/prompts.h"
#include "core/llm/providerfactory.h"
#include "core/retrieval/bm25run.h"
#include "core/retrieval/indexdir.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/xapianindex.h"
#include "core/store/runstore.h"
#include "core/util/sha256.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kEragHelp =
    R"(usage: ragscope-cli erag --dataset PATH [--dataset PATH]... [--format F]
                         (--run RUNFILE | --retriever bm25 [--index DIR])
                         [--k K] [--metric M] [--measures LIST] [--template FILE]
                         [--labels-out FILE] [--json] [--quiet] [LLM job options]

eRAG (Salemi & Zamani, SIGIR 2024): for every query and each of its top-k documents, one
generator call with the RAG prompt holding only that document; the output scored against the
query's gold answers (--metric) is the document's label. Labels are aggregated per query:
  - binary labels (every label of the run 0 or 1): any trec_eval measure, with the labels as the
    query's qrels (relevance level 1) and the list order as the ranking;
  - continuous labels (e.g. rouge-l, f1): only P_k (mean of the first k labels, a shorter list
    padded with 0) and success_k (max of the first k labels); other measures are refused.
Costs N x k calls (end-to-end: N). Every prompt and output is kept in the run store (--store),
with the labels and per-query scores; a killed run continues with `ragscope-cli resume RUN.db`.
The store is an input of `ragscope-cli bootstrap / compare / correlate` (--measure P_5, ...).

  --run RUNFILE       the retrieval run (TREC format) whose top-k lists are evaluated
  --retriever bm25    retrieve the top-k with the embedded BM25 index over the dataset corpus
  --index DIR         bm25 index folder (default beside the dataset, as `retrieve`)
  --k K               documents per query (default 5)
  --metric M          em | f1 | accuracy | rouge-l (default; rouge_score, stemmed) |
                      rouge-l-kilt | contains
  --measures LIST     comma-separated, pytrec_eval or trec_eval names (default P_K,success_K):
                      P_5, success_1, recall_10, map, recip_rank, ndcg_cut_10, ...
  --labels-out FILE   write the per-document labels as JSON {qid: [label at rank 1, ...]}
  --json              print per-query and mean values as JSON instead of the summary
  --template FILE     the RAG prompt ({question}, {documents}); default: the built-in one

)";

constexpr const char* kE2eHelp =
    R"(usage: ragscope-cli e2e --dataset PATH [--dataset PATH]... [--format F]
                        (--run RUNFILE | --retriever bm25 [--index DIR])
                        [--k K] [--metric M] [--template FILE] [--json] [--quiet]
                        [LLM job options]

End-to-end RAG evaluation: one generator call per query with all of its top-k documents in the
prompt, the output scored against the gold answers with --metric (default rouge-l). The same
inputs as `erag`; the per-query scores are what `ragscope-cli erag-correlate` compares eRAG and
the other retrieval evaluations with.
In `ragscope-cli bootstrap / compare / correlate` the store's one measure is named by the
metric (e.g. `correlate erag.db e2e.db --measure P_5 --measure-y rouge-l`).

)";

constexpr const char* kCorrelateHelp =
    R"(usage: ragscope-cli erag-correlate --erag RUN.db --e2e RUN.db [--erag RUN.db --e2e RUN.db]...
                                   [--qrels QRELS] [--measures LIST] [--resamples N]
                                   [--json]

The eRAG paper's Table 1: Kendall's tau-b and Spearman's rho between each retrieval evaluation
method's per-query scores and the end-to-end per-query scores, queries paired by id. Methods:
qrels (with --qrels), provenance (the gold outputs' source documents; chunks count as their
document), contains-answer document labels, and eRAG. Each --erag store is paired with the
--e2e store given in the same position (one pair per system, same downstream metric); with two
or more systems a table over the systems' means follows.

  --measures LIST   default: the eRAG run's measures
  --resamples N     bootstrap resamples for the coefficient CIs (default 1000; 0 = none)
)";

std::string fmt(double v, const char* f = "%.4f") {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

stats::BootstrapOptions summaryBootstrap() {
  stats::BootstrapOptions o;  // B = 10,000, seed 42, percentile 95 %
  return o;
}

// erag and e2e --json: the report's scores with the run's counts under "run"; returns exit code 0.
int printScoresJson(json scores, const json& runInfo) {
  scores["run"] = runInfo;
  std::cout << scores.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  return 0;
}

// Ends the first summary line of an erag or e2e report the same way: the incomplete items left
// out, and a note when outputs come from the offline heuristic reader.
void endSummaryLine(std::size_t incomplete, std::size_t heuristicOutputs) {
  if (incomplete > 0) std::cout << ", " << incomplete << " incomplete left out";
  std::cout << "\n";
  if (heuristicOutputs > 0) {
    std::cout << "            outputs from the offline heuristic reader (heuristic, not an LLM)\n";
  }
}

// Shared by erag and e2e: parse, load, plan, store, run, finish.
int runEvaluationJob(const Args& args, bool erag) {
  const char* help = erag ? kEragHelp : kE2eHelp;
  const std::string job = erag ? "erag" : "e2e";
  JobOptions jobOptions;
  JobInputArgs inputs;
  std::string retriever, indexDir, labelsOut;
  std::string metricText = "rouge-l";
  std::string measuresText;
  bool asJson = false;
  const auto ended = parseJobArgs(args, jobOptions, inputs, 1000, help, [&](std::size_t& i) -> std::optional<int> {
    const std::string& a = args[i];
    if (a == "--retriever") {
      if (!nextValue(args, i, retriever)) return usageError("--retriever needs a name (bm25)", help);
      if (retriever != "bm25") return usageError("--retriever: only bm25 is supported here; "
                                                 "for es:/http: retrievers write a run with "
                                                 "`ragscope-cli retrieve` and pass --run", help);
    } else if (a == "--index") {
      if (!nextValue(args, i, indexDir)) return usageError("--index needs a folder", help);
    } else if (a == "--metric") {
      if (!nextValue(args, i, metricText)) return usageError("--metric needs a name", help);
    } else if (a == "--measures" && erag) {
      if (!nextValue(args, i, measuresText)) return usageError("--measures needs a list", help);
    } else if (a == "--labels-out" && erag) {
      if (!nextValue(args, i, labelsOut)) return usageError("--labels-out needs a path", help);
    } else if (a == "--json") {
      asJson = true;
    } else {
      return usageError(job + ": unknown argument '" + a + "'", help);
    }
    return std::nullopt;
  });
  if (ended) return *ended;
  if (inputs.datasets.empty()) return usageError(job + " needs --dataset PATH", help);
  const std::string& runPath = inputs.runPath;
  const std::size_t k = inputs.k;
  const bool quiet = inputs.quiet;
  if (runPath.empty() == retriever.empty()) return usageError(job + " needs either --run RUNFILE or --retriever bm25", help);
  const auto metric = parseDownstreamMetric(metricText);
  if (!metric) return usageError("unknown --metric '" + metricText + "' (em, f1, accuracy, rouge-l, rouge-l-kilt, contains)", help);
  if (measuresText.empty()) measuresText = "P_" + std::to_string(k) + ",success_" + std::to_string(k);
  std::vector<MeasureRequest> measures;
  if (erag) {
    auto parsed = eval::parseEragMeasures(measuresText);
    if (!parsed.ok()) return usageError("--measures: " + parsed.error, help);
    measures = parsed.value;
    // Refuse up front what continuous labels cannot give, rather than after N x k calls.
    if (!isBinaryDownstreamMetric(*metric)) {
      for (const auto& m : measures) {
        if (m.name != "P" && m.name != "success") {
          std::cerr << "ragscope-cli: erag: --measures " << m.name << (m.params ? "_" + *m.params : "")
                    << " with --metric " << downstreamMetricKey(*metric) << ": "
                    << eval::continuousLabelRule() << "\n";
          return 2;
        }
      }
    }
  }

  const auto loaded = loadJobInputs(inputs, job, help);
  if (!loaded) return 2;
  const Dataset& dataset = loaded->dataset;
  const std::string& templateText = loaded->templateText;

  Run run;
  json runSetting;
  std::string systemName;
  if (!runPath.empty()) {
    auto r = loadJobRun(runPath, LoadOptions{}, job);
    if (!r) return 2;
    run = std::move(*r);
    runSetting = inputEntry(runPath, "trec-run");
    systemName = run.tag.empty() ? fs::path(runPath).stem().string() : run.tag;
  } else {
    Bm25RunOptions bo;
    bo.indexDir = indexDir.empty() ? chooseIndexDir(inputs.datasets.front(), dataset.corpus) : fs::path(indexDir);
    bo.k = k;
    bo.threads = 2;
    auto retrieved = retrieveWithBm25(dataset, bo);
    if (!retrieved.ok) {
      std::cerr << "ragscope-cli: " << job << ": " << retrieved.error << "\n";
      return 2;
    }
    for (const auto& d : retrieved.run.report.diagnostics) std::cerr << d.toString() << "\n";
    run = std::move(retrieved.run.value);
    runSetting = std::move(retrieved.setting);
    const IndexBuildResult& built = retrieved.index;
    systemName = "bm25";
    if (!quiet) {
      std::cerr << job << ": bm25 index " << built.dir.string() << (built.reused ? " (reused)" : " (built)")
                << ", " << run.entryCount() << " documents retrieved\n";
    }
  }

  std::vector<store::NewItem> items;
  json plan;
  eval::TopDocuments top;
  if (erag) {
    auto p = eval::planErag(dataset, run, k, templateText);
    items = std::move(p.items);
    plan = std::move(p.plan);
    top = std::move(p.top);
  } else {
    auto p = eval::planE2e(dataset, run, k, templateText);
    items = std::move(p.items);
    plan = std::move(p.plan);
    top = std::move(p.top);
  }
  for (const auto& w : top.warnings) std::cerr << "warning: " << w << "\n";
  if (top.lists.empty()) {
    std::cerr << "ragscope-cli: " << job << ": no query has a gold answer to score outputs against\n";
    return 2;
  }
  std::size_t docs = 0;
  for (const auto& l : top.lists) docs += l.docIds.size();
  const llm::EndpointConfig endpoint = generatorEndpoint(jobOptions);
  const bool offline = llm::isOfflineEndpoint(endpoint);
  if (!quiet || jobOptions.estimate) {
    // SPEC §6: show both costs before a run starts.
    std::cerr << job << ": " << top.lists.size() << " queries, " << docs << " documents (k=" << k
              << "): eRAG needs " << docs << " generator calls, end-to-end " << top.lists.size()
              << "; this run makes " << items.size() << "\n";
  }
  auto cache = offline ? nullptr : openCache(jobOptions);
  if (jobOptions.estimate) {
    printItemsEstimate(items, endpoint, cache.get());
    return 0;
  }

  json settings = jobSettings(job, inputs, labelsOut, jobOptions);
  settings["run"] = runSetting;
  settings["system"] = systemName;
  settings["metric"] = downstreamMetricKey(*metric);
  if (erag) settings["measures"] = measuresText;
  settings["queries"] = top.lists.size();
  settings["missing_documents"] = top.missingDocuments;
  settings["queries_without_gold"] = top.queriesWithoutGold;
  settings["plan"] = std::move(plan);

  store::RunStore runStore;
  if (!createJobStore(runStore, job, std::move(settings), templateText, endpoint, items, jobOptions,
                      quiet)) {
    return 2;
  }
  const auto summary =
      runJobItems(runStore, llm::makeProvider(endpoint, llm::OfflineRole::Reader, cache.get()),
                  jobOptions, false, quiet);
  if (!asJson) {
    printSummary(summary, runStore);
    if (summary.outcome != eval::RunOutcome::Done) {
      std::cout << "continue:   ragscope-cli resume " << runStore.path().string()
                << (summary.outcome == eval::RunOutcome::DoneWithErrors ? " --retry-errors" : "") << "\n";
    }
  }
  EvalFinishOptions finish;
  finish.labelsOut = labelsOut;
  finish.json = asJson;
  const int finished = finishEvaluationRun(runStore, finish);
  return finished != 0 ? finished : exitCodeFor(summary.outcome);
}

}  // namespace

int finishEvaluationRun(store::RunStore& runStore, const EvalFinishOptions& options) {
  const auto record = runStore.run();
  const auto counts = runStore.counts();
  json runInfo{{"path", runStore.path().string()},
               {"kind", record.kind},
               {"status", record.status},
               {"items", counts.total},
               {"done", counts.done},
               {"errors", counts.errors},
               {"not_run", counts.pending + counts.cancelled},
               {"heuristic", counts.heuristic}};
  std::string err;
  if (record.kind == eval::kEragJobKind) {
    const auto report = eval::computeEragReport(runStore, {}, summaryBootstrap());
    if (!report.error.empty()) {
      std::cerr << "ragscope-cli: erag: " << report.error << "\n";
      return 2;
    }
    if (!eval::storeEragScores(runStore.path(), report, &err)) {
      std::cerr << "ragscope-cli: erag: storing the labels: " << err << "\n";
      return 2;
    }
    if (!options.labelsOut.empty()) {
      if (!eval::writeJsonFile(options.labelsOut, eval::labelsJson(report), &err)) {
        std::cerr << "ragscope-cli: " << err << "\n";
        return 2;
      }
    }
    if (options.json) return printScoresJson(eval::eragScoresJson(report), runInfo);
    const auto& a = report.aggregate;
    std::cout << "eRAG:       " << a.qids.size() << " queries scored with " << report.metricKey
              << " labels (" << (a.binary ? "binary: trec_eval measures over the labels"
                                          : "continuous: P and success only")
              << ")";
    endSummaryLine(report.incomplete.size(), report.heuristicOutputs);
    for (std::size_t m = 0; m < a.measures.size(); ++m) {
      std::string ci = "-";
      if (m < report.intervals.size() && report.intervals[m].ok()) {
        ci = "[" + fmt(report.intervals[m].ci.low) + ", " + fmt(report.intervals[m].ci.high) + "]";
      }
      char line[200];
      std::snprintf(line, sizeof line, "  %-14s %8s   95%% CI %-18s n %zu\n", a.measures[m].c_str(),
                    fmt(a.means[m]).c_str(), ci.c_str(), a.values[m].size());
      std::cout << line;
    }
    if (!options.labelsOut.empty()) std::cout << "labels:     " << options.labelsOut << "\n";
    return 0;
  }
  if (record.kind == eval::kE2eJobKind) {
    const auto report = eval::computeE2eReport(runStore, summaryBootstrap());
    if (!report.error.empty()) {
      std::cerr << "ragscope-cli: e2e: " << report.error << "\n";
      return 2;
    }
    if (!eval::storeE2eScores(runStore.path(), report, &err)) {
      std::cerr << "ragscope-cli: e2e: storing the scores: " << err << "\n";
      return 2;
    }
    if (options.json) return printScoresJson(eval::e2eScoresJson(report), runInfo);
    std::string ci = "-";
    if (report.interval.ok() && report.interval.resamples > 0) {
      ci = "[" + fmt(report.interval.ci.low) + ", " + fmt(report.interval.ci.high) + "]";
    }
    std::cout << "end-to-end: " << report.qids.size() << " queries, mean " << report.metricKey << " "
              << fmt(report.mean) << ", 95% CI " << ci << ", n " << report.values.size();
    endSummaryLine(report.incomplete.size(), report.heuristicOutputs);
    return 0;
  }
  return 0;
}

int eragCommand(const Args& args) { return runEvaluationJob(args, true); }

int e2eCommand(const Args& args) { return runEvaluationJob(args, false); }

int eragCorrelateCommand(const Args& args) {
  std::vector<std::string> eragPaths, e2ePaths;
  std::string qrelsPath, measuresText;
  std::size_t resamples = 1000;
  bool asJson = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& into) { return nextValue(args, i, into); };
    std::string v;
    if (a == "--help" || a == "-h") {
      std::cout << kCorrelateHelp;
      return 0;
    } else if (a == "--erag") {
      if (!value(v)) return usageError("--erag needs a run store", kCorrelateHelp);
      eragPaths.push_back(v);
    } else if (a == "--e2e") {
      if (!value(v)) return usageError("--e2e needs a run store", kCorrelateHelp);
      e2ePaths.push_back(v);
    } else if (a == "--qrels") {
      if (!value(qrelsPath)) return usageError("--qrels needs a path", kCorrelateHelp);
    } else if (a == "--measures") {
      if (!value(measuresText)) return usageError("--measures needs a list", kCorrelateHelp);
    } else if (a == "--resamples") {
      if (!value(v)) return usageError("--resamples needs a number", kCorrelateHelp);
      if (!parseCount(v, 0, 1000000, resamples))
        return usageError("--resamples: '" + v + "' is not 0..1000000", kCorrelateHelp);
    } else if (a == "--json") {
      asJson = true;
    } else {
      return usageError("erag-correlate: unknown argument '" + a + "'", kCorrelateHelp);
    }
  }
  if (eragPaths.empty() || eragPaths.size() != e2ePaths.size()) {
    return usageError("erag-correlate needs one --e2e store for each --erag store", kCorrelateHelp);
  }
  std::vector<MeasureRequest> measures;
  if (!measuresText.empty()) {
    auto parsed = eval::parseEragMeasures(measuresText);
    if (!parsed.ok()) return usageError("--measures: " + parsed.error, kCorrelateHelp);
    measures = parsed.value;
  }
  std::optional<Qrels> qrels;
  if (!qrelsPath.empty()) {
    auto q = readTrecQrels(qrelsPath, LoadOptions{});
    if (!q.report.ok() || q.report.hasErrors()) {
      printLoadDiagnostics(q.report);
      std::cerr << "ragscope-cli: erag-correlate: the qrels have errors\n";
      return 2;
    }
    qrels = std::move(q.value);
  }
  std::vector<eval::EragReport> eragReports(eragPaths.size());
  std::vector<eval::E2eReport> e2eReports(e2ePaths.size());
  std::vector<eval::SystemInput> systems;
  stats::BootstrapOptions noBootstrap;
  noBootstrap.resamples = 0;
  for (std::size_t s = 0; s < eragPaths.size(); ++s) {
    store::RunStore eragStore, e2eStore;
    std::string err;
    if (!eragStore.open(eragPaths[s], &err) || !e2eStore.open(e2ePaths[s], &err)) {
      std::cerr << "ragscope-cli: " << err << "\n";
      return 2;
    }
    // The eRAG report with continuous-safe measures; refused measures become rows with notes.
    eragReports[s] = eval::computeEragReport(eragStore, {}, noBootstrap);
    e2eReports[s] = eval::computeE2eReport(e2eStore, noBootstrap);
    for (const auto* error : {&eragReports[s].error, &e2eReports[s].error}) {
      if (!error->empty()) {
        std::cerr << "ragscope-cli: erag-correlate: " << *error << "\n";
        return 2;
      }
    }
    const auto settings = eragStore.run().settings;
    std::string name = settings.value("system", std::string());
    if (name.empty()) name = fs::path(eragPaths[s]).stem().string();
    for (const auto& other : systems) {
      if (other.name == name) name = fs::path(eragPaths[s]).stem().string();
    }
    systems.push_back({name, &eragReports[s], &e2eReports[s]});
  }
  eval::CorrelationAnalysisOptions options;
  options.measures = measures;
  options.qrels = qrels ? &*qrels : nullptr;
  options.stats.resamples = resamples;
  const auto analysis = eval::analyseCorrelation(systems, options);
  if (!analysis.ok()) {
    std::cerr << "ragscope-cli: erag-correlate: " << analysis.error << "\n";
    return 2;
  }
  if (asJson) {
    std::cout << eval::correlationAnalysisJson(analysis).dump(2) << "\n";
  } else {
    std::cout << eval::formatCorrelationAnalysis(analysis);
  }
  return 0;
}

}  // namespace ragscope::cli
