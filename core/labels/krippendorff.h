#pragma once
// Krippendorff's alpha (core/labels/README.md, "Inter-annotator agreement"): the agreement of
// any number of annotators over units each labelled by some of them, as Krippendorff (2011),
// "Computing Krippendorff's Alpha-Reliability", computes it through the coincidence matrix:
//   o_ck = sum over units u with m_u >= 2 values of (pairs (c, k) of values of u) / (m_u - 1)
//   n_c = sum_k o_ck,  n = sum_c n_c  (the pairable values)
//   D_o = (1/n) sum_c sum_k o_ck delta2(c, k)
//   D_e = 1/(n (n - 1)) sum_c sum_k n_c n_k delta2(c, k)
//   alpha = 1 - D_o / D_e
// with delta2 = 0 when c = k, else 1 (nominal), or (c - k)^2 (interval). Units with one value
// are not pairable and left out. alpha is NaN when undefined: fewer than two pairable values,
// or D_e = 0 (every value the same).
//
//   std::vector<std::vector<double>> units = {{1, 1, 1}, {2, 3}, {3, 3, 3, 3}};
//   AlphaResult a = krippendorffAlpha(units, AlphaMetric::Nominal);  // a.alpha

#include <cstddef>
#include <limits>
#include <vector>

namespace ragscope::core::labels {

enum class AlphaMetric { Nominal, Interval };

struct AlphaResult {
  double alpha = std::numeric_limits<double>::quiet_NaN();
  double observedDisagreement = std::numeric_limits<double>::quiet_NaN();  // D_o
  double expectedDisagreement = std::numeric_limits<double>::quiet_NaN();  // D_e
  std::size_t pairableUnits = 0;   // units with at least two values
  std::size_t pairableValues = 0;  // n
};

// units[u] = the values the annotators gave unit u (missing values simply absent).
AlphaResult krippendorffAlpha(const std::vector<std::vector<double>>& units, AlphaMetric metric);

}  // namespace ragscope::core::labels
