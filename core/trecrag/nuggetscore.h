#pragma once
// The AutoNuggetizer's four scores of an answer's assigned nuggets, per query and their means
// (core/trecrag/README.md, "Nuggets"), exactly as nuggetizer's calculate_nugget_scores and
// calculate_global_metrics compute them:
//
//   strict_vital = (vital nuggets assigned support) / (vital nuggets)
//   strict_all   = (nuggets assigned support) / (nuggets)
//   vital        = (vital support + 0.5 x vital partial_support) / (vital nuggets)
//   all          = (support + 0.5 x partial_support) / (nuggets)
//
// A query without a vital nugget scores 0 on both vital scores, a query without nuggets 0 on all
// four (nuggetizer's "if vital_nuggets else 0.0"); such queries still count in the means, which
// are plain means over the queries in file order.
//
//   NuggetScoreTable t = scoreNuggetQueries(file.value);
//   std::cout << formatNuggetScores(t, /*perQuery=*/true);

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/trecrag/nuggetfile.h"

namespace ragscope::core::trecrag {

struct NuggetScores {
  std::string qid;
  double strictVital = 0.0;
  double strictAll = 0.0;
  double vital = 0.0;
  double all = 0.0;
  std::size_t nuggets = 0;       // all nuggets of the query
  std::size_t vitalNuggets = 0;  // of which vital
};

struct NuggetScoreTable {
  std::vector<NuggetScores> queries;  // in file order
  NuggetScores mean;                  // qid "all"; nuggets and vitalNuggets are totals
};

NuggetScores scoreNuggets(const NuggetQuery& query);
NuggetScoreTable scoreNuggetQueries(std::span<const NuggetQuery> queries);

// {"queries": [{"qid", "strict_vital", "strict_all", "vital", "all"}, ...] (file order),
//  "mean": {"strict_vital", "strict_all", "vital", "all"}, "n": number of queries}.
nlohmann::ordered_json nuggetScoresJson(const NuggetScoreTable& table);

// trec_eval's layout: "measure<TAB>qid<TAB>value" (four decimals), each query's four lines before
// the `all` lines when perQuery.
std::string formatNuggetScores(const NuggetScoreTable& table, bool perQuery);

}  // namespace ragscope::core::trecrag
