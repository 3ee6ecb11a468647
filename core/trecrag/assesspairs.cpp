#include "core/trecrag/assesspairs.h"

#include <set>
#include <string_view>

#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core::trecrag {

PairSelection selectAssessPairs(const Run& run, const Qrels& qrels, std::size_t depth, bool all) {
  PairSelection out;
  for (const Ranking& ranking : run.rankings) {
    const auto it = qrels.byQuery.find(ranking.queryId);
    const std::vector<Judgment>* judgments = it == qrels.byQuery.end() ? nullptr : &it->second;
    std::set<std::string_view> seen;
    for (const RankedDoc& d : rankedList(ranking, judgments, depth)) {
      if (!seen.insert(d.docId).second) continue;
      if (d.rel) {
        if (!all) {
          ++out.judgedLeftOut;
          continue;
        }
        ++out.judgedRegraded;
      }
      out.pairs.push_back({ranking.queryId, std::string(d.docId), d.rank, d.rel});
    }
  }
  return out;
}

}  // namespace ragscope::core::trecrag
