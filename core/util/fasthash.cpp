#include "core/util/fasthash.h"

#include <cstring>

namespace ragscope::core {

namespace {

constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;   // 2^64 / golden ratio, odd
constexpr std::uint64_t kMul2 = 0xC2B2AE3D27D4EB4Full;  // any odd constant with mixed bits

inline std::uint64_t load64(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// Spreads every input bit over the whole word (a multiply-xorshift finaliser).
inline std::uint64_t finish(std::uint64_t h) {
  h ^= h >> 33;
  h *= kMul2;
  h ^= h >> 29;
  h *= kMul;
  h ^= h >> 32;
  return h;
}

inline std::uint64_t lane(std::uint64_t acc, std::uint64_t word) {
  acc = (acc ^ word) * kMul;
  return acc ^ (acc >> 31);
}

}  // namespace

std::uint64_t fastHash64(const void* data, std::size_t size, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  // Four independent lanes keep the multiplier busy: each 32-byte block costs four multiplies
  // that do not wait on one another.
  std::uint64_t a = seed ^ kMul, b = seed + kMul2, c = ~seed, d = seed * kMul2 + 1;
  std::size_t n = size;
  for (; n >= 32; n -= 32, p += 32) {
    a = lane(a, load64(p));
    b = lane(b, load64(p + 8));
    c = lane(c, load64(p + 16));
    d = lane(d, load64(p + 24));
  }
  std::uint64_t h = finish(a) ^ (finish(b) * 3) ^ (finish(c) * 5) ^ (finish(d) * 7) ^ size;
  for (; n >= 8; n -= 8, p += 8) h = lane(h, load64(p));
  std::uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return finish(lane(h, tail ^ (std::uint64_t{n} << 56)));
}

}  // namespace ragscope::core
