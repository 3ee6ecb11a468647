#pragma once
// A report written to a file in one of its three forms, the one way File > Report… and
// `ragscope-cli report` write: PDF (pdfreport.h), JSON (core/export/reportjson.h) or CSV at a
// grain (core/export/reportcsv.h), always atomically (a reader never sees half a file; a failed
// write leaves the old file, or none).
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

bool writeReportFile(const core::exporting::Report& report, const std::string& path, const ReportFileFormat& format,
                     const PdfReportOptions& pdf, std::string* error);

}  // namespace ragscope::ui::report
