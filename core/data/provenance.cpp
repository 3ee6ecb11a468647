#include "core/data/provenance.h"

#include <algorithm>

namespace ragscope::core {

std::size_t utf8Offset(std::string_view text, std::size_t n) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (seen++ == n) return i;
  }
  return text.size();
}

ProvenanceExcerpt provenanceExcerpt(const Document& page, const Provenance& p) {
  ProvenanceExcerpt out;
  const auto first = std::size_t(std::max(p.startParagraph, 0));
  const auto last = std::max(first, std::size_t(std::max(p.endParagraph, 0)));
  // The whole range is checked first, so that the error names it (a page left in its file knows
  // its paragraph count from the side index).
  if (const std::size_t count = page.paragraphCount(); last >= count) {
    out.error = (last > first ? "paragraphs " + std::to_string(first) + "–" + std::to_string(last)
                              : "paragraph " + std::to_string(first)) +
                " not in the page (it has " + std::to_string(count) + ", numbered from 0)";
    return out;
  }
  auto read = [&](std::size_t from, std::size_t to) {
    auto text = page.paragraphRange(from, to, out.error);
    return text ? std::move(*text) : std::string();
  };
  // The first and last paragraphs alone: the character offsets count within them, and a paragraph
  // holding a line break of its own could not be found again in the joined range.
  std::string head = read(first, first);
  std::string tail = last > first && out.error.empty() ? read(last, last) : std::string();
  std::string middle =
      last > first + 1 && out.error.empty() ? read(first + 1, last - 1) : std::string();
  if (!out.error.empty()) return {{}, false, false, out.error};

  std::string& end = last > first ? tail : head;
  if (p.endCharacter >= 0) {
    const std::size_t cut = utf8Offset(end, std::size_t(p.endCharacter));
    out.cutAtEnd = cut < end.size();
    end.resize(cut);
  }
  if (p.startCharacter >= 0) {
    const std::size_t cut = std::min(utf8Offset(head, std::size_t(p.startCharacter)), head.size());
    out.cutAtStart = cut > 0;
    head.erase(0, cut);
  }
  out.text = std::move(head);
  if (last > first + 1) out.text += "\n" + middle;
  if (last > first) out.text += "\n" + tail;
  return out;
}

}  // namespace ragscope::core
