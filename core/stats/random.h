#pragma once
// Seeded, thread-count-independent randomness for the statistics engine.
//
// Every resample (or permutation) b gets its own generator derived from (seed, domain, b), so a
// result depends only on the seed and never on which worker ran which resample or in what order:
//
//   Rng rng = streamFor(seed, Domain::Bootstrap, b);
//   std::uint32_t i = rng.below32(n);   // uniform in [0, n)
//
// The generator is SplitMix64 used as a counter-based generator: output k of a stream is
// mix64(key + k * gamma). It passes BigCrush (it is Java's SplittableRandom), its outputs do not
// depend on each other (only the counter add is serial), so it runs about twice as fast as
// xoshiro256** in the resampling loops, and a 64-bit key per stream is all the state there is.
// std::random_device is never used: a run is reproducible from the seed it reports.

#include <cstdint>

namespace ragscope::core::stats {

// SplitMix64's output function: a bijective 64-bit mixer (Stafford variant 13).
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit constexpr Rng(std::uint64_t key) : m_state(key) {}

  constexpr std::uint64_t next() {
    m_state += kGamma;
    return mix64(m_state);
  }

  // Uniform integer in [0, n) for 0 < n < 2^32 without modulo bias (Lemire's multiply-shift,
  // rejecting the few values that would over-represent small results).
  constexpr std::uint32_t below32(std::uint32_t n) { return below32(n, rejectionThreshold(n)); }

  // Same, with the rejection threshold precomputed by the caller (hot loops).
  constexpr std::uint32_t below32(std::uint32_t n, std::uint32_t threshold) {
    for (;;) {
      const std::uint64_t m = (next() >> 32) * n;
      if (static_cast<std::uint32_t>(m) >= threshold) return static_cast<std::uint32_t>(m >> 32);
    }
  }

  static constexpr std::uint32_t rejectionThreshold(std::uint32_t n) {
    return static_cast<std::uint32_t>(-n) % n;
  }

  // Uniform double in [0, 1) with 53 random bits.
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // The counter: Rng(state()) continues this stream (the vectorised resampling loops run eight
  // streams side by side in registers, core/stats/resamplekernel.h).
  constexpr std::uint64_t state() const { return m_state; }
  static constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ULL;  // the counter's step

 private:
  std::uint64_t m_state;
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
inline Rng streamFor(std::uint64_t seed, Domain domain, std::uint64_t index,
                     std::uint64_t salt = 0) {
  // Per (seed, domain, salt) a base key; the index then walks a Weyl sequence from it and is
  // mixed again, so for one seed distinct indices always get distinct keys.
  const std::uint64_t base =
      mix64(seed ^ mix64(static_cast<std::uint64_t>(domain) * 0x9E3779B97F4A7C15ULL + salt));
  const std::uint64_t key = mix64(base + (index + 1) * 0xD1B54A32D192ED03ULL);
  return Rng(key);
}

}  // namespace ragscope::core::stats
