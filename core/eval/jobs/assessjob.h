#pragma once
// The assessment job (`ragscope-cli assess`; core/trecrag/README.md, "Assessment"): LLM
// relevance grades 0..3 for query-document pairs following UMBRELA's procedure, one chat call per
// pair and repeat, through the job layer like eRAG (estimate, budget, response cache, resume,
// batch route). The pairs are a run's top `depth` documents less those the qrels judge
// (trecrag/assesspairs.h); each reply is read strictly (trecrag/assessgrade.h) and the repeats
// combined (trecrag/assessqrels.h).
//
//   AssessPlan plan = planAssess(dataset, run, qrels, options, defaultAssessTemplate());
//   record.settings["plan"] = plan.plan;    // the store alone can then compute the grades
//   store.addItems(plan.items, &err);       // keys "grade:<qid>:<docid>:<repeat>"
//   ... executeRun(store, provider, ...) ...
//   AssessReport report = computeAssessReport(store);
//   writeAssessQrels(report, "llm.qrels", &merged, &err);
//
// Everything a report needs is in the store: the plan in the run's settings (one entry per pair:
// "qid", "doc", "rank" and, for a judged pair graded again, "judged"), "repeats" and
// "merge_qrels", the people's qrels as the data "human_qrels" when merging, and every prompt
// and reply.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/dataset.h"
#include "core/store/runstore.h"
#include "core/trecrag/assesspairs.h"
#include "core/trecrag/assessqrels.h"

namespace ragscope::core::eval {

inline constexpr std::string_view kAssessKeyPrefix = "grade:";
inline constexpr std::string_view kAssessJobKind = "assess";
inline constexpr std::size_t kMaxAssessRepeats = 100;

struct AssessJobOptions {
  std::size_t depth = trecrag::kDefaultAssessDepth;
  bool all = false;             // grade judged pairs again (agreement with the people)
  std::size_t repeats = 1;      // calls per pair (each its own seed when > 1)
  std::filesystem::path qrels;  // the people's qrels; empty: the dataset's
  bool mergeQrels = false;      // --out holds the people's qrels with the judge's grades added
  // The labels store (a project file or the store) every grade is added to after a complete
  // run, as relevance labels of `labelsScope` (empty: the dataset's name) by `annotator`
  // (empty: "judge:<model>"). Empty: no labels.
  std::filesystem::path labels;
  std::string labelsScope;
  std::string annotator;
};

// "grade:<qid>:<docid>:<repeat>" ('%' and ':' in ids escaped as %25 / %3A; repeat from 0).
std::string assessItemKey(std::string_view qid, std::string_view docId, std::size_t repeat);

struct AssessPlan {
  std::vector<store::NewItem> items;
  nlohmann::json plan;                     // [{"qid","doc","rank"[,"judged"]}]
  std::vector<trecrag::AssessPair> pairs;  // the pairs planned (text found)
  std::size_t queries = 0;                 // queries with at least one pair
  std::size_t judgedLeftOut = 0;           // judged pairs in the top depth not graded
  std::size_t judgedRegraded = 0;          // judged pairs graded again (all)
  std::size_t missingDocuments = 0;        // pairs whose document the corpus lacks (not graded)
  std::size_t queriesWithoutText = 0;      // run queries the dataset lacks (not graded)
  std::vector<std::string> warnings;
};

// One item per pair and repeat: the prompt holds the query's text and the document's.
AssessPlan planAssess(const Dataset& dataset, const Run& run, const Qrels& qrels,
                      const AssessJobOptions& options, std::string_view templateText);

// The people's qrels as the store keeps them for a merge ({qid: {doc: grade}}), and back.
nlohmann::json qrelsJson(const Qrels& qrels);
std::optional<Qrels> qrelsFromJson(const nlohmann::json& j, std::string* error);

struct AssessReport {
  std::string error;                       // non-empty: no report (bad store or plan)
  std::vector<trecrag::PairGrades> pairs;  // plan order
  trecrag::AssessCounts counts;
  std::size_t repeats = 1;
  bool mergeQrels = false;
  std::optional<Qrels> human;  // the people's qrels (merging runs)
  std::size_t heuristicReplies = 0;
  // The first unparsed replies (pair, repeat, reason), for people.
  std::vector<std::string> unparsedExamples;
  bool complete() const { return counts.repliesPending == 0; }
};

AssessReport computeAssessReport(store::RunStore& store);

// Writes the judge's grades as TREC qrels to `out` (atomically), or, when the run merges, the
// people's qrels with the judge's grades of the pairs they do not judge (`merged` then tells
// the counts and conflicts).
bool writeAssessQrels(const AssessReport& report, const std::filesystem::path& out,
                      trecrag::MergedQrels* merged, std::string* error);

// {"pairs", "graded", "ungraded", "replies": {"graded","unparsed","failed","pending"},
//  "grades": {"0": n, ...}, "repeats", "spread": {"pairs_disagreeing", "mean"},
//  "agreement" (judged pairs graded again): {"pairs", "exact"}}
nlohmann::json assessSummaryJson(const AssessReport& report);

// Every graded pair as a relevance label of the judge (core/labels/README.md): kind relevance,
// scope `scope` (the dataset's name), item the document, value the grade, annotator
// `annotator` ("judge:<model>"), comment the store and the repeats' grades. Pairs whose ids a
// label cannot hold are skipped and counted. One transaction: all or none.
struct AssessLabelsResult {
  std::size_t written = 0;
  std::size_t skipped = 0;
};
bool writeAssessLabels(const AssessReport& report, const std::filesystem::path& labelsPath,
                       const std::string& scope, const std::string& annotator,
                       const std::filesystem::path& storePath, AssessLabelsResult* result,
                       std::string* error);

}  // namespace ragscope::core::eval
