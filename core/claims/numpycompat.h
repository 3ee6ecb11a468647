#pragma once
// The two numpy conventions behind the figures RAGChecker and RAGAS print, so ragscope's
// compatibility modes give the same bits:
//   numpyMean(v)         np.mean of a float64 array: pairwise summation (blocks of 128 summed
//                        with 8 accumulators, split in halves above that), then divided by n.
//   numpyRound(x, d)     np.round / round(np.float64, d) for d >= 0: rint(x * 10^d) / 10^d,
//                        ties to even (so 0.125 -> 0.12, and 68.25 -> 68.2).
//
//   double corpus = numpyRound(numpyMean(perExample) * 100, 1);   // RAGChecker's printed figure

#include <span>

namespace ragscope::core::claims {

// Pairwise sum in numpy's order (exact counts up to 2^53, as np.sum).
double numpySum(std::span<const double> values);
// NaN for an empty span (numpy warns "Mean of empty slice" and returns nan).
double numpyMean(std::span<const double> values);
double numpyRound(double x, int decimals);

// RAGChecker's printed corpus figure: round(mean * 100, 1).
inline double ragcheckerPercent(double mean) { return numpyRound(mean * 100.0, 1); }

}  // namespace ragscope::core::claims
