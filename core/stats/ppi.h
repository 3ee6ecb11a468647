#pragma once
// Prediction-powered inference for a mean (core/stats/README.md, "Prediction-powered
// inference"): a judge's predictions f on all N items, human labels Y on n of them, and an
// estimate of the mean of Y that uses the judge where humans did not label, corrected by the
// judge's error where they did (Angelopoulos et al., Science 2023; PPI++: Angelopoulos, Duchi and
// Zrnic 2023, power tuning).
//
//   labelled set   L: the n items with a human label (Y_i and f_i)
//   unlabelled set U: the N_u = N - n items without one (f_i only)
//   estimate(lambda) = mean_U(lambda f) + mean_L(Y - lambda f)
//   interval = estimate +- z * sqrt(var_U(lambda f) / N_u + var_L(Y - lambda f) / n)
//              (population variances, z the normal quantile of (1 + level) / 2)
//   classical PPI: lambda = 1
//   PPI++ (default): lambda = cov_L(Y, f) / ((1 + n / N_u) * var_{L u U}(f)),
//              cov population, var sample (ddof 1) over the pooled f, clipped to [0, 1]
//              (as the ppi_py package computes it for a mean)
//
//   PpiInput in; in.labelledY = {...}; in.labelledF = {...}; in.unlabelledF = {...};
//   PpiResult r = ppiMean(in, {});   // r.estimate, r.ci, r.lambda, r.judgeOnly, r.humanOnly

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/stats/summary.h"

namespace ragscope::core::stats {

struct PpiInput {
  std::vector<double> labelledY;    // human values, n
  std::vector<double> labelledF;    // the judge's values on the same items, n
  std::vector<double> unlabelledF;  // the judge's values on the other items, N_u
};

struct PpiOptions {
  double level = 0.95;
  std::optional<double> lambda;  // nullopt: PPI++ power tuning; 1.0: classical PPI
};

struct MeanWithInterval {
  double mean = 0.0;  // NaN when there are no values
  Interval ci;        // normal interval mean +- z * sqrt(var_pop / count); NaN when undefined
  std::size_t n = 0;
};

struct PpiResult {
  std::string error;  // non-empty: no estimate (n = 0, N_u = 0, sizes differ, a non-finite value)
  double estimate = 0.0;
  Interval ci;
  double lambda = 1.0;  // the one used
  std::size_t nLabelled = 0, nUnlabelled = 0;
  MeanWithInterval judgeOnly;  // f over all N items
  MeanWithInterval humanOnly;  // Y over the n labelled items
  bool ok() const { return error.empty(); }
};

PpiResult ppiMean(const PpiInput& input, const PpiOptions& options);

}  // namespace ragscope::core::stats
