#include "core/claims/agreement.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/stats/bootstrap.h"
#include "core/stats/correlation.h"
#include "core/stats/kappa.h"
#include "core/stats/random.h"
#include "core/util/nan.h"

namespace ragscope::core::claims {

namespace {

// Separates agreement resamples from the correlation bootstrap that shares the domain.
constexpr std::uint64_t kAgreementSalt = 0xA62EE;

struct Values {
  double pearson, spearman, kendall, kappa;
};

Values coefficients(std::span<const double> x, std::span<const double> y,
                    std::span<const double> xc, std::span<const double> yc) {
  Values v{pearson(x, y), stats::spearmanRho(x, y), stats::kendallTauB(x, y), kNaN};
  if (!xc.empty()) v.kappa = stats::cohenKappa(xc, yc);
  return v;
}

void finish(AgreementStat& s, std::vector<double>& distribution, double level,
            std::size_t resamples) {
  s.undefinedResamples = resamples - distribution.size();
  if (distribution.empty()) return;
  s.ci = stats::bootstrapInterval(distribution, s.value, level, stats::CiMethod::Percentile, {});
}

}  // namespace

double pearson(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return kNaN;
  double mx = 0.0, my = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= double(n);
  my /= double(n);
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = x[i] - mx, dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx <= 0.0 || syy <= 0.0) return kNaN;
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

bool isCategorical(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(),
                     [](double v) { return std::isfinite(v) && v == std::floor(v); });
}

Agreement computeAgreement(const AgreementInput& in, const AgreementOptions& options) {
  Agreement out;
  const std::size_t n = std::min(in.judge.size(), in.human.size());
  const bool withKappa = in.judgeCategories.size() >= n && in.humanCategories.size() >= n && n > 0;
  out.n = n;
  const std::span<const double> x(in.judge.data(), n), y(in.human.data(), n);
  const std::span<const double> xc =
      withKappa ? std::span<const double>(in.judgeCategories.data(), n) : std::span<const double>();
  const std::span<const double> yc =
      withKappa ? std::span<const double>(in.humanCategories.data(), n) : std::span<const double>();
  const Values observed = coefficients(x, y, xc, yc);
  out.pearson.value = observed.pearson;
  out.spearman.value = observed.spearman;
  out.kendallTauB.value = observed.kendall;
  out.cohenKappa.value = observed.kappa;

  // Resampling units: the pairs of each cluster id, in order of first appearance.
  std::vector<std::vector<std::uint32_t>> units;
  if (in.cluster.size() >= n) {
    std::map<std::uint32_t, std::size_t> unitOf;
    for (std::size_t i = 0; i < n; ++i) {
      auto [it, fresh] = unitOf.emplace(in.cluster[i], units.size());
      if (fresh) units.emplace_back();
      units[it->second].push_back(static_cast<std::uint32_t>(i));
    }
  } else {
    units.resize(n);
    for (std::size_t i = 0; i < n; ++i) units[i].push_back(static_cast<std::uint32_t>(i));
  }
  out.clusters = units.size();
  if (options.resamples == 0 || units.empty()) return out;

  std::vector<double> dp, ds, dk, dkappa;
  std::vector<double> rx, ry, rxc, ryc;
  const auto count = static_cast<std::uint32_t>(units.size());
  const std::uint32_t threshold = stats::Rng::rejectionThreshold(count);
  for (std::size_t b = 0; b < options.resamples; ++b) {
    stats::Rng rng =
        stats::streamFor(options.seed, stats::Domain::CorrelationBootstrap, b, kAgreementSalt);
    rx.clear();
    ry.clear();
    rxc.clear();
    ryc.clear();
    for (std::uint32_t u = 0; u < count; ++u) {
      for (std::uint32_t i : units[rng.below32(count, threshold)]) {
        rx.push_back(x[i]);
        ry.push_back(y[i]);
        if (withKappa) {
          rxc.push_back(xc[i]);
          ryc.push_back(yc[i]);
        }
      }
    }
    const Values v = coefficients(rx, ry, rxc, ryc);
    if (!std::isnan(v.pearson)) dp.push_back(v.pearson);
    if (!std::isnan(v.spearman)) ds.push_back(v.spearman);
    if (!std::isnan(v.kendall)) dk.push_back(v.kendall);
    if (withKappa && !std::isnan(v.kappa)) dkappa.push_back(v.kappa);
  }
  finish(out.pearson, dp, options.level, options.resamples);
  finish(out.spearman, ds, options.level, options.resamples);
  finish(out.kendallTauB, dk, options.level, options.resamples);
  if (withKappa) finish(out.cohenKappa, dkappa, options.level, options.resamples);
  return out;
}

}  // namespace ragscope::core::claims
