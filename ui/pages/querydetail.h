#pragma once
// The detail pane's HTML for one query: text, gold answers, provenance and judged documents with
// their text where the corpus has them, the top of each run, the generation-side example, flags and
// attributes. All dataset text is HTML-escaped; document ids become `doc:` links.

#include <QString>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/data/dataset.h"

namespace ragscope::ui {

struct QueryDetailOptions {
  int maxJudged = 60;      // judged documents listed (best grades first)
  int maxRunEntries = 10;  // top entries shown per run
  int maxRuns = 6;
  int excerptChars = 600;  // document text shown per document
  // Documents whose text is read from a corpus file (big corpora), at most: the detail is built on
  // the GUI thread, a pread each. Provenance comes first; the others say where to read them.
  int maxStoredReads = 24;
};

// `examples` maps example id -> index in dataset.examples (may be empty).
QString queryDetailHtml(const core::Dataset& dataset, const core::Query& query,
                        const std::unordered_map<std::string, std::size_t>& examples,
                        const QueryDetailOptions& options = {});

// The document pane's heading: id, title, source file, page and length. A text left in its file is
// not read for it: its length is shown once known (`characters`, in Unicode code points).
QString documentHeadingHtml(const core::Document& doc,
                            std::optional<std::size_t> characters = std::nullopt);

// `doc:<percent-encoded id>` link target and its inverse.
QString documentLink(std::string_view docId);
std::string documentIdFromLink(const QString& link);

}  // namespace ragscope::ui
