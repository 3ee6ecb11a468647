#pragma once

// Splitting the lines of whitespace-separated text files (TREC runs) into fields, sixteen bytes
// at a time where the CPU allows: a run file is ~7 million short lines, and a byte-at-a-time
// loop spends most of its time mispredicting where a field ends.

#include <cstddef>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ragscope::core {

// The fields of one line. Reused from line to line: reset() is cheaper than building a new one.
struct LineFields {
  static constexpr int kMax = 6;
  std::string_view field[kMax];
  int count = 0;          // fields stored, at most kMax
  std::size_t extra = 0;  // fields past the kMax-th
  bool nul = false;       // the line holds a NUL byte
  bool high = false;      // the line holds a byte >= 0x80 (it may not be UTF-8)

  void reset() {
    count = 0;
    extra = 0;
    nul = false;
    high = false;
  }
};

// Field separators as trec_eval's sscanf sees them (the newline ends the line instead).
inline bool isFieldSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

namespace detail {

// One byte <= 0x20 of a line: a separator, the line's end, a NUL, or another control byte
// (part of a field). Returns true at the line's end.
inline bool lineDelimiter(const char* d, const char*& start, LineFields& out) {
  const char c = *d;
  if (c == '\n') return true;
  if (isFieldSpace(c)) {
    if (d > start) {
      if (out.count < LineFields::kMax)
        out.field[out.count++] = std::string_view(start, static_cast<std::size_t>(d - start));
      else
        ++out.extra;
    }
    start = d + 1;
  } else if (c == '\0') {
    out.nul = true;
  }
  return false;
}

}  // namespace detail

// Splits the line that starts at p and ends at the next '\n' or at `end`. Sets lineEnd to the end
// of its text (the '\n' excluded) and returns where the next line starts.
inline const char* splitLine(const char* p, const char* end, LineFields& out,
                             const char*& lineEnd) {
  out.reset();
  const char* start = p;  // first byte after the last separator
  const char* q = p;
  auto finish = [&](const char* e) {
    if (e > start) {
      if (out.count < LineFields::kMax)
        out.field[out.count++] = std::string_view(start, static_cast<std::size_t>(e - start));
      else
        ++out.extra;
    }
    lineEnd = e;
  };
#if defined(__SSE2__)
  const __m128i k20 = _mm_set1_epi8(0x20);
  while (end - q >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    // Bytes <= 0x20 (unsigned): max(x, 0x20) == 0x20. Rare ones are classified one by one.
    unsigned low =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, k20), k20)));
    const unsigned high = static_cast<unsigned>(_mm_movemask_epi8(x));
    while (low) {
      const int k = __builtin_ctz(low);
      low &= low - 1;
      if (detail::lineDelimiter(q + k, start, out)) {
        // Only the bytes before the newline belong to this line.
        out.high = out.high || (high & ((1u << k) - 1)) != 0;
        finish(q + k);
        return q + k + 1;
      }
    }
    out.high = out.high || high != 0;
    q += 16;
  }
#endif
  for (; q < end; ++q) {
    const auto u = static_cast<unsigned char>(*q);
    if (u >= 0x80) out.high = true;
    if (u <= 0x20 && detail::lineDelimiter(q, start, out)) {
      finish(q);
      return q + 1;
    }
  }
  finish(end);
  return end;
}

}  // namespace ragscope::core
