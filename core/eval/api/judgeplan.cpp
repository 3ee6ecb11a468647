// Planning the judging job (see judgeplan.h and core/eval/api/README.md): the judging kind's part
// of planJob, kept in the job API because it fills the JobPlan (eRAG's planning needs none and is
// core/eval/jobs/eragjob.cpp's).

#include "core/eval/api/judgeplan.h"

#include <algorithm>

#include "core/eval/api/jobinputs.h"
#include "core/eval/jobs/generatejob.h"
#include "core/eval/jobs/jobplanning.h"
#include "core/export/json.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/prompts.h"
#include "core/llm/providerfactory.h"
#include "core/util/inputfile.h"
#include "core/util/sha256.h"

namespace ragscope::core::eval {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

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
      for (std::size_t i = 0; i < top.docIds.size(); ++i)
        chunks.push_back({top.docIds[i], top.texts[i]});
      for (const auto& id : top.missing) {
        ++plan.missingDocuments;
        addPlanWarning(plan.warnings,
                       "query " + qid + ": document " + id + " is not in the corpus (left out)");
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
        plan.error = o.answers.string() + ":" + std::to_string(a.line) + ": qid: '" + a.qid +
                     "' is not a query of the dataset";
        return false;
      }
      if (!a.error.empty()) {
        addPlanWarning(plan.warnings, o.answers.string() + ":" + std::to_string(a.line) +
                                          ": query " + a.qid + " has no answer (" + a.error +
                                          "): not judged");
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
      in.generatePrompt = llm::renderTemplate(
          plan.templateText, {{"question", q.text}, {"documents", llm::formatPassages(passages)}});
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
    plan.error =
        "judge needs answers: an answers file, a run (or retriever) to generate them from, or a "
        "dataset "
        "whose records hold responses";
    return false;
  }
  if (inputs.empty()) {
    plan.error = "there is no answer to judge";
    return false;
  }
  return true;
}

}  // namespace

void planJudge(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& callbacks,
               JobPlan& plan) {
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
  // Schema-bound replies only from a server said to honour them; the offline judge writes text.
  js.structured = o.judge.structuredOutputs && o.judge.kind == llm::EndpointKind::Chat &&
                  !llm::isOfflineEndpoint(o.judge);
  auto extract =
      readJobTemplate(o.extractTemplate, &plan.error, llm::defaultClaimExtractionTemplate());
  if (!extract) return;
  js.extractTemplate = std::move(*extract);
  auto question =
      readJobTemplate(o.questionTemplate, &plan.error, llm::defaultQuestionGenerationTemplate());
  if (!question) return;
  js.questionTemplate = std::move(*question);
  auto relevance =
      readJobTemplate(o.relevanceTemplate, &plan.error, llm::defaultContextRelevanceTemplate());
  if (!relevance) return;
  js.contextRelevanceTemplate = std::move(*relevance);
  auto wants = [&](const char* m) {
    return std::find(js.metrics.begin(), js.metrics.end(), m) != js.metrics.end();
  };
  if (wants("ragas.answer_relevancy")) {
    if (!o.embedder) {
      plan.error = "ragas.answer_relevancy needs an embeddings endpoint (--embedder URL)";
      return;
    }
    if (llm::isOfflineEndpoint(o.judge)) {
      plan.error =
          "ragas.answer_relevancy needs an LLM judge to write the questions (--judge URL); the "
          "offline "
          "judge writes none";
      return;
    }
  }
  if (wants("vera.consolidated") && !o.reranker) {
    plan.error = "vera.consolidated needs a rerank endpoint (--reranker URL)";
    return;
  }
  // RAGChecker's numbers come from three-way verdicts; the notebook's and RAGAS's from binary ones.
  auto judgeText =
      readJobTemplate(o.judgeTemplate, &plan.error,
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
  const bool generates =
      std::any_of(inputs.begin(), inputs.end(), [](const JudgeInput& in) { return !in.response; });

  json settings = recordSettings(spec, JobKind::Judge, dataset, run.setting, run.system);
  settings["answers"] = std::move(source);
  settings["judge"] = judgeSettingsJson(js);
  const std::string inputsText = exporting::jsonText(judgeInputsJson(inputs));
  settings["inputs"] = {
      {"count", inputs.size()}, {"sha256", sha256Hex(inputsText)}, {"stored_as", kJudgeInputsData}};
  settings["queries"] = inputs.size();
  settings["missing_documents"] = plan.missingDocuments;
  settings["claims_out"] = o.claimsOut.empty() ? json() : json(fs::absolute(o.claimsOut).string());
  // The other endpoints a judging run calls, each by its route, recorded without secrets.
  if (o.embedder && wants("ragas.answer_relevancy"))
    settings["embedder"] = llm::recordedEndpointJson(*o.embedder);
  if (o.reranker && wants("vera.consolidated"))
    settings["reranker"] = llm::recordedEndpointJson(*o.reranker);
  if (generates) {
    llm::EndpointConfig generator = spec.endpoint;
    generator.concurrency = static_cast<int>(spec.limits.concurrency);
    settings["generator"] = llm::recordedEndpointJson(generator);
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
  stage.record.endpoint = llm::recordedEndpointJson(judge);
  stage.items = firstJudgeItems(js, inputs);
  stage.data.emplace_back(kJudgeInputsData, inputsText);
  plan.stages.push_back(std::move(stage));
}

}  // namespace ragscope::core::eval
