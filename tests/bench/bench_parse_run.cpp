// Issue 2 benchmark: parse a generated 7M-line TREC run (~300 MB). Target >= 300 MB/s on 2 cores
// with peak RSS no larger than the file.
//
//   bench_parse_run                  generate into a temp dir, then time parsing (child process)
//   bench_parse_run --generate FILE  only write the seeded run file
//   bench_parse_run FILE [REPEATS]   time readTrecRun on FILE (peak RSS = this process)

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "benchgen.h"
#include "core/data/loaders.h"

namespace {

double peakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ragscope;
  if (argc >= 3 && std::strcmp(argv[1], "--generate") == 0) {
    const auto bytes = bench::writeRun(argv[2], 7000, 1000, 42);
    std::printf("wrote %s: %llu bytes, 7000000 lines\n", argv[2],
                static_cast<unsigned long long>(bytes));
    return bytes ? 0 : 1;
  }
  if (argc < 2) {
    const auto dir = std::filesystem::temp_directory_path() / "ragscope-bench-parse";
    std::filesystem::create_directories(dir);
    const auto file = (dir / "run.7m.txt").string();
    if (!std::filesystem::exists(file)) bench::writeRun(file, 7000, 1000, 42);
    const std::string cmd = std::string("\"") + argv[0] + "\" \"" + file + "\" 2";
    const int rc = std::system(cmd.c_str());
    std::printf("(run file kept at %s)\n", file.c_str());
    return rc == 0 ? 0 : 1;
  }
  const std::string file = argv[1];
  const int repeats = argc >= 3 ? std::atoi(argv[2]) : 2;
  const auto bytes = std::filesystem::file_size(file);
  std::printf("%-14s %14s %10s %10s %14s %10s\n", "run", "bytes", "seconds", "MB/s", "peak RSS MiB",
              "entries");
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto loaded = core::readTrecRun(file, core::LoadOptions{});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!loaded.report.ok()) {
      std::fprintf(stderr, "parse failed\n");
      return 1;
    }
    std::printf("%-14d %14llu %10.3f %10.1f %14.1f %10zu\n", i + 1,
                static_cast<unsigned long long>(bytes), s, static_cast<double>(bytes) / 1e6 / s,
                peakRssMiB(), loaded.value.entryCount());
  }
  std::printf("file size %.1f MiB\n", static_cast<double>(bytes) / 1048576.0);
  return 0;
}
