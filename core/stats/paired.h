#pragma once
// Paired comparison of two runs on aligned query ids: paired bootstrap CI of the mean difference,
// Fisher's randomization (sign-flip) test and the paired t-test (core/stats/README.md, "Paired
// comparison").
//
//   PairedSample s = alignByQid(perQueryA, perQueryB);   // qids in both; the rest listed
//   PairedResult r = comparePaired(s, PairedOptions{});  // A minus B
//   // r.meanDiff, r.ci, r.randomization.p, r.ttest.p, r.wins/ties/losses, r.onlyInA/onlyInB
//
// Randomization test: under H0 each difference d_i = a_i - b_i is equally likely to have either
// sign. Statistic |sum d_i| (equivalently |mean|), two-sided. Zero differences are left out (their
// sign changes nothing). With at most `exactLimit` non-zero differences all 2^m sign vectors are
// enumerated and p = #{|sum*| >= |sum|} / 2^m exactly; otherwise `permutations` random sign
// vectors are drawn (vector k from streamFor(seed, SignFlip, k)) and p = (#{...} + 1) / (N + 1)
// (the observed assignment counted, so p is never 0; Phipson & Smyth 2010). Comparisons allow a
// relative tolerance of 1e-10 of sum|d_i| so that sign vectors with equal sums tie exactly
// despite rounding.
// t-test: t = mean(d) / (sd(d) / sqrt(n)), df = n - 1, two-sided p from Student's t
// (Boost.Math). sd = 0 gives t = +-inf and p = 0 (or t = 0, p = 1 when all d are 0).

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/stats/bootstrap.h"
#include "core/stats/queryvalues.h"

namespace ragscope::core::stats {

struct PairedSample {
  std::vector<std::string> qids;  // in both, qid byte order
  std::vector<double> a;          // a[i], b[i] belong to qids[i]
  std::vector<double> b;
  std::vector<std::string> onlyInA;  // unaligned: reported, never silently dropped
  std::vector<std::string> onlyInB;

  std::size_t unaligned() const { return onlyInA.size() + onlyInB.size(); }
};

PairedSample alignByQid(const QueryValues& a, const QueryValues& b);

struct RandomizationResult {
  double observedMean = 0.0;  // mean difference over all n pairs
  double p = 1.0;
  bool exact = false;            // enumerated all 2^m sign vectors
  std::size_t nonZero = 0;       // m
  std::size_t permutations = 0;  // sign vectors drawn (Monte Carlo) or 2^m (exact)
  bool cancelled = false;
};

struct RandomizationOptions {
  std::size_t permutations = 10000;
  std::size_t exactLimit = 20;  // enumerate when m <= this (2^20 sign vectors ~ a few ms)
  std::uint64_t seed = kDefaultSeed;
  unsigned threads = 0;
  const std::atomic<bool>* cancel = nullptr;
};

RandomizationResult signFlipTest(std::span<const double> differences,
                                 const RandomizationOptions& options = {});

struct TTestResult {
  double t = 0.0;
  double df = 0.0;
  double p = 1.0;  // two-sided; NaN for n < 2
};

TTestResult pairedTTest(std::span<const double> differences);

struct PairedOptions {
  std::size_t resamples = 10000;  // paired bootstrap of the mean difference
  double level = 0.95;
  CiMethod method = CiMethod::Percentile;
  std::size_t permutations = 10000;
  std::size_t exactLimit = 20;
  std::uint64_t seed = kDefaultSeed;
  unsigned threads = 0;
  bool keepDistribution = true;
  const std::atomic<bool>* cancel = nullptr;
};

struct PairedResult {
  std::size_t n = 0;
  std::vector<std::string> onlyInA;
  std::vector<std::string> onlyInB;
  double meanA = 0.0;
  double meanB = 0.0;
  double meanDiff = 0.0;  // mean of a_i - b_i
  Interval ci{0.0, 0.0};  // paired bootstrap (resample query indices), percentile or BCa
  RandomizationResult randomization;
  TTestResult ttest;
  std::size_t wins = 0;  // a_i > b_i
  std::size_t ties = 0;
  std::size_t losses = 0;            // a_i < b_i
  std::vector<double> distribution;  // bootstrap means of the differences, resample order
  std::string error;
  bool cancelled = false;

  std::size_t unaligned() const { return onlyInA.size() + onlyInB.size(); }
  bool ok() const { return error.empty() && !cancelled; }
};

// a and b must have the same length (a[i], b[i] paired).
PairedResult comparePaired(std::span<const double> a, std::span<const double> b,
                           const PairedOptions& options = {});
PairedResult comparePaired(const PairedSample& sample, const PairedOptions& options = {});

}  // namespace ragscope::core::stats
