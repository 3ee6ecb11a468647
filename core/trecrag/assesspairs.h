#pragma once
// Which query-document pairs `ragscope-cli assess` grades (core/trecrag/README.md,
// "Assessment: pairs"): each query's top `depth` documents of a run, in trec_eval's order (score
// descending, docno descending; core/metrics/retrievalevaluator.h rankedList), less the pairs the
// qrels judge (a negative grade is a judgment too) unless `all` asks to grade those again (to
// measure the assessor's agreement with the people). A document a ranking lists twice is one
// pair (its better rank).
//
//   PairSelection s = selectAssessPairs(run, dataset.qrels, 20, false);

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/data/model.h"

namespace ragscope::core::trecrag {

// The default --depth: nDCG@20 is the first measure of UMBRELA's comparison with NIST's
// assessors, and 20 is the default measure of qrels-agreement (ndcg_cut_20).
inline constexpr std::size_t kDefaultAssessDepth = 20;

struct AssessPair {
  std::string qid;
  std::string docId;
  std::size_t rank = 0;       // 1-based, in the run's trec_eval order
  std::optional<int> judged;  // the qrels' grade (only with `all`)
};

struct PairSelection {
  std::vector<AssessPair> pairs;   // the run's query order, ranks ascending
  std::size_t judgedLeftOut = 0;   // judged pairs in the top depth not graded (without `all`)
  std::size_t judgedRegraded = 0;  // judged pairs graded again (with `all`)
};

PairSelection selectAssessPairs(const Run& run, const Qrels& qrels, std::size_t depth, bool all);

}  // namespace ragscope::core::trecrag
