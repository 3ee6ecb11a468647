// KILT's evaluation (core/eval/kilt/kilteval.h, as `ragscope-cli kilt-eval`) of the full HotpotQA
// dev file (5,600 items) scored against itself: reading both files, matching by id, the three
// groups, and (second timing) the same with a bootstrap CI of each mean (B = 1000). Target: under 1
// s without CIs.
//
// Then large provenance lists (issue 35, item 9: KILT's own Python is quadratic in them): one item
// whose gold and guess each carry N provenance entries, in two shapes (one evidence set of N pages;
// N one-page evidence sets), for N = 80k, 300k and 1M (a 1M line is about 30 MB), each scored once
// through evaluateKiltFiles and once through the report path (`report --kilt`,
// core/eval/kilt/kiltreport.h). Target: linear, a few seconds at 1M.
//
//   bench_kilteval [GOLD [GUESS]]          (default:
//   ../shared/data/kilt/dev_full/hotpotqa-dev-kilt.jsonl) bench_kilteval --provenance N[,N...]
//   (only the large-provenance part, at these sizes)

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/eval/kilt/kilteval.h"
#include "core/eval/kilt/kiltreport.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int benchDevFile(const fs::path& gold, const fs::path& guess) {
  if (!fs::exists(gold)) {
    std::fprintf(stderr, "bench_kilteval: %s not found (skipped)\n", gold.c_str());
    return 0;
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

// One gold and one guess line of N provenance entries each. manySets: the gold has N outputs of
// one page each (N evidence sets), else one output of N pages. The guess ranks the gold pages in
// their order, every tenth entry repeated, so that dedup, R-precision and the evidence rank all
// see N entries.
void writeProvenanceFiles(const fs::path& gold, const fs::path& guess, std::size_t n,
                          bool manySets) {
  std::ofstream g(gold, std::ios::binary), p(guess, std::ios::binary);
  g << R"({"id": "q1", "input": "question", "output": [)";
  if (manySets) {
    for (std::size_t i = 0; i < n; ++i)
      g << (i ? "," : "") << R"({"answer": "a", "provenance": [{"wikipedia_id": ")" << i
        << R"("}]})";
  } else {
    g << R"({"answer": "a", "provenance": [)";
    for (std::size_t i = 0; i < n; ++i)
      g << (i ? "," : "") << R"({"wikipedia_id": ")" << i << "\"}";
    g << "]}";
  }
  g << "]}\n";
  p << R"({"id": "q1", "output": [{"answer": "a", "provenance": [)";
  std::size_t written = 0;
  for (std::size_t i = 0; written < n; ++i, ++written) {
    p << (written ? "," : "") << R"({"wikipedia_id": ")" << i << "\"}";
    if (i % 10 == 0 && ++written < n) p << R"(,{"wikipedia_id": ")" << i << "\"}";
  }
  p << "]}]}\n";
}

int benchProvenance(const std::vector<std::size_t>& sizes) {
  const fs::path dir = fs::temp_directory_path() /
                       ("ragscope-bench-kilteval-provenance-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path gold = dir / "gold.jsonl", guess = dir / "guess.jsonl";
  int status = 0;
  for (bool manySets : {false, true}) {
    for (std::size_t n : sizes) {
      writeProvenanceFiles(gold, guess, n, manySets);
      const double mb = static_cast<double>(fs::file_size(gold) + fs::file_size(guess)) / 1e6;
      ragscope::core::eval::KiltEvalOptions options;
      options.ks = {1, 5, 100};
      auto start = Clock::now();
      const auto loaded = ragscope::core::eval::evaluateKiltFiles(gold, guess, options);
      const double evalSeconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (!loaded.report.ok()) {
        std::fprintf(stderr, "bench_kilteval: provenance %zu failed\n", n);
        status = 1;
        continue;
      }
      start = Clock::now();
      std::string error;
      const auto report = ragscope::core::eval::reportOfKiltFiles(gold, guess, {}, &error);
      const double reportSeconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (!report) {
        std::fprintf(stderr, "bench_kilteval: report of provenance %zu failed: %s\n", n,
                     error.c_str());
        status = 1;
      }
      const auto& e = loaded.value;
      std::printf(
          "kilt-eval provenance %7zu entries (%s, %.1f MB): %.3f s; report --kilt %.3f s "
          "(Rprec %.4f, recall@100 %.6f)\n",
          n, manySets ? "N one-page sets" : "one set of N pages", mb, evalSeconds, reportSeconds,
          e.metrics[std::size_t(e.metricIndex("Rprec"))].mean,
          e.metrics[std::size_t(e.metricIndex("recall@100"))].mean);
      std::fflush(stdout);
    }
  }
  fs::remove_all(dir);
  return status;
}

std::vector<std::size_t> parseSizes(const std::string& text) {
  std::vector<std::size_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) out.push_back(std::stoul(part));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--provenance")
    return benchProvenance(argc > 2 ? parseSizes(argv[2])
                                    : std::vector<std::size_t>{80000, 300000, 1000000});
  const fs::path gold =
      argc > 1 ? fs::path(argv[1])
               : fs::path(RAGSCOPE_BENCH_DATA_DIR) / "kilt/dev_full/hotpotqa-dev-kilt.jsonl";
  const fs::path guess = argc > 2 ? fs::path(argv[2]) : gold;
  if (int status = benchDevFile(gold, guess)) return status;
  if (argc > 1) return 0;
  return benchProvenance({80000, 300000, 1000000});
}
