#include "core/util/textescape.h"

#include <cstdint>
#include <cstdio>

namespace ragscope::core {

namespace {

// The length of the valid UTF-8 sequence starting at text[i] and its code point, or 0 when the
// byte there does not start one (stray continuation, overlong form, surrogate, beyond U+10FFFF,
// or cut short).
std::size_t utf8SequenceAt(std::string_view text, std::size_t i, char32_t* cp) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  std::size_t len = 0;
  char32_t min = 0;
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, min = 0x80, *cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, min = 0x800, *cp = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, min = 0x10000, *cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    *cp = (*cp << 6) | (b & 0x3F);
  }
  if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return 0;
  return len;
}

// Code points that are not controls to a terminal but still deceive a reader: C1 controls (a
// terminal in 8-bit mode acts on U+009B as CSI), bidirectional marks, embeddings, overrides and
// isolates (they reorder the text around them) and the Unicode line and paragraph separators.
bool isDeceptive(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void appendHex(std::string& out, const char* format, unsigned value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, format, value);
  out += buf;
}

bool isLineBreak(unsigned char c) { return c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::string escapeControlChars(std::string_view text, LineBreaks lineBreaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      if (isLineBreak(c))
        out += lineBreaks == LineBreaks::Keep ? static_cast<char>(c) : ' ';
      else
        appendHex(out, "\\x%02x", c);
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t len = utf8SequenceAt(text, i, &cp);
    if (len == 0) {
      appendHex(out, "\\x%02x", c);
      ++i;
    } else if (isDeceptive(cp)) {
      appendHex(out, "\\u%04x", static_cast<unsigned>(cp));
      i += len;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::size_t completeUtf8Prefix(std::string_view text) {
  // A sequence is at most 4 bytes: only the last 3 can belong to an unfinished one.
  const std::size_t n = text.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto b = static_cast<unsigned char>(text[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t need = b >= 0xF0 && b <= 0xF4   ? 4
                             : b >= 0xE0 && b <= 0xEF ? 3
                             : b >= 0xC2 && b <= 0xDF ? 2
                                                      : 1;
    return need > back ? n - back : n;
  }
  return n;
}

bool isPrintableText(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) return false;
    char32_t cp = 0;
    const std::size_t len = utf8SequenceAt(text, i, &cp);
    if (len == 0 || isDeceptive(cp)) return false;
    i += len;
  }
  return true;
}

}  // namespace ragscope::core
