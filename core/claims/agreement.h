#pragma once
// Judge vs human agreement (core/claims/README.md, "Judge vs human"): Pearson's r, Spearman's rho,
// Kendall's tau-b and Cohen's kappa between paired judge and human values, each with a percentile
// bootstrap CI, plus the same coefficients between two annotators (the ceiling a judge can be
// expected to reach).
//
//   AgreementInput in;
//   in.judge = {...}; in.human = {...};        // paired values
//   in.cluster = {0, 0, 1, 1, ...};            // pairs resampled together (one instance, two
//                                              // annotators); empty: each pair on its own
//   in.judgeCategories = ...; in.humanCategories = ...;   // for kappa; empty: no kappa
//   Agreement a = computeAgreement(in, {});   // a.pearson.value, a.pearson.ci.low, ...
//
// Spearman = Pearson of average ranks (scipy.stats.spearmanr); Kendall tau-b as
// core/stats/correlation.h; kappa unweighted, (po - pe) / (1 - pe) over the categories that
// occur (stats::cohenKappa, core/stats/kappa.h). The bootstrap draws clusters with replacement (B
// resamples, seed, per-resample streams: the same result on any machine); a resample in which a
// coefficient is undefined (a constant side) is left out of its interval and counted.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/stats/summary.h"

namespace ragscope::core::claims {

// NaN when undefined (fewer than 2 pairs, a constant side).
double pearson(std::span<const double> x, std::span<const double> y);
// True when every value is a finite whole number (usable as a category).
bool isCategorical(std::span<const double> values);

struct AgreementOptions {
  std::size_t resamples = 1000;  // 0: no CIs
  double level = 0.95;
  std::uint64_t seed = 42;
};

struct AgreementStat {
  double value = std::numeric_limits<double>::quiet_NaN();
  stats::Interval ci{std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::quiet_NaN()};
  std::size_t undefinedResamples = 0;
};

struct AgreementInput {
  std::vector<double> judge;
  std::vector<double> human;
  std::vector<std::uint32_t> cluster;   // empty, or one id per pair
  std::vector<double> judgeCategories;  // empty, or one per pair (kappa)
  std::vector<double> humanCategories;
};

struct Agreement {
  std::size_t n = 0;         // pairs
  std::size_t clusters = 0;  // resampling units
  AgreementStat pearson;
  AgreementStat spearman;
  AgreementStat kendallTauB;
  AgreementStat cohenKappa;  // NaN without categories
};

Agreement computeAgreement(const AgreementInput& input, const AgreementOptions& options);

}  // namespace ragscope::core::claims
