#pragma once
// Contrastive topicality analysis (VERA §3.4; core/stats/README.md, "Contrastive topicality"): two
// or more named query sets over the same collection (on-topic vs off-topic, TREC DL rel=3 vs rel=0
// pairs, ...), the same measure on each. Every set gets its own bootstrap distribution of the mean;
// every pair of sets gets the difference of means with a bootstrap CI and a two-sample permutation
// p-value, Holm-adjusted across the pairs.
//
//   ContrastiveOptions o;  o.bootstrap.sampleSize = 50;  o.bootstrap.resamples = 500;  // VERA
//   ContrastiveResult r = contrastive({{"on-topic", on}, {"off-topic", off}}, o);
//   // r.groups[i].bootstrap.distribution  -> overlay with makeHistogram(..., bins, r.range)
//   // r.pairs[0].meanDiff, .ci, .pPermutation, .pHolm
//
// Difference CI: group i's resample b and group j's resample b are independent draws (group g
// bootstraps with its own seed mix64(seed ^ mix64(0xC0FFEE + g)); the result still reports the
// caller's seed), so d_b = mean_i,b - mean_j,b is a bootstrap draw of the
// difference of means; its percentile interval is reported. With a common sampleSize s each
// group is resampled at size s (VERA); with s = 0 each at its own size.
// Permutation p: the two sets are pooled and the first set's labels reassigned at random
// (permutation k from streamFor(seed, TwoSamplePermutation, k, pair)); statistic |mean_i -
// mean_j|; p = (#{|diff*| >= |diff|} + 1) / (N + 1), with the 1e-10 relative tolerance of the
// sign-flip test.

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/stats/bootstrap.h"

namespace ragscope::core::stats {

struct NamedSample {
  std::string name;
  std::vector<double> values;
};

struct ContrastiveOptions {
  BootstrapOptions bootstrap;  // B, s (0 = each set's own n), seed, level, threads, cancel
  std::size_t permutations = 10000;
};

struct ContrastiveGroup {
  std::string name;
  BootstrapResult bootstrap;
};

struct ContrastivePair {
  std::size_t first = 0;  // indices into groups; the difference is first - second
  std::size_t second = 0;
  double meanDiff = 0.0;  // observed mean(first) - mean(second)
  Interval ci{0.0, 0.0};  // percentile CI of the bootstrap difference
  double pPermutation = 1.0;
  double pHolm = 1.0;                // Holm-adjusted over all pairs
  std::vector<double> distribution;  // bootstrap differences, resample order
};

struct ContrastiveResult {
  std::vector<ContrastiveGroup> groups;
  std::vector<ContrastivePair> pairs;         // (0,1), (0,2), ..., (1,2), ...
  std::pair<double, double> range{0.0, 0.0};  // min..max over all groups' distributions
  std::string error;
  bool cancelled = false;

  bool ok() const { return error.empty() && !cancelled; }
};

ContrastiveResult contrastive(std::span<const NamedSample> sets,
                              const ContrastiveOptions& options = {});

// Two-sample permutation test of |mean(a) - mean(b)| (exposed for tests and other callers).
double permutationTest(std::span<const double> a, std::span<const double> b,
                       std::size_t permutations, std::uint64_t seed, std::uint64_t salt = 0,
                       unsigned threads = 0, const std::atomic<bool>* cancel = nullptr);

}  // namespace ragscope::core::stats
