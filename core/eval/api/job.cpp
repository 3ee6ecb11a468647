#include "core/eval/api/job.h"

#include <chrono>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "core/claims/checkingfile.h"
#include "core/data/loaders.h"
#include "core/eval/api/jobinputs.h"
#include "core/eval/api/judgeplan.h"
#include "core/eval/jobs/assessjob.h"
#include "core/eval/jobs/generatejob.h"
#include "core/eval/jobs/jobplanning.h"
#include "core/export/json.h"
#include "core/llm/llmjson.h"
#include "core/llm/prompts.h"
#include "core/llm/providerfactory.h"
#include "core/llm/responsecache.h"
#include "core/llm/routingprovider.h"
#include "core/llm/trustedendpoints.h"
#include "core/retrieval/corpusembedding.h"
#include "core/retrieval/indexdir.h"
#include "core/retrieval/retrievejob.h"
#include "core/trecrag/assessprompt.h"
#include "core/util/inputfile.h"
#include "core/util/sha256.h"
#include "core/util/urlredact.h"

namespace ragscope::core::eval {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool complete(RunOutcome o) { return o == RunOutcome::Done || o == RunOutcome::DoneWithErrors; }

// eRAG's measures, refused up front when continuous labels cannot give them (rather than after
// N x k calls).
std::string checkMeasures(const JobSpec& spec) {
  const auto parsed = parseEragMeasures(eragMeasuresOrDefault(spec.measures, spec.k));
  if (!parsed.ok()) return "measures: " + parsed.error;
  if (isBinaryDownstreamMetric(spec.metric)) return {};
  for (const auto& m : parsed.value)
    if (m.name != "P" && m.name != "success")
      return "measure " + m.name + (m.params ? "_" + *m.params : "") + " with metric " +
             downstreamMetricKey(spec.metric) + ": " + std::string(continuousLabelRule());
  return {};
}

StagePlan makeStage(const JobSpec& spec, JobKind kind, json settings, const JobPlan& plan,
                    std::vector<store::NewItem> items, const fs::path& givenStore) {
  StagePlan stage;
  stage.kind = kind;
  stage.store =
      givenStore.empty() ? freshStorePath(spec.storeFolder, jobKindName(kind)) : givenStore;
  stage.record.kind = std::string(jobKindName(kind));
  stage.record.settings = std::move(settings);
  stage.record.templateText = plan.templateText;
  stage.record.templateHash = llm::templateHash(plan.templateText);
  llm::EndpointConfig endpoint = spec.endpoint;
  endpoint.concurrency = static_cast<int>(spec.limits.concurrency);
  stage.record.endpoint = llm::recordedEndpointJson(endpoint);  // key names, no credentials
  stage.items = std::move(items);
  return stage;
}

// The prompt of every (query, rank) cell of an eRAG report, from the items' stored requests.
std::vector<std::vector<std::string>> eragPrompts(store::RunStore& store,
                                                  const EragReport& report) {
  std::unordered_map<std::string, std::string> byKey;
  for (const auto& item : store.items()) {
    if (item.key.rfind(kEragKeyPrefix, 0) != 0) continue;
    const auto request = llm::requestFromJson(json::parse(item.requestJson, nullptr, false));
    if (!request) continue;
    std::string text;
    for (const auto& m : request->messages) {
      if (!text.empty()) text += "\n\n";
      if (request->messages.size() > 1) text += "[" + m.role + "]\n";
      text += m.content;
    }
    byKey.emplace(item.key, std::move(text));
  }
  std::vector<std::vector<std::string>> prompts;
  prompts.reserve(report.queries.size());
  for (const auto& pq : report.queries) {
    std::vector<std::string> row;
    for (std::size_t r = 0; r < pq.docIds.size(); ++r) {
      const auto it = byKey.find(eragItemKey(pq.qid, r + 1, pq.docIds[r]));
      row.push_back(it == byKey.end() ? std::string() : it->second);
    }
    prompts.push_back(std::move(row));
  }
  return prompts;
}

std::string systemOf(const store::RunRecord& record) {
  const auto it = record.settings.find("system");
  return it != record.settings.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The eRAG and end-to-end results of open stores (either may be null); `labelsOut` non-empty
// writes the eRAG labels there.
EvaluationResults evaluateStores(store::RunStore* erag, store::RunStore* e2e,
                                 const ResultOptions& o, const fs::path& labelsOut) {
  EvaluationResults res;
  res.measures = o.measures;
  std::string err;
  if (erag) {
    res.eragStore = erag->path();
    const auto record = erag->run();
    res.system = systemOf(record);
    if (record.kind != kEragJobKind) {
      res.error =
          res.eragStore.filename().string() + " is a " + record.kind + " run, not an eRAG run";
      return res;
    }
    if (const std::string problem = runRecordProblem(record); !problem.empty()) {
      res.error = res.eragStore.string() + ": " + problem;
      return res;
    }
    if (res.measures.empty())
      res.measures = parseEragMeasures(record.settings["measures"].get<std::string>()).value;
    res.erag = computeEragReport(*erag, res.measures, o.bootstrap);
    if (!res.erag->error.empty()) {
      res.error = "eRAG: " + res.erag->error;
    } else {
      if (o.persist && !storeEragScores(erag->path(), *res.erag, &err))
        res.error = "eRAG: storing the labels: " + err;
      if (!labelsOut.empty() &&
          !exporting::writeJsonFile(labelsOut, labelsJson(*res.erag), &err, 1, false))
        res.error = err;
      if (o.prompts) res.prompts = eragPrompts(*erag, *res.erag);
    }
  }
  if (e2e) {
    res.e2eStore = e2e->path();
    if (res.system.empty()) res.system = systemOf(e2e->run());
    auto report = computeE2eReport(*e2e, o.bootstrap);
    if (!report.error.empty()) {
      if (res.error.empty()) res.error = "end-to-end: " + report.error;
      return res;
    }
    if (o.persist && !storeE2eScores(e2e->path(), report, &err) && res.error.empty())
      res.error = "end-to-end: storing the scores: " + err;
    res.e2e = std::move(report);
  }
  if (res.erag && res.erag->error.empty() && res.e2e) {
    CorrelationAnalysisOptions c;
    c.measures = res.measures;
    c.qrels = o.qrels && !o.qrels->byQuery.empty() ? o.qrels : nullptr;
    c.provenance = true;
    c.stats.resamples = o.correlationResamples;
    c.stats.threads = o.threads;
    res.correlation = analyseCorrelation({{res.system, &*res.erag, &*res.e2e}}, c);
  }
  return res;
}

std::unique_ptr<llm::Provider> jobProvider(const llm::EndpointConfig& endpoint,
                                           std::string_view kind, llm::ResponseCache* cache,
                                           const ExecutionOptions& x) {
  if (x.makeProvider) return x.makeProvider(endpoint);
  llm::EndpointConfig call = endpoint;
  // The front end's key callback (the GUI's keychain secret) wins over the recorded variable.
  if (x.transport.apiKey) call.apiKeyEnv.clear();
  return llm::makeProvider(call, offlineRoleFor(kind), cache, x.transport);
}

// How a stage's calls are made: the front end's batch mode, or the Batch API when the store's
// calls went there before (its batches are polled again, never sent twice).
std::optional<BatchOptions> stageBatchOptions(store::RunStore& store, const ExecutionOptions& x) {
  return continuedBatchOptions(store, x.batch);
}

void keepBatchPass(StageResult& r, BatchPassResult pass) {
  for (auto& f : pass.files) r.batchFiles.push_back(std::move(f));
  for (auto& b : pass.batches) r.batches.push_back(std::move(b));
  r.batchNote += pass.note;
}

StageResult runStage(store::RunStore& store, std::string kindName,
                     const llm::EndpointConfig& endpoint, const JobLimits& limits,
                     llm::ResponseCache* cache, const ExecutionOptions& x, const JobCallbacks& cb) {
  StageResult r;
  r.kindName = std::move(kindName);
  r.kind = jobKindFromName(r.kindName).value_or(JobKind::Generate);
  r.store = store.path();
  if (cb.stageStarted) cb.stageStarted(r.kind, r.store);
  // A dense index's embeddings store (`batch export|submit` of <index>/embeddings.db): its answers
  // are checked and stored as the index build checks and reads them (corpusembedding.h).
  const bool embeddings = r.kindName == kEmbeddingStoreKind;
  if (auto batch = stageBatchOptions(store, x)) {
    CallRoutes routes{r.kindName, endpoint, {}};
    if (embeddings) useEmbeddingAnswers(*batch);
    auto pass = runBatchPass(store, routes, cache, *batch, x.retryErrors, limits.budgetUsd,
                             x.transport, cb.listener, cb.stop);
    r.summary = std::move(pass.summary);
    keepBatchPass(r, std::move(pass));
    r.counts = store.counts();
    r.status = store.run().status;
    return r;
  }
  if (embeddings) {
    // Live calls for it go through the index build, which checks every reply and builds the
    // index at the end: never through a plain resume.
    r.summary.outcome = RunOutcome::Failed;
    r.summary.error = store.path().string() +
                      " is a dense index's embeddings store: the retrieve command that built it "
                      "(the same --retriever dense:URL, --index and embedding options) continues "
                      "it; `ragscope-cli batch export|submit|import` send its calls through batch "
                      "files or the Batch API";
    r.counts = store.counts();
    r.status = store.run().status;
    return r;
  }
  EngineOptions engine;
  engine.concurrency = limits.concurrency;
  engine.budgetUsd = limits.budgetUsd;
  engine.retryErrors = x.retryErrors;
  auto provider = jobProvider(endpoint, r.kindName, cache, x);
  r.summary = executeRun(store, *provider, engine, cb.listener, cb.stop);
  provider.reset();  // every callback has run and its connections are closed before the results
  r.counts = store.counts();
  r.status = store.run().status;
  return r;
}

// The judging job's phases: each pass adds the items that the replies so far allow (answers,
// then claims, then verdicts, then repairs) and runs them, until a pass adds nothing new or the
// engine stops short (cancelled, paused, failed). A resume runs the same loop.
StageResult runJudgeStage(store::RunStore& store, const llm::EndpointConfig& judge,
                          const std::vector<std::pair<std::string, llm::EndpointConfig>>& routes,
                          const JobLimits& limits, llm::ResponseCache* cache,
                          const ExecutionOptions& x, const JobCallbacks& cb,
                          std::optional<JudgeWalk>* finalWalk) {
  StageResult r;
  r.kind = JobKind::Judge;
  r.kindName = std::string(kJudgeJobKind);
  r.store = store.path();
  if (cb.stageStarted) cb.stageStarted(r.kind, r.store);
  auto routing =
      std::make_unique<llm::RoutingProvider>(jobProvider(judge, kJudgeJobKind, cache, x));
  for (const auto& [route, endpoint] : routes)
    routing->addRoute(
        route,
        jobProvider(endpoint, route == "generator" ? jobKindName(JobKind::Generate) : kJudgeJobKind,
                    cache, x));
  EngineOptions engine;
  engine.concurrency = limits.concurrency;
  engine.budgetUsd = limits.budgetUsd;
  std::size_t calls = 0, cached = 0;
  std::optional<JudgeRecordInputs> record;  // read once for all passes
  for (int pass = 0;; ++pass) {
    const store::RunCounts counts = store.counts();
    const std::size_t before = counts.total;
    // A store with no result yet holds its first phase already (the plan added it).
    const bool fresh = pass == 0 && counts.done == 0 && counts.errors == 0;
    JudgeWalk walk = fresh ? JudgeWalk{} : walkJudgeStore(store, true, &record);
    std::string err;
    if (!walk.error.empty() || !store.addItems(walk.items, &err)) {
      r.summary.outcome = RunOutcome::Failed;
      r.summary.error = walk.error.empty() ? err : walk.error;
      break;
    }
    if (pass > 0 && store.counts().total == before) {
      // Nothing new: every phase is done, and this pass saw the final replies.
      *finalWalk = std::move(walk);
      break;
    }
    engine.retryErrors = x.retryErrors && pass == 0;
    RunSummary s;
    if (auto batch = stageBatchOptions(store, x)) {
      // One batch per phase: each pass's calls are planned from the replies of the last, and
      // what the answers found here (offline, cached) allow is planned before a batch goes.
      batch->planMore = [&store, &record](std::string* error) {
        const std::size_t total = store.counts().total;
        JudgeWalk more = walkJudgeStore(store, true, &record);
        if (!more.error.empty()) {
          *error = more.error;
          return false;
        }
        return store.addItems(more.items, error) && store.counts().total > total;
      };
      CallRoutes callRoutes{r.kindName, judge, routes};
      auto batchPass = runBatchPass(store, callRoutes, cache, *batch, engine.retryErrors,
                                    limits.budgetUsd, x.transport, cb.listener, cb.stop);
      s = std::move(batchPass.summary);
      keepBatchPass(r, std::move(batchPass));
    } else {
      s = executeRun(store, *routing, engine, cb.listener, cb.stop);
    }
    calls += s.progress.callsThisSession;
    cached += s.progress.fromCache;
    if (pass == 0) r.summary.skipped = s.skipped;
    const std::size_t skipped = r.summary.skipped;
    r.summary = std::move(s);
    r.summary.skipped = skipped;
    if (!complete(r.summary.outcome)) break;
  }
  r.summary.progress.callsThisSession = calls;
  r.summary.progress.fromCache = cached;
  routing.reset();
  r.counts = store.counts();
  r.status = store.run().status;
  return r;
}

// A judging run's endpoints besides its judge, by route (core/eval/engine/batchrun.h).
std::vector<std::pair<std::string, llm::EndpointConfig>> recordedRoutes(const json& settings) {
  return recordedCallRoutes(settings);
}

// Routes are recorded with their URLs' credentials redacted (llm::recordedEndpointJson); a new
// run calls the URLs the user gave, whose redactions they are.
std::vector<std::pair<std::string, llm::EndpointConfig>> routesWithGivenUrls(
    std::vector<std::pair<std::string, llm::EndpointConfig>> routes,
    const std::vector<llm::EndpointConfig>& given) {
  for (auto& [route, endpoint] : routes)
    for (const auto& g : given)
      if (g.baseUrl != endpoint.baseUrl && redactUrl(g.baseUrl) == endpoint.baseUrl) {
        endpoint.baseUrl = g.baseUrl;
        break;
      }
  return routes;
}

// A stored endpoint whose URL's credentials were redacted is called with the URL this user's own
// trust registry holds for it (the one it is the redaction of), never with the placeholder.
void restoreRecordedUrl(llm::EndpointConfig& endpoint, const llm::TrustedEndpoints& registry) {
  if (!isRedactedUrl(endpoint.baseUrl)) return;
  if (auto full = registry.fullUrlOf(endpoint)) endpoint.baseUrl = std::move(*full);
}

// After a judging run: the metrics from the store, and the claims file when the user named one
// (`claimsOut`: the spec's on a new run, the resume's own on a resume, never the store's).
void finishJudge(JobResult& out, store::RunStore& store, const ResultOptions& results,
                 std::optional<JudgeWalk> finalWalk, const fs::path& claimsOut) {
  auto report = finalWalk ? summarizeJudgeWalk(std::move(*finalWalk), results.bootstrap)
                          : computeJudgeReport(store, results.bootstrap);
  if (!report.error.empty()) {
    if (out.error.empty()) out.error = report.error;
    return;
  }
  if (!claimsOut.empty()) {
    const fs::path& path = claimsOut;
    const auto examples = judgeClaimExamples(report);
    const auto scores = claims::scoreCorpus(examples, report.settings.mode == JudgeMode::RagChecker
                                                          ? claims::Mode::RagChecker
                                                          : claims::Mode::RagScope);
    std::string err;
    if (claims::writeCheckingOutput(path, examples, &scores, &err))
      out.claimsOut = path;
    else if (out.error.empty())
      out.error = err;
  }
  out.judge = std::move(report);
}

// After the engine, whatever the outcome: generate's answers file, eRAG / end-to-end scores.
void finishStages(JobResult& out, store::RunStore* generate, store::RunStore* erag,
                  store::RunStore* e2e, const fs::path& outFile, const ResultOptions& results) {
  if (generate && !outFile.empty()) {
    std::string err;
    if (writeAnswersJsonl(*generate, outFile, &err))
      out.answers = outFile;
    else if (out.error.empty())
      out.error = err;
  }
  if (erag || e2e) {
    ResultOptions o = results;
    o.persist = true;
    out.evaluation = evaluateStores(erag, e2e, o, erag ? outFile : fs::path());
    if (out.error.empty()) out.error = out.evaluation.error;
    if (erag && !outFile.empty() && out.evaluation.error.empty()) out.labels = outFile;
  }
}

// An assessment's one stage (core/eval/jobs/assessjob.h): the people's qrels (the file the spec
// names, else the dataset's), the pairs, and the store's record with the plan; when the run
// merges, the people's qrels go into the store so a resume writes the same merge.
void planAssessStage(const JobSpec& spec, const Dataset& dataset, const ResolvedRun& run,
                     JobPlan& plan) {
  const AssessJobOptions& o = spec.assess;
  if (o.repeats < 1 || o.repeats > kMaxAssessRepeats) {
    plan.error = "repeats must be between 1 and " + std::to_string(kMaxAssessRepeats);
    return;
  }
  if (o.depth < 1) {
    plan.error = "the depth must be at least 1";
    return;
  }
  Qrels fileQrels;
  const Qrels* qrels = &dataset.qrels;
  json qrelsSetting = "dataset";
  if (!o.qrels.empty()) {
    auto loaded = readTrecQrels(o.qrels, LoadOptions{});
    for (auto& d : loaded.report.diagnostics) plan.report.diagnostics.push_back(std::move(d));
    if (!loaded.report.ok() || loaded.report.hasErrors()) {
      plan.error = o.qrels.string() + ": the qrels cannot be read";
      return;
    }
    fileQrels = std::move(loaded.value);
    qrels = &fileQrels;
    qrelsSetting = inputFileEntry(o.qrels, "trec-qrels");
  }
  auto p = planAssess(dataset, *run.run, *qrels, o, plan.templateText);
  json settings = recordSettings(spec, JobKind::Assess, dataset, run.setting, run.system);
  settings["depth"] = o.depth;
  settings["all"] = o.all;
  settings["repeats"] = o.repeats;
  settings["merge_qrels"] = o.mergeQrels;
  settings["qrels"] = std::move(qrelsSetting);
  settings["dataset_name"] = dataset.name;
  settings["pairs"] = p.pairs.size();
  settings["queries"] = p.queries;
  settings["judged_left_out"] = p.judgedLeftOut;
  settings["judged_regraded"] = p.judgedRegraded;
  settings["missing_documents"] = p.missingDocuments;
  settings["queries_without_text"] = p.queriesWithoutText;
  settings["plan"] = std::move(p.plan);
  StagePlan stage =
      makeStage(spec, JobKind::Assess, std::move(settings), plan, std::move(p.items), spec.store);
  if (o.mergeQrels) stage.data.emplace_back("human_qrels", exporting::jsonText(qrelsJson(*qrels)));
  plan.queries = p.queries;
  plan.documents = p.pairs.size();
  plan.missingDocuments = p.missingDocuments;
  for (auto& w : p.warnings) addPlanWarning(plan.warnings, std::move(w));
  if (p.pairs.empty()) {
    plan.error = p.judgedLeftOut > 0
                     ? "no pair to grade: every pair in the top " + std::to_string(o.depth) +
                           " is judged (--all grades them again)"
                     : "no pair to grade (no ranking holds a query and a "
                       "document the dataset has)";
    return;
  }
  plan.stages.push_back(std::move(stage));
}

// After an assessment's engine pass: the grades read back; once no reply is pending, the qrels
// written where the user named them (`outFile`) and the labels added where the user named them
// (`assess`: the run's spec or the resume's overrides; null: none).
void finishAssess(JobResult& out, store::RunStore& store, const fs::path& outFile,
                  const AssessJobOptions* assess, const llm::EndpointConfig& endpoint) {
  auto report = computeAssessReport(store);
  if (!report.error.empty()) {
    if (out.error.empty()) out.error = report.error;
    return;
  }
  std::string err;
  if (report.complete() && !outFile.empty()) {
    trecrag::MergedQrels merged;
    if (writeAssessQrels(report, outFile, &merged, &err)) {
      out.qrels = outFile;
      if (report.mergeQrels) {
        merged.text.clear();
        out.mergedQrels = std::move(merged);
      }
    } else if (out.error.empty()) {
      out.error = err;
    }
  }
  if (report.complete() && assess && !assess->labels.empty()) {
    const json settings = store.run().settings;
    const auto it = settings.find("dataset_name");
    const std::string name = it != settings.end() && it->is_string() ? it->get<std::string>() : "";
    const std::string scope = assess->labelsScope.empty() ? name : assess->labelsScope;
    const std::string annotator =
        assess->annotator.empty() ? "judge:" + endpoint.model : assess->annotator;
    AssessLabelsResult written;
    if (scope.empty()) {
      if (out.error.empty())
        out.error = "the labels need a scope: the dataset has no name (--labels-scope NAME)";
    } else if (writeAssessLabels(report, assess->labels, scope, annotator, store.path(), &written,
                                 &err)) {
      out.assessLabels = written;
      out.assessLabelsPath = assess->labels;
      out.assessLabelsScope = scope;
      out.assessAnnotator = annotator;
    } else if (out.error.empty()) {
      out.error = "labels: " + err;
    }
  }
  out.assess = std::move(report);
}

}  // namespace

JobPlan planJob(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& callbacks) {
  JobPlan plan;
  auto templateText = readJobTemplate(
      spec.templatePath, &plan.error,
      spec.kind == JobKind::Assess ? trecrag::defaultAssessTemplate() : llm::defaultRagTemplate());
  if (!templateText) return plan;
  plan.templateText = std::move(*templateText);
  if (spec.kind == JobKind::Erag) {
    plan.error = checkMeasures(spec);
    if (!plan.error.empty()) return plan;
  }
  if (spec.kind == JobKind::Judge) {
    planJudge(spec, dataset, callbacks, plan);
    return plan;
  }
  if (spec.kind != JobKind::Generate && dataset.queries.empty()) {
    plan.error = "the dataset has no queries";
    return plan;
  }
  ResolvedRun run;
  if (!resolveRun(spec, dataset, callbacks, plan, run)) return plan;
  plan.system = run.system;

  if (spec.kind == JobKind::Assess) {
    planAssessStage(spec, dataset, run, plan);
    return plan;
  }

  if (spec.kind == JobKind::Generate) {
    auto g = planGenerate(dataset, run.run, spec.k, plan.templateText);
    plan.queries = dataset.queries.size();
    plan.missingDocuments = g.missingDocuments;
    for (auto& w : g.warnings) addPlanWarning(plan.warnings, std::move(w));
    json settings = recordSettings(spec, JobKind::Generate, dataset, run.setting, run.system);
    settings["queries"] = plan.queries;
    settings["missing_documents"] = plan.missingDocuments;
    plan.stages.push_back(makeStage(spec, JobKind::Generate, std::move(settings), plan,
                                    std::move(g.items), spec.store));
    return plan;
  }

  // eRAG and end-to-end share the top-k lists (a document missing from the corpus is skipped, so
  // both see the same k documents).
  const bool erag = spec.kind == JobKind::Erag;
  const bool e2e = spec.kind == JobKind::E2e || spec.withEndToEnd;
  auto addStage = [&](JobKind kind, std::vector<store::NewItem> items, json planJson,
                      const TopDocuments& top, const fs::path& store) {
    json settings = recordSettings(spec, kind, dataset, run.setting, run.system);
    settings["queries"] = top.lists.size();
    settings["missing_documents"] = top.missingDocuments;
    settings["queries_without_gold"] = top.queriesWithoutGold;
    settings["plan"] = std::move(planJson);
    plan.stages.push_back(
        makeStage(spec, kind, std::move(settings), plan, std::move(items), store));
  };
  TopDocuments top;
  if (erag) {
    auto p = planErag(dataset, *run.run, spec.k, plan.templateText);
    top = p.top;
    addStage(JobKind::Erag, std::move(p.items), std::move(p.plan), p.top, spec.store);
  }
  if (e2e) {
    auto p = planE2e(dataset, *run.run, spec.k, plan.templateText);
    if (!erag) top = p.top;
    addStage(JobKind::E2e, std::move(p.items), std::move(p.plan), p.top,
             erag ? spec.e2eStore : spec.store);
  }
  plan.queries = top.lists.size();
  for (const auto& l : top.lists) plan.documents += l.docIds.size();
  plan.missingDocuments = top.missingDocuments;
  plan.queriesWithoutGold = top.queriesWithoutGold;
  for (auto w : top.warnings) addPlanWarning(plan.warnings, std::move(w));
  if (top.lists.empty()) {
    plan.error = "no query has a gold answer to score outputs against";
    plan.stages.clear();
  }
  return plan;
}

std::vector<StageEstimate> estimatePlan(const JobPlan& plan, const JobSpec& spec,
                                        llm::ResponseCache* cache) {
  std::vector<StageEstimate> out;
  for (const auto& stage : plan.stages) {
    const llm::EndpointConfig& endpoint =
        stage.kind == JobKind::Judge ? spec.judge.judge : spec.endpoint;
    auto provider = llm::makeProvider(endpoint, offlineRoleFor(jobKindName(stage.kind)), cache);
    out.push_back({stage.kind, estimateItems(stage.items, *provider, cache)});
  }
  return out;
}

JobEstimate estimateJob(const JobSpec& spec, const Dataset& dataset) {
  JobEstimate out;
  if (spec.run.type == RunSource::Type::Retriever) {
    out.error = "the retrieval step runs first; its calls are estimated once its run exists";
    return out;
  }
  const JobPlan plan = planJob(spec, dataset);
  out.error = plan.error;
  out.queries = plan.queries;
  out.queriesWithoutGold = plan.queriesWithoutGold;
  out.missingDocuments = plan.missingDocuments;
  out.heuristic = llm::isOfflineEndpoint(spec.endpoint);
  if (!plan.ok()) return out;
  std::string note;
  auto cache = openJobCache(spec.endpoint, spec.limits, &note);
  out.stages = estimatePlan(plan, spec, cache.get());
  return out;
}

EvaluationResults readEvaluation(const fs::path& eragStore, const fs::path& e2eStore,
                                 const ResultOptions& options) {
  store::RunStore erag, e2e;
  std::string err;
  auto fail = [&](const fs::path& p) {
    EvaluationResults r;
    r.eragStore = eragStore;
    r.e2eStore = e2eStore;
    r.error = err.empty() ? p.string() + ": cannot open" : err;
    return r;
  };
  // Viewing opens read-only (nothing written, no -wal/-shm beside the store); persisting the
  // scores needs the stores writable.
  auto open = [&](store::RunStore& s, const fs::path& p) {
    return options.persist ? s.open(p, &err) : s.openReadOnly(p, &err);
  };
  if (!eragStore.empty() && !open(erag, eragStore)) return fail(eragStore);
  if (!e2eStore.empty() && !open(e2e, e2eStore)) return fail(e2eStore);
  return evaluateStores(eragStore.empty() ? nullptr : &erag, e2eStore.empty() ? nullptr : &e2e,
                        options, {});
}

RunOutcome JobResult::outcome() const {
  if (stages.empty()) return RunOutcome::Failed;
  RunOutcome worst = RunOutcome::Done;
  auto rank = [](RunOutcome o) {
    switch (o) {
      case RunOutcome::Done:
        return 0;
      case RunOutcome::DoneWithErrors:
        return 1;
      case RunOutcome::PausedBudget:
      case RunOutcome::PausedBatch:
        return 2;
      case RunOutcome::Cancelled:
        return 3;
      case RunOutcome::Failed:
        return 4;
    }
    return 4;
  };
  for (const auto& s : stages)
    if (rank(s.summary.outcome) > rank(worst)) worst = s.summary.outcome;
  return worst;
}

std::unique_ptr<llm::ResponseCache> openJobCache(const llm::EndpointConfig& endpoint,
                                                 const JobLimits& limits, std::string* note) {
  if (llm::isOfflineEndpoint(endpoint) || !limits.useCache) return nullptr;
  auto cache = std::make_unique<llm::ResponseCache>();
  const fs::path path =
      limits.cachePath.empty() ? llm::ResponseCache::defaultPath() : limits.cachePath;
  std::string why;
  if (!cache->open(path, &why)) {
    if (note) *note = "response cache not used: " + why;
    return nullptr;
  }
  return cache;
}

JobResult runJob(const JobPlan& plan, const JobSpec& spec, const ExecutionOptions& execution,
                 const ResultOptions& results, const JobCallbacks& callbacks) {
  JobResult out;
  if (!plan.ok()) {
    out.error = plan.cancelled ? "cancelled before the first call" : plan.error;
    return out;
  }
  llm::EndpointConfig endpoint = spec.endpoint;
  endpoint.concurrency = static_cast<int>(spec.limits.concurrency);
  // The user chose this endpoint for a job of their own: its stores resume without asking.
  if (std::string err; !llm::TrustedEndpoints().add(endpoint, "run", &err))
    out.trustNote = "could not record " + shownUrl(llm::normalizeBaseUrl(endpoint.baseUrl)) +
                    " as trusted (resuming will ask to confirm it): " + err;
  llm::EndpointConfig judgeEndpoint = spec.judge.judge;
  judgeEndpoint.concurrency = endpoint.concurrency;
  if (spec.kind == JobKind::Judge) {
    std::vector<llm::EndpointConfig> chosen = {judgeEndpoint};
    if (spec.judge.embedder) chosen.push_back(*spec.judge.embedder);
    if (spec.judge.reranker) chosen.push_back(*spec.judge.reranker);
    for (const auto& e : chosen)
      if (std::string err; !llm::TrustedEndpoints().add(e, "run", &err) && out.trustNote.empty())
        out.trustNote = "could not record " + shownUrl(llm::normalizeBaseUrl(e.baseUrl)) +
                        " as trusted (resuming will ask to confirm it): " + err;
  }
  // The cache serves HTTP endpoints; a judging job's judge may be one while its generator is not.
  auto cache = openJobCache(
      spec.kind == JobKind::Judge && llm::isOfflineEndpoint(endpoint) ? judgeEndpoint : endpoint,
      spec.limits, &out.cacheNote);
  std::vector<std::unique_ptr<store::RunStore>> stores;
  store::RunStore* byKind[3] = {nullptr, nullptr, nullptr};
  for (const auto& stage : plan.stages) {
    auto store = std::make_unique<store::RunStore>();
    std::string err;
    std::error_code ec;
    if (stage.store.has_parent_path()) fs::create_directories(stage.store.parent_path(), ec);
    bool created = store->create(stage.store, stage.record, &err);
    for (const auto& [name, value] : stage.data)
      if (created) created = store->putData(name, value, &err);
    if (!created || !store->addItems(stage.items, &err)) {
      out.error = err;
      break;
    }
    if (stage.kind == JobKind::Judge) {
      std::optional<JudgeWalk> finalWalk;
      std::vector<llm::EndpointConfig> given = {endpoint, judgeEndpoint};
      for (const auto* e : {&spec.judge.embedder, &spec.judge.reranker})
        if (*e) given.push_back(**e);
      out.stages.push_back(runJudgeStage(
          *store, judgeEndpoint, routesWithGivenUrls(recordedRoutes(stage.record.settings), given),
          spec.limits, cache.get(), execution, callbacks, &finalWalk));
      if (out.stages.back().summary.outcome != RunOutcome::PausedBatch)
        finishJudge(out, *store, results, std::move(finalWalk), spec.judge.claimsOut);
      stores.push_back(std::move(store));
      break;
    }
    if (stage.kind == JobKind::Assess) {
      out.stages.push_back(runStage(*store, std::string(kAssessJobKind), endpoint, spec.limits,
                                    cache.get(), execution, callbacks));
      if (out.stages.back().summary.outcome != RunOutcome::PausedBatch)
        finishAssess(out, *store, spec.out, &spec.assess, endpoint);
      stores.push_back(std::move(store));
      break;
    }
    ExecutionOptions stageExecution = execution;
    if (execution.batch.mode == BatchMode::File && !out.stages.empty()) {
      // A later stage's calls go to a file of their own: calls-e2e.jsonl beside calls.jsonl.
      const fs::path& f = execution.batch.file;
      stageExecution.batch.file =
          f.parent_path() /
          (f.stem().string() + "-" + std::string(jobKindName(stage.kind)) + f.extension().string());
    }
    out.stages.push_back(runStage(*store, std::string(jobKindName(stage.kind)), endpoint,
                                  spec.limits, cache.get(), stageExecution, callbacks));
    const RunOutcome outcome = out.stages.back().summary.outcome;
    // Written to a batch file, a stage waits for its results; the next stage's calls do not
    // depend on them (eRAG then end-to-end), so its file is written too.
    if (outcome == RunOutcome::PausedBatch) {
      stores.push_back(std::move(store));
      continue;
    }
    byKind[static_cast<int>(stage.kind)] = store.get();
    stores.push_back(std::move(store));
    if (!complete(outcome)) break;
  }
  finishStages(out, byKind[0], byKind[1], byKind[2], spec.out, results);
  if (out.error.empty() && !out.stages.empty() &&
      out.stages.back().summary.outcome == RunOutcome::Failed)
    out.error = out.stages.back().summary.error;
  return out;
}

std::optional<StoredJob> openStoredJob(const fs::path& path, const ResumeOverrides& overrides,
                                       std::string* error) {
  StoredJob job;
  job.store = std::make_shared<store::RunStore>();
  if (!job.store->open(path, error)) return std::nullopt;
  job.record = job.store->run();
  if (const std::string problem = runRecordProblem(job.record); !problem.empty()) {
    if (error) *error = path.string() + ": " + problem;
    return std::nullopt;
  }
  job.settings = resumeSettings(job.record.endpoint, job.record.settings, overrides);
  const llm::TrustedEndpoints registry;
  // URLs recorded without their credentials get them back from this user's registry (routes in
  // the record's settings, which every later reader takes them from).
  restoreRecordedUrl(job.settings.endpoint, registry);
  for (const char* route : {"generator", "embedder", "reranker"}) {
    auto it = job.record.settings.find(route);
    if (it == job.record.settings.end() || !it->is_object()) continue;
    llm::EndpointConfig e = llm::endpointFromJson(*it);
    restoreRecordedUrl(e, registry);
    (*it)["base_url"] = e.baseUrl;
  }
  if (overrides.trustEndpoint) {
    job.endpointTrusted = true;
    if (std::string err; !registry.add(job.settings.endpoint, "confirmed", &err))
      job.trustNote = "the confirmation is not recorded: " + err;
  } else {
    job.endpointTrusted = registry.isTrusted(job.settings.endpoint, &job.trustNote);
  }
  // A judging run may call more endpoints (its generator, embedder, reranker): the same rule.
  for (const auto& [route, endpoint] : recordedRoutes(job.record.settings)) {
    if (overrides.trustEndpoint) {
      if (std::string err; !registry.add(endpoint, "confirmed", &err))
        job.trustNote = "the confirmation is not recorded: " + err;
    } else if (!registry.isTrusted(endpoint, &job.trustNote) && !job.untrustedRoute) {
      job.endpointTrusted = false;
      job.untrustedRoute = endpoint;
    }
  }
  // A URL still without its credentials cannot be called, confirmed or not.
  if (isRedactedUrl(job.settings.endpoint.baseUrl)) {
    job.endpointTrusted = false;
    job.untrustedRoute.reset();
  } else {
    for (const auto& [route, endpoint] : recordedRoutes(job.record.settings))
      if (isRedactedUrl(endpoint.baseUrl)) {
        job.endpointTrusted = false;
        job.untrustedRoute = endpoint;
        break;
      }
  }
  if (!job.endpointTrusted && isRedactedUrl(job.untrustedRoute ? job.untrustedRoute->baseUrl
                                                               : job.settings.endpoint.baseUrl))
    job.trustNote =
        "its URL's credentials are not kept in run stores, and no endpoint configured on this "
        "machine has them";
  return job;
}

std::string untrustedEndpointMessage(const StoredJob& job) {
  const llm::EndpointConfig& endpoint =
      job.untrustedRoute ? *job.untrustedRoute : job.settings.endpoint;
  std::string s = job.store->path().string() + " sends its calls to " +
                  llm::describeEndpointTrust(endpoint) +
                  ", an endpoint not configured, used or confirmed on this machine";
  if (!job.trustNote.empty()) s += " (" + job.trustNote + ")";
  return s;
}

Estimate estimateStoredJob(StoredJob& job, bool retryErrors, llm::ResponseCache* cache) {
  auto provider = llm::makeProvider(job.settings.endpoint, offlineRoleFor(job.record.kind), cache);
  return estimateRun(*job.store, *provider, retryErrors, cache);
}

JobResult resumeJob(StoredJob& job, const ExecutionOptions& execution, const ResultOptions& results,
                    const JobCallbacks& callbacks) {
  JobResult out;
  // A store decides nothing about where keys and prompts go (core/eval/api/README.md, resume
  // rules): not one request to an endpoint the user did not choose.
  if (!job.endpointTrusted) {
    out.error = untrustedEndpointMessage(job);
    return out;
  }
  auto cache = openJobCache(job.settings.endpoint, job.settings.limits, &out.cacheNote);
  if (job.record.kind == kJudgeJobKind) {
    const auto routes = recordedRoutes(job.record.settings);
    for (const auto& [route, endpoint] : routes)
      if (!cache) cache = openJobCache(endpoint, job.settings.limits, &out.cacheNote);
    std::optional<JudgeWalk> finalWalk;
    out.stages.push_back(runJudgeStage(*job.store, job.settings.endpoint, routes,
                                       job.settings.limits, cache.get(), execution, callbacks,
                                       &finalWalk));
    if (out.stages.back().summary.outcome != RunOutcome::PausedBatch)
      finishJudge(out, *job.store, results, std::move(finalWalk), job.settings.claimsOut);
    if (out.error.empty() && out.stages.back().summary.outcome == RunOutcome::Failed)
      out.error = out.stages.back().summary.error;
    return out;
  }
  out.stages.push_back(runStage(*job.store, job.record.kind, job.settings.endpoint,
                                job.settings.limits, cache.get(), execution, callbacks));
  if (job.record.kind == kAssessJobKind) {
    if (out.stages.back().summary.outcome == RunOutcome::PausedBatch) return out;
    // Labels go where this resume's command line names them (resume --labels), as the qrels.
    finishAssess(out, *job.store, job.settings.out,
                 job.settings.assessLabels.labels.empty() ? nullptr : &job.settings.assessLabels,
                 job.settings.endpoint);
    if (out.error.empty() && out.stages.back().summary.outcome == RunOutcome::Failed)
      out.error = out.stages.back().summary.error;
    return out;
  }
  store::RunStore* s = job.store.get();
  const std::string& kind = job.record.kind;
  if (out.stages.back().summary.outcome == RunOutcome::PausedBatch) return out;
  finishStages(out, kind == jobKindName(JobKind::Generate) ? s : nullptr,
               kind == kEragJobKind ? s : nullptr, kind == kE2eJobKind ? s : nullptr,
               job.settings.out, results);
  if (out.error.empty() && out.stages.back().summary.outcome == RunOutcome::Failed)
    out.error = out.stages.back().summary.error;
  return out;
}

}  // namespace ragscope::core::eval
