#pragma once
// Small descriptive helpers shared by the statistics engine and its viewers: quantiles (type 7,
// the linear interpolation of R's default and numpy's "linear"), mean/variance, normal
// quantiles, and histograms of a distribution for charts.
//
//   std::vector<double> sorted = result.distribution;  std::ranges::sort(sorted);
//   double median = quantileSorted(sorted, 0.5);
//   Histogram h = makeHistogram(result.distribution, 40);   // plain counts for a bar series

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace ragscope::core::stats {

// Two-sided interval; NaN bounds when undefined (no data, cancelled, ...).
struct Interval {
  double low;
  double high;
};

// Type-7 quantile of ascending `sorted` at probability p in [0, 1]: h = (n-1)p, linear between
// the order statistics around h. NaN for an empty span.
double quantileSorted(std::span<const double> sorted, double p);

double meanOf(std::span<const double> values);
// Sample variance with the n-1 denominator (NaN for fewer than 2 values).
double sampleVariance(std::span<const double> values);

// Standard normal CDF and quantile (Boost.Math).
double normalCdf(double z);
double normalQuantile(double p);

struct Histogram {
  double low = 0.0;   // left edge of the first bin
  double high = 0.0;  // right edge of the last bin (values equal to it fall in the last bin)
  std::vector<std::size_t> counts;
  std::size_t outside = 0;    // finite values outside [low, high] (only with an explicit range)
  std::size_t nonFinite = 0;  // NaN/inf values, never binned

  double binWidth() const { return counts.empty() ? 0.0 : (high - low) / double(counts.size()); }
  double binLow(std::size_t i) const { return low + binWidth() * double(i); }
};

// bins = 0 picks the Freedman-Diaconis width (falling back to sqrt(n) bins), clamped to
// [1, 512] bins. Without `range` the bins span the finite values' min..max (a single value
// gets a unit-wide bin around it); pass the same range to overlay several distributions.
Histogram makeHistogram(std::span<const double> values, std::size_t bins = 0,
                        std::optional<std::pair<double, double>> range = std::nullopt);

}  // namespace ragscope::core::stats
