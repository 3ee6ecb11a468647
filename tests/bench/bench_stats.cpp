// Statistics engine benchmark (not run by ctest). Targets from the issue: bootstrap of
// n = 10,000 values with B = 10,000 and a percentile CI under 80 ms wall on 2 cores and under
// 50 MB peak RSS (scipy.stats.bootstrap: 0.8-1.5 s, 1.6 GB); a 10,000-permutation randomization
// test on 10,000 pairs under 100 ms.
//
//   bench_stats [threads]      (default: hardware concurrency)

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "core/stats/bootstrap.h"
#include "core/stats/correlation.h"
#include "core/stats/paired.h"
#include "core/stats/random.h"

using namespace ragscope::core::stats;

namespace {

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

// Best and median of `reps` timed calls, in ms.
void timeIt(const char* label, int reps, const std::function<double()>& fn) {
  std::vector<double> ms;
  double check = 0.0;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    check += fn();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%-58s best %8.2f ms  median %8.2f ms  (checksum %.6g)\n", label, ms.front(),
              ms[ms.size() / 2], check);
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned threads = argc > 1 ? unsigned(std::atoi(argv[1])) : 0;
  Rng rng(2024);
  std::vector<double> values(10000), other(10000);
  for (double& v : values) v = rng.uniform();  // metric-like values in [0, 1)
  for (std::size_t i = 0; i < other.size(); ++i)
    other[i] = std::clamp(values[i] + 0.1 * (rng.uniform() - 0.5), 0.0, 1.0);
  std::printf("threads requested: %u (0 = hardware concurrency)\n", threads);
  std::printf("peak RSS before: %.1f MB\n", peakRssMb());

  BootstrapOptions o;
  o.threads = threads;
  timeIt("bootstrap n=10000 B=10000 percentile", 9, [&] {
    const BootstrapResult r = bootstrap(values, o);
    return r.ci.low;
  });
  o.method = CiMethod::Bca;
  timeIt("bootstrap n=10000 B=10000 BCa", 5, [&] { return bootstrap(values, o).ci.low; });
  o.method = CiMethod::Percentile;
  o.resamples = 500;
  o.sampleSize = 50;
  timeIt("bootstrap VERA s=50 B=500", 9, [&] { return bootstrap(values, o).ci.low; });

  RandomizationOptions ro;
  ro.threads = threads;
  std::vector<double> d(values.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = values[i] - other[i];
  timeIt("randomization 10000 sign flips on 10000 pairs", 9, [&] { return signFlipTest(d, ro).p; });

  PairedOptions po;
  po.threads = threads;
  timeIt("comparePaired (bootstrap B=10000 + 10000 flips + t), 10000", 5,
         [&] { return comparePaired(values, other, po).ci.low; });

  std::vector<double> small(20);
  for (double& v : small) v = rng.uniform() - 0.4;
  timeIt("exact sign-flip enumeration, n=20 (2^20 vectors)", 5,
         [&] { return signFlipTest(small).p; });

  CorrelationOptions co;
  co.threads = threads;
  co.resamples = 1000;
  std::vector<double> x(values.begin(), values.begin() + 1000),
      y(other.begin(), other.begin() + 1000);
  timeIt("correlate n=1000 with B=1000 bootstrap CIs", 3,
         [&] { return correlate(x, y, co).kendall.ci.low; });
  co.resamples = 0;
  timeIt("Kendall tau-b + Spearman n=10000, no CIs", 5,
         [&] { return correlate(values, other, co).kendall.value; });

  std::printf("peak RSS after: %.1f MB\n", peakRssMb());
  return 0;
}
