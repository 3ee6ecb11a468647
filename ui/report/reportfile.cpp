#include "ui/report/reportfile.h"

#include <filesystem>

#include "core/export/json.h"
#include "core/export/reportjson.h"
#include "core/util/atomicfile.h"

namespace ragscope::ui::report {

bool writeReportFile(const core::exporting::Report& report, const std::string& path, const ReportFileFormat& format,
                     const PdfReportOptions& pdf, std::string* error) {
  if (format.kind == ReportFileFormat::Kind::Pdf) return writePdfReport(report, QString::fromStdString(path), pdf, error);
  return core::writeFileAtomically(
      path,
      [&](std::ostream& os) {
        return format.kind == ReportFileFormat::Kind::Json
                   ? core::exporting::writeJson(os, core::exporting::reportJson(report), 2)
                   : core::exporting::writeReportCsv(os, report, format.grain);
      },
      error);
}

}  // namespace ragscope::ui::report
