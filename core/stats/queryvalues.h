#pragma once
// Per-query values of one measure: qid -> value, in qid byte order (as trec_eval prints them).

#include <functional>
#include <map>
#include <string>

namespace ragscope::core::stats {

using QueryValues = std::map<std::string, double, std::less<>>;

// measure name as printed ("ndcg_cut_10") -> its per-query values.
using MeasureTable = std::map<std::string, QueryValues, std::less<>>;

}  // namespace ragscope::core::stats
