#pragma once
// A report written to a file as JSON (reportjson.h) or CSV at a grain (reportcsv.h), atomically
// (a reader never sees half a file; a failed write leaves the old file, or none). The one way
// both front ends write these two forms: the workbench's File > Report… (through
// ui/report/reportfile.h, which adds the PDF) and `ragscope-cli report`, which opens the PDF
// writer only for a .pdf (ui/report/pdfmodule.h).
//
//   std::string error;
//   if (!writeReportData(report, "out.csv", ReportDataKind::Csv, CsvGrain::Query, &error)) ...

#include <string>

#include "core/export/reportcsv.h"
#include "core/export/reportmodel.h"

namespace ragscope::core::exporting {

enum class ReportDataKind { Json, Csv };

// `grain` applies to Csv only.
bool writeReportData(const Report& report, const std::string& path, ReportDataKind kind,
                     CsvGrain grain, std::string* error);

}  // namespace ragscope::core::exporting
