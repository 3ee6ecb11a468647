#include "core/stats/correlation.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "core/stats/parallel.h"
#include "core/stats/random.h"
#include "core/util/nan.h"

namespace ragscope::core::stats {

namespace {

struct TieSums {
  double pairs = 0.0;  // sum t(t-1)/2
  double v = 0.0;      // sum t(t-1)(2t+5)
  double t1 = 0.0;     // sum t(t-1)
  double t2 = 0.0;     // sum t(t-1)(t-2)
  void addGroup(double t) {
    pairs += t * (t - 1) / 2;
    v += t * (t - 1) * (2 * t + 5);
    t1 += t * (t - 1);
    t2 += t * (t - 1) * (t - 2);
  }
};

// Tie groups of consecutive equal keys along `order`.
template <class Key>
TieSums tieSums(const std::vector<std::uint32_t>& order, Key key) {
  TieSums s;
  std::size_t run = 1;
  for (std::size_t i = 1; i <= order.size(); ++i) {
    if (i < order.size() && key(order[i]) == key(order[i - 1])) {
      ++run;
    } else {
      if (run > 1) s.addGroup(double(run));
      run = 1;
    }
  }
  return s;
}

// Sorts order[lo, hi) by y (stable), returning the number of strict inversions.
std::uint64_t mergeCount(std::vector<std::uint32_t>& order, std::vector<std::uint32_t>& tmp,
                         std::span<const double> y, std::size_t lo, std::size_t hi) {
  if (hi - lo < 2) return 0;
  const std::size_t mid = lo + (hi - lo) / 2;
  std::uint64_t swaps = mergeCount(order, tmp, y, lo, mid) + mergeCount(order, tmp, y, mid, hi);
  std::size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) {
    if (y[order[j]] < y[order[i]]) {
      swaps += mid - i;  // order[j] jumps over every remaining left element
      tmp[k++] = order[j++];
    } else {
      tmp[k++] = order[i++];
    }
  }
  while (i < mid) tmp[k++] = order[i++];
  while (j < hi) tmp[k++] = order[j++];
  std::copy(tmp.begin() + std::ptrdiff_t(lo), tmp.begin() + std::ptrdiff_t(hi),
            order.begin() + std::ptrdiff_t(lo));
  return swaps;
}

struct KendallParts {
  double tau = kNaN;
  double s = 0.0;
  double varS = 0.0;
};

KendallParts kendallParts(std::span<const double> x, std::span<const double> y) {
  KendallParts k;
  const std::size_t n = x.size();
  if (n < 2) return k;
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return x[a] < x[b] || (x[a] == x[b] && y[a] < y[b]);
  });
  const TieSums tx = tieSums(order, [&](std::uint32_t i) { return x[i]; });
  // Joint ties: consecutive in (x, y) order.
  double n3 = 0.0;
  {
    std::size_t run = 1;
    for (std::size_t i = 1; i <= n; ++i) {
      if (i < n && x[order[i]] == x[order[i - 1]] && y[order[i]] == y[order[i - 1]]) {
        ++run;
      } else {
        n3 += double(run) * double(run - 1) / 2;
        run = 1;
      }
    }
  }
  std::vector<std::uint32_t> tmp(n);
  const double swaps = double(mergeCount(order, tmp, y, 0, n));
  const TieSums ty = tieSums(order, [&](std::uint32_t i) { return y[i]; });
  const double dn = double(n);
  const double n0 = dn * (dn - 1) / 2;
  k.s = n0 - tx.pairs - ty.pairs + n3 - 2 * swaps;
  const double denom = std::sqrt((n0 - tx.pairs) * (n0 - ty.pairs));
  k.tau = denom > 0.0 ? k.s / denom : kNaN;
  k.varS = (dn * (dn - 1) * (2 * dn + 5) - tx.v - ty.v) / 18.0 +
           tx.t1 * ty.t1 / (2 * dn * (dn - 1)) +
           (n > 2 ? tx.t2 * ty.t2 / (9 * dn * (dn - 1) * (dn - 2)) : 0.0);
  return k;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double ma = meanOf(a), mb = meanOf(b);
  double sab = 0.0, saa = 0.0, sbb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa <= 0.0 || sbb <= 0.0) return kNaN;
  return std::clamp(sab / std::sqrt(saa * sbb), -1.0, 1.0);
}

Interval finiteInterval(std::vector<double>& values, double level, std::size_t& undefined) {
  const auto end =
      std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); });
  undefined = std::size_t(values.end() - end);
  values.erase(end, values.end());
  std::sort(values.begin(), values.end());
  const double alpha = (1.0 - level) / 2.0;
  return {quantileSorted(values, alpha), quantileSorted(values, 1.0 - alpha)};
}

}  // namespace

std::vector<double> averageRanks(std::span<const double> v) {
  const std::size_t n = v.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && v[order[j]] == v[order[i]]) ++j;
    const double r = (double(i + 1) + double(j)) / 2.0;  // mean of ranks i+1..j
    for (std::size_t k = i; k < j; ++k) ranks[order[k]] = r;
    i = j;
  }
  return ranks;
}

double kendallTauB(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) return kNaN;
  return kendallParts(x, y).tau;
}

double spearmanRho(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size() || x.size() < 2) return kNaN;
  return pearson(averageRanks(x), averageRanks(y));
}

CorrelationResult correlate(std::span<const double> x, std::span<const double> y,
                            const CorrelationOptions& options) {
  CorrelationResult r;
  r.kendall.ci = r.spearman.ci = {kNaN, kNaN};
  if (x.size() != y.size()) {
    r.error = "paired samples differ in length";
    return r;
  }
  r.n = x.size();
  for (std::size_t i = 0; i < r.n; ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      r.error = "values must be finite";
      return r;
    }
  }
  if (r.n < 2) {
    r.error = "need at least 2 pairs";
    r.kendall.value = r.kendall.p = r.spearman.value = r.spearman.p = kNaN;
    return r;
  }

  const KendallParts k = kendallParts(x, y);
  r.kendall.value = k.tau;
  if (std::isnan(k.tau) || !(k.varS > 0.0)) {
    r.kendall.statistic = r.kendall.p = kNaN;
  } else {
    r.kendall.statistic = k.s / std::sqrt(k.varS);
    r.kendall.p = std::min(1.0, 2.0 * normalCdf(-std::fabs(r.kendall.statistic)));
  }

  const double rho = spearmanRho(x, y);
  r.spearman.value = rho;
  if (std::isnan(rho) || r.n < 3) {
    r.spearman.statistic = r.spearman.p = kNaN;
  } else if (std::fabs(rho) >= 1.0) {
    r.spearman.statistic = std::copysign(std::numeric_limits<double>::infinity(), rho);
    r.spearman.p = 0.0;
  } else {
    const double df = double(r.n - 2);
    const double t = rho * std::sqrt(df / ((1.0 - rho) * (1.0 + rho)));
    r.spearman.statistic = t;
    boost::math::students_t_distribution<double> dist(df);
    r.spearman.p =
        std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
  }

  if (options.resamples > 0) {
    const std::size_t B = options.resamples;
    std::vector<double> taus(B), rhos(B);
    const auto n32 = static_cast<std::uint32_t>(r.n);
    const std::uint32_t threshold = Rng::rejectionThreshold(n32);
    std::atomic<bool> stopped{false};
    const unsigned threads = resolveThreads(options.threads, B * r.n * 8, 200000);
    forChunks(B, threads, [&](unsigned, std::size_t begin, std::size_t end) {
      std::vector<double> xs(r.n), ys(r.n);
      for (std::size_t b = begin; b < end; ++b) {
        if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
          stopped = true;
          return;
        }
        Rng rng = streamFor(options.seed, Domain::CorrelationBootstrap, b);
        for (std::size_t i = 0; i < r.n; ++i) {
          const std::uint32_t j = rng.below32(n32, threshold);
          xs[i] = x[j];
          ys[i] = y[j];
        }
        taus[b] = kendallParts(xs, ys).tau;
        rhos[b] = pearson(averageRanks(xs), averageRanks(ys));
      }
    });
    if (stopped) {
      r.cancelled = true;
      return r;
    }
    r.kendall.ci = finiteInterval(taus, options.level, r.kendall.undefinedResamples);
    r.spearman.ci = finiteInterval(rhos, options.level, r.spearman.undefinedResamples);
  }
  return r;
}

}  // namespace ragscope::core::stats
