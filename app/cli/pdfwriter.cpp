#include "app/cli/pdfwriter.h"

#include "core/util/lazylibrary.h"
#include "ui/report/pdfmodule.h"

#ifndef RAGSCOPE_PDFREPORT_MODULE_FILE
#define RAGSCOPE_PDFREPORT_MODULE_FILE "libragscope_pdfreport.so"
#endif

namespace ragscope::cli {

bool writePdfWithModule(const core::exporting::Report& report, const std::string& path,
                        const PdfWriterOptions& options, std::string* error) {
  const char* file = RAGSCOPE_PDFREPORT_MODULE_FILE;
  std::string why;
  void* module = core::openModule(file, &why);
  auto entry = module ? reinterpret_cast<ui::report::PdfModuleEntry>(
                            core::findSymbol(module, ui::report::kPdfModuleEntry, file, &why))
                      : nullptr;
  if (!entry) {
    if (error) *error = "the PDF writer is not available: " + why;
    return false;
  }
  ui::report::PdfModuleRequest request;
  request.report = &report;
  request.path = path;
  request.sections = options.sections;
  const bool ok = entry(&request);
  if (!ok && error) *error = request.error;
  return ok;
}

}  // namespace ragscope::cli
