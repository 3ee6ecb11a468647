#include "ui/models/textmatch.h"

#include <algorithm>

namespace ragscope::ui {

namespace {

unsigned char asciiLower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

TextMatcher::TextMatcher(const QString& needle) : m_needle(needle.trimmed()) {
  m_ascii =
      std::all_of(m_needle.begin(), m_needle.end(), [](QChar c) { return c.unicode() < 128; });
  if (m_ascii) m_asciiLower = m_needle.toLatin1().toLower();
}

bool TextMatcher::matches(std::string_view hay) const {
  if (m_needle.isEmpty()) return true;
  if (m_ascii) {
    // Non-ASCII bytes in the haystack never equal an ASCII needle byte, so a byte-wise search is
    // exact for UTF-8 text.
    const auto* n = reinterpret_cast<const unsigned char*>(m_asciiLower.constData());
    const std::size_t nlen = std::size_t(m_asciiLower.size());
    if (nlen > hay.size()) return false;
    const auto* h = reinterpret_cast<const unsigned char*>(hay.data());
    const std::size_t last = hay.size() - nlen;
    for (std::size_t i = 0; i <= last; ++i) {
      if (asciiLower(h[i]) != n[0]) continue;
      std::size_t k = 1;
      while (k < nlen && asciiLower(h[i + k]) == n[k]) ++k;
      if (k == nlen) return true;
    }
    return false;
  }
  return QString::fromUtf8(hay.data(), qsizetype(hay.size()))
      .contains(m_needle, Qt::CaseInsensitive);
}

int compareIds(std::string_view a, std::string_view b) {
  if (allDigits(a) && allDigits(b)) {
    const auto strip = [](std::string_view s) {
      const auto nz = s.find_first_not_of('0');
      return nz == std::string_view::npos ? std::string_view("0") : s.substr(nz);
    };
    a = strip(a);
    b = strip(b);
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  }
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace ragscope::ui
