#pragma once
// PDF -> UTF-8 text per page, through poppler-cpp. A file poppler cannot open (garbage, truncated,
// encrypted) is reported in the result, never thrown or crashed on; poppler's own complaints about
// a file ("Syntax Error: ...") are collected as that file's warnings instead of going to stderr.
// poppler is in a module opened on the first call (core/data/pdftextmodule.h); when it cannot be
// opened every file gets the error "no PDF reader: cannot load libragscope_pdftext.so: ...".
//
//   PdfText t = extractPdfText("2022 Q3 AAPL.pdf");
//   if (!t.ok) report(t.error);
//   for (std::size_t i = 0; i < t.pages.size(); ++i) use(i + 1, t.pages[i]);
//
// Safe to call from several threads at once, each on its own file.

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

enum class PdfLayout {
  Physical,  // keeps the page's lines and column positions: table rows stay on one line
  Raw,       // content-stream order
  Reading,   // poppler's reading order without column padding
};

struct PdfTextOptions {
  PdfLayout layout = PdfLayout::Physical;
  // Physical layout pads columns with long runs of spaces; compacting (see compactLayoutText)
  // keeps the row structure at a fraction of the characters, so chunks hold more content.
  bool compact = true;
  // Polled between pages; when it becomes true extraction stops with cancelled = true.
  const std::atomic<bool>* cancel = nullptr;
};

struct PdfText {
  bool ok = false;  // the document opened; pages holds every page (possibly empty ones)
  bool cancelled = false;
  std::string error;                  // why !ok: "not a readable PDF ...", "encrypted ...", ...
  std::vector<std::string> pages;     // index 0 = page 1
  std::vector<std::string> warnings;  // poppler messages and per-page problems
};

PdfText extractPdfText(const std::filesystem::path& path, const PdfTextOptions& options = {});

// Number of pages without extracting any text; -1 (and *error set) when the file does not open.
int pdfPageCount(const std::filesystem::path& path, std::string* error = nullptr);

// Per line: leading and trailing blanks removed, runs of 2+ blanks (column gaps) become exactly
// two spaces, single spaces stay; more than one blank line in a row becomes one blank line; form
// feeds become line breaks.
std::string compactLayoutText(std::string_view text);

}  // namespace ragscope::core
