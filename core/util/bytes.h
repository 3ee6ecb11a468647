#pragma once

// Equality of short byte strings (qids, docnos) without a library call. Comparing the qid of
// each of a run's 7 million lines, or a docno per ranked document, through memcmp was a visible
// share of reading and evaluating a run.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace ragscope::core {

inline bool sameBytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  std::size_t n = a.size();
  for (; n >= 8; n -= 8, p += 8, q += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, p, 8);
    std::memcpy(&y, q, 8);
    if (x != y) return false;
  }
  if (n >= 4) {  // two overlapping loads cover 4-7 bytes
    std::uint32_t x1, y1, x2, y2;
    std::memcpy(&x1, p, 4);
    std::memcpy(&y1, q, 4);
    std::memcpy(&x2, p + n - 4, 4);
    std::memcpy(&y2, q + n - 4, 4);
    return x1 == y1 && x2 == y2;
  }
  for (; n > 0; --n)
    if (*p++ != *q++) return false;
  return true;
}

}  // namespace ragscope::core
