#include "ui/report/reportfile.h"

#include <filesystem>

#include "core/export/json.h"
#include "core/export/reportjson.h"
#include "core/util/atomicfile.h"

namespace ragscope::ui::report {

bool writeReportFile(const core::exporting::Report& report, const std::string& path, const ReportFileFormat& format,
                     const PdfReportOptions& pdf, std::string* error) {
  if (format.kind == ReportFileFormat::Kind::Pdf) {
    // QPdfWriter writes in place: the PDF goes beside the target first and is renamed over it.
    const std::filesystem::path part = std::filesystem::path(path).concat(".part");
    std::string err;
    std::error_code ec;
    if (writePdfReport(report, QString::fromStdString(part.string()), pdf, &err)) {
      std::filesystem::rename(part, path, ec);
      if (!ec) return true;
      err = path + ": " + ec.message();
    }
    std::filesystem::remove(part, ec);
    if (error) *error = err;
    return false;
  }
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
