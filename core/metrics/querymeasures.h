#pragma once
// Inside the retrieval evaluator: every measure column's value for one prepared query (see
// core/metrics/README.md). One function per measure family in querymeasures.cpp (counts, the
// ranked-list measures over the relevant ranks, cutoff measures, set measures, interpolated
// precision, relstring) and gainmeasures.cpp (the gain measures).

#include <vector>

#include "core/metrics/measures.h"
#include "core/metrics/queryranking.h"
#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core::treceval {

// Fills out.values (one per column) and, with a relstring column, out.relstring.
void computeQueryMeasures(const std::vector<MeasureColumn>& columns, const PreparedQuery& q,
                          QueryEval& out);

}  // namespace ragscope::core::treceval
