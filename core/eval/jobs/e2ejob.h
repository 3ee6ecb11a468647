#pragma once
// The end-to-end job (core/eval/jobs/README.md, "End-to-end and correlation"): one chat call per
// query with the RAG prompt holding all of its top-k documents ("e2e:<qid>"), the output scored
// against the gold answers with the same downstream metric as eRAG. The per-query scores are what
// eRAG (and every other retrieval evaluation) is correlated with (correlationanalysis.h).
//
//   E2ePlan plan = planE2e(dataset, run, 5, defaultRagTemplate());
//   record.settings["plan"] = plan.plan; store.addItems(plan.items, &err); ... executeRun ...
//   E2eReport report = computeE2eReport(store, {});

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/eval/jobs/eragjob.h"

namespace ragscope::core::eval {

inline constexpr std::string_view kE2eKeyPrefix = "e2e:";
inline constexpr std::string_view kE2eJobKind = "e2e";

std::string e2eItemKey(std::string_view qid);

struct E2ePlan {
  std::vector<store::NewItem> items;
  nlohmann::json plan;  // planJson(top), the same layout as eRAG's
  TopDocuments top;
};

E2ePlan planE2e(const Dataset& dataset, const Run& run, std::size_t k,
                std::string_view templateText);

struct E2eReport {
  std::string error;
  std::string metricKey;
  std::vector<PlannedQuery> queries;
  std::vector<std::optional<double>> scores;  // per planned query; nullopt: no output
  std::vector<std::string> outputs;
  std::vector<std::string> incomplete;
  std::vector<std::string> qids;    // queries with a score, plan order
  std::vector<double> values;       // their scores
  double mean = 0.0;                // NaN when no query has a score
  stats::BootstrapResult interval;  // resamples 0: not computed
  std::size_t heuristicOutputs = 0;
};

E2eReport computeE2eReport(store::RunStore& store, const stats::BootstrapOptions& bootstrap);

// {"metric","queries","mean","ci95":[lo,hi],"per_query":{qid: v},"incomplete":[...]}.
nlohmann::json e2eScoresJson(const E2eReport& report);

// Table query_scores(qid, measure, value) in the store's file with measure "e2e <metric>".
bool storeE2eScores(const std::filesystem::path& storePath, const E2eReport& report,
                    std::string* error);

}  // namespace ragscope::core::eval
