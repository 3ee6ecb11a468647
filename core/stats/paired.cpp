#include "core/stats/paired.h"

#include <algorithm>
#include <bit>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "core/stats/parallel.h"
#include "core/stats/random.h"
#include "core/util/nan.h"

namespace ragscope::core::stats {

namespace {

// Exact sign-flip count by meet in the middle: the 2^m sums are L + R over the subset sums of
// the two halves, each half sum computed directly (at most 10 terms), so every compared value
// carries only a few roundings (a Gray-code walk would accumulate error over 2^m steps).
std::size_t exactCount(const std::vector<double>& d, double threshold) {
  const std::size_t m = d.size();
  const std::size_t h = m / 2;
  auto sums = [&](std::size_t from, std::size_t count) {
    std::vector<double> out(std::size_t{1} << count);
    for (std::size_t mask = 0; mask < out.size(); ++mask) {
      double s = 0.0;
      for (std::size_t j = 0; j < count; ++j) s += (mask >> j & 1) ? -d[from + j] : d[from + j];
      out[mask] = s;
    }
    return out;
  };
  const std::vector<double> left = sums(0, h);
  std::vector<double> right = sums(h, m - h);
  std::size_t count = 0;
  for (double l : left)
    for (double r : right) count += std::fabs(l + r) >= threshold;
  return count;
}

}  // namespace

PairedSample alignByQid(const QueryValues& a, const QueryValues& b) {
  PairedSample s;
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      s.onlyInA.push_back(ia->first);
      ++ia;
    } else if (ia == a.end() || ib->first < ia->first) {
      s.onlyInB.push_back(ib->first);
      ++ib;
    } else {
      s.qids.push_back(ia->first);
      s.a.push_back(ia->second);
      s.b.push_back(ib->second);
      ++ia;
      ++ib;
    }
  }
  return s;
}

RandomizationResult signFlipTest(std::span<const double> differences,
                                 const RandomizationOptions& options) {
  RandomizationResult r;
  r.observedMean = differences.empty() ? kNaN : meanOf(differences);
  std::vector<double> d;
  double observed = 0.0;
  double scale = 0.0;
  for (double v : differences) {
    if (v != 0.0) d.push_back(v);
    observed += v;
    scale += std::fabs(v);
  }
  r.nonZero = d.size();
  if (d.empty()) {  // every sign vector gives the observed sum: p = 1
    r.exact = true;
    r.permutations = 1;
    r.p = differences.empty() ? kNaN : 1.0;
    return r;
  }
  const double threshold = std::fabs(observed) - 1e-10 * scale;

  if (d.size() <= options.exactLimit && d.size() < 63) {
    r.exact = true;
    r.permutations = std::size_t{1} << d.size();
    r.p = double(exactCount(d, threshold)) / double(r.permutations);
    return r;
  }

  // Monte Carlo: one generator step gives 64 signs; the sign is applied by flipping the IEEE
  // sign bit, so the inner loop is branch-free.
  std::vector<std::uint64_t> bits(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) bits[i] = std::bit_cast<std::uint64_t>(d[i]);
  const std::size_t m = d.size();
  const std::size_t N = options.permutations;
  const unsigned threads = resolveThreads(options.threads, N * m, 200000);
  std::vector<std::size_t> counts(threads, 0);
  std::atomic<bool> stopped{false};
  forChunks(N, threads, [&](unsigned chunk, std::size_t begin, std::size_t end) {
    std::size_t c = 0;
    for (std::size_t k = begin; k < end; ++k) {
      if (options.cancel && (k & 63) == 0 && options.cancel->load(std::memory_order_relaxed)) {
        stopped = true;
        break;
      }
      Rng rng = streamFor(options.seed, Domain::SignFlip, k);
      const std::uint64_t* b = bits.data();
      double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
      std::size_t i = 0;
      while (i < m) {
        std::uint64_t signs = rng.next();
        const std::size_t stop = std::min(m, i + 64);
        for (; i + 4 <= stop; i += 4, signs >>= 4) {
          a0 += std::bit_cast<double>(b[i] ^ (signs << 63));
          a1 += std::bit_cast<double>(b[i + 1] ^ ((signs >> 1) << 63));
          a2 += std::bit_cast<double>(b[i + 2] ^ ((signs >> 2) << 63));
          a3 += std::bit_cast<double>(b[i + 3] ^ ((signs >> 3) << 63));
        }
        for (; i < stop; ++i, signs >>= 1) a0 += std::bit_cast<double>(b[i] ^ (signs << 63));
      }
      const double acc[4] = {a0, a1, a2, a3};
      c += std::fabs((acc[0] + acc[1]) + (acc[2] + acc[3])) >= threshold;
    }
    counts[chunk] = c;
  });
  if (stopped) {
    r.cancelled = true;
    r.p = kNaN;
    return r;
  }
  std::size_t count = 0;
  for (std::size_t c : counts) count += c;
  r.permutations = N;
  r.p = double(count + 1) / double(N + 1);
  return r;
}

TTestResult pairedTTest(std::span<const double> d) {
  TTestResult r;
  const std::size_t n = d.size();
  if (n < 2) {
    r.t = r.df = r.p = kNaN;
    return r;
  }
  r.df = double(n - 1);
  const double m = meanOf(d);
  const double sd = std::sqrt(sampleVariance(d));
  if (sd == 0.0) {
    r.t = m == 0.0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), m);
    r.p = m == 0.0 ? 1.0 : 0.0;
    return r;
  }
  r.t = m / (sd / std::sqrt(double(n)));
  boost::math::students_t_distribution<double> dist(r.df);
  r.p = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(r.t))));
  return r;
}

PairedResult comparePaired(std::span<const double> a, std::span<const double> b,
                           const PairedOptions& options) {
  PairedResult r;
  r.ci = {kNaN, kNaN};
  if (a.size() != b.size()) {
    r.error = "paired samples differ in length";
    return r;
  }
  r.n = a.size();
  if (r.n == 0) {
    r.error = "no aligned queries to compare";
    r.meanA = r.meanB = r.meanDiff = kNaN;
    return r;
  }
  std::vector<double> d(r.n);
  for (std::size_t i = 0; i < r.n; ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
      r.error = "values must be finite";
      return r;
    }
    d[i] = a[i] - b[i];
    if (a[i] > b[i])
      ++r.wins;
    else if (a[i] < b[i])
      ++r.losses;
    else
      ++r.ties;
  }
  r.meanA = meanOf(a);
  r.meanB = meanOf(b);
  r.meanDiff = meanOf(d);

  if (options.resamples >= 2) {
    std::vector<double> means(options.resamples);
    if (!resampleMeans(d, d.size(), options.seed, Domain::PairedBootstrap, 0, options.threads,
                       means, options.cancel)) {
      r.cancelled = true;
      return r;
    }
    r.ci = bootstrapInterval(means, r.meanDiff, options.level, options.method, d);
    if (options.keepDistribution) r.distribution = std::move(means);
  }

  RandomizationOptions ro;
  ro.permutations = options.permutations;
  ro.exactLimit = options.exactLimit;
  ro.seed = options.seed;
  ro.threads = options.threads;
  ro.cancel = options.cancel;
  r.randomization = signFlipTest(d, ro);
  r.cancelled = r.randomization.cancelled;
  r.ttest = pairedTTest(d);
  return r;
}

PairedResult comparePaired(const PairedSample& sample, const PairedOptions& options) {
  PairedResult r = comparePaired(sample.a, sample.b, options);
  r.onlyInA = sample.onlyInA;
  r.onlyInB = sample.onlyInB;
  return r;
}

}  // namespace ragscope::core::stats
