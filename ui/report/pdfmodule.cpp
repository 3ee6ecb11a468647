// The entry point of the PDF writer module (ui/report/pdfmodule.h); built into
// libragscope_pdfreport.so only, never into ragscope_report.

#include "ui/report/pdfmodule.h"

#include <QGuiApplication>
#include <exception>
#include <optional>

#include "ui/report/pdfreport.h"

extern "C" __attribute__((visibility("default"))) bool ragscope_write_pdf_report_v1(
    ragscope::ui::report::PdfModuleRequest* request) {
  using namespace ragscope::ui::report;
  try {
    std::optional<QGuiApplication> app;
    if (!QCoreApplication::instance()) {
      // Qt's offscreen platform: fonts and painting without a display.
      if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
      static int argc = 1;
      static char name[] = "ragscope-cli";
      static char* argv[] = {name, nullptr};
      app.emplace(argc, argv);
    }
    PdfReportOptions options;
    options.sections = request->sections;
    return writePdfReport(*request->report, QString::fromStdString(request->path), options,
                          &request->error);
  } catch (const std::exception& e) {
    // An exception must not cross the C boundary into the CLI.
    request->error = request->path + ": the PDF writer failed: " + e.what();
    return false;
  }
}
