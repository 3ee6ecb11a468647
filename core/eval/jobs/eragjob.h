#pragma once
// The eRAG job (Salemi & Zamani, SIGIR 2024; core/eval/jobs/README.md, "eRAG"): for each query and
// each of its top-k documents, one chat call with the RAG prompt holding only that document; the
// output scored against the query's gold answers is the document's label G_q[d]; labels are
// aggregated by eragaggregate.h.
//
//   EragPlan plan = planErag(dataset, run, 5, defaultRagTemplate(), DownstreamMetric::RougeL);
//   record.settings["plan"] = plan.plan;      // the store alone can then compute the labels
//   store.addItems(plan.items, &err);         // keys "erag:<qid>:<rank>:<docid>"
//   ... executeRun(store, provider, ...) ...
//   EragReport report = computeEragReport(store, measures, {});
//   storeEragScores(store.path(), report, &err);   // tables erag_labels + query_scores
//
// Everything a report needs is in the store: the plan in the run's settings ("plan": one entry
// per query with its id, gold answers, gold document ids and retrieved documents in rank order,
// each with its contains-answer label) and every prompt (item request) and output (item result).
// Queries are keyed by id, so two queries with the same text stay two queries.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/dataset.h"
#include "core/eval/jobs/eragaggregate.h"
#include "core/metrics/downstream.h"
#include "core/stats/bootstrap.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

inline constexpr std::string_view kEragKeyPrefix = "erag:";
inline constexpr std::string_view kEragJobKind = "erag";

// One query's retrieved documents, in trec_eval's ranking order, cut at k.
struct RetrievedList {
  std::string qid;
  std::vector<std::string> docIds;
  std::vector<std::string> texts;  // "title\ntext" (or the text alone), as the prompt shows them
};

struct TopDocuments {
  std::vector<RetrievedList> lists;   // one per planned query, dataset order
  std::vector<const Query*> queries;  // the same order
  std::size_t missingDocuments = 0;   // run entries whose text is not in the corpus (skipped)
  std::size_t queriesWithoutRanking = 0;
  std::size_t queriesWithoutGold = 0;  // left out: nothing to score an output against
  std::vector<std::string> warnings;   // the first few problems, for people
};

// The top-k documents of every query with at least one gold answer; a document missing from the
// corpus is skipped (the next one moves up), so eRAG and end-to-end see the same k documents.
TopDocuments topDocuments(const Dataset& dataset, const Run& run, std::size_t k);

// The run-settings JSON of a plan: [{"qid","gold":[...],"gold_docs":[...],
// "docs":[{"id","contains"}]}], contains = the eRAG paper's "Answers" label of the document text.
nlohmann::json planJson(const TopDocuments& top);

// "erag:<qid>:<rank>:<docid>" with '%' and ':' in ids escaped as %25 / %3A; rank is 1-based.
std::string eragItemKey(std::string_view qid, std::size_t rank, std::string_view docId);

struct EragPlan {
  std::vector<store::NewItem> items;
  nlohmann::json plan;  // planJson(top)
  TopDocuments top;
};

// One item per (query, document): the prompt holds the question and that document only.
EragPlan planErag(const Dataset& dataset, const Run& run, std::size_t k,
                  std::string_view templateText);

// One planned query as read back from a store.
struct PlannedQuery {
  std::string qid;
  std::vector<std::string> gold;
  std::vector<std::string> goldDocs;
  std::vector<std::string> docIds;
  std::vector<double> contains;  // per document, 0 or 1
};
std::optional<std::vector<PlannedQuery>> plannedQueries(const nlohmann::json& settings,
                                                        std::string* error);

// What an erag or e2e report starts from: the store's run record (which must be of `kind`), its
// planned queries and its downstream metric. `kindLabel` names the expected kind in the error.
struct StoredPlan {
  store::RunRecord record;
  std::vector<PlannedQuery> queries;
  std::string metricKey;
  DownstreamMetric metric{};
};
std::optional<StoredPlan> readStoredPlan(store::RunStore& store, std::string_view kind,
                                         std::string_view kindLabel, std::string* error);

struct EragReport {
  std::string error;                  // non-empty: no report (bad store, refused measure, ...)
  std::string metricKey;              // "rouge-l", ...
  std::vector<PlannedQuery> queries;  // every planned query
  std::vector<std::vector<std::optional<double>>> labels;  // [query][rank]; nullopt: no output
  std::vector<std::vector<std::string>> outputs;           // [query][rank]
  std::vector<std::string> incomplete;  // queries with a missing label: left out of the scores
  EragAggregate aggregate;              // over the complete queries, in plan order
  std::vector<stats::BootstrapResult> intervals;  // one per aggregate measure
  std::size_t heuristicOutputs = 0;               // outputs of the offline heuristic reader
};

// Labels from the store's outputs with the run's downstream metric (settings "metric"), then
// aggregation. `measures` empty = the run's own (settings "measures"). Bootstrap resamples 0 =
// no intervals.
EragReport computeEragReport(store::RunStore& store, const std::vector<MeasureRequest>& measures,
                             const stats::BootstrapOptions& bootstrap);

// Labels as JSON {qid: [label at rank 1, ...]} (null where no output).
nlohmann::json labelsJson(const EragReport& report);
// Per-query and mean values: {"metric", "binary_labels", "measures", "queries", "mean": {m: v},
// "ci95": {m: [lo, hi]}, "n": {m: queries averaged}, "per_query": {qid: {m: v}}, "incomplete"}.
nlohmann::json eragScoresJson(const EragReport& report);

// Stores the labels and per-query scores in the run store's file (tables erag_labels(qid, rank,
// doc_id, item_key, label) and query_scores(qid, measure, value), replaced on each call).
bool storeEragScores(const std::filesystem::path& storePath, const EragReport& report,
                     std::string* error);

}  // namespace ragscope::core::eval
