// First and second open of a KILT knowledge source (the real kilt_knowledgesource.json is 35.7 GB,
// 5.9M pages) through the dataset loader, as `ragscope-cli dataset info` and the workbench do.
//
//   bench_kilt_source [GB...] [--file kilt_knowledgesource.json] [--page-bytes N] [--keep]
//
// Without --file, writes a synthetic source of each size (default 1 and 4 GB) in the dump's layout
// (tests/common/kiltsource.h) under the temp folder. Each open runs in a child process of its own,
// so its peak RSS is its own: the first open (no side index: the file is scanned on every core and
// the side index written) and the second (the side index mapped and checked). Prints seconds, GB/s,
// peak RSS (also as a share of the file) and a projection to the real dump's size.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/storedcorpus.h"
#include "tests/common/kiltsource.h"

namespace {

namespace fs = std::filesystem;
using namespace ragscope;

constexpr double kRealDumpBytes = 35.7e9;
constexpr double kRealDumpPages = 5.9e6;

struct Measured {
  double seconds = 0;
  long peakRssKb = 0;
  std::size_t documents = 0;
  bool reused = false;
  bool ok = false;
};

// Opens the source in a child process and returns what it measured (through a pipe).
Measured openInChild(const fs::path& file) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    Measured m;
    const auto start = std::chrono::steady_clock::now();
    core::LoadOptions options;
    core::Dataset ds;
    core::StoredCorpusInfo info;
    const auto report =
        core::loadStoredCorpus(file, core::CorpusLayout::KiltPages, ds.corpus, options, &info);
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.documents = ds.corpus.size();
    m.reused = info.reused;
    m.ok = report.ok() && !report.hasErrors();
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    m.peakRssKb = u.ru_maxrss;
    if (!m.ok)
      for (const auto& d : report.diagnostics) std::fprintf(stderr, "%s\n", d.toString().c_str());
    (void)!::write(fds[1], &m, sizeof m);
    ::_exit(0);
  }
  ::close(fds[1]);
  Measured m;
  if (::read(fds[0], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) m = {};
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return m;
}

void report(const char* phase, const Measured& m, std::uint64_t bytes) {
  const double rssMb = m.peakRssKb / 1024.0;
  std::printf(
      "  %-12s %8.2f s  %6.2f GB/s  peak RSS %7.1f MB (%.2f%% of the file)  %zu pages%s%s\n", phase,
      m.seconds, bytes / 1e9 / m.seconds, rssMb, 100.0 * rssMb * 1024 * 1024 / bytes, m.documents,
      m.reused ? "  (side index reused)" : "", m.ok ? "" : "  FAILED");
}

// Reads pages through the side index as BM25 indexing and provenance do, every read checking its
// record (core/data/recordcheck.h), against reading the text bytes alone (no check, as before
// the check); then reopens under the other error policy (one side index serves both).
void readThrough(const fs::path& file, std::uint64_t bytes) {
  using Clock = std::chrono::steady_clock;
  core::Dataset ds;
  core::LoadOptions options;
  options.onError = core::OnError::Skip;
  core::StoredCorpusInfo info;
  const auto t0 = Clock::now();
  (void)core::loadStoredCorpus(file, core::CorpusLayout::KiltPages, ds.corpus, options, &info);
  const double skipOpen = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("  reopen (skip policy after stop) %.2f s%s\n", skipOpen,
              info.reused ? "  (side index reused)" : "  (REBUILT)");
  const std::size_t n = ds.corpus.size();
  std::size_t textBytes = 0;
  auto t = Clock::now();
  for (std::size_t i = 0; i < n; ++i) textBytes += ds.corpus.at(i).fullText().size();
  const double checked = std::chrono::duration<double>(Clock::now() - t).count();
  t = Clock::now();
  std::size_t raw = 0;
  std::string error;
  for (std::size_t i = 0; i < n; ++i) {
    const core::Document d = ds.corpus.at(i);
    // What a read did before the check: the text bytes alone, decoded.
    if (auto b = d.stored.file->read(d.stored.offset, d.stored.length, error)) {
      const auto array = nlohmann::json::parse(*b);
      std::string text;
      for (std::size_t p = 0; p < array.size(); ++p)
        core::appendParagraph(text, array[p].get_ref<const std::string&>(), p == 0);
      raw += text.size();
    }
  }
  const double unchecked = std::chrono::duration<double>(Clock::now() - t).count();
  t = Clock::now();
  std::size_t ranges = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const core::Document d = ds.corpus.at(i);
    for (std::size_t p = 1; p < 4 && p < d.paragraphCount(); ++p)
      if (d.paragraphRange(p, p, error)) ++ranges;
  }
  const double paragraphs = std::chrono::duration<double>(Clock::now() - t).count();
  std::printf(
      "  every page's text, checked  %.2f s (%.0f pages/s, %.2f GB/s of file); text bytes alone "
      "and decoded (unchecked, as before the check) %.2f s\n"
      "  paragraphs 1-3 of every page one by one, checked: %zu reads in %.2f s\n",
      checked, n / checked, bytes / 1e9 / checked, unchecked, ranges, paragraphs);
  (void)textBytes;
  (void)raw;
}

void run(const fs::path& file) {
  std::error_code ec;
  const std::uint64_t bytes = fs::file_size(file, ec);
  fs::remove(core::sideIndexBeside(file), ec);
  fs::remove(core::sideIndexInCache(file), ec);
  std::printf("%s: %.2f GB\n", file.c_str(), bytes / 1e9);
  const Measured first = openInChild(file);
  report("first open", first, bytes);
  const Measured second = openInChild(file);
  report("reopen", second, bytes);
  readThrough(file, bytes);
  const auto index = fs::exists(core::sideIndexBeside(file)) ? core::sideIndexBeside(file)
                                                             : core::sideIndexInCache(file);
  const double indexBytes = static_cast<double>(fs::file_size(index, ec));
  std::printf("  side index   %.1f MB (%.2f%% of the file)\n", indexBytes / 1e6,
              100.0 * indexBytes / bytes);
  if (first.documents > 0) {
    const double scale = kRealDumpBytes / bytes;
    const double pageScale = kRealDumpPages / static_cast<double>(first.documents);
    std::printf(
        "  projected to the real dump (35.7 GB, 5.9M pages): first open %.0f s at this rate, "
        "side index %.0f MB, reopen ~%.2f s (grows with the side index)\n",
        first.seconds * scale, indexBytes * pageScale / 1e6, second.seconds * pageScale);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> sizes;
  fs::path file;
  std::uint32_t pageBytes = 6000;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--file" && i + 1 < argc)
      file = argv[++i];
    else if (a == "--page-bytes" && i + 1 < argc)
      pageBytes = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--keep")
      keep = true;
    else
      sizes.push_back(std::strtod(a.c_str(), nullptr));
  }
  if (!file.empty()) {
    run(file);
    return 0;
  }
  if (sizes.empty()) sizes = {1, 4};
  for (double gb : sizes) {
    const fs::path dir =
        fs::temp_directory_path() / ("ragscope-bench-kilt-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path path = dir / "kilt_knowledgesource.json";
    const auto started = std::chrono::steady_clock::now();
    const auto stats = test::writeKiltSource(path, static_cast<std::uint64_t>(gb * 1e9), pageBytes);
    std::printf("generated %llu pages, %llu paragraphs in %.1f s\n",
                static_cast<unsigned long long>(stats.pages),
                static_cast<unsigned long long>(stats.paragraphs),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    run(path);
    if (!keep) {
      std::error_code ec;
      fs::remove_all(dir, ec);
      fs::remove(core::sideIndexInCache(path), ec);
    }
  }
  return 0;
}
