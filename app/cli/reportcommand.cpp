// ragscope-cli report (core/export/README.md): a project's or run stores' results written as CSV
// (one grain) or one JSON document, through core/eval/reports/resultsreport.h and core/export, the
// same code as the GUI's File > Export.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "app/cli/pathroles.h"
#include "app/cli/pdfwriter.h"
#include "core/eval/reports/resultsreport.h"
#include "core/export/reportcsv.h"
#include "core/export/reportfile.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
namespace fs = std::filesystem;

constexpr const char* kReportEpilogue =
    R"(Exit codes: 0 ok, 1 written but a source could not be read (named on stderr), 2 bad arguments
or nothing could be written.
)";

constexpr const char* kReportIntro =
    R"(Writes the results of a project (its datasets' retrieval runs, evaluated against their qrels
with trec_eval's official measures, and its run stores) or of run stores (eRAG, end-to-end,
claim judging; --store may be given more than once, and with --project) to FILE:
  .pdf   a report to read: title page, per run its settings, conventions and notes, the
         summary table with 95% CIs, charts (intervals, bootstrap distribution, eRAG heatmap,
         eRAG vs end-to-end scatter, claim verdicts), the lowest-scoring queries with their
         questions and the unsupported claims with their closest evidence, the human labels
         (counts, agreement, prediction-powered estimates), paired comparisons and a method
         appendix (written with Qt's offscreen platform: no display needed)
  .json  everything in one document: {"schema": "ragscope-report", "schema_version": 1,
         "ragscope_version", "title", "datasets", "problems", "runs": [{"name", "kind",
         "source", "mode", "settings", "conventions", "method", "notes", "summary",
         "per_query", "documents", "claims", "questions", "human_labels"}],
         "comparisons": [{"a", "b", "metric", "n",
         "mean_diff", "ci95", "p_randomization", "p_t", ...}]}; comparisons pair the first
         run of each kind with each later one on its main metric, as `compare` does
  .csv   one table, the grain chosen with --grain (default summary); columns:
           summary   run, kind, mode, metric, mean, ci_low, ci_high, n, total, scored,
                     unparsed, error, empty, incomplete
           query     run, kind, qid, metric, value, state
           document  run, qid, rank, doc_id, label, output   (eRAG)
           claim     run, qid, side, claim_index, claim, premise, verdict, repeats, flipped
           labels    run, metric, items, labelled, judge_mean, judge_ci_low, judge_ci_high,
                     human_mean, human_ci_low, human_ci_high, ppi_estimate, ppi_ci_low,
                     ppi_ci_high, lambda, problem   (human labels: PPI estimates)
         RFC 4180 (CRLF), UTF-8, text cells beginning with = + - @ tab or CR prefixed with '
         so that spreadsheets show them as text; numbers stay numbers; a missing value is an
         empty cell and its state says why
JSON and CSV: the same inputs give the same bytes.
)";

}  // namespace

int reportCommand(const Args& args) {
  eval::ReportSources sources;
  eval::ReportOptions options;
  options.bootstrap.resamples = 1000;
  std::string out, grainText = "summary";
  std::optional<std::string> project;
  std::vector<std::string> stores;
  PdfWriterOptions pdf;
  CommandLine cli("report");
  cli.synopsis(
      "(--project P | --store RUN.db... | --kilt GOLD,GUESS...) --out FILE.pdf|FILE.json|FILE.csv "
      "[options]");
  cli.intro(kReportIntro);
  cli.path("--project", "P", project, "the project file whose results are written")
      .input(projectPaths("--project"));
  cli.paths("--store", "RUN.db", stores, "a run store, repeatable (also with --project)").input();
  std::optional<std::string> labelsFrom;
  cli.path("--labels", "PROJECT_OR_LABELS_STORE", labelsFrom,
           "human labels for the run stores' human-labels sections (default: the project's "
           "labels store, when it has one)")
      .input(labelsSourcePaths("--labels", core::PathUse::Read));
  std::vector<std::string> kiltPairs;
  cli.texts("--kilt", "GOLD,GUESS", kiltPairs,
            "a KILT evaluation (kilt-eval GOLD GUESS, ks 1,5, page level) as a run with KILT's "
            "three groups, repeatable")
      .input(commaSeparatedPaths("--kilt"));
  cli.path("--out", "FILE", out, "the file to write: .pdf, .json or .csv").output();
  cli.choice("--grain", {"summary", "query", "document", "claim", "labels"}, grainText,
             "CSV: the table's grain (default summary)");
  cli.custom(
      "--sections", "LIST",
      [&pdf](const std::string& value) -> std::string {
        pdf.sections.clear();
        const auto& known = ui::report::pdfSections();
        std::size_t start = 0;
        while (start <= value.size()) {
          const std::size_t comma = std::min(value.find(',', start), value.size());
          const std::string name = value.substr(start, comma - start);
          if (std::find(known.begin(), known.end(), name) == known.end())
            return "'" + name +
                   "' is not one of settings, charts, lowest, claims, labels, comparisons, "
                   "appendix";
          pdf.sections.insert(name);
          start = comma + 1;
        }
        return {};
      },
      "PDF: the parts to include, comma-separated, from settings (conventions, notes, "
      "settings), charts, lowest (lowest-scoring queries), claims (unsupported claims), "
      "labels (human labels), "
      "comparisons, appendix; default all (the title page and the summary tables are always "
      "there)");
  cli.integer("-l", "LEVEL", options.retrieval.relevanceLevel, 0, 1000,
              "retrieval runs: the lowest qrels grade that counts as relevant (trec_eval's -l; "
              "default 1; TREC DL uses 2 for AP and recall)");
  cli.flag("-c", options.retrieval.complete,
           "retrieval runs: qrels queries missing from a run count as 0 (trec_eval's -c)");
  cli.integer("--B", "N", options.bootstrap.resamples, 0, 1000000,
              "bootstrap resamples for the 95% CIs (default 1000; 0: no intervals)");
  cli.integer("--seed", "S", options.bootstrap.seed, 0, std::numeric_limits<std::uint64_t>::max(),
              "bootstrap seed (default ragscope's)");
  cli.flag("--read-outside", options.readOutsideParts,
           "read project dataset parts outside the project's folder (otherwise they are listed "
           "as problems and not read)");
  cli.epilogue(kReportEpilogue);
  if (auto exit = cli.parse(args)) return *exit;
  if (cli.count("--project") > 1) return cli.usageError("--project is given twice");
  if (project) sources.project = *project;
  if (labelsFrom) sources.labels = *labelsFrom;
  for (const auto& s : stores) sources.stores.emplace_back(s);
  for (const auto& pair : kiltPairs) {
    const auto comma = pair.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == pair.size())
      return cli.usageError("--kilt: expected GOLD,GUESS, got '" + pair + "'");
    sources.kilt.emplace_back(pair.substr(0, comma), pair.substr(comma + 1));
  }
  if (!sources.project && sources.stores.empty() && sources.kilt.empty())
    return cli.usageError("report needs --project, --store or --kilt");
  if (out.empty()) return cli.usageError("report needs --out FILE.pdf, FILE.json or FILE.csv");
  const std::string ext = fs::path(out).extension().string();
  if (ext != ".json" && ext != ".csv" && ext != ".pdf")
    return cli.usageError("--out: " + out + " must end in .pdf, .json or .csv");
  const auto grain = exporting::csvGrainFromName(grainText);
  if (!grain)
    return cli.usageError("--grain: '" + grainText +
                          "' is not summary, query, document, claim or labels");
  if (cli.given("--grain") && ext != ".csv")
    return cli.usageError("--grain applies to .csv output only");
  if (cli.given("--sections") && ext != ".pdf")
    return cli.usageError("--sections applies to .pdf output only");
  if (sources.project && !fs::is_regular_file(*sources.project)) {
    std::cerr << "ragscope-cli: report: " << sources.project->string()
              << ": no such project file\n";
    return 2;
  }

  options.keepDistributions = ext == ".pdf";  // the PDF charts the bootstrap distributions
  const exporting::Report report = eval::collectReport(sources, options);
  for (const auto& p : report.problems) std::cerr << "ragscope-cli: report: " << p << "\n";
  if (report.runs.empty()) {
    std::cerr << "ragscope-cli: report: nothing to report: no source could be read\n";
    return 2;
  }
  std::string err;
  // The same bytes as the workbench's File > Report…; Qt is loaded for a PDF only (pdfwriter.h).
  const bool written =
      ext == ".pdf" ? writePdfWithModule(report, out, pdf, &err)
                    : exporting::writeReportData(report, out,
                                                 ext == ".json" ? exporting::ReportDataKind::Json
                                                                : exporting::ReportDataKind::Csv,
                                                 *grain, &err);
  if (!written) {
    std::cerr << "ragscope-cli: report: " << err << "\n";
    return 2;
  }
  std::cerr << "ragscope-cli: report: " << report.runs.size() << " run(s) written to " << out
            << "\n";
  return report.problems.empty() ? 0 : 1;
}

}  // namespace ragscope::cli
