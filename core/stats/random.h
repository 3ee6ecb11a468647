#pragma once
// Seeded, thread-count-independent randomness for the statistics engine.
//
// Every resample (or permutation) b gets its own generator derived from (seed, domain, b) by
// SplitMix64 mixing, so a result depends only on the seed and never on which worker ran which
// resample or in what order:
//
//   auto rng = streamFor(seed, Domain::Bootstrap, b);
//   std::uint32_t i = rng.below32(n);   // uniform in [0, n)
//
// The generator is xoshiro256** (fast, 256-bit state, passes BigCrush); SplitMix64 only expands
// the 64-bit stream key into that state, as the xoshiro authors recommend. std::random_device is
// never used: a run is reproducible from the seed it reports.

#include <cstdint>

namespace ragscope::core::stats {

// SplitMix64's output function: a bijective 64-bit mixer (Stafford variant 13).
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t state) : m_state(state) {}
  constexpr std::uint64_t next() {
    m_state += 0x9E3779B97F4A7C15ULL;
    return mix64(m_state);
  }

 private:
  std::uint64_t m_state;
};

class Xoshiro256 {
 public:
  explicit constexpr Xoshiro256(std::uint64_t key) {
    SplitMix64 sm(key);
    for (auto& s : m_s) s = sm.next();
    // An all-zero state would be a fixed point; SplitMix64 cannot produce four zeros in a row,
    // but keep the guard so the invariant is local.
    if ((m_s[0] | m_s[1] | m_s[2] | m_s[3]) == 0) m_s[0] = 1;
  }

  constexpr std::uint64_t next() {
    const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const std::uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
  }

  // Uniform integer in [0, n) for 0 < n < 2^32 without modulo bias (Lemire's multiply-shift with
  // rejection of the few values that would over-represent small results). Each call consumes one
  // 32-bit half of a 64-bit draw, so two indices cost one generator step.
  std::uint32_t below32(std::uint32_t n) {
    const std::uint32_t threshold = static_cast<std::uint32_t>(-n) % n;
    for (;;) {
      const std::uint64_t m = std::uint64_t{nextHalf()} * n;
      if (static_cast<std::uint32_t>(m) >= threshold) return static_cast<std::uint32_t>(m >> 32);
    }
  }

  // Same, with the rejection threshold precomputed by the caller (hot loops).
  std::uint32_t below32(std::uint32_t n, std::uint32_t threshold) {
    for (;;) {
      const std::uint64_t m = std::uint64_t{nextHalf()} * n;
      if (static_cast<std::uint32_t>(m) >= threshold) return static_cast<std::uint32_t>(m >> 32);
    }
  }

  static constexpr std::uint32_t rejectionThreshold(std::uint32_t n) {
    return static_cast<std::uint32_t>(-n) % n;
  }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint32_t nextHalf() {
    if (m_haveHalf) {
      m_haveHalf = false;
      return m_half;
    }
    const std::uint64_t r = next();
    m_half = static_cast<std::uint32_t>(r);
    m_haveHalf = true;
    return static_cast<std::uint32_t>(r >> 32);
  }

  std::uint64_t m_s[4] = {};
  std::uint32_t m_half = 0;
  bool m_haveHalf = false;
};

// Separates the uses of one seed so that, e.g., a paired bootstrap and a randomization test run
// with the same seed do not consume identical random streams.
enum class Domain : std::uint64_t {
  Bootstrap = 1,
  PairedBootstrap = 2,
  SignFlip = 3,
  TwoSamplePermutation = 4,
  CorrelationBootstrap = 5,
  Contrastive = 6,
};

// The generator of resample/permutation `index` (0-based) under `seed`; `salt` separates further
// sub-streams (e.g. the group number in a contrastive analysis).
inline Xoshiro256 streamFor(std::uint64_t seed, Domain domain, std::uint64_t index,
                            std::uint64_t salt = 0) {
  // Per (seed, domain, salt) a base key; the index then walks a Weyl sequence from it and is
  // mixed again, so for one seed distinct indices always get distinct keys.
  const std::uint64_t base =
      mix64(seed ^ mix64(static_cast<std::uint64_t>(domain) * 0x9E3779B97F4A7C15ULL + salt));
  const std::uint64_t key = mix64(base + (index + 1) * 0xD1B54A32D192ED03ULL);
  return Xoshiro256(key);
}

}  // namespace ragscope::core::stats
