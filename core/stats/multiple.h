#pragma once
// Multiple-comparison adjustment of p-values (core/stats/README.md, "Paired comparison").
//
//   std::vector<double> adj = holmAdjust({0.01, 0.04, 0.03, 0.005});  // {0.03, 0.06, 0.06, 0.02}
//
// Holm (1979) step-down: sort the m p-values ascending, p_(k) -> (m - k + 1) p_(k), made
// non-decreasing by a running maximum and capped at 1; results come back in input order.
// Rejecting where adjusted p <= alpha is Holm's procedure at family-wise level alpha.
// NaN entries are left NaN and not counted in m.

#include <span>
#include <vector>

namespace ragscope::core::stats {

std::vector<double> holmAdjust(std::span<const double> pValues);
std::vector<double> bonferroniAdjust(std::span<const double> pValues);

}  // namespace ragscope::core::stats
