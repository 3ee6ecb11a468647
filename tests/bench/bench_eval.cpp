// Benchmark run: 6,980 queries x 1,000 docs (~300 MB) with ~1.1 relevant docs per query.
// Issue 3: parse + evaluate (official measures) under 0.9 s on 2 cores, under 600 MiB peak RSS.
// Issue 16: `eval -m all_trec` 20x faster than trec_eval -O2 (~9-10 s here), at most 300 MiB.
//
//   bench_eval                   generate into a temp dir, then time (child process, so the peak
//                                RSS is the evaluation's alone)
//   bench_eval --generate DIR    only write DIR/run.txt and DIR/qrels.txt
//   bench_eval DIR [REPEATS]     time readTrecRun + readTrecQrels + evaluate (the loaded run, as
//                                the GUI holds it), official measures
//   bench_eval --stream DIR      time readTrecQrels + evaluateRunFile -m all_trec (what
//                                `ragscope-cli eval` does), in its own process for the peak RSS

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "benchgen.h"
#include "core/data/loaders.h"
#include "core/metrics/retrievalevaluator.h"

namespace {

double peakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

bool generate(const std::filesystem::path& dir) { return ragscope::bench::writeEvalFiles(dir); }

}  // namespace

int main(int argc, char** argv) {
  using namespace ragscope::core;
  if (argc >= 3 && std::strcmp(argv[1], "--generate") == 0) return generate(argv[2]) ? 0 : 1;
  if (argc >= 3 && std::strcmp(argv[1], "--stream") == 0) {
    const std::filesystem::path dir = argv[2];
    const auto t0 = std::chrono::steady_clock::now();
    auto qrels = readTrecQrels(dir / "qrels.txt", LoadOptions{});
    EvalSettings s;
    s.measures = parseMeasureArgs({"all_trec"}).value;
    LoadReport report;
    const EvalResult r = evaluateRunFile(qrels.value, dir / "run.txt", s, LoadOptions{}, report);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!report.ok() || !r.ok()) return 1;
    std::printf("stream all_trec: %.3f s, peak RSS %.1f MiB, num_q %zu, map %.4f\n", secs,
                peakRssMiB(), r.numQueries, r.mean("map"));
    return 0;
  }
  if (argc < 2) {
    const auto dir = std::filesystem::temp_directory_path() / "ragscope-bench-eval";
    if (!std::filesystem::exists(dir / "qrels.txt") && !generate(dir)) return 1;
    const std::string cmd = std::string("\"") + argv[0] + "\" \"" + dir.string() + "\" 2";
    return std::system(cmd.c_str()) == 0 ? 0 : 1;
  }
  const std::filesystem::path dir = argv[1];
  const int repeats = argc >= 3 ? std::atoi(argv[2]) : 2;
  const auto runFile = dir / "run.txt";
  const auto bytes = std::filesystem::file_size(runFile);
  std::printf("%-6s %12s %9s %9s %9s %9s %8s %12s %8s %8s\n", "pass", "bytes", "parse s", "qrels s",
              "eval s", "total s", "MB/s", "peak RSS MiB", "num_q", "map");
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto run = readTrecRun(runFile, LoadOptions{});
    const auto t1 = std::chrono::steady_clock::now();
    auto qrels = readTrecQrels(dir / "qrels.txt", LoadOptions{});
    const auto t2 = std::chrono::steady_clock::now();
    if (!run.report.ok() || !qrels.report.ok()) {
      std::fprintf(stderr, "load failed\n");
      return 1;
    }
    const EvalResult r = evaluate(qrels.value, run.value, EvalSettings{});
    const auto t3 = std::chrono::steady_clock::now();
    if (!r.ok()) {
      std::fprintf(stderr, "evaluation failed: %s\n",
                   r.diagnostics.empty() ? "" : r.diagnostics.front().toString().c_str());
      return 1;
    }
    auto sec = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    const double total = sec(t0, t3);
    std::printf("%-6d %12llu %9.3f %9.3f %9.3f %9.3f %8.1f %12.1f %8zu %8.4f\n", i + 1,
                static_cast<unsigned long long>(bytes), sec(t0, t1), sec(t1, t2), sec(t2, t3),
                total, static_cast<double>(bytes) / 1e6 / total, peakRssMiB(), r.numQueries,
                r.mean("map"));
  }
  return 0;
}
