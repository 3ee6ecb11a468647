// Issue 35, item 8 benchmark: importing a 2,000,000-line labels file (qrels and the qid,label
// CSV) into a new labels store. Before, an import held every label (about 560 bytes each) and its
// duplicate check in memory: 2M lines took 1.12 GB and an 8M-line file died of bad_alloc. Now it
// is streamed in pieces (core/labels/labelio.h) inside one transaction; peak RSS should stay flat
// as the file grows. Each measurement runs in a child process, so its peak RSS is its own.
//
//   bench_labels_import                       generate files into a temp dir, time each mode
//   bench_labels_import MODE FORMAT FILE DB   one import; MODE check (read and check only,
//                                             the CLI's first pass), stream (importLabelsFile)
//                                             or whole (every label in memory, then one add:
//                                             the old way)

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/labels/labelio.h"
#include "core/labels/labelstore.h"

namespace {

using namespace ragscope::core::labels;

double peakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

constexpr long kLines = 2000000;

void writeFiles(const std::filesystem::path& dir) {
  std::ofstream qrels(dir / "labels.qrels"), csv(dir / "labels.csv");
  csv << "qid,label\n";
  for (long i = 0; i < kLines; ++i) {
    qrels << 'q' << i / 100 << " 0 d" << i << ' ' << i % 4 << '\n';
    csv << 'q' << i << ',' << (i % 5) / 4.0 << '\n';
  }
}

int importOnce(const std::string& mode, const std::string& format, const std::string& file,
               const std::string& db) {
  const LabelFileFormat f = format == "csv" ? LabelFileFormat::Csv : LabelFileFormat::Qrels;
  LabelImportOptions options;
  options.annotator = "ana";
  options.scope = format == "csv" ? "run.db" : "dl";
  std::filesystem::remove(db);
  LabelStore store;
  std::string error;
  if (!store.open(db, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t added = 0;
  if (mode == "check") {  // read and check only (the CLI's first pass)
    const auto done = streamLabelsFile(
        file, f, options, [](LabelPiece&) { return std::optional<LabelPieceProblem>(); });
    if (!done.ok()) {
      std::fprintf(stderr, "%s\n", done.error.c_str());
      return 1;
    }
    added = done.labels;
  } else if (mode == "stream") {
    const auto done = importLabelsFile(store, file, f, options);
    if (!done.ok()) {
      std::fprintf(stderr, "%s\n", done.error.c_str());
      return 1;
    }
    added = done.added;
  } else {
    LabelImport in = readLabelsFile(file, f, options);
    if (!in.ok() || !store.add(in.labels, &error)) {
      std::fprintf(stderr, "%s\n", in.ok() ? error.c_str() : in.error.c_str());
      return 1;
    }
    added = in.labels.size();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-7s %-6s %10llu %10.2f %14.1f\n", mode.c_str(), format.c_str(),
              static_cast<unsigned long long>(added), s, peakRssMiB());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5) return importOnce(argv[1], argv[2], argv[3], argv[4]);
  const auto dir = std::filesystem::temp_directory_path() / "ragscope-bench-labels";
  std::filesystem::create_directories(dir);
  if (!std::filesystem::exists(dir / "labels.csv")) writeFiles(dir);
  std::printf("%-7s %-6s %10s %10s %14s\n", "mode", "format", "labels", "seconds", "peak RSS MiB");
  int failed = 0;
  for (const char* mode : {"check", "stream", "whole"})
    for (const char* format : {"qrels", "csv"}) {
      const std::string file = (dir / (std::string("labels.") + format)).string();
      const std::string cmd = std::string("\"") + argv[0] + "\" " + mode + " " + format + " \"" +
                              file + "\" \"" + (dir / "labels.db").string() + "\"";
      failed |= std::system(cmd.c_str());
    }
  std::printf("(files kept in %s)\n", dir.c_str());
  return failed ? 1 : 0;
}
