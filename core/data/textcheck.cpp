#include "core/data/textcheck.h"

#include <cstdint>
#include <cstring>

namespace ragscope::core {

std::optional<std::string> checkText(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    // Most text is ASCII: test eight bytes at a time for high bits or NUL bytes.
    if (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      const bool highBit = (w & 0x8080808080808080ULL) != 0;
      const bool hasZero = ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL) != 0;
      if (!highBit && !hasZero) {
        i += 8;
        continue;
      }
    }
    const unsigned char c = p[i];
    if (c == 0) return "NUL byte at byte " + std::to_string(i + 1) + " (binary data?)";
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return "invalid UTF-8 at byte " + std::to_string(i + 1);
    }
    if (i + len > n)
      return "invalid UTF-8 at byte " + std::to_string(i + 1) + " (truncated sequence)";
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return "invalid UTF-8 at byte " + std::to_string(i + 1);
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    // Reject overlong forms, UTF-16 surrogates and code points past U+10FFFF.
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return "invalid UTF-8 at byte " + std::to_string(i + 1);
    i += len;
  }
  return std::nullopt;
}

}  // namespace ragscope::core
