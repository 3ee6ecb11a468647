#include "core/stats/ppi.h"

#include <algorithm>
#include <cmath>

#include "core/util/nan.h"

namespace ragscope::core::stats {

namespace {

// Population variance (ddof 0), as numpy's std() that ppi_py uses for the interval.
double ppiPopulationVariance(std::span<const double> values) {
  if (values.empty()) return kNaN;
  const double m = meanOf(values);
  double ss = 0.0;
  for (double v : values) ss += (v - m) * (v - m);
  return ss / double(values.size());
}

// Population covariance of two equally long spans (ppi_py's cov_grads, before its factor 2).
double ppiPopulationCovariance(std::span<const double> a, std::span<const double> b) {
  const double ma = meanOf(a), mb = meanOf(b);
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - ma) * (b[i] - mb);
  return s / double(a.size());
}

bool ppiAllFinite(std::span<const double> values) {
  return std::ranges::all_of(values, [](double v) { return std::isfinite(v); });
}

MeanWithInterval ppiNormalMean(std::span<const double> values, double z) {
  MeanWithInterval m;
  m.n = values.size();
  m.mean = meanOf(values);
  if (values.empty()) {
    m.ci = {kNaN, kNaN};
    return m;
  }
  const double half = z * std::sqrt(ppiPopulationVariance(values) / double(values.size()));
  m.ci = {m.mean - half, m.mean + half};
  return m;
}

}  // namespace

PpiResult ppiMean(const PpiInput& input, const PpiOptions& options) {
  PpiResult r;
  r.nLabelled = input.labelledY.size();
  r.nUnlabelled = input.unlabelledF.size();
  r.ci = {kNaN, kNaN};
  r.estimate = kNaN;
  r.judgeOnly.mean = r.humanOnly.mean = kNaN;
  r.judgeOnly.ci = r.humanOnly.ci = {kNaN, kNaN};
  if (input.labelledY.size() != input.labelledF.size()) {
    r.error = "the labelled items have " + std::to_string(input.labelledY.size()) +
              " human values but " + std::to_string(input.labelledF.size()) + " judge values";
    return r;
  }
  if (!ppiAllFinite(input.labelledY) || !ppiAllFinite(input.labelledF) ||
      !ppiAllFinite(input.unlabelledF)) {
    r.error = "a value is not a finite number";
    return r;
  }
  if (!(options.level > 0.0 && options.level < 1.0)) {
    r.error = "the level must lie strictly between 0 and 1";
    return r;
  }
  if (options.lambda && !(std::isfinite(*options.lambda))) {
    r.error = "lambda is not a finite number";
    return r;
  }
  const double z = normalQuantile((1.0 + options.level) / 2.0);
  const std::size_t n = r.nLabelled, nu = r.nUnlabelled;

  std::vector<double> all(input.labelledF);
  all.insert(all.end(), input.unlabelledF.begin(), input.unlabelledF.end());
  r.judgeOnly = ppiNormalMean(all, z);
  r.humanOnly = ppiNormalMean(input.labelledY, z);

  if (n == 0) {
    r.error = "no item has a human label (n = 0)";
    return r;
  }
  if (nu == 0) {
    r.error = "every item has a human label (N_u = 0): the human mean is the estimate";
    return r;
  }

  if (options.lambda) {
    r.lambda = *options.lambda;
  } else {
    // PPI++ power tuning (see core/stats/README.md): lambda minimising the estimate's variance.
    const double varPooled = sampleVariance(all);
    const double denom = (1.0 + double(n) / double(nu)) * varPooled;
    // A judge that says the same on every item carries no information (and every lambda gives
    // the same estimate and interval): use 0 rather than 0 / 0.
    const double lambda =
        denom > 0.0 ? ppiPopulationCovariance(input.labelledY, input.labelledF) / denom : 0.0;
    r.lambda = std::clamp(lambda, 0.0, 1.0);
  }

  std::vector<double> imputed(nu), rectifier(n);
  for (std::size_t i = 0; i < nu; ++i) imputed[i] = r.lambda * input.unlabelledF[i];
  for (std::size_t i = 0; i < n; ++i)
    rectifier[i] = input.labelledY[i] - r.lambda * input.labelledF[i];
  r.estimate = meanOf(imputed) + meanOf(rectifier);
  const double se = std::sqrt(ppiPopulationVariance(imputed) / double(nu) +
                              ppiPopulationVariance(rectifier) / double(n));
  r.ci = {r.estimate - z * se, r.estimate + z * se};
  return r;
}

}  // namespace ragscope::core::stats
