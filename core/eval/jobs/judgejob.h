#pragma once
// The claim-judging job (core/eval/jobs/README.md; metrics in core/claims/README.md): for each
// answer, the judge extracts the claims of the response and of the gold answer, then labels them
// against premises (the retrieved chunks joined, each chunk alone, the gold answer, the response),
// R times when asked; the metrics are computed from the stored replies. Every call is a work item
// of one run store (kind "judge"), in phases that depend on earlier replies:
//
//   gen:<qid>                              the answer, when the job generates it (route
//   "generator") extract:<response|gold>:<qid>          the claims of a text
//   assess:<premise>:<repeat>:<qid>        claims vs a premise: faith (chunks joined), correct
//                                          (gold answer), cover (gold claims vs the response),
//                                          recall (gold claims vs the chunks joined),
//                                          respchunk.<k>, goldchunk.<k> (one chunk alone)
//   repair:<key>                           the one repair retry of an unreadable reply
//   question:<g>:<qid>                     ragas.answer_relevancy: a question generated from the
//                                          answer (seed g), then embed:<qid> (route "embedder")
//   rerank:<qid>                           vera.consolidated: the (question, answer) pair scored
//                                          by the rerank endpoint (route "reranker")
//   relevant:<qid>                         ragas.context_relevance_paper: the sentences of the
//                                          chunks that help answer the question
//
// The answers, gold answers and chunks are kept in the store's run_data (kJudgeInputsData), not
// in its settings, which the store rewrites on every commit.
// nextJudgeItems() derives, from what the store holds, every item that can be planned now; the
// job adds them and runs the engine until no new item appears (judgejob's driver in
// core/eval/api/job.cpp). So a killed or cancelled job resumes from its store alone and repeats no
// finished call.
//
//   JudgeReport r = computeJudgeReport(store, {});
//   r.metrics[i].mean, r.metrics[i].states, r.perQuery[q].values[i] ...

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims/claimexample.h"
#include "core/claims/labels.h"
#include "core/claims/metaeval.h"
#include "core/stats/bootstrap.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

inline constexpr std::string_view kJudgeJobKind = "judge";
// The store's run_data entry holding judgeInputsJson (the answers, gold answers and chunks).
inline constexpr const char* kJudgeInputsData = "judge_inputs";

// What one answer is judged with. `response` unset: the job generates it (gen:<qid>).
struct JudgeInput {
  std::string qid;
  std::string question;
  std::optional<std::string> response;
  std::string gold;  // empty: no gold answer (gold-based metrics are empty)
  std::vector<claims::Chunk> chunks;
  std::string generatePrompt;  // the RAG prompt, when the job generates the answer
};

// "ragscope" (unparsed/error never 0 or 1, empty has no value), "ragchecker" (unresolved labels
// not entailed, empty cases 0.0 and averaged), "ragas" (failures NaN, nanmean; the denominator
// is the verdicts returned).
enum class JudgeMode { RagScope, RagChecker, Ragas };
std::string_view judgeModeName(JudgeMode m);
std::optional<JudgeMode> judgeModeFromName(std::string_view name);

// The metrics this build computes, by their namespaced names (core/claims/README.md), in report
// order.
const std::vector<std::string>& judgeMetricNames();
// Expands "ragchecker" (all eleven) and "notebook" (faithfulness,correctness,coverage) and checks
// each name; *error names the first unknown one (and says which metrics need an endpoint kind
// this build's judging does not call yet).
std::optional<std::vector<std::string>> parseJudgeMetrics(std::string_view list,
                                                          std::string* error);
// True for RAGChecker's metrics ("ragchecker.precision", ...), computed from the claim matrices.
bool isRagCheckerMetric(std::string_view metric);

struct JudgeSettings {
  std::vector<std::string> metrics;
  JudgeMode mode = JudgeMode::RagScope;
  std::size_t repeats = 1;
  bool matrices = false;                 // judge every chunk alone (the claim x chunk matrix) even
                                         // when no metric needs it (--claims-out)
  std::string extractTemplate;           // {text}
  std::string judgeTemplate;             // {documents}, {claims}
  std::string questionTemplate;          // {text}: ragas.answer_relevancy's question generation
  std::string contextRelevanceTemplate;  // {question}, {documents}: ragas.context_relevance_paper
  std::optional<std::int64_t> seed;      // the judge endpoint's; repeat r sends seed + r
  // Claim lists and verdicts asked as schema-bound JSON (the judge endpoint's structured outputs,
  // core/claims/README.md, "Structured replies"); false: as text lines.
  bool structured = false;
};

// RAGAS's number of generated questions per answer (its `strictness`).
inline constexpr std::size_t kRagasQuestions = 3;

// settings["judge"] of the run record, and back.
nlohmann::json judgeSettingsJson(const JudgeSettings& s);
JudgeSettings judgeSettingsFromJson(const nlohmann::json& j);
nlohmann::json judgeInputsJson(const std::vector<JudgeInput>& inputs);
std::vector<JudgeInput> judgeInputsFromJson(const nlohmann::json& j);

// The items that can be planned before any call: the answers to generate, the extractions of
// given texts (what a plan stores first, and what an estimate counts).
std::vector<store::NewItem> firstJudgeItems(const JudgeSettings& settings,
                                            const std::vector<JudgeInput>& inputs);

// The items that can be planned from what `store` holds now (its record's settings hold
// "judge" and "inputs"); keys already present are returned too (addItems keeps them).
std::vector<store::NewItem> nextJudgeItems(store::RunStore& store);

// A claim list or a verdict list with its state.
struct JudgedClaims {
  std::vector<std::string> claims;
  std::optional<claims::ScoreState> failed;  // Error / Unparsed: the extraction gave no claims
  std::string problem;  // why it failed; or, with claims, those past the cap (judgeparse.h)
  bool repaired = false;
  bool structured = false;  // read as JSON (structuredreply.h), else as text lines
  bool read = false;        // an extraction reply was read (not: no call, failed, pending)
};

struct PremiseVerdicts {
  std::string premise;                              // "faith", "correct", "respchunk.0", ...
  std::vector<std::vector<claims::Label>> repeats;  // [repeat][claim]
  std::vector<claims::Label> labels;                // the majority over the repeats
  std::vector<std::string> replies;   // raw judge replies, per repeat (repair appended)
  std::vector<std::string> problems;  // parse problems left after the repair
  std::size_t repairs = 0;
  bool structured = false;             // replies read as JSON (structuredreply.h), else as text
  std::size_t repliesRead = 0;         // assessment replies read (repeats each; not their repairs)
  std::uint64_t verdictsRead = 0;      // claim verdicts asked in those replies
  std::uint64_t verdictsUnparsed = 0;  // of which none could be read, after the repair
};

struct MetricValue {
  std::optional<double> value;
  std::string problem;  // why there is no value (the calls of metrics outside the claim verdicts)
  claims::ScoreState state = claims::ScoreState::Empty;
  std::size_t scored = 0;  // claims (items) decided
  std::size_t total = 0;
  std::vector<std::optional<double>> perRepeat;  // repeats > 1
};

struct JudgedQuery {
  std::string qid;
  std::string question;
  std::string response;
  std::string gold;
  std::vector<claims::Chunk> chunks;
  std::optional<claims::ScoreState> responseFailed;  // the answer could not be generated
  JudgedClaims responseClaims;
  JudgedClaims goldClaims;
  std::vector<PremiseVerdicts> verdicts;
  std::vector<std::string> generatedQuestions;  // ragas.answer_relevancy
  MetricValue answerRelevancy;                  // ragas.answer_relevancy
  MetricValue consolidated;                     // vera.consolidated
  MetricValue contextRelevance;                 // ragas.context_relevance_paper
  std::vector<MetricValue> values;              // per report metric
  const PremiseVerdicts* find(std::string_view premise) const;
};

struct JudgeMetricSummary {
  std::string name;
  double mean = 0.0;  // NaN when no query has a value
  std::optional<stats::Interval> ci95;
  std::size_t queries = 0;                                      // with a value
  std::size_t scored = 0, unparsed = 0, errors = 0, empty = 0;  // queries by state
  std::uint64_t itemsScored = 0, itemsTotal = 0;
  double withinVariance = 0.0, acrossVariance = 0.0;  // repeats > 1
};

struct JudgeReliability {
  std::size_t repeats = 1;
  std::size_t cells = 0;         // claim verdicts asked more than once with two resolved answers
  std::size_t flippedCells = 0;  // of which not all the same
  double flipRate = 0.0;         // mean over the cells of 1 - (majority count / resolved answers)
};

// The calls whose replies one path read (core/claims/README.md, "Structured replies"), and
// what stayed unreadable after the repair: claim lists that gave no claims, claim verdicts
// left Unparsed (the claims past the cap excepted).
struct JudgeParsePath {
  std::size_t extractions = 0, extractionsUnparsed = 0;
  std::size_t verdictReplies = 0;
  std::uint64_t verdicts = 0, verdictsUnparsed = 0;
  bool used() const { return extractions + verdictReplies > 0; }
};

struct JudgeReport {
  std::string error;
  JudgeSettings settings;
  std::vector<JudgedQuery> queries;
  std::vector<JudgeMetricSummary> metrics;
  JudgeReliability reliability;
  std::size_t pendingItems = 0;  // calls not made yet: the figures are partial
  std::size_t repairs = 0;
  // Claim lists (of answers and gold answers) longer than claims::kMaxClaimsPerAnswer, and their
  // claims past it: kept, counted in n_total, Unparsed (never sent to the judge).
  std::size_t claimListsOverCap = 0;
  std::uint64_t claimsNotJudged = 0;
  JudgeParsePath textPath, structuredPath;  // replies read as text lines, as schema-bound JSON
  bool heuristic = false;                   // an offline heuristic judged
};

JudgeReport computeJudgeReport(store::RunStore& store, const stats::BootstrapOptions& bootstrap);

// One pass over a judging store, the two above in one: what is known of every query and (with
// `planItems`) the items that can be planned now. The job's last pass, which plans nothing new,
// is summarized into the report without reading the store again.
struct JudgeWalk {
  std::string error;
  JudgeSettings settings;
  std::vector<store::NewItem> items;
  std::vector<JudgedQuery> queries;
  std::size_t pendingItems = 0;
  bool heuristic = false;
};
// A store's judging settings and inputs as a walk reads them; they never change during a run, so
// the passes of one run share them through `cache` (read on the first walk).
struct JudgeRecordInputs {
  std::string error;
  JudgeSettings settings;
  std::vector<JudgeInput> inputs;
};
JudgeWalk walkJudgeStore(store::RunStore& store, bool planItems,
                         std::optional<JudgeRecordInputs>* cache = nullptr);
JudgeReport summarizeJudgeWalk(JudgeWalk walk, const stats::BootstrapOptions& bootstrap);
// The same from a store opened read-only (viewing writes nothing).
JudgeReport readJudgeReport(const std::filesystem::path& path,
                            const stats::BootstrapOptions& bootstrap);

// Empty when a judging run's settings hold what computeJudgeReport reads; else the problem.
std::string judgeRecordProblem(const nlohmann::json& settings);

// {"n","mode","mean":{m:v},"ci95":{m:[lo,hi]},"states":{m:{"scored","unparsed","error","empty"}},
//  "n_scored":{m:k},"n_total":{m:n},"per_query":{qid:{m:v|null}}, "reliability":{...},
//  "parse_paths":{"text"|"structured":{"extractions","extractions_unparsed","verdict_replies",
//  "verdicts","verdicts_unparsed"}}}.
nlohmann::json judgeReportJson(const JudgeReport& report);

// Per-query metric values as a pointwise judge table (a column per metric, NaN where a query
// has no value), for `agreement` against human qid,label files.
claims::PointwiseTable judgePointwiseTable(const JudgeReport& report);

// The report's claims and verdicts as RAGChecker checking examples (labels: the majority).
std::vector<claims::ClaimExample> judgeClaimExamples(const JudgeReport& report);

}  // namespace ragscope::core::eval
