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

struct LabelSnapshot;

struct QueryDetailOptions {
  int maxJudged = 60;      // judged documents listed (best grades first)
  int maxRunEntries = 10;  // top entries shown per run
  int maxRuns = 6;
  int excerptChars = 600;  // document text shown per document
  // Documents whose text is read from a corpus file (big corpora), at most: the detail is built on
  // the GUI thread, a pread each. Provenance comes first; the others say where to read them.
  int maxStoredReads = 24;
  // Human relevance grades (core/labels/README.md): shown beside the qrels grade of every listed
  // document, with links that grade it (gradeLink); null: no labels.
  const LabelSnapshot* labels = nullptr;
  std::string labelScope;  // the dataset's name
  std::string annotator;   // whose grade is shown first
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

// `grade:<g>:<percent-encoded id>` link target (a human grade for a document) and its inverse
// (false when `link` is not one).
QString gradeLink(int grade, std::string_view docId);
bool gradeFromLink(const QString& link, int* grade, std::string* docId);

}  // namespace ragscope::ui
