// Throughput of the MS MARCO collection loader (the full collection.tsv is 8.8M lines / 2.9 GiB
// and must stream with progress: core/data/README.md, "Data model and loading").
//
//   bench_parse_collection [LINES] [--file collection.tsv] [--keep]
//
// Without --file, writes a seeded synthetic collection of LINES (default 1,000,000) passages of
// ~350 bytes of word-like text (MS MARCO's mean) into a temp folder, then times
// loadMsmarcoCollection on it and prints MB/s, passages/s and peak RSS.

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "core/data/loaders.h"

namespace {

namespace fs = std::filesystem;
using ragscope::core::Dataset;
using ragscope::core::LoadOptions;

long peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;  // kilobytes on Linux
}

long currentRssKb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// Word lengths and a Zipf-ish vocabulary, so lines look like prose rather than one repeated token.
std::vector<std::string> makeVocabulary(std::mt19937_64& rng) {
  std::vector<std::string> words;
  const std::string letters = "etaoinshrdlcumwfgypbvkjxqz";
  std::geometric_distribution<int> extra(0.35);
  for (int i = 0; i < 20000; ++i) {
    const int len = 2 + std::min(extra(rng), 10);
    std::string w;
    for (int k = 0; k < len; ++k) w += letters[std::min<std::size_t>(rng() % 26, rng() % 26)];
    words.push_back(std::move(w));
  }
  return words;
}

void writeCollection(const fs::path& path, std::size_t lines) {
  std::mt19937_64 rng(20240601);
  const auto words = makeVocabulary(rng);
  std::normal_distribution<double> length(350.0, 120.0);
  std::ofstream out(path, std::ios::binary);
  std::string line;
  for (std::size_t i = 0; i < lines; ++i) {
    line.clear();
    line += std::to_string(i);
    line += '\t';
    const auto target = static_cast<std::size_t>(std::clamp(length(rng), 40.0, 1500.0));
    const std::size_t start = line.size();
    bool sentenceStart = true;
    while (line.size() - start < target) {
      // Zipf-like: small indices much more often.
      const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      const auto idx = static_cast<std::size_t>(std::pow(u, 3.0) * double(words.size() - 1));
      std::string w = words[idx];
      if (sentenceStart) w[0] = static_cast<char>(w[0] - 'a' + 'A');
      line += w;
      sentenceStart = rng() % 12 == 0;
      line += sentenceStart ? ". " : " ";
    }
    line.back() = '.';
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t lines = 1000000;
  fs::path file;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--file" && i + 1 < argc)
      file = argv[++i];
    else if (a == "--keep")
      keep = true;
    else
      lines = std::strtoull(a.c_str(), nullptr, 10);
  }

  fs::path tempDir;
  if (file.empty()) {
    tempDir = fs::temp_directory_path() / ("ragscope-bench-collection-" + std::to_string(getpid()));
    fs::create_directories(tempDir);
    file = tempDir / "collection.tsv";
    const auto t0 = std::chrono::steady_clock::now();
    writeCollection(file, lines);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("generated %zu lines in %.2f s -> %s\n", lines, s, file.c_str());
  }
  const double mb = double(fs::file_size(file)) / (1024.0 * 1024.0);
  const long rssBefore = currentRssKb();

  std::size_t progressCalls = 0;
  LoadOptions options;
  options.progress = [&](std::uint64_t, std::uint64_t) {
    ++progressCalls;
    return true;
  };
  Dataset d;
  const auto t0 = std::chrono::steady_clock::now();
  const auto report = ragscope::core::loadMsmarcoCollection(file, d, options);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("file            %.1f MiB\n", mb);
  std::printf("passages        %zu (errors %llu, warnings %llu)\n", d.corpus.size(),
              static_cast<unsigned long long>(report.errors),
              static_cast<unsigned long long>(report.warnings));
  std::printf("time            %.3f s\n", s);
  std::printf("throughput      %.1f MiB/s, %.0f passages/s\n", mb / s, double(d.corpus.size()) / s);
  std::printf("progress calls  %zu\n", progressCalls);
  std::printf("RSS before load %.1f MiB, peak RSS %.1f MiB (%.2f x file size)\n",
              rssBefore / 1024.0, peakRssKb() / 1024.0, (peakRssKb() / 1024.0) / mb);

  if (!tempDir.empty() && !keep) {
    std::error_code ec;
    fs::remove_all(tempDir, ec);
  }
  return report.ok() && report.errors == 0 ? 0 : 1;
}
