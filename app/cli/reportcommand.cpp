// ragscope-cli report (SPEC §12): a project's or run stores' results written as CSV (one grain)
// or one JSON document, through core/eval/resultsreport.h and core/export, the same code as the
// GUI's File > Export.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "core/eval/resultsreport.h"
#include "core/export/reportcsv.h"
#include "ui/report/pdfreport.h"
#include "ui/report/reportfile.h"

#include <QGuiApplication>

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
namespace fs = std::filesystem;

constexpr const char* kReportHelp =
    R"(usage: ragscope-cli report (--project P | --store RUN.db...) --out FILE.pdf|FILE.json|FILE.csv
                           [--grain summary|query|document|claim] [--B N] [--seed S]
                           [-l LEVEL] [-c] [--sections LIST] [--read-outside]

Writes the results of a project (its datasets' retrieval runs, evaluated against their qrels
with trec_eval's official measures, and its run stores) or of run stores (eRAG, end-to-end,
claim judging; --store may be given more than once, and with --project) to FILE:
  .pdf   a report to read: title page, per run its settings, conventions and notes, the
         summary table with 95% CIs, charts (intervals, bootstrap distribution, eRAG heatmap,
         eRAG vs end-to-end scatter, claim verdicts), the lowest-scoring queries and the
         unsupported claims with their closest evidence, paired comparisons and a method
         appendix (written with Qt's offscreen platform: no display needed)
  .json  everything in one document: {"schema": "ragscope-report", "schema_version": 1,
         "ragscope_version", "title", "datasets", "problems", "runs": [{"name", "kind",
         "source", "mode", "settings", "conventions", "method", "notes", "summary",
         "per_query", "documents", "claims"}], "comparisons": [{"a", "b", "metric", "n",
         "mean_diff", "ci95", "p_randomization", "p_t", ...}]}; comparisons pair the first
         run of each kind with each later one on its main metric, as `compare` does
  .csv   one table, the grain chosen with --grain (default summary); columns:
           summary   run, kind, mode, metric, mean, ci_low, ci_high, n, total, scored,
                     unparsed, error, empty, incomplete
           query     run, kind, qid, metric, value, state
           document  run, qid, rank, doc_id, label, output   (eRAG)
           claim     run, qid, side, claim_index, claim, premise, verdict, repeats, flipped
         RFC 4180 (CRLF), UTF-8, text cells beginning with = + - @ tab or CR prefixed with '
         so that spreadsheets show them as text; numbers stay numbers; a missing value is an
         empty cell and its state says why
JSON and CSV: the same inputs give the same bytes.

  --sections LIST  PDF: the parts to include, comma-separated, from settings (conventions,
                   notes, settings), charts, lowest (lowest-scoring queries), claims
                   (unsupported claims), comparisons, appendix; default all (the title page
                   and the summary tables are always there)
  -l LEVEL         retrieval runs: the lowest qrels grade that counts as relevant (trec_eval's
                   -l; default 1; TREC DL uses 2 for AP and recall)
  -c               retrieval runs: qrels queries missing from a run count as 0 (trec_eval's -c)
  --B N            bootstrap resamples for the 95% CIs (default 1000; 0: no intervals)
  --seed S         bootstrap seed (default ragscope's)
  --read-outside   read project dataset parts outside the project's folder (otherwise they
                   are listed as problems and not read)

Exit codes: 0 ok, 1 written but a source could not be read (named on stderr), 2 bad arguments
or nothing could be written.
)";

}  // namespace

int reportCommand(const Args& args) {
  eval::ReportSources sources;
  eval::ReportOptions options;
  options.bootstrap.resamples = 1000;
  std::string out, grainText = "summary", value;
  bool grainGiven = false, sectionsGiven = false;
  ui::report::PdfReportOptions pdf;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kReportHelp;
      return 0;
    } else if (a == "--project") {
      if (!nextValue(args, i, value)) return usageError("--project needs a project file", kReportHelp);
      if (sources.project) return usageError("--project is given twice", kReportHelp);
      sources.project = value;
    } else if (a == "--store") {
      if (!nextValue(args, i, value)) return usageError("--store needs a run store", kReportHelp);
      sources.stores.emplace_back(value);
    } else if (a == "--out") {
      if (!nextValue(args, i, out)) return usageError("--out needs a file", kReportHelp);
    } else if (a == "--grain") {
      if (!nextValue(args, i, grainText)) return usageError("--grain needs a value", kReportHelp);
      grainGiven = true;
    } else if (a == "--B") {
      std::size_t b = 0;
      if (!nextValue(args, i, value) || !parseCount(value, 0, 1000000, b))
        return usageError("--B needs a number of resamples from 0 to 1000000", kReportHelp);
      options.bootstrap.resamples = b;
    } else if (a == "--seed") {
      std::uint64_t s = 0;
      if (!nextValue(args, i, value) || !parseUnsigned(value, s)) return usageError("--seed needs a number", kReportHelp);
      options.bootstrap.seed = s;
    } else if (a == "-l") {
      std::size_t level = 0;
      if (!nextValue(args, i, value) || !parseCount(value, 0, 1000, level))
        return usageError("-l needs a relevance level from 0 to 1000", kReportHelp);
      options.retrieval.relevanceLevel = static_cast<int>(level);
    } else if (a == "--sections") {
      if (!nextValue(args, i, value)) return usageError("--sections needs a list", kReportHelp);
      pdf.sections.clear();
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const std::string name = value.substr(start, comma - start);
        const auto& known = ui::report::pdfSections();
        if (std::find(known.begin(), known.end(), name) == known.end())
          return usageError("--sections: '" + name + "' is not one of settings, charts, lowest, claims, comparisons, appendix",
                            kReportHelp);
        pdf.sections.insert(name);
        start = comma + 1;
      }
      sectionsGiven = true;
    } else if (a == "-c") {
      options.retrieval.complete = true;
    } else if (a == "--read-outside") {
      options.readOutsideParts = true;
    } else {
      return usageError("report: unexpected argument '" + a + "'", kReportHelp);
    }
  }
  if (!sources.project && sources.stores.empty()) return usageError("report needs --project or --store", kReportHelp);
  if (out.empty()) return usageError("report needs --out FILE.json or FILE.csv", kReportHelp);
  const std::string ext = fs::path(out).extension().string();
  if (ext != ".json" && ext != ".csv" && ext != ".pdf")
    return usageError("--out: " + out + " must end in .pdf, .json or .csv", kReportHelp);
  const auto grain = exporting::csvGrainFromName(grainText);
  if (!grain) return usageError("--grain: '" + grainText + "' is not summary, query, document or claim", kReportHelp);
  if (grainGiven && ext != ".csv") return usageError("--grain applies to .csv output only", kReportHelp);
  if (sectionsGiven && ext != ".pdf") return usageError("--sections applies to .pdf output only", kReportHelp);
  if (sources.project && !fs::is_regular_file(*sources.project)) {
    std::cerr << "ragscope-cli: report: " << sources.project->string() << ": no such project file\n";
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
  ui::report::ReportFileFormat format;
  format.kind = ext == ".pdf"    ? ui::report::ReportFileFormat::Kind::Pdf
                : ext == ".json" ? ui::report::ReportFileFormat::Kind::Json
                                 : ui::report::ReportFileFormat::Kind::Csv;
  format.grain = *grain;
  std::optional<QGuiApplication> app;
  if (ext == ".pdf") {
    // Qt's offscreen platform: fonts and painting without a display.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "ragscope-cli";
    static char* argv[] = {name, nullptr};
    app.emplace(argc, argv);
  }
  if (!ui::report::writeReportFile(report, out, format, pdf, &err)) {
    std::cerr << "ragscope-cli: report: " << err << "\n";
    return 2;
  }
  std::cerr << "ragscope-cli: report: " << report.runs.size() << " run(s) written to " << out << "\n";
  return report.problems.empty() ? 0 : 1;
}

}  // namespace ragscope::cli
