#pragma once
// Rank correlation of paired values: Kendall's tau-b and Spearman's rho, with p-values and
// percentile bootstrap CIs (core/stats/README.md, "Correlation").
//
//   CorrelationResult c = correlate(x, y);          // x[i], y[i] paired (e.g. aligned qids)
//   // c.kendall.value, c.kendall.p, c.kendall.ci; c.spearman.value, c.spearman.p, c.spearman.ci
//
// Kendall tau-b = (C - D) / sqrt((n0 - n1)(n0 - n2)), n0 = n(n-1)/2, n1/n2 the pairs tied in
// x/y; computed in O(n log n) (Knight 1966: sort by x then y, count discordant pairs as merge
// sort swaps). p-value: normal approximation, z = S / sqrt(Var S) with S = C - D and the
// tie-corrected variance (Kendall 1970, eq. 4.3):
//   Var S = [n(n-1)(2n+5) - sum t(t-1)(2t+5) - sum u(u-1)(2u+5)] / 18
//         + [sum t(t-1)][sum u(u-1)] / [2n(n-1)]
//         + [sum t(t-1)(t-2)][sum u(u-1)(u-2)] / [9n(n-1)(n-2)]
// (t, u: sizes of the tie groups in x, y); two-sided, no continuity correction. This is
// scipy.stats.kendalltau(method="asymptotic"); no exact small-sample distribution is used.
// Spearman rho = Pearson correlation of the average ranks (ties share their mean rank); p from
// t = rho sqrt((n-2)/(1-rho^2)) with n-2 degrees of freedom, two-sided (as scipy.spearmanr).
// Bootstrap CIs resample the n pairs (pair b from streamFor(seed, CorrelationBootstrap, b));
// resamples in which a coefficient is undefined (a constant side) are left out of its interval
// and counted.

#include <atomic>
#include <cstdint>
#include <span>
#include <string>

#include "core/stats/bootstrap.h"

namespace ragscope::core::stats {

struct Coefficient {
  double value = 0.0;      // NaN when undefined (n < 2 or a side constant)
  double p = 1.0;          // two-sided; NaN when undefined
  double statistic = 0.0;  // z (Kendall) or t (Spearman)
  Interval ci{0.0, 0.0};   // NaN when no bootstrap was asked for
  std::size_t undefinedResamples = 0;
};

struct CorrelationOptions {
  std::size_t resamples = 1000;  // bootstrap resamples for the CIs; 0 = no CIs
  double level = 0.95;
  std::uint64_t seed = kDefaultSeed;
  unsigned threads = 0;
  const std::atomic<bool>* cancel = nullptr;
};

struct CorrelationResult {
  std::size_t n = 0;
  Coefficient kendall;
  Coefficient spearman;
  std::string error;
  bool cancelled = false;

  bool ok() const { return error.empty() && !cancelled; }
};

CorrelationResult correlate(std::span<const double> x, std::span<const double> y,
                            const CorrelationOptions& options = {});

// The coefficients alone (no p-values, no bootstrap); NaN when undefined.
double kendallTauB(std::span<const double> x, std::span<const double> y);
double spearmanRho(std::span<const double> x, std::span<const double> y);

// Average ranks (1-based; ties get the mean of the ranks they span).
std::vector<double> averageRanks(std::span<const double> values);

}  // namespace ragscope::core::stats
