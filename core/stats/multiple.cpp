#include "core/stats/multiple.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ragscope::core::stats {

std::vector<double> holmAdjust(std::span<const double> p) {
  std::vector<double> out(p.begin(), p.end());
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  // Stable so equal p-values keep input order (the adjusted values are equal anyway).
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  const double m = double(order.size());
  double running = 0.0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    running = std::max(running, std::min(1.0, (m - double(k)) * p[order[k]]));
    out[order[k]] = running;
  }
  return out;
}

std::vector<double> bonferroniAdjust(std::span<const double> p) {
  const double m =
      double(std::count_if(p.begin(), p.end(), [](double v) { return !std::isnan(v); }));
  std::vector<double> out(p.begin(), p.end());
  for (double& v : out)
    if (!std::isnan(v)) v = std::min(1.0, v * m);
  return out;
}

}  // namespace ragscope::core::stats
