#pragma once
// The boundary between core/data/pdftext.cpp and the PDF text module (pdftextmodule.cpp built
// as the MODULE library libragscope_pdftext.so, the only code linked with poppler-cpp). poppler
// and the ~40 libraries it needs are opened on the first PDF read (core/util/lazylibrary.h), so a
// command that reads no PDF starts without them. Both sides are built from this tree by the same
// compiler, so the table may pass C++ types; its entry point's name carries the version of this
// header and changes whenever the table does.
//
// The module does only what needs poppler: open, count pages, extract each page's text in a
// layout, collect poppler's messages. The checks before a file reaches poppler (a regular file,
// not a link to /proc or /dev, not empty) and compacting the layout text stay in core.

#include <atomic>
#include <filesystem>
#include <string>

#include "core/data/pdftext.h"

namespace ragscope::core {

struct PdfTextBackend {
  // Pages as poppler lays them out (never compacted); `cancel` polled between pages.
  void (*extract)(const std::filesystem::path& path, PdfLayout layout,
                  const std::atomic<bool>* cancel, PdfText* out);
  // Number of pages; -1 + *error when the file does not open.
  int (*pageCount)(const std::filesystem::path& path, std::string* error);
};

inline constexpr const char* kPdfTextEntry = "ragscope_pdftext_backend_v1";

}  // namespace ragscope::core

extern "C" const ragscope::core::PdfTextBackend* ragscope_pdftext_backend_v1();
