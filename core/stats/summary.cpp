#include "core/stats/summary.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>

#include "core/util/nan.h"

namespace ragscope::core::stats {

namespace {}

double quantileSorted(std::span<const double> sorted, double p) {
  if (sorted.empty() || std::isnan(p)) return kNaN;
  p = std::clamp(p, 0.0, 1.0);
  const double h = double(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  const double frac = h - double(lo);
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double meanOf(std::span<const double> values) {
  if (values.empty()) return kNaN;
  double sum = 0.0;
  for (double v : values) sum += v;
  return sum / double(values.size());
}

double sampleVariance(std::span<const double> values) {
  if (values.size() < 2) return kNaN;
  // Two passes: the textbook one-pass formula loses digits when the mean is large.
  const double m = meanOf(values);
  double ss = 0.0;
  for (double v : values) ss += (v - m) * (v - m);
  return ss / double(values.size() - 1);
}

double normalCdf(double z) {
  if (std::isnan(z)) return kNaN;
  if (std::isinf(z)) return z > 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::normal_distribution<double>(), z);
}

double normalQuantile(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return kNaN;
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  return boost::math::quantile(boost::math::normal_distribution<double>(), p);
}

Histogram makeHistogram(std::span<const double> values, std::size_t bins,
                        std::optional<std::pair<double, double>> range) {
  Histogram h;
  std::vector<double> finite;
  finite.reserve(values.size());
  for (double v : values) {
    if (std::isfinite(v))
      finite.push_back(v);
    else
      ++h.nonFinite;
  }
  if (range) {
    h.low = range->first;
    h.high = range->second;
  } else if (!finite.empty()) {
    const auto [mn, mx] = std::minmax_element(finite.begin(), finite.end());
    h.low = *mn;
    h.high = *mx;
  }
  if (!(h.high > h.low)) {  // one distinct value (or none): a unit bin centred on it
    h.low -= 0.5;
    h.high = h.low + 1.0;
  }
  if (bins == 0) {
    if (finite.size() >= 4) {
      std::sort(finite.begin(), finite.end());
      const double iqr = quantileSorted(finite, 0.75) - quantileSorted(finite, 0.25);
      const double width = 2.0 * iqr / std::cbrt(double(finite.size()));
      bins = width > 0.0 ? static_cast<std::size_t>(std::ceil((h.high - h.low) / width))
                         : static_cast<std::size_t>(std::ceil(std::sqrt(double(finite.size()))));
    } else {
      bins = 1;
    }
    bins = std::clamp<std::size_t>(bins, 1, 512);
  }
  h.counts.assign(bins, 0);
  const double scale = double(bins) / (h.high - h.low);
  for (double v : finite) {
    if (v < h.low || v > h.high) {
      ++h.outside;
      continue;
    }
    auto i = static_cast<std::size_t>((v - h.low) * scale);
    if (i >= bins) i = bins - 1;
    ++h.counts[i];
  }
  return h;
}

}  // namespace ragscope::core::stats
