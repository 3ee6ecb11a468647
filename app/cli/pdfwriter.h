#pragma once
// `ragscope-cli report --out FILE.pdf`: the PDF writer is a module (ui/report/pdfmodule.h) opened
// here on the first PDF, so that every other command starts without Qt GUI. The module is looked
// for beside the executable, then in the build tree (core/util/lazylibrary.h); when it or a
// library it needs is missing, the error names it.
//
//   PdfWriterOptions pdf;                       // every section
//   std::string error;
//   if (!writePdfWithModule(report, "report.pdf", pdf, &error)) ...

#include <set>
#include <string>

#include "core/export/reportmodel.h"
#include "ui/report/pdfsections.h"

namespace ragscope::cli {

struct PdfWriterOptions {
  std::set<std::string> sections{ui::report::pdfSections().begin(),
                                 ui::report::pdfSections().end()};
};

bool writePdfWithModule(const core::exporting::Report& report, const std::string& path,
                        const PdfWriterOptions& options, std::string* error);

}  // namespace ragscope::cli
