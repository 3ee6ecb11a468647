#include "ui/report/reportfile.h"

#include "core/export/reportfile.h"

namespace ragscope::ui::report {

bool writeReportFile(const core::exporting::Report& report, const std::string& path,
                     const ReportFileFormat& format, const PdfReportOptions& pdf,
                     std::string* error) {
  if (format.kind == ReportFileFormat::Kind::Pdf)
    return writePdfReport(report, QString::fromStdString(path), pdf, error);
  using core::exporting::ReportDataKind;
  return core::exporting::writeReportData(
      report, path,
      format.kind == ReportFileFormat::Kind::Json ? ReportDataKind::Json : ReportDataKind::Csv,
      format.grain, error);
}

}  // namespace ragscope::ui::report
