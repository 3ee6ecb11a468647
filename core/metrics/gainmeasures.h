#pragma once
// Inside the retrieval evaluator: the gain measures, the family that weighs each retrieved doc by
// a gain drawn from its grade (see core/metrics/README.md): ndcg, ndcg_cut, G, ndcg_rel, Rndcg,
// rbp and rbp_resid, computed as trec_eval 10 computes them (rbp as Moffat & Zobel define it).

#include "core/metrics/measures.h"
#include "core/metrics/queryranking.h"

namespace ragscope::core::treceval {

// One gain-measure column's value for one query; 0 for a column of another family.
double gainMeasure(const MeasureColumn& c, const PreparedQuery& q);

}  // namespace ragscope::core::treceval
