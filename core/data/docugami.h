#pragma once
// Internals of the Docugami KG-RAG SEC 10-Q loader (loadDocugami in loaders.h), exposed for tests
// and for document-level evaluation (core/data/README.md, "Docugami").

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"

namespace ragscope::core {

struct SourcesLine {
  bool found = false;                   // at least one line starting "SOURCE(S):"
  std::vector<std::string> documents;   // the PDF file names, first-seen order, no duplicates
  std::vector<std::string> otherItems;  // non-PDF items ("Item 2. Management's Discussion ...")
};

// Reads every line of `answer` that starts (after blanks) with "SOURCE(S):". Most answers end with
// one such line, but the real file also has one per bullet (rows 6 and 59), quoted names
// (`"2023 Q1 INTC.pdf", "2023 Q3 INTC.pdf"`), trailing words (`"2023 Q3 INTC.pdf" documents.`)
// and section names after the file (`2023 Q3 NVDA.pdf, Notes to ..., Note 1 - ...`). A document is
// a comma-separated item containing ".pdf": the text up to and including ".pdf", without quotes.
SourcesLine parseSources(std::string_view answer);

// The gold documents of an answer: parseSources(answer).documents.
std::vector<std::string> parseSourcesLine(std::string_view answer);

// Shell-style match of a whole name: '*' any run of bytes, '?' one byte, everything else literal
// (case-sensitive). "*2023 Q3 AAPL*" matches "2023 Q3 AAPL.pdf".
bool globMatch(std::string_view pattern, std::string_view name);

// The .pdf files (any case) directly in `folder`, sorted by file name (byte order).
std::vector<std::filesystem::path> listPdfFiles(const std::filesystem::path& folder,
                                                std::string* error = nullptr);

// Extracts, chunks and appends the PDFs to `into` (chunk ids file#page#n, see chunker.h), up to
// two files at a time; documents are appended in the order of `files`. Progress is reported after
// each PDF as (progressBase + bytes of the PDFs done, progressTotal). A PDF whose chunks are
// already in `into` (same parentId) is not read again (warning).
LoadReport loadPdfCorpus(const std::vector<std::filesystem::path>& files, Corpus& into,
                         const LoadOptions& options, std::uint64_t progressBase = 0,
                         std::uint64_t progressTotal = 0);

}  // namespace ragscope::core
