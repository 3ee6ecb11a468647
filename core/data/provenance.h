#pragma once
// The evidence a KILT provenance points at: paragraphs start..end of a page (0-based, as KILT
// counts the page's "text" array), cut at the start and end characters when the provenance gives
// them (Unicode code points: the start within the first paragraph, the end, exclusive, within the
// last). Reads those paragraphs only (Document::paragraphRange: a pread each for a page left in
// its file), never the whole page.

#include <string>

#include "core/data/model.h"

namespace ragscope::core {

struct ProvenanceExcerpt {
  std::string text;         // the paragraphs, joined by "\n", cut
  bool cutAtStart = false;  // begins inside its first paragraph
  bool cutAtEnd = false;    // ends inside its last paragraph
  std::string error;        // set (and text empty) when the range is not in the page or unreadable
};

// `provenance.startParagraph` must be >= 0; an end before the start means the start paragraph.
ProvenanceExcerpt provenanceExcerpt(const Document& page, const Provenance& provenance);

// The byte offset of code point `n` in UTF-8 `text` (its size when the text is shorter).
std::size_t utf8Offset(std::string_view text, std::size_t n);

}  // namespace ragscope::core
