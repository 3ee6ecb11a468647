#include "core/data/jsonscan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "core/util/fasthash.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ragscope::core {

namespace {

constexpr std::uint64_t kOnes = 0x0101010101010101ull;
constexpr std::uint64_t kHighs = 0x8080808080808080ull;

// A byte of `w` that is '"', '\\', a control byte (< 0x20) or not ASCII (>= 0x80): the bytes a
// string scan must stop at. Zero when all eight are plain.
inline std::uint64_t specialBytes(std::uint64_t w) {
  const std::uint64_t quote = w ^ (kOnes * '"');
  const std::uint64_t slash = w ^ (kOnes * '\\');
  const std::uint64_t zeroQuote = (quote - kOnes) & ~quote;
  const std::uint64_t zeroSlash = (slash - kOnes) & ~slash;
  const std::uint64_t control = (w - kOnes * 0x20) & ~w;
  return (zeroQuote | zeroSlash | control | w) & kHighs;
}

inline int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of `\uXXXX` at text[i] (i at the 'u'); -1 when the four digits are not hex.
inline int unicodeEscape(std::string_view text, std::size_t i) {
  if (i + 4 >= text.size()) return -1;
  int v = 0;
  for (std::size_t k = 1; k <= 4; ++k) {
    const int d = hexDigit(text[i + k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// Length of the well-formed UTF-8 sequence starting with a byte >= 0x80 at text[i] (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF); 0 when ill-formed.
inline std::size_t utf8Sequence(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = at(i);
  const std::size_t n = text.size();
  auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < n && at(k) >= lo && at(k) <= hi;
  };
  if (b >= 0xC2 && b <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b == 0xE0) return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (b == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
  if (b == 0xF0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (b == 0xF4) return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

// What a member name is, for the repeat check: its bytes, or its decoded text when it holds
// escapes ("a" and "\u0061" are one name).
std::uint64_t memberNameHash(std::string_view literal, bool escaped) {
  if (!escaped) return fastHash64(literal.substr(1, literal.size() - 2));
  try {
    return fastHash64(nlohmann::json::parse(literal).get_ref<const std::string&>());
  } catch (const nlohmann::json::exception&) {
    return 0;  // not reached: the scanner has checked the string
  }
}

// True when two of `hashes` are equal (a member name repeats in one object).
bool hasRepeat(std::uint64_t* first, std::uint64_t* last) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (n <= 8) {
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b)
        if (first[a] == first[b]) return true;
    return false;
  }
  std::sort(first, last);
  return std::adjacent_find(first, last) != last;
}

// A key written with escapes ("wikipedia\u005fid") names the same key as its decoded text.
bool sameKey(std::string_view literal, bool escaped, std::string_view key) {
  const std::string_view raw = literal.substr(1, literal.size() - 2);
  if (!escaped) return raw == key;
  try {
    return nlohmann::json::parse(literal).get_ref<const std::string&>() == key;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

RecordScanner::RecordScanner(std::initializer_list<std::string_view> keys, int elementsOf)
    : m_keys(keys), m_elementsOf(elementsOf) {
  if (m_keys.size() > 8) m_keys.resize(8);
}

void RecordScanner::skipSpace(std::size_t& i) const {
  while (i < m_text.size()) {
    const char c = m_text[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
    ++i;
  }
}

bool RecordScanner::scan(std::string_view record, int maxDepth) {
  // Offsets are 32-bit: records are capped far below (LoadOptions::maxLineBytes).
  if (record.size() >= UINT32_MAX) return false;
  m_text = record;
  m_maxDepth = maxDepth;
  m_object = false;
  for (auto& v : m_values) v = ScannedValue{};
  m_elements.clear();
  m_memberHashes.clear();
  std::size_t i = 0;
  skipSpace(i);
  if (i >= m_text.size()) return false;
  m_object = m_text[i] == '{';
  if (!value(i, 0, -1)) {
    m_object = false;
    return false;
  }
  skipSpace(i);
  if (i != m_text.size()) {
    m_object = false;
    return false;
  }
  return true;
}

bool RecordScanner::string(std::size_t& i, bool& escaped) {
  // i is at the opening quote.
  const std::size_t n = m_text.size();
  const char* data = m_text.data();
  ++i;
  while (true) {
#if defined(__SSE2__)
    // 16 bytes at a time: a byte is special when it is '"' or '\\', or below 0x20 as a signed
    // byte (control bytes and every non-ASCII byte).
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i slash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (i + 16 <= n) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
      const __m128i hit =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                       _mm_cmplt_epi8(v, space));
      const int mask = _mm_movemask_epi8(hit);
      if (mask != 0) {
        i += static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        break;
      }
      i += 16;
    }
#endif
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, data + i, 8);
      if (specialBytes(w) != 0) break;
      i += 8;
    }
    if (i >= n) return false;
    const auto c = static_cast<unsigned char>(data[i]);
    if (c == '"') {
      ++i;
      return true;
    }
    if (c < 0x20) return false;
    if (c >= 0x80) {
      const std::size_t len = utf8Sequence(m_text, i);
      if (len == 0) return false;
      i += len;
      continue;
    }
    if (c != '\\') {
      ++i;
      continue;
    }
    escaped = true;
    if (i + 1 >= n) return false;
    const char e = data[i + 1];
    if (e == 'u') {
      const int unit = unicodeEscape(m_text, i + 1);
      if (unit < 0) return false;
      i += 6;
      if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a low surrogate alone
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        // A high surrogate must be followed by \u and a low one.
        if (i + 1 >= n || data[i] != '\\' || data[i + 1] != 'u') return false;
        const int low = unicodeEscape(m_text, i + 1);
        if (low < 0xDC00 || low > 0xDFFF) return false;
        i += 6;
      }
      continue;
    }
    if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' &&
        e != 't')
      return false;
    i += 2;
  }
}

bool RecordScanner::number(std::size_t& i) {
  const std::size_t n = m_text.size();
  const std::size_t start = i;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < n && m_text[i] >= '0' && m_text[i] <= '9') ++i;
    return i - from;
  };
  if (m_text[i] == '-') ++i;
  if (i >= n) return false;
  if (m_text[i] == '0') {
    ++i;
  } else if (m_text[i] >= '1' && m_text[i] <= '9') {
    digits();
  } else {
    return false;
  }
  bool exponent = false;
  if (i < n && m_text[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  }
  if (i < n && (m_text[i] == 'e' || m_text[i] == 'E')) {
    exponent = true;
    ++i;
    if (i < n && (m_text[i] == '+' || m_text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  // nlohmann refuses a number whose value overflows a double ("number overflow"): only an
  // exponent or hundreds of digits can do that, so only those are converted.
  if (exponent || i - start > 300) {
    const std::string token(m_text.substr(start, i - start));
    if (std::isinf(std::strtod(token.c_str(), nullptr))) return false;
  }
  return true;
}

bool RecordScanner::literal(std::size_t& i, std::string_view word) {
  if (m_text.substr(i, word.size()) != word) return false;
  i += word.size();
  return true;
}

bool RecordScanner::value(std::size_t& i, int depth, int keyIndex) {
  if (i >= m_text.size()) return false;
  ScannedValue noted;
  noted.begin = static_cast<std::uint32_t>(i);
  const bool collectElements = keyIndex >= 0 && keyIndex == m_elementsOf;
  switch (m_text[i]) {
    case '"':
      noted.kind = JsonKind::String;
      if (!string(i, noted.escaped)) return false;
      break;
    case '{': {
      noted.kind = JsonKind::Object;
      if (depth + 1 > m_maxDepth) return false;
      ++i;
      skipSpace(i);
      if (i < m_text.size() && m_text[i] == '}') {
        ++i;
        break;
      }
      const std::size_t firstMember = m_memberHashes.size();
      while (true) {
        skipSpace(i);
        if (i >= m_text.size() || m_text[i] != '"') return false;
        const std::size_t keyStart = i;
        bool keyEscaped = false;
        if (!string(i, keyEscaped)) return false;
        m_memberHashes.push_back(memberNameHash(m_text.substr(keyStart, i - keyStart), keyEscaped));
        int wanted = -1;
        if (depth == 0) {
          const std::string_view literal = m_text.substr(keyStart, i - keyStart);
          for (std::size_t k = 0; k < m_keys.size(); ++k)
            if (sameKey(literal, keyEscaped, m_keys[k])) wanted = static_cast<int>(k);
        }
        skipSpace(i);
        if (i >= m_text.size() || m_text[i] != ':') return false;
        ++i;
        skipSpace(i);
        if (!value(i, depth + 1, wanted)) return false;
        skipSpace(i);
        if (i >= m_text.size()) return false;
        if (m_text[i] == ',') {
          ++i;
          continue;
        }
        if (m_text[i] != '}') return false;
        ++i;
        break;
      }
      // A name given twice: refused, as the strict reader refuses it (core/util/jsonstrict.h).
      if (hasRepeat(m_memberHashes.data() + firstMember,
                    m_memberHashes.data() + m_memberHashes.size()))
        return false;
      m_memberHashes.resize(firstMember);
      break;
    }
    case '[': {
      noted.kind = JsonKind::Array;
      if (depth + 1 > m_maxDepth) return false;
      if (collectElements) m_elements.clear();  // (a repeated key is refused at its object's end)
      ++i;
      skipSpace(i);
      if (i < m_text.size() && m_text[i] == ']') {
        ++i;
        break;
      }
      while (true) {
        skipSpace(i);
        if (!value(i, depth + 1, -1)) return false;
        if (collectElements) m_elements.push_back(m_last);  // the element just read
        skipSpace(i);
        if (i >= m_text.size()) return false;
        if (m_text[i] == ',') {
          ++i;
          continue;
        }
        if (m_text[i] != ']') return false;
        ++i;
        break;
      }
      break;
    }
    case 't':
      noted.kind = JsonKind::True;
      if (!literal(i, "true")) return false;
      break;
    case 'f':
      noted.kind = JsonKind::False;
      if (!literal(i, "false")) return false;
      break;
    case 'n':
      noted.kind = JsonKind::Null;
      if (!literal(i, "null")) return false;
      break;
    default:
      noted.kind = JsonKind::Number;
      if (!number(i)) return false;
      break;
  }
  noted.end = static_cast<std::uint32_t>(i);
  m_last = noted;
  if (keyIndex >= 0) {
    m_values[keyIndex] = noted;
    if (collectElements && noted.kind != JsonKind::Array) m_elements.clear();
  }
  return true;
}

}  // namespace ragscope::core
