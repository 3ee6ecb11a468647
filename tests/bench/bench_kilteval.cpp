// KILT's evaluation (core/eval/kilteval.h, as `ragscope-cli kilt-eval`) of the full HotpotQA dev
// file (5,600 items) scored against itself: reading both files, matching by id, the three groups,
// and (second timing) the same with a bootstrap CI of each mean (B = 1000). Target: under 1 s
// without CIs.
//
//   bench_kilteval [GOLD [GUESS]]   (default: ../shared/data/kilt/dev_full/hotpotqa-dev-kilt.jsonl)

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/eval/kilteval.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using Clock = std::chrono::steady_clock;
  const fs::path gold =
      argc > 1 ? fs::path(argv[1])
               : fs::path(RAGSCOPE_BENCH_DATA_DIR) / "kilt/dev_full/hotpotqa-dev-kilt.jsonl";
  const fs::path guess = argc > 2 ? fs::path(argv[2]) : gold;
  if (!fs::exists(gold)) {
    std::fprintf(stderr, "bench_kilteval: %s not found\n", gold.c_str());
    return 2;
  }
  for (std::size_t resamples : {std::size_t{0}, std::size_t{1000}}) {
    ragscope::core::eval::KiltEvalOptions options;
    options.resamples = resamples;
    double best = 1e9;
    std::size_t n = 0;
    double em = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const auto start = Clock::now();
      const auto loaded = ragscope::core::eval::evaluateKiltFiles(gold, guess, options);
      const double s = std::chrono::duration<double>(Clock::now() - start).count();
      if (!loaded.report.ok()) {
        std::fprintf(stderr, "bench_kilteval: evaluation failed\n");
        return 1;
      }
      best = std::min(best, s);
      n = loaded.value.n();
      em = loaded.value.metrics[std::size_t(loaded.value.metricIndex("em"))].mean;
    }
    std::printf("kilt-eval %zu items, B = %zu: %.3f s (best of 3; em %.4f)\n", n, resamples, best,
                em);
  }
  return 0;
}
