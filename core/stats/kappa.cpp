#include "core/stats/kappa.h"

#include <algorithm>
#include <map>
#include <utility>

#include "core/util/nan.h"

namespace ragscope::core::stats {

double cohenKappa(std::span<const double> a, std::span<const double> b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n == 0) return kNaN;
  std::map<double, std::pair<double, double>> marginals;  // category -> (count in a, count in b)
  double agree = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    ++marginals[a[i]].first;
    ++marginals[b[i]].second;
    if (a[i] == b[i]) ++agree;
  }
  const double dn = double(n);
  double pe = 0.0;
  for (const auto& [category, counts] : marginals) pe += (counts.first / dn) * (counts.second / dn);
  const double po = agree / dn;
  if (pe >= 1.0) return kNaN;
  return (po - pe) / (1.0 - pe);
}

}  // namespace ragscope::core::stats
