#pragma once
// A report written to a file in one of its three forms, the way File > Report… writes: PDF
// (pdfreport.h), JSON or CSV at a grain (core/export/reportfile.h), always atomically (a reader
// never sees half a file; a failed write leaves the old file, or none). `ragscope-cli report`
// writes the same bytes through core/export/reportfile.h and, for a PDF, the PDF writer module
// (pdfmodule.h), so that it loads Qt only for a PDF.
//
//   std::string error;
//   if (!writeReportFile(report, "out.pdf", ReportFileFormat::pdf(), {}, &error)) ...

#include <optional>
#include <string>

#include "core/export/reportcsv.h"
#include "core/export/reportmodel.h"
#include "ui/report/pdfreport.h"

namespace ragscope::ui::report {

struct ReportFileFormat {
  enum class Kind { Pdf, Json, Csv } kind = Kind::Pdf;
  core::exporting::CsvGrain grain = core::exporting::CsvGrain::Summary;  // Csv only
};

bool writeReportFile(const core::exporting::Report& report, const std::string& path,
                     const ReportFileFormat& format, const PdfReportOptions& pdf,
                     std::string* error);

}  // namespace ragscope::ui::report
