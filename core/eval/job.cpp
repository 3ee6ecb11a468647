#include "core/eval/job.h"

#include <chrono>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "core/data/loaders.h"
#include "core/data/inputfile.h"
#include "core/eval/generatejob.h"
#include "core/export/json.h"
#include "core/eval/jobplanning.h"
#include "core/llm/llmjson.h"
#include "core/llm/prompts.h"
#include "core/claims/checkingfile.h"
#include "core/llm/providerfactory.h"
#include "core/llm/routingprovider.h"
#include "core/llm/responsecache.h"
#include "core/llm/trustedendpoints.h"
#include "core/retrieval/retrievejob.h"
#include "core/retrieval/indexdir.h"
#include "core/util/sha256.h"

namespace ragscope::core::eval {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool complete(RunOutcome o) { return o == RunOutcome::Done || o == RunOutcome::DoneWithErrors; }

std::optional<std::string> readTemplate(const fs::path& path, std::string* error,
                                        const std::string& fallback = llm::defaultRagTemplate()) {
  if (path.empty()) return fallback;
  std::string why;
  auto text = readBoundedFile(path, kMaxTemplateBytes, "a prompt template", why);
  if (!text) *error = path.string() + ": cannot read the prompt template: " + why;
  return text;
}

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

std::string stemOf(const std::string& source) { return fs::path(source).stem().string(); }

// The run a job's lists come from, with how it was made (the record's "run") and its name.
struct ResolvedRun {
  std::optional<Run> owned;
  const Run* run = nullptr;
  json setting;
  std::string system;
};

bool resolveRun(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& cb, JobPlan& plan,
                ResolvedRun& out) {
  using Type = RunSource::Type;
  switch (spec.run.type) {
    case Type::None:
      if (spec.kind != JobKind::Generate && spec.kind != JobKind::Judge) {
        plan.error = std::string(jobKindName(spec.kind)) + " needs a run or a retriever";
        return false;
      }
      return true;
    case Type::File: {
      auto loaded = readTrecRun(spec.run.file, LoadOptions{});
      plan.report = std::move(loaded.report);
      if (!plan.report.ok() || plan.report.hasErrors()) {
        plan.error = spec.run.file.string() + ": the run has errors";
        return false;
      }
      out.owned = std::move(loaded.value);
      out.run = &*out.owned;
      out.setting = inputFileEntry(spec.run.file, "trec-run");
      out.setting["source"] = "file";
      out.setting["tag"] = out.run->tag;
      out.system = out.run->tag.empty() ? spec.run.file.stem().string() : out.run->tag;
      return true;
    }
    case Type::DatasetRun: {
      if (spec.run.datasetRun >= dataset.runs.size()) {
        plan.error = "the dataset has no run number " + std::to_string(spec.run.datasetRun + 1);
        return false;
      }
      out.run = &dataset.runs[spec.run.datasetRun];
      std::error_code ec;
      // A run read from a file is recorded as that file, as if it had been named on its own.
      if (!out.run->source.empty() && fs::is_regular_file(out.run->source, ec)) {
        out.setting = inputFileEntry(out.run->source, "trec-run");
        out.setting["source"] = "file";
      } else {
        out.setting = {{"source", "dataset"}, {"description", out.run->source}};
      }
      out.setting["tag"] = out.run->tag;
      out.system = out.run->tag.empty() ? stemOf(out.run->source) : out.run->tag;
      return true;
    }
    case Type::Retriever: {
      const RetrieverSpec& r = spec.run.retriever;
      RetrieveJobOptions ro;
      ro.k = spec.k;
      ro.tag = (r.name.empty() ? std::string(retrieverKindName(r.kind)) : r.name) + "-top" + std::to_string(spec.k);
      ro.indexProgress = cb.indexProgress;
      ro.retrieveProgress = cb.retrieveProgress;
      ro.stop = cb.stop;
      auto made = runRetrieveJob(r, dataset, dataset.parts.empty() ? fs::path(dataset.name) : dataset.parts.front().path, ro);
      if (made.cancelled) {
        plan.cancelled = true;
        return false;
      }
      if (!made.ok) {
        plan.error = std::string(retrieverKindName(r.kind)) + ": " + made.error;
        return false;
      }
      RetrievedRun retrieved;
      retrieved.run = std::move(made.run.value);
      retrieved.run.source = describeRetriever(r);  // no file: how it was made
      if (r.kind == RetrieverSpec::Kind::Bm25) retrieved.run.source += " index " + made.index.dir.string();
      retrieved.index = made.index;
      retrieved.queriesFailed = made.run.report.skipped;
      for (const auto& d : made.run.report.diagnostics) addPlanWarning(plan.warnings, d.toString());
      retrieved.seconds = made.seconds;
      out.setting = std::move(made.setting);
      out.setting["source"] = retrieverKindName(r.kind);
      out.system = retrieved.run.tag;
      plan.retrieved = std::move(retrieved);
      out.run = &plan.retrieved->run;
      if (cb.retrieved) cb.retrieved(*plan.retrieved);
      return true;
    }
  }
  return false;
}

StagePlan makeStage(const JobSpec& spec, JobKind kind, json settings, const JobPlan& plan,
                    std::vector<store::NewItem> items, const fs::path& givenStore) {
  StagePlan stage;
  stage.kind = kind;
  stage.store = givenStore.empty() ? freshStorePath(spec.storeFolder, jobKindName(kind)) : givenStore;
  stage.record.kind = std::string(jobKindName(kind));
  stage.record.settings = std::move(settings);
  stage.record.templateText = plan.templateText;
  stage.record.templateHash = llm::templateHash(plan.templateText);
  llm::EndpointConfig endpoint = spec.endpoint;
  endpoint.concurrency = static_cast<int>(spec.limits.concurrency);
  stage.record.endpoint = llm::toJson(endpoint);  // key names only
  stage.items = std::move(items);
  return stage;
}

// The prompt of every (query, rank) cell of an eRAG report, from the items' stored requests.
std::vector<std::vector<std::string>> eragPrompts(store::RunStore& store, const EragReport& report) {
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
EvaluationResults evaluateStores(store::RunStore* erag, store::RunStore* e2e, const ResultOptions& o,
                                 const fs::path& labelsOut) {
  EvaluationResults res;
  res.measures = o.measures;
  std::string err;
  if (erag) {
    res.eragStore = erag->path();
    const auto record = erag->run();
    res.system = systemOf(record);
    if (record.kind != kEragJobKind) {
      res.error = res.eragStore.filename().string() + " is a " + record.kind + " run, not an eRAG run";
      return res;
    }
    if (const std::string problem = runRecordProblem(record); !problem.empty()) {
      res.error = res.eragStore.string() + ": " + problem;
      return res;
    }
    if (res.measures.empty()) res.measures = parseEragMeasures(record.settings["measures"].get<std::string>()).value;
    res.erag = computeEragReport(*erag, res.measures, o.bootstrap);
    if (!res.erag->error.empty()) {
      res.error = "eRAG: " + res.erag->error;
    } else {
      if (o.persist && !storeEragScores(erag->path(), *res.erag, &err))
        res.error = "eRAG: storing the labels: " + err;
      if (!labelsOut.empty() && !exporting::writeJsonFile(labelsOut, labelsJson(*res.erag), &err, 1, false)) res.error = err;
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

std::unique_ptr<llm::Provider> jobProvider(const llm::EndpointConfig& endpoint, std::string_view kind,
                                           llm::ResponseCache* cache, const ExecutionOptions& x) {
  if (x.makeProvider) return x.makeProvider(endpoint);
  llm::EndpointConfig call = endpoint;
  // The front end's key callback (the GUI's keychain secret) wins over the recorded variable.
  if (x.transport.apiKey) call.apiKeyEnv.clear();
  return llm::makeProvider(call, offlineRoleFor(kind), cache, x.transport);
}

StageResult runStage(store::RunStore& store, std::string kindName, const llm::EndpointConfig& endpoint,
                     const JobLimits& limits, llm::ResponseCache* cache, const ExecutionOptions& x,
                     const JobCallbacks& cb) {
  StageResult r;
  r.kindName = std::move(kindName);
  r.kind = jobKindFromName(r.kindName).value_or(JobKind::Generate);
  r.store = store.path();
  if (cb.stageStarted) cb.stageStarted(r.kind, r.store);
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
                          const JobLimits& limits, llm::ResponseCache* cache, const ExecutionOptions& x,
                          const JobCallbacks& cb, std::optional<JudgeWalk>* finalWalk) {
  StageResult r;
  r.kind = JobKind::Judge;
  r.kindName = std::string(kJudgeJobKind);
  r.store = store.path();
  if (cb.stageStarted) cb.stageStarted(r.kind, r.store);
  auto routing = std::make_unique<llm::RoutingProvider>(jobProvider(judge, kJudgeJobKind, cache, x));
  for (const auto& [route, endpoint] : routes)
    routing->addRoute(route, jobProvider(endpoint, route == "generator" ? jobKindName(JobKind::Generate) : kJudgeJobKind,
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
    RunSummary s = executeRun(store, *routing, engine, cb.listener, cb.stop);
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

// A judging run's endpoints besides its judge, by route: "generator", "embedder", "reranker".
std::vector<std::pair<std::string, llm::EndpointConfig>> recordedRoutes(const json& settings) {
  std::vector<std::pair<std::string, llm::EndpointConfig>> out;
  for (const char* route : {"generator", "embedder", "reranker"}) {
    const auto it = settings.find(route);
    if (it != settings.end() && it->is_object()) out.emplace_back(route, llm::endpointFromJson(*it));
  }
  return out;
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
    if (claims::writeCheckingOutput(path, examples, &scores, &err)) out.claimsOut = path;
    else if (out.error.empty()) out.error = err;
  }
  out.judge = std::move(report);
}

// After the engine, whatever the outcome: generate's answers file, eRAG / end-to-end scores.
void finishStages(JobResult& out, store::RunStore* generate, store::RunStore* erag, store::RunStore* e2e,
                  const fs::path& outFile, const ResultOptions& results) {
  if (generate && !outFile.empty()) {
    std::string err;
    if (writeAnswersJsonl(*generate, outFile, &err)) out.answers = outFile;
    else if (out.error.empty()) out.error = err;
  }
  if (erag || e2e) {
    ResultOptions o = results;
    o.persist = true;
    out.evaluation = evaluateStores(erag, e2e, o, erag ? outFile : fs::path());
    if (out.error.empty()) out.error = out.evaluation.error;
    if (erag && !outFile.empty() && out.evaluation.error.empty()) out.labels = outFile;
  }
}

// The answers a judging job judges (JudgeJobOptions says where they come from), each with its
// question, gold answer and chunks.
bool judgeInputs(const JobSpec& spec, const Dataset& dataset, const ResolvedRun& run, JobPlan& plan,
                 std::vector<JudgeInput>& inputs, json& source) {
  const JudgeJobOptions& o = spec.judge;
  auto goldOf = [](const Query* q) {
    if (!q) return std::string();
    for (const auto& a : q->goldAnswers())
      if (!a.empty()) return a;
    return std::string();
  };
  auto chunksOf = [&](const std::string& qid) {
    std::vector<claims::Chunk> chunks;
    if (!run.run) return chunks;
    if (const Ranking* ranking = run.run->find(qid)) {
      auto top = topPassages(dataset.corpus, *ranking, spec.k);
      for (std::size_t i = 0; i < top.docIds.size(); ++i) chunks.push_back({top.docIds[i], top.texts[i]});
      for (const auto& id : top.missing) {
        ++plan.missingDocuments;
        addPlanWarning(plan.warnings, "query " + qid + ": document " + id + " is not in the corpus (left out)");
      }
    }
    return chunks;
  };
  if (!o.inputs.empty()) {
    inputs = o.inputs;
    source = {{"source", "given"}};
  } else if (!o.answers.empty()) {
    auto answers = readAnswersJsonl(o.answers);
    plan.report = answers.report;
    if (!answers.report.ok() || answers.report.hasErrors()) {
      plan.error = o.answers.string() + ": the answers file has errors";
      return false;
    }
    for (const auto& a : answers.value) {
      const Query* q = dataset.findQuery(a.qid);
      if (!q) {
        plan.error = o.answers.string() + ":" + std::to_string(a.line) + ": qid: '" + a.qid + "' is not a query of the dataset";
        return false;
      }
      if (!a.error.empty()) {
        addPlanWarning(plan.warnings, o.answers.string() + ":" + std::to_string(a.line) + ": query " + a.qid +
                                          " has no answer (" + a.error + "): not judged");
        continue;
      }
      inputs.push_back({a.qid, q->text, a.answer, goldOf(q), chunksOf(a.qid), {}});
    }
    source = inputFileEntry(o.answers, "answers-jsonl");
    source["source"] = "answers";
  } else if (run.run) {
    for (const auto& q : dataset.queries) {
      if (!run.run->find(q.id)) {
        addPlanWarning(plan.warnings, "query " + q.id + ": no ranking in the run (not judged)");
        continue;
      }
      JudgeInput in{q.id, q.text, std::nullopt, goldOf(&q), chunksOf(q.id), {}};
      std::vector<std::string> passages;
      for (const auto& c : in.chunks) passages.push_back(c.text);
      in.generatePrompt = llm::renderTemplate(plan.templateText, {{"question", q.text}, {"documents", llm::formatPassages(passages)}});
      inputs.push_back(std::move(in));
    }
    source = {{"source", "generated"}};
  } else if (!dataset.examples.empty()) {
    for (const auto& ex : dataset.examples) {
      JudgeInput in{ex.id, ex.query, ex.response, ex.reference, {}, {}};
      for (const auto& d : ex.contexts) in.chunks.push_back({d.id, passageText(d)});
      inputs.push_back(std::move(in));
    }
    source = {{"source", "dataset"}};
  } else {
    plan.error = "judge needs answers: an answers file, a run (or retriever) to generate them from, or a dataset "
                 "whose records hold responses";
    return false;
  }
  if (inputs.empty()) {
    plan.error = "there is no answer to judge";
    return false;
  }
  return true;
}

void planJudge(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& callbacks, JobPlan& plan) {
  const JudgeJobOptions& o = spec.judge;
  JudgeSettings js;
  const auto metrics = parseJudgeMetrics(o.metrics, &plan.error);
  if (!metrics) return;
  js.metrics = *metrics;
  const auto mode = judgeModeFromName(o.mode);
  if (!mode) {
    plan.error = "mode '" + o.mode + "' is not one of ragscope, ragchecker, ragas";
    return;
  }
  js.mode = *mode;
  if (o.repeats < 1 || o.repeats > 100) {
    plan.error = "repeats must be between 1 and 100";
    return;
  }
  js.repeats = o.repeats;
  js.matrices = o.matrices || !o.claimsOut.empty();
  js.seed = o.judge.seed;
  auto extract = readTemplate(o.extractTemplate, &plan.error, llm::defaultClaimExtractionTemplate());
  if (!extract) return;
  js.extractTemplate = std::move(*extract);
  auto question = readTemplate(o.questionTemplate, &plan.error, llm::defaultQuestionGenerationTemplate());
  if (!question) return;
  js.questionTemplate = std::move(*question);
  auto relevance = readTemplate(o.relevanceTemplate, &plan.error, llm::defaultContextRelevanceTemplate());
  if (!relevance) return;
  js.contextRelevanceTemplate = std::move(*relevance);
  auto wants = [&](const char* m) { return std::find(js.metrics.begin(), js.metrics.end(), m) != js.metrics.end(); };
  if (wants("ragas.answer_relevancy")) {
    if (!o.embedder) {
      plan.error = "ragas.answer_relevancy needs an embeddings endpoint (--embedder URL)";
      return;
    }
    if (llm::isOfflineEndpoint(o.judge)) {
      plan.error = "ragas.answer_relevancy needs an LLM judge to write the questions (--judge URL); the offline "
                   "judge writes none";
      return;
    }
  }
  if (wants("vera.consolidated") && !o.reranker) {
    plan.error = "vera.consolidated needs a rerank endpoint (--reranker URL)";
    return;
  }
  // RAGChecker's numbers come from three-way verdicts; the notebook's and RAGAS's from binary ones.
  auto judgeText = readTemplate(o.judgeTemplate, &plan.error,
                                js.mode == JudgeMode::RagChecker ? llm::defaultClaimJudgeThreeWayTemplate()
                                                                 : llm::defaultClaimJudgeTemplate());
  if (!judgeText) return;
  js.judgeTemplate = std::move(*judgeText);

  ResolvedRun run;
  if (o.inputs.empty() && !resolveRun(spec, dataset, callbacks, plan, run)) return;
  std::vector<JudgeInput> inputs;
  json source;
  if (!judgeInputs(spec, dataset, run, plan, inputs, source)) return;
  plan.system = run.system;
  plan.queries = inputs.size();
  const bool generates = std::any_of(inputs.begin(), inputs.end(), [](const JudgeInput& in) { return !in.response; });

  json settings = recordSettings(spec, JobKind::Judge, dataset, run.setting, run.system);
  settings["answers"] = std::move(source);
  settings["judge"] = judgeSettingsJson(js);
  const std::string inputsText = exporting::jsonText(judgeInputsJson(inputs));
  settings["inputs"] = {{"count", inputs.size()}, {"sha256", sha256Hex(inputsText)}, {"stored_as", kJudgeInputsData}};
  settings["queries"] = inputs.size();
  settings["missing_documents"] = plan.missingDocuments;
  settings["claims_out"] = o.claimsOut.empty() ? json() : json(fs::absolute(o.claimsOut).string());
  // The other endpoints a judging run calls, each by its route, recorded without secrets.
  if (o.embedder && wants("ragas.answer_relevancy")) settings["embedder"] = llm::toJson(*o.embedder);
  if (o.reranker && wants("vera.consolidated")) settings["reranker"] = llm::toJson(*o.reranker);
  if (generates) {
    llm::EndpointConfig generator = spec.endpoint;
    generator.concurrency = static_cast<int>(spec.limits.concurrency);
    settings["generator"] = llm::toJson(generator);
    settings["generator_template_sha256"] = llm::templateHash(plan.templateText);
  }
  StagePlan stage;
  stage.kind = JobKind::Judge;
  stage.store = spec.store.empty() ? freshStorePath(spec.storeFolder, "judge") : spec.store;
  stage.record.kind = std::string(kJudgeJobKind);
  stage.record.settings = std::move(settings);
  stage.record.templateText = js.judgeTemplate;
  stage.record.templateHash = llm::templateHash(js.judgeTemplate);
  llm::EndpointConfig judge = o.judge;
  judge.concurrency = static_cast<int>(spec.limits.concurrency);
  stage.record.endpoint = llm::toJson(judge);
  stage.items = firstJudgeItems(js, inputs);
  stage.data.emplace_back(kJudgeInputsData, inputsText);
  plan.stages.push_back(std::move(stage));
}

}  // namespace

JobPlan planJob(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& callbacks) {
  JobPlan plan;
  auto templateText = readTemplate(spec.templatePath, &plan.error);
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

  if (spec.kind == JobKind::Generate) {
    auto g = planGenerate(dataset, run.run, spec.k, plan.templateText);
    plan.queries = dataset.queries.size();
    plan.missingDocuments = g.missingDocuments;
    for (auto& w : g.warnings) addPlanWarning(plan.warnings, std::move(w));
    json settings = recordSettings(spec, JobKind::Generate, dataset, run.setting, run.system);
    settings["queries"] = plan.queries;
    settings["missing_documents"] = plan.missingDocuments;
    plan.stages.push_back(makeStage(spec, JobKind::Generate, std::move(settings), plan, std::move(g.items), spec.store));
    return plan;
  }

  // eRAG and end-to-end share the top-k lists (a document missing from the corpus is skipped, so
  // both see the same k documents).
  const bool erag = spec.kind == JobKind::Erag;
  const bool e2e = spec.kind == JobKind::E2e || spec.withEndToEnd;
  auto addStage = [&](JobKind kind, std::vector<store::NewItem> items, json planJson, const TopDocuments& top,
                      const fs::path& store) {
    json settings = recordSettings(spec, kind, dataset, run.setting, run.system);
    settings["queries"] = top.lists.size();
    settings["missing_documents"] = top.missingDocuments;
    settings["queries_without_gold"] = top.queriesWithoutGold;
    settings["plan"] = std::move(planJson);
    plan.stages.push_back(makeStage(spec, kind, std::move(settings), plan, std::move(items), store));
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
    addStage(JobKind::E2e, std::move(p.items), std::move(p.plan), p.top, erag ? spec.e2eStore : spec.store);
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

std::vector<StageEstimate> estimatePlan(const JobPlan& plan, const JobSpec& spec, llm::ResponseCache* cache) {
  std::vector<StageEstimate> out;
  for (const auto& stage : plan.stages) {
    const llm::EndpointConfig& endpoint = stage.kind == JobKind::Judge ? spec.judge.judge : spec.endpoint;
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

EvaluationResults readEvaluation(const fs::path& eragStore, const fs::path& e2eStore, const ResultOptions& options) {
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
  return evaluateStores(eragStore.empty() ? nullptr : &erag, e2eStore.empty() ? nullptr : &e2e, options, {});
}

RunOutcome JobResult::outcome() const {
  if (stages.empty()) return RunOutcome::Failed;
  RunOutcome worst = RunOutcome::Done;
  auto rank = [](RunOutcome o) {
    switch (o) {
      case RunOutcome::Done: return 0;
      case RunOutcome::DoneWithErrors: return 1;
      case RunOutcome::PausedBudget: return 2;
      case RunOutcome::Cancelled: return 3;
      case RunOutcome::Failed: return 4;
    }
    return 4;
  };
  for (const auto& s : stages)
    if (rank(s.summary.outcome) > rank(worst)) worst = s.summary.outcome;
  return worst;
}

std::unique_ptr<llm::ResponseCache> openJobCache(const llm::EndpointConfig& endpoint, const JobLimits& limits,
                                                 std::string* note) {
  if (llm::isOfflineEndpoint(endpoint) || !limits.useCache) return nullptr;
  auto cache = std::make_unique<llm::ResponseCache>();
  const fs::path path = limits.cachePath.empty() ? llm::ResponseCache::defaultPath() : limits.cachePath;
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
    out.trustNote = "could not record " + llm::normalizeBaseUrl(endpoint.baseUrl) +
                    " as trusted (resuming will ask to confirm it): " + err;
  llm::EndpointConfig judgeEndpoint = spec.judge.judge;
  judgeEndpoint.concurrency = endpoint.concurrency;
  if (spec.kind == JobKind::Judge) {
    std::vector<llm::EndpointConfig> chosen = {judgeEndpoint};
    if (spec.judge.embedder) chosen.push_back(*spec.judge.embedder);
    if (spec.judge.reranker) chosen.push_back(*spec.judge.reranker);
    for (const auto& e : chosen)
      if (std::string err; !llm::TrustedEndpoints().add(e, "run", &err) && out.trustNote.empty())
        out.trustNote = "could not record " + llm::normalizeBaseUrl(e.baseUrl) +
                        " as trusted (resuming will ask to confirm it): " + err;
  }
  // The cache serves HTTP endpoints; a judging job's judge may be one while its generator is not.
  auto cache = openJobCache(spec.kind == JobKind::Judge && llm::isOfflineEndpoint(endpoint) ? judgeEndpoint : endpoint,
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
      out.stages.push_back(runJudgeStage(*store, judgeEndpoint, recordedRoutes(stage.record.settings), spec.limits,
                                         cache.get(), execution, callbacks, &finalWalk));
      finishJudge(out, *store, results, std::move(finalWalk), spec.judge.claimsOut);
      stores.push_back(std::move(store));
      break;
    }
    out.stages.push_back(
        runStage(*store, std::string(jobKindName(stage.kind)), endpoint, spec.limits, cache.get(), execution, callbacks));
    byKind[static_cast<int>(stage.kind)] = store.get();
    stores.push_back(std::move(store));
    if (!complete(out.stages.back().summary.outcome)) break;
  }
  finishStages(out, byKind[0], byKind[1], byKind[2], spec.out, results);
  if (out.error.empty() && !out.stages.empty() && out.stages.back().summary.outcome == RunOutcome::Failed)
    out.error = out.stages.back().summary.error;
  return out;
}

std::optional<StoredJob> openStoredJob(const fs::path& path, const ResumeOverrides& overrides, std::string* error) {
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
  return job;
}

std::string untrustedEndpointMessage(const StoredJob& job) {
  const llm::EndpointConfig& endpoint = job.untrustedRoute ? *job.untrustedRoute : job.settings.endpoint;
  std::string s = job.store->path().string() + " sends its calls to " + llm::describeEndpointTrust(endpoint) +
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
  // A store decides nothing about where keys and prompts go (DESIGN): not one request to an
  // endpoint the user did not choose.
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
    out.stages.push_back(runJudgeStage(*job.store, job.settings.endpoint, routes, job.settings.limits, cache.get(),
                                       execution, callbacks, &finalWalk));
    finishJudge(out, *job.store, results, std::move(finalWalk), job.settings.claimsOut);
    if (out.error.empty() && out.stages.back().summary.outcome == RunOutcome::Failed)
      out.error = out.stages.back().summary.error;
    return out;
  }
  out.stages.push_back(runStage(*job.store, job.record.kind, job.settings.endpoint, job.settings.limits,
                                cache.get(), execution, callbacks));
  store::RunStore* s = job.store.get();
  const std::string& kind = job.record.kind;
  finishStages(out, kind == jobKindName(JobKind::Generate) ? s : nullptr, kind == kEragJobKind ? s : nullptr,
               kind == kE2eJobKind ? s : nullptr, job.settings.out, results);
  if (out.error.empty() && out.stages.back().summary.outcome == RunOutcome::Failed)
    out.error = out.stages.back().summary.error;
  return out;
}

}  // namespace ragscope::core::eval
