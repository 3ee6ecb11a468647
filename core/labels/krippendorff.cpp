#include "core/labels/krippendorff.h"

#include <map>

namespace ragscope::core::labels {

AlphaResult krippendorffAlpha(const std::vector<std::vector<double>>& units, AlphaMetric metric) {
  AlphaResult out;
  // The coincidence matrix over the values that occur, in value order.
  std::map<double, std::map<double, double>> coincidences;
  for (const auto& unit : units) {
    const std::size_t m = unit.size();
    if (m < 2) continue;
    ++out.pairableUnits;
    out.pairableValues += m;
    const double weight = 1.0 / double(m - 1);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < m; ++j)
        if (i != j) coincidences[unit[i]][unit[j]] += weight;
  }
  if (out.pairableValues < 2) return out;
  auto delta2 = [metric](double c, double k) {
    if (metric == AlphaMetric::Nominal) return c == k ? 0.0 : 1.0;
    return (c - k) * (c - k);
  };
  std::map<double, double> marginal;  // n_c
  double observed = 0.0;
  for (const auto& [c, row] : coincidences)
    for (const auto& [k, o] : row) {
      marginal[c] += o;
      observed += o * delta2(c, k);
    }
  const double n = double(out.pairableValues);
  double expected = 0.0;
  for (const auto& [c, nc] : marginal)
    for (const auto& [k, nk] : marginal) expected += nc * nk * delta2(c, k);
  out.observedDisagreement = observed / n;
  out.expectedDisagreement = expected / (n * (n - 1.0));
  if (out.expectedDisagreement > 0.0)
    out.alpha = 1.0 - out.observedDisagreement / out.expectedDisagreement;
  return out;
}

}  // namespace ragscope::core::labels
