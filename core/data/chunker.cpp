#include "core/data/chunker.h"

#include <algorithm>

namespace ragscope::core {

namespace {

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool isDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Text positions are code point indices; starts[i] is the byte offset of code point i and
// starts[n] == text.size(). ASCII tests on "the code point before position p" read one byte,
// which is safe because a multi-byte sequence never contains an ASCII byte.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : m_text(text) {
    m_starts.reserve(text.size() + 1);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (!isContinuation(text[i])) m_starts.push_back(i);
    m_starts.push_back(text.size());
  }
  std::size_t size() const { return m_starts.size() - 1; }
  std::size_t byteAt(std::size_t cp) const { return m_starts[cp]; }
  char charBefore(std::size_t cp) const { return cp == 0 ? '\0' : m_text[m_starts[cp - 1]]; }
  char charBefore2(std::size_t cp) const { return cp < 2 ? '\0' : m_text[m_starts[cp - 2]]; }

 private:
  std::string_view m_text;
  std::vector<std::size_t> m_starts;
};

// Best cut in (lo, hi], hi itself when nothing better exists.
std::size_t findCut(const Cursor& cur, std::size_t lo, std::size_t hi) {
  auto search = [&](auto accept) -> std::size_t {
    for (std::size_t p = hi; p > lo; --p)
      if (accept(p)) return p;
    return 0;
  };
  if (auto p = search(
          [&](std::size_t q) { return cur.charBefore(q) == '\n' && cur.charBefore2(q) == '\n'; }))
    return p;
  if (auto p = search([&](std::size_t q) {
        char b = cur.charBefore2(q);
        return isSpace(cur.charBefore(q)) && (b == '.' || b == '!' || b == '?');
      }))
    return p;
  if (auto p = search([&](std::size_t q) { return cur.charBefore(q) == '\n'; })) return p;
  if (auto p = search([&](std::size_t q) { return isSpace(cur.charBefore(q)); })) return p;
  return hi;
}

void pushTrimmed(std::string_view text, std::size_t begin, std::size_t end,
                 std::vector<ChunkSpan>& out) {
  while (begin < end && isSpace(text[begin])) ++begin;
  while (end > begin && isSpace(text[end - 1])) --end;
  if (begin < end) out.push_back({begin, end});
}

}  // namespace

std::size_t utf8Length(std::string_view text) {
  std::size_t n = 0;
  for (char c : text)
    if (!isContinuation(c)) ++n;
  return n;
}

std::vector<ChunkSpan> chunkText(std::string_view text, std::size_t maxChars,
                                 std::size_t overlapChars) {
  std::vector<ChunkSpan> out;
  if (maxChars == 0) {
    pushTrimmed(text, 0, text.size(), out);
    return out;
  }
  const std::size_t overlap = std::min(overlapChars, maxChars - 1);
  Cursor cur(text);
  const std::size_t n = cur.size();
  std::size_t start = 0;
  while (start < n) {
    // Leading whitespace would only waste the window.
    while (start < n && isSpace(text[cur.byteAt(start)])) ++start;
    if (start >= n) break;
    std::size_t hi = std::min(start + maxChars, n);
    std::size_t end = hi;
    if (hi < n) end = findCut(cur, start + maxChars / 2, hi);
    pushTrimmed(text, cur.byteAt(start), cur.byteAt(end), out);
    if (end >= n) break;
    std::size_t next = end;
    if (overlap > 0) {
      next = end > overlap ? end - overlap : 0;
      // Start the overlap at a word start, so a chunk never begins mid-word when avoidable.
      std::size_t q = next;
      while (q < end && !(q == 0 || isSpace(cur.charBefore(q)))) ++q;
      if (q < end) next = q;
    }
    start = std::max(next, start + 1);
  }
  return out;
}

std::string makeChunkId(std::string_view file, int page, int chunk) {
  std::string id(file);
  id += '#';
  id += std::to_string(page);
  id += '#';
  id += std::to_string(chunk);
  return id;
}

std::string documentOfChunk(std::string_view chunkId) {
  auto last = chunkId.rfind('#');
  if (last == std::string_view::npos || last == 0) return std::string(chunkId);
  auto prev = chunkId.rfind('#', last - 1);
  if (prev == std::string_view::npos) return std::string(chunkId);
  if (!isDigits(chunkId.substr(last + 1)) || !isDigits(chunkId.substr(prev + 1, last - prev - 1)))
    return std::string(chunkId);
  return std::string(chunkId.substr(0, prev));
}

}  // namespace ragscope::core
