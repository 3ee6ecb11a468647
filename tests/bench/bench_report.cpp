// The report of a large retrieval evaluation (issue 15's target: a 6,980-query x 1,000-document
// run reported in under 15 s and 500 MiB peak): a project naming the benchmark's qrels and run,
// collected with 1,000 bootstrap resamples per measure, written as JSON and as CSV at the summary
// and query grains. Exits 1 when the target is missed.
//   bench_report [DIR]   (default: a temporary folder; the files are generated once)

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "benchgen.h"
#include "core/eval/reports/resultsreport.h"
#include "core/export/json.h"
#include "core/export/reportcsv.h"
#include "core/export/reportjson.h"

using namespace ragscope::core;
namespace fs = std::filesystem;

namespace {

double peakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path dir =
      argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path() / "ragscope-bench-eval";
  if (!fs::exists(dir / "qrels.txt") && !ragscope::bench::writeEvalFiles(dir)) return 2;
  std::ofstream(dir / "bench.ragscope.json")
      << R"({"version": 1, "name": "bench", "datasets": [{"name": "bench", "parts": [)"
      << R"({"path": "qrels.txt", "format": "trec-qrels"}, {"path": "run.txt", "format": "trec-run"}]}]})";
  const auto start = std::chrono::steady_clock::now();
  eval::ReportSources sources;
  sources.project = dir / "bench.ragscope.json";
  eval::ReportOptions options;
  options.bootstrap.resamples = 1000;
  const exporting::Report report = eval::collectReport(sources, options);
  const double collected = since(start);
  if (report.runs.size() != 1 || !report.problems.empty()) {
    std::fprintf(stderr, "bench_report: %zu runs, %zu problems\n", report.runs.size(),
                 report.problems.size());
    return 2;
  }
  std::string error;
  if (!exporting::writeJsonFile(dir / "report.json", exporting::reportJson(report), &error, 2,
                                false))
    return 2;
  std::ofstream summary(dir / "summary.csv", std::ios::binary),
      query(dir / "query.csv", std::ios::binary);
  exporting::writeReportCsv(summary, report, exporting::CsvGrain::Summary);
  exporting::writeReportCsv(query, report, exporting::CsvGrain::Query);
  summary.close();
  query.close();
  const double total = since(start);
  const double rss = peakRssMiB();
  std::printf("%-52s %8s\n", "benchmark", "value");
  std::printf("%-52s %8.3f\n", "collect: load, evaluate, 1000 resamples x measures (s)", collected);
  std::printf("%-52s %8.3f\n", "collect + JSON + summary and query CSV (s)", total);
  std::printf("%-52s %8.1f\n", "peak RSS (MiB)", rss);
  std::printf(
      "%zu queries, %zu measures, %zu per-query values; JSON %llu bytes (target < 15 s, < 500 "
      "MiB)\n",
      report.runs[0].values.size() / std::max<std::size_t>(1, report.runs[0].metrics.size()),
      report.runs[0].metrics.size(), report.runs[0].values.size(),
      static_cast<unsigned long long>(fs::file_size(dir / "report.json")));
  return total < 15.0 && rss < 500.0 ? 0 : 1;
}
