#include "core/data/pdftext.h"

#include <new>
#include <system_error>
#include <utility>

#include "core/data/pdftextmodule.h"
#include "core/util/inputfile.h"
#include "core/util/lazylibrary.h"

#ifndef RAGSCOPE_PDFTEXT_MODULE_FILE
#define RAGSCOPE_PDFTEXT_MODULE_FILE "libragscope_pdftext.so"
#endif

namespace ragscope::core {

namespace {

struct Backend {
  const PdfTextBackend* table = nullptr;
  std::string error;  // why there is none: the module or a library it needs is missing
};

// poppler lives in its own module (core/data/pdftextmodule.h), opened on the first PDF read.
const Backend& backend() {
  static const Backend loaded = [] {
    Backend b;
    const char* file = RAGSCOPE_PDFTEXT_MODULE_FILE;
    void* module = openModule(file, &b.error);
    if (!module) return b;
    using Entry = const PdfTextBackend* (*)();
    if (auto entry = reinterpret_cast<Entry>(findSymbol(module, kPdfTextEntry, file, &b.error)))
      b.table = entry();
    return b;
  }();
  return loaded;
}

}  // namespace

std::string compactLayoutText(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 2);
  int pendingBlankLines = 0;
  bool anyLine = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find_first_of("\n\f", pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;

    std::string compact;
    std::size_t i = 0;
    while (i < line.size()) {
      char c = line[i];
      if (c == ' ' || c == '\t' || c == '\r') {
        std::size_t j = i;
        while (j < line.size() && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r')) ++j;
        if (!compact.empty() && j < line.size()) compact.append(j - i >= 2 ? "  " : " ");
        i = j;
      } else {
        compact.push_back(c);
        ++i;
      }
    }
    if (compact.empty()) {
      if (anyLine) ++pendingBlankLines;
    } else {
      if (anyLine) out.append(pendingBlankLines > 0 ? "\n\n" : "\n");
      out += compact;
      anyLine = true;
      pendingBlankLines = 0;
    }
    if (nl == text.size()) break;
  }
  return out;
}

PdfText extractPdfText(const std::filesystem::path& path, const PdfTextOptions& options) {
  PdfText result;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    result.error = "not a regular file";
    return result;
  }
  if (auto why = specialFileProblem(path)) {  // a link to /proc or /dev: never handed to poppler
    result.error = *why;
    return result;
  }
  if (std::filesystem::file_size(path, ec) == 0 && !ec) {
    result.error = "empty file, not a PDF";
    return result;
  }
  const Backend& pdf = backend();
  if (!pdf.table) {
    result.error = "no PDF reader: " + pdf.error;
    return result;
  }
  pdf.table->extract(path, options.layout, options.cancel, &result);
  if (!options.compact) return result;
  try {
    for (auto& page : result.pages) page = compactLayoutText(page);
  } catch (const std::bad_alloc&) {
    result.ok = false;
    result.pages.clear();
    result.error = "out of memory while reading the PDF";
  }
  return result;
}

int pdfPageCount(const std::filesystem::path& path, std::string* error) {
  const Backend& pdf = backend();
  if (!pdf.table) {
    if (error) *error = "no PDF reader: " + pdf.error;
    return -1;
  }
  return pdf.table->pageCount(path, error);
}

}  // namespace ragscope::core
