#include "core/metrics/normalize.h"

namespace ragscope::core {

long decodeUtf8(std::string_view text, std::size_t pos, std::size_t& length) {
  const auto b0 = static_cast<unsigned char>(text[pos]);
  length = 1;
  if (b0 < 0x80) return b0;
  std::size_t n = 0;
  long cp = 0;
  long minimum = 0;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2, cp = b0 & 0x1F, minimum = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, cp = b0 & 0x0F, minimum = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, cp = b0 & 0x07, minimum = 0x10000;
  } else {
    return -1;
  }
  if (pos + n > text.size()) return -1;
  for (std::size_t i = 1; i < n; ++i) {
    const auto b = static_cast<unsigned char>(text[pos + i]);
    if ((b & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (b & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  length = n;
  return cp;
}

void appendUtf8(std::string& out, long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool isPythonWhitespace(long cp) {
  if (cp < 0) return false;
  if ((cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20)) return true;
  if (cp < 0x80) return false;
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

namespace {

// Simple (one code point) lower-case mapping; -1 when the code point is not a capital we map.
long simpleLower(long cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 0x20;
  if (cp < 0xC0) return -1;
  if (cp <= 0xDE) return cp == 0xD7 ? -1 : cp + 0x20;  // Latin-1
  if (cp >= 0x100 && cp <= 0x17F) {                    // Latin Extended-A
    if (cp == 0x178) return 0xFF;
    if ((cp >= 0x100 && cp <= 0x12F) || (cp >= 0x132 && cp <= 0x137) ||
        (cp >= 0x14A && cp <= 0x177))
      return cp % 2 == 0 ? cp + 1 : -1;
    if ((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E))
      return cp % 2 == 1 ? cp + 1 : -1;
    return -1;
  }
  if (cp >= 0x386 && cp <= 0x3AB) {  // Greek
    if (cp == 0x386) return 0x3AC;
    if (cp >= 0x388 && cp <= 0x38A) return cp + 0x25;
    if (cp == 0x38C) return 0x3CC;
    if (cp == 0x38E || cp == 0x38F) return cp + 0x3F;
    if (cp >= 0x391 && cp != 0x3A2) return cp + 0x20;
    return -1;
  }
  if (cp >= 0x400 && cp <= 0x52F) {  // Cyrillic
    if (cp <= 0x40F) return cp + 0x50;
    if (cp <= 0x42F) return cp + 0x20;
    if ((cp >= 0x460 && cp <= 0x481) || (cp >= 0x48A && cp <= 0x4BF) ||
        (cp >= 0x4D0 && cp <= 0x52F))
      return cp % 2 == 0 ? cp + 1 : -1;
    if (cp == 0x4C0) return 0x4CF;
    if (cp >= 0x4C1 && cp <= 0x4CE) return cp % 2 == 1 ? cp + 1 : -1;
    return -1;
  }
  if (cp >= 0x1E00 && cp <= 0x1EFF) {  // Latin Extended Additional
    if (cp == 0x1E9E) return 0xDF;
    if (cp <= 0x1E95 || cp >= 0x1EA0) return cp % 2 == 0 ? cp + 1 : -1;
    return -1;
  }
  if (cp == 0x2126) return 0x3C9;                      // Ohm sign
  if (cp == 0x212A) return 'k';                        // Kelvin sign
  if (cp == 0x212B) return 0xE5;                       // Angstrom sign
  if (cp >= 0xFF21 && cp <= 0xFF3A) return cp + 0x20;  // fullwidth A-Z
  return -1;
}

// Python's \w for str patterns (isalnum() or '_'), approximated for non-ASCII as described in
// the header.
bool isWordChar(long cp) {
  if (cp < 0) return true;
  if (cp < 0x80)
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
           cp == '_';
  if (isPythonWhitespace(cp)) return false;
  if (cp < 0xC0)
    return cp == 0xAA || cp == 0xB2 || cp == 0xB3 || cp == 0xB5 || cp == 0xB9 || cp == 0xBA ||
           cp >= 0xBC;
  if (cp == 0xBF || cp == 0xD7 || cp == 0xF7) return false;
  // Combining marks are not alphanumeric in Python (the dot of "i̇" from İ.lower() is one).
  if ((cp >= 0x300 && cp <= 0x36F) || (cp >= 0x1AB0 && cp <= 0x1AFF) ||
      (cp >= 0x1DC0 && cp <= 0x1DFF) || (cp >= 0x20D0 && cp <= 0x20FF) ||
      (cp >= 0xFE20 && cp <= 0xFE2F))
    return false;
  if (cp >= 0x2000 && cp <= 0x206F) return false;  // General Punctuation
  if (cp >= 0x20A0 && cp <= 0x20CF) return false;  // currency symbols
  if (cp >= 0x2190 && cp <= 0x2BFF) return false;  // arrows, maths, technical, box drawing
  if (cp >= 0x3000 && cp <= 0x3004) return false;  // CJK punctuation
  if (cp >= 0x3008 && cp <= 0x3020) return false;
  if (cp >= 0xFE30 && cp <= 0xFE4F) return false;  // CJK compatibility forms
  if ((cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
      (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65))
    return false;                                    // fullwidth ASCII marks
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return false;  // emoji and pictographs
  return true;
}

// Unicode "cased" letters of the scripts that have case (Latin, Greek, Cyrillic, fullwidth Latin),
// for Python's Final_Sigma rule; other scripts (CJK, Arabic ...) have no case.
bool isCased(long cp) {
  if (cp < 0) return false;
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp < 0x250)
    return cp == 0xAA || cp == 0xB5 || cp == 0xBA || (cp >= 0xC0 && cp != 0xD7 && cp != 0xF7);
  if (cp >= 0x370 && cp <= 0x3FF)
    return cp != 0x375 && cp != 0x37E && cp != 0x384 && cp != 0x385 && cp != 0x387;
  if (cp >= 0x400 && cp <= 0x52F) return !(cp >= 0x482 && cp <= 0x489);
  if (cp >= 0x1E00 && cp <= 0x1FFF) return true;
  if ((cp >= 0xFF21 && cp <= 0xFF3A) || (cp >= 0xFF41 && cp <= 0xFF5A)) return true;
  return false;
}

// Case-ignorable characters that Final_Sigma skips: apostrophes, periods, colons, combining marks.
bool isCaseIgnorable(long cp) {
  return cp == '\'' || cp == '.' || cp == ':' || cp == '^' || cp == '`' || cp == 0xA8 ||
         cp == 0xAD || cp == 0xAF || cp == 0xB4 || cp == 0xB7 || cp == 0xB8 || cp == 0x2018 ||
         cp == 0x2019 || cp == 0x2024 || cp == 0x2027 || (cp >= 0x300 && cp <= 0x36F);
}

bool isAsciiPunctuation(unsigned char c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

struct CodePoint {
  long cp;               // -1: invalid byte
  std::string_view raw;  // its bytes in the input
};

std::vector<CodePoint> codePoints(std::string_view text) {
  std::vector<CodePoint> out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t len = 1;
    const long cp = decodeUtf8(text, pos, len);
    out.push_back({cp, text.substr(pos, len)});
    pos += len;
  }
  return out;
}

}  // namespace

std::string lowerUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // Fast path: pure ASCII.
  bool ascii = true;
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
  if (ascii) {
    for (char c : text) out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 0x20) : c;
    return out;
  }
  const auto cps = codePoints(text);
  for (std::size_t i = 0; i < cps.size(); ++i) {
    const long cp = cps[i].cp;
    if (cp == 0x130) {  // İ: Python's full mapping gives i + combining dot above
      out += 'i';
      appendUtf8(out, 0x307);
      continue;
    }
    if (cp ==
        0x3A3) {  // Σ: final form after a letter when no letter follows (Python's Final_Sigma)
      std::size_t b = i;
      while (b > 0 && isCaseIgnorable(cps[b - 1].cp)) --b;
      std::size_t a = i + 1;
      while (a < cps.size() && isCaseIgnorable(cps[a].cp)) ++a;
      const bool after = b > 0 && isCased(cps[b - 1].cp);
      const bool before = a < cps.size() && isCased(cps[a].cp);
      appendUtf8(out, after && !before ? 0x3C2 : 0x3C3);
      continue;
    }
    const long lower = cp < 0 ? -1 : simpleLower(cp);
    if (lower >= 0)
      appendUtf8(out, lower);
    else
      out += cps[i].raw;
  }
  return out;
}

std::vector<std::string> splitPythonWhitespace(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t len = 1;
    const long cp = decodeUtf8(text, pos, len);
    if (isPythonWhitespace(cp)) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.append(text.substr(pos, len));
    }
    pos += len;
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string_view stripPythonWhitespace(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e) {
    std::size_t len = 1;
    if (!isPythonWhitespace(decodeUtf8(s, b, len))) break;
    b += len;
  }
  // Trailing: walk back to the start of each UTF-8 sequence.
  while (e > b) {
    std::size_t start = e - 1;
    while (start > b && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    std::size_t len = 1;
    if (!isPythonWhitespace(decodeUtf8(s, start, len)) || start + len != e) break;
    e = start;
  }
  return s.substr(b, e - b);
}

std::string normalizeAnswer(std::string_view text) {
  // 1. lower, 2. remove ASCII punctuation (bytes < 0x80 are never part of a multi-byte sequence).
  std::string lowered = lowerUtf8(text);
  std::string noPunct;
  noPunct.reserve(lowered.size());
  for (char c : lowered)
    if (!isAsciiPunctuation(static_cast<unsigned char>(c))) noPunct += c;

  // 3. \b(a|an|the)\b -> " ": an article counts when no word character touches it on either side.
  const auto cps = codePoints(noPunct);
  std::string noArticles;
  noArticles.reserve(noPunct.size());
  for (std::size_t i = 0; i < cps.size();) {
    const bool boundaryBefore = i == 0 || !isWordChar(cps[i - 1].cp);
    if (boundaryBefore && cps[i].cp != -1) {
      std::size_t matched = 0;
      for (std::string_view article :
           {std::string_view("the"), std::string_view("an"), std::string_view("a")}) {
        if (i + article.size() > cps.size()) continue;
        bool same = true;
        for (std::size_t k = 0; k < article.size() && same; ++k) same = cps[i + k].cp == article[k];
        if (!same) continue;
        const std::size_t end = i + article.size();
        if (end == cps.size() || !isWordChar(cps[end].cp)) {
          matched = article.size();
          break;
        }
      }
      if (matched) {
        noArticles += ' ';
        i += matched;
        continue;
      }
    }
    noArticles += cps[i].raw;
    ++i;
  }

  // 4. " ".join(text.split())
  std::string out;
  for (const auto& token : splitPythonWhitespace(noArticles)) {
    if (!out.empty()) out += ' ';
    out += token;
  }
  return out;
}

std::vector<std::string> normalizedTokens(std::string_view text) {
  return splitPythonWhitespace(normalizeAnswer(text));
}

}  // namespace ragscope::core
