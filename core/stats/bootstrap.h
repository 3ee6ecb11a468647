#pragma once
// Bootstrap of a mean over per-item metric values (VERA §3.3; core/stats/README.md, "Bootstrap").
//
// B resamples of size s are drawn with replacement from the n values; each resample's mean is
// one point of the bootstrap distribution. Reported: the bootstrap mean (mean of the B resample
// means), their variance with the B-1 denominator (VERA's sigma^2(M)), and a confidence
// interval: percentile (the (1-L)/2 and (1+L)/2 type-7 quantiles of the B means) or BCa.
//
//   BootstrapOptions o;            // B = 10,000, s = n, seed 42, 95 %, percentile
//   o.resamples = 500; o.sampleSize = 50;   // VERA's own setting
//   BootstrapResult r = bootstrap(values, o);
//   // r.mean, r.variance, r.ci.low, r.ci.high, r.distribution (B means, resample order)
//
// Determinism: resample b draws from streamFor(seed, Domain::Bootstrap, b) and is summed in a
// fixed order by whichever worker owns it, so the result is bit-identical for a seed on any
// number of threads.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/stats/random.h"
#include "core/stats/summary.h"

namespace ragscope::core::stats {

inline constexpr std::uint64_t kDefaultSeed = 42;

enum class CiMethod {
  Percentile,
  // Bias-corrected and accelerated (Efron 1987): z0 from the share of resample means below the
  // observed mean (ties count half, clamped to [1/(2B), 1-1/(2B)] so z0 stays finite), the
  // acceleration from the jackknife of the mean, a = sum d^3 / (6 (sum d^2)^1.5) with
  // d = x_i - mean. It assumes s = n; with s != n it is an approximation.
  Bca,
};

struct BootstrapOptions {
  std::size_t resamples = 10000;  // B
  std::size_t sampleSize = 0;     // s; 0 = n
  std::uint64_t seed = kDefaultSeed;
  double level = 0.95;  // in (0, 1)
  CiMethod method = CiMethod::Percentile;
  unsigned threads = 0;          // 0 = hardware concurrency
  bool keepDistribution = true;  // false: result.distribution left empty (saves B doubles)
  const std::atomic<bool>* cancel = nullptr;  // polled between resamples
};

struct BootstrapResult {
  std::size_t n = 0;
  std::size_t resamples = 0;
  std::size_t sampleSize = 0;
  std::uint64_t seed = 0;
  double level = 0.0;
  CiMethod method = CiMethod::Percentile;
  double observedMean = 0.0;   // plain mean of the n values
  double mean = 0.0;           // mean of the B resample means
  double variance = 0.0;       // of the resample means, B-1 denominator
  double standardError = 0.0;  // sqrt(variance)
  Interval ci{0.0, 0.0};
  double biasCorrection = 0.0;       // BCa z0 (0 for percentile)
  double acceleration = 0.0;         // BCa a (0 for percentile)
  std::vector<double> distribution;  // the B resample means, in resample order
  std::string error;                 // non-empty: nothing computed (no values, bad option, ...)
  bool cancelled = false;

  bool ok() const { return error.empty() && !cancelled; }
};

BootstrapResult bootstrap(std::span<const double> values, const BootstrapOptions& options = {});

// The B resample means alone (the engine of bootstrap(), also used by the contrastive analysis):
// resample b draws `sampleSize` indices from streamFor(seed, domain, b, salt) and writes its mean
// to out[b] (out.size() resamples). Returns false when cancelled.
bool resampleMeans(std::span<const double> values, std::size_t sampleSize, std::uint64_t seed,
                   Domain domain, std::uint64_t salt, unsigned threads, std::span<double> out,
                   const std::atomic<bool>* cancel = nullptr);

// Percentile or BCa interval from an already computed distribution of means (any order).
// `values` is only needed for BCa's acceleration. Returns the interval and fills z0/a.
Interval bootstrapInterval(std::span<const double> distribution, double observed, double level,
                           CiMethod method, std::span<const double> values, double* z0 = nullptr,
                           double* acceleration = nullptr);

}  // namespace ragscope::core::stats
