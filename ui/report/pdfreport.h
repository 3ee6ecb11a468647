#pragma once
// The PDF report (core/export/README.md): a title page (project, datasets, date, ragscope version,
// the runs), then per run its settings, conventions and notes, the summary table with 95% CIs,
// charts (metric intervals, the bootstrap distribution of the first metric, the eRAG heatmap, claim
// verdict bars, eRAG vs end-to-end scatter), the lowest-scoring queries and the unsupported
// claims with their evidence; last a method appendix. Paged with a header and page numbers;
// tables that cross a page repeat their header row. Text from the data is inserted as plain text
// (never read as markup); charts are painted as vectors. Needs a QGuiApplication (the CLI makes
// an offscreen one).
//
//   std::string error;
//   if (!writePdfReport(report, "report.pdf", {}, &error)) ...

#include <QString>
#include <set>
#include <string>
#include <vector>

#include "core/export/reportmodel.h"
#include "ui/report/pdfsections.h"  // pdfSections(): the parts a report may leave out

namespace ragscope::ui::report {

struct PdfReportOptions {
  std::set<std::string> sections{pdfSections().begin(), pdfSections().end()};
  QString date;                    // shown on the title page and in the header (default: today)
  std::size_t lowestQueries = 10;  // per run
  std::size_t maxClaims = 100;     // unsupported claims listed per run (the rest: CSV/JSON)
  std::size_t heatmapRows = 60;
};

bool writePdfReport(const core::exporting::Report& report, const QString& path,
                    const PdfReportOptions& options, std::string* error);

}  // namespace ragscope::ui::report
