#include "core/stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/stats/parallel.h"
#include "core/stats/resamplekernel.h"
#include "core/util/nan.h"

namespace ragscope::core::stats {

bool resampleMeans(std::span<const double> values, std::size_t sampleSize, std::uint64_t seed,
                   Domain domain, std::uint64_t salt, unsigned threads, std::span<double> out,
                   const std::atomic<bool>* cancel) {
  const std::size_t resamples = out.size();
  std::atomic<bool> stopped{false};
  threads = resolveThreads(threads, resamples * sampleSize, 200000);
  forChunks(resamples, threads, [&](unsigned, std::size_t begin, std::size_t end) {
    // The draws and sums (resamplekernel.h); the value of out[b] depends on b's stream only.
    if (!resampleMeansRange(values, sampleSize, seed, domain, salt, begin, end, out.data() + begin,
                            cancel))
      stopped = true;
  });
  return !stopped;
}

Interval bootstrapInterval(std::span<const double> distribution, double observed, double level,
                           CiMethod method, std::span<const double> values, double* z0Out,
                           double* accelerationOut) {
  std::vector<double> sorted(distribution.begin(), distribution.end());
  std::sort(sorted.begin(), sorted.end());
  const double alpha = (1.0 - level) / 2.0;
  double pLow = alpha;
  double pHigh = 1.0 - alpha;
  if (method == CiMethod::Bca && !sorted.empty()) {
    const auto below = std::lower_bound(sorted.begin(), sorted.end(), observed) - sorted.begin();
    const auto notAbove = std::upper_bound(sorted.begin(), sorted.end(), observed) - sorted.begin();
    const double B = double(sorted.size());
    double share = (double(below) + 0.5 * double(notAbove - below)) / B;
    share = std::clamp(share, 0.5 / B, 1.0 - 0.5 / B);
    const double z0 = normalQuantile(share);
    double a = 0.0;
    if (values.size() >= 2) {
      const double m = meanOf(values);
      double s2 = 0.0, s3 = 0.0;
      for (double v : values) {
        const double d = v - m;
        s2 += d * d;
        s3 += d * d * d;
      }
      if (s2 > 0.0) a = s3 / (6.0 * std::pow(s2, 1.5));
    }
    auto adjust = [&](double p) {
      const double z = normalQuantile(p);
      const double w = z0 + z;
      return normalCdf(z0 + w / (1.0 - a * w));
    };
    pLow = adjust(alpha);
    pHigh = adjust(1.0 - alpha);
    if (z0Out) *z0Out = z0;
    if (accelerationOut) *accelerationOut = a;
  }
  return {quantileSorted(sorted, pLow), quantileSorted(sorted, pHigh)};
}

BootstrapResult bootstrap(std::span<const double> values, const BootstrapOptions& options) {
  BootstrapResult r;
  r.n = values.size();
  r.resamples = options.resamples;
  r.sampleSize = options.sampleSize != 0 ? options.sampleSize : values.size();
  r.seed = options.seed;
  r.level = options.level;
  r.method = options.method;
  r.ci = {kNaN, kNaN};
  r.observedMean = meanOf(values);
  if (values.empty()) {
    r.error = "no values to resample";
  } else if (values.size() > std::numeric_limits<std::uint32_t>::max()) {
    r.error = "too many values (at most 2^32-1)";
  } else if (options.resamples < 2) {
    r.error = "need at least 2 resamples";
  } else if (!(options.level > 0.0 && options.level < 1.0)) {
    r.error = "confidence level must lie strictly between 0 and 1";
  } else if (std::any_of(values.begin(), values.end(),
                         [](double v) { return !std::isfinite(v); })) {
    r.error = "values must be finite";
  }
  if (!r.error.empty()) {
    r.mean = r.variance = r.standardError = kNaN;
    return r;
  }

  std::vector<double> means(options.resamples);
  if (!resampleMeans(values, r.sampleSize, options.seed, Domain::Bootstrap, 0, options.threads,
                     means, options.cancel)) {
    r.cancelled = true;
    r.mean = r.variance = r.standardError = kNaN;
    return r;
  }
  r.mean = meanOf(means);
  r.variance = sampleVariance(means);
  r.standardError = std::sqrt(r.variance);
  r.ci = bootstrapInterval(means, r.observedMean, options.level, options.method, values,
                           &r.biasCorrection, &r.acceleration);
  if (options.keepDistribution) r.distribution = std::move(means);
  return r;
}

}  // namespace ragscope::core::stats
