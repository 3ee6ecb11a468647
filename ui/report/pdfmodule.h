#pragma once
// The PDF report writer as a module for ragscope-cli: pdfmodule.cpp, ui/report and the engine
// code they use are linked into the MODULE library libragscope_pdfreport.so (ui/CMakeLists.txt),
// which the CLI opens only when a .pdf is asked for (app/cli/pdfwriter.h). Every other command
// then starts without Qt GUI and the ~60 libraries it needs. A plugin rather than a helper
// executable: the report is handed over in memory, as it is, with nothing to serialise, and
// the bytes written are those of the workbench's File > Report…, which links ui/report directly.
//
// Free of Qt: the CLI includes it. Both sides are built from this tree by the same compiler,
// so the request may hold C++ types; the entry point's name carries the version of this header
// and changes whenever the request does.

#include <set>
#include <string>

#include "core/export/reportmodel.h"
#include "ui/report/pdfsections.h"

namespace ragscope::ui::report {

struct PdfModuleRequest {
  const core::exporting::Report* report = nullptr;
  std::string path;                // the .pdf to write (atomically: ui/report/safefile.h)
  std::set<std::string> sections;  // from pdfSections()
  std::string error;               // out: why nothing was written
};

// bool entry(PdfModuleRequest*): true when the PDF was written. Makes an offscreen
// QGuiApplication for the call when the process has none.
inline constexpr const char* kPdfModuleEntry = "ragscope_write_pdf_report_v1";
using PdfModuleEntry = bool (*)(PdfModuleRequest*);

}  // namespace ragscope::ui::report

extern "C" bool ragscope_write_pdf_report_v1(ragscope::ui::report::PdfModuleRequest* request);
