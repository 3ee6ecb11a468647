#include "core/stats/contrastive.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/stats/multiple.h"
#include "core/stats/parallel.h"
#include "core/stats/random.h"
#include "core/util/nan.h"

namespace ragscope::core::stats {

namespace {}

double permutationTest(std::span<const double> a, std::span<const double> b,
                       std::size_t permutations, std::uint64_t seed, std::uint64_t salt,
                       unsigned threads, const std::atomic<bool>* cancel) {
  if (a.empty() || b.empty() || permutations == 0) return kNaN;
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  const std::size_t N = pooled.size();
  double total = 0.0, scale = 0.0;
  for (double v : pooled) {
    total += v;
    scale += std::fabs(v);
  }
  // Only the sum of the set that is drawn matters; drawing the smaller set is cheaper.
  const std::size_t na = a.size();
  const std::size_t draw = std::min(na, N - na);
  const double observed = std::fabs(meanOf(a) - meanOf(b));
  const double tolerance = 1e-10 * scale / double(std::min(na, N - na));
  const double threshold = observed - tolerance;
  const auto N32 = static_cast<std::uint32_t>(N);

  threads = resolveThreads(threads, permutations * draw, 100000);
  std::vector<std::size_t> counts(threads, 0);
  std::atomic<bool> stopped{false};
  forChunks(permutations, threads, [&](unsigned chunk, std::size_t begin, std::size_t end) {
    std::vector<std::uint32_t> idx(N);
    for (std::uint32_t i = 0; i < N32; ++i) idx[i] = i;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> swaps(draw);
    std::size_t c = 0;
    for (std::size_t k = begin; k < end; ++k) {
      if (cancel && (k & 63) == 0 && cancel->load(std::memory_order_relaxed)) {
        stopped = true;
        break;
      }
      Rng rng = streamFor(seed, Domain::TwoSamplePermutation, k, salt);
      // Partial Fisher-Yates from the identity arrangement (undone afterwards, so each
      // permutation depends only on its own stream, never on what this worker did before).
      double sum = 0.0;
      for (std::uint32_t i = 0; i < draw; ++i) {
        const std::uint32_t j = i + rng.below32(N32 - i);
        std::swap(idx[i], idx[j]);
        swaps[i] = {i, j};
        sum += pooled[idx[i]];
      }
      for (std::size_t i = draw; i-- > 0;) std::swap(idx[swaps[i].first], idx[swaps[i].second]);
      const double sumA = draw == na ? sum : total - sum;
      const double diff = sumA / double(na) - (total - sumA) / double(N - na);
      c += std::fabs(diff) >= threshold;
    }
    counts[chunk] = c;
  });
  if (stopped) return kNaN;
  std::size_t count = 0;
  for (std::size_t c : counts) count += c;
  return double(count + 1) / double(permutations + 1);
}

ContrastiveResult contrastive(std::span<const NamedSample> sets,
                              const ContrastiveOptions& options) {
  ContrastiveResult r;
  if (sets.size() < 2) {
    r.error = "need at least two query sets";
    return r;
  }
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (std::size_t g = 0; g < sets.size(); ++g) {
    ContrastiveGroup group;
    group.name = sets[g].name;
    if (sets[g].values.empty()) {
      r.error = "query set '" + sets[g].name + "' has no values";
      return r;
    }
    group.bootstrap.n = sets[g].values.size();
    BootstrapOptions bo = options.bootstrap;
    bo.keepDistribution = true;
    // Each group needs its own stream: derive the seed per group (salted like every stream).
    bo.seed = mix64(options.bootstrap.seed ^ mix64(0xC0FFEEULL + g));
    group.bootstrap = bootstrap(sets[g].values, bo);
    group.bootstrap.seed = options.bootstrap.seed;
    if (group.bootstrap.cancelled) {
      r.cancelled = true;
      return r;
    }
    if (!group.bootstrap.error.empty()) {
      r.error = "query set '" + sets[g].name + "': " + group.bootstrap.error;
      return r;
    }
    for (double v : group.bootstrap.distribution) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    r.groups.push_back(std::move(group));
  }
  r.range = {lo, hi};

  const double alpha = (1.0 - options.bootstrap.level) / 2.0;
  std::vector<double> pValues;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    for (std::size_t j = i + 1; j < sets.size(); ++j) {
      ContrastivePair p;
      p.first = i;
      p.second = j;
      p.meanDiff = r.groups[i].bootstrap.observedMean - r.groups[j].bootstrap.observedMean;
      const auto& di = r.groups[i].bootstrap.distribution;
      const auto& dj = r.groups[j].bootstrap.distribution;
      p.distribution.resize(di.size());
      for (std::size_t b = 0; b < di.size(); ++b) p.distribution[b] = di[b] - dj[b];
      std::vector<double> sorted = p.distribution;
      std::sort(sorted.begin(), sorted.end());
      p.ci = {quantileSorted(sorted, alpha), quantileSorted(sorted, 1.0 - alpha)};
      p.pPermutation = permutationTest(sets[i].values, sets[j].values, options.permutations,
                                       options.bootstrap.seed, i * sets.size() + j,
                                       options.bootstrap.threads, options.bootstrap.cancel);
      if (options.bootstrap.cancel && options.bootstrap.cancel->load()) {
        r.cancelled = true;
        return r;
      }
      pValues.push_back(p.pPermutation);
      r.pairs.push_back(std::move(p));
    }
  }
  const std::vector<double> adjusted = holmAdjust(pValues);
  for (std::size_t k = 0; k < r.pairs.size(); ++k) r.pairs[k].pHolm = adjusted[k];
  if (!options.bootstrap.keepDistribution) {
    for (auto& g : r.groups) g.bootstrap.distribution.clear();
  }
  return r;
}

}  // namespace ragscope::core::stats
