#include "core/stats/resamplekernel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RAGSCOPE_RESAMPLE_LANES 1
#endif

namespace ragscope::core::stats {

namespace {

// One draw in [0, n) from the 32 random bits `half`, Lemire's multiply-shift; a rejected value
// (probability threshold / 2^32, 1.7e-6 for n = 10,000) is redrawn from the stream.
inline std::uint32_t draw(std::uint32_t half, std::uint32_t n, std::uint32_t threshold, Rng& rng) {
  std::uint64_t m = std::uint64_t{half} * n;
  while (static_cast<std::uint32_t>(m) < threshold)
    m = std::uint64_t{static_cast<std::uint32_t>(rng.next() >> 32)} * n;
  return static_cast<std::uint32_t>(m >> 32);
}

// Four draws from two 64-bit steps: high then low half of each. The rejection redraws come after
// both steps, in the order of the draws.
inline void drawFour(std::uint32_t n, std::uint32_t threshold, Rng& rng, std::uint32_t idx[4]) {
  const std::uint64_t r1 = rng.next();
  const std::uint64_t r2 = rng.next();
  idx[0] = draw(static_cast<std::uint32_t>(r1 >> 32), n, threshold, rng);
  idx[1] = draw(static_cast<std::uint32_t>(r1), n, threshold, rng);
  idx[2] = draw(static_cast<std::uint32_t>(r2 >> 32), n, threshold, rng);
  idx[3] = draw(static_cast<std::uint32_t>(r2), n, threshold, rng);
}

// The draws of the last sampleSize % 4 indices, one step each, onto accumulators j & 3.
inline void drawTail(const double* x, std::uint32_t n, std::uint32_t threshold, std::size_t from,
                     std::size_t s, Rng& rng, double acc[4]) {
  for (std::size_t j = from; j < s; ++j)
    acc[j & 3] += x[draw(static_cast<std::uint32_t>(rng.next() >> 32), n, threshold, rng)];
}

// Mean of one resample: four independent accumulators hide the add latency; the order of draws
// and sums is fixed.
double oneResampleMean(const double* x, std::uint32_t n, std::uint32_t threshold, std::size_t s,
                       Rng& rng) {
  double acc[4] = {0.0, 0.0, 0.0, 0.0};
  std::size_t j = 0;
  std::uint32_t idx[4];
  for (; j + 4 <= s; j += 4) {
    drawFour(n, threshold, rng, idx);
    acc[0] += x[idx[0]];
    acc[1] += x[idx[1]];
    acc[2] += x[idx[2]];
    acc[3] += x[idx[3]];
  }
  drawTail(x, n, threshold, j, s, rng, acc);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) / double(s);
}

bool scalarRange(const double* x, std::uint32_t n, std::size_t s, std::uint64_t seed, Domain domain,
                 std::uint64_t salt, std::size_t begin, std::size_t end, double* out,
                 const std::atomic<bool>* cancel) {
  const std::uint32_t threshold = Rng::rejectionThreshold(n);
  for (std::size_t b = begin; b < end; ++b) {
    if (cancel && (b & 63) == 0 && cancel->load(std::memory_order_relaxed)) return false;
    Rng rng = streamFor(seed, domain, b, salt);
    out[b - begin] = oneResampleMean(x, n, threshold, s, rng);
  }
  return true;
}

#ifdef RAGSCOPE_RESAMPLE_LANES

// gcc 12's AVX-512 intrinsics start from _mm512_undefined_*(), which -Wmaybe-uninitialized
// reports at every use.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

constexpr int kLanes = 8;

__attribute__((target("avx512f,avx512dq"))) inline __m512i mix64x8(__m512i z) {
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)),
                         _mm512_set1_epi64(static_cast<long long>(0xBF58476D1CE4E5B9ULL)));
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)),
                         _mm512_set1_epi64(static_cast<long long>(0x94D049BB133111EBULL)));
  return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

// Eight resamples, lane l drawing from `streams[l]`, each lane doing exactly oneResampleMean's
// steps and additions. A group of four draws in which any lane hit a rejection (rare) is redone
// for those lanes one by one from the state before the group.
__attribute__((target("avx512f,avx512dq"))) void eightResampleMeans(
    const double* x, std::uint32_t n, std::uint32_t threshold, std::size_t s, const Rng* streams,
    double* out) {
  alignas(64) std::uint64_t state[kLanes];
  for (int l = 0; l < kLanes; ++l) state[l] = streams[l].state();
  __m512i st = _mm512_load_si512(state);
  const __m512i gamma = _mm512_set1_epi64(static_cast<long long>(Rng::kGamma));
  const __m512i nv = _mm512_set1_epi64(n);
  const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFFLL);
  const __m512i thr = _mm512_set1_epi64(threshold);
  __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  std::size_t j = 0;
  for (; j + 4 <= s; j += 4) {
    const __m512i before = st;
    const __m512i s1 = _mm512_add_epi64(st, gamma);
    st = _mm512_add_epi64(s1, gamma);
    const __m512i r1 = mix64x8(s1);
    const __m512i r2 = mix64x8(st);
    // 32 x 32 -> 64-bit products of each half with n (mul_epu32 takes the low halves).
    const __m512i m0 = _mm512_mul_epu32(_mm512_srli_epi64(r1, 32), nv);
    const __m512i m1 = _mm512_mul_epu32(r1, nv);
    const __m512i m2 = _mm512_mul_epu32(_mm512_srli_epi64(r2, 32), nv);
    const __m512i m3 = _mm512_mul_epu32(r2, nv);
    __m512i i0 = _mm512_srli_epi64(m0, 32), i1 = _mm512_srli_epi64(m1, 32);
    __m512i i2 = _mm512_srli_epi64(m2, 32), i3 = _mm512_srli_epi64(m3, 32);
    const __mmask8 rejected = _mm512_cmplt_epu64_mask(_mm512_and_si512(m0, low32), thr) |
                              _mm512_cmplt_epu64_mask(_mm512_and_si512(m1, low32), thr) |
                              _mm512_cmplt_epu64_mask(_mm512_and_si512(m2, low32), thr) |
                              _mm512_cmplt_epu64_mask(_mm512_and_si512(m3, low32), thr);
    if (__builtin_expect(rejected != 0, 0)) {
      alignas(64) std::uint64_t pre[kLanes], next[kLanes], idx[4][kLanes];
      _mm512_store_si512(pre, before);
      _mm512_store_si512(next, st);
      _mm512_store_si512(idx[0], i0);
      _mm512_store_si512(idx[1], i1);
      _mm512_store_si512(idx[2], i2);
      _mm512_store_si512(idx[3], i3);
      for (int l = 0; l < kLanes; ++l) {
        if (!(rejected & (1u << l))) continue;
        Rng rng(pre[l]);
        std::uint32_t four[4];
        drawFour(n, threshold, rng, four);
        for (int k = 0; k < 4; ++k) idx[k][l] = four[k];
        next[l] = rng.state();
      }
      st = _mm512_load_si512(next);
      i0 = _mm512_load_si512(idx[0]);
      i1 = _mm512_load_si512(idx[1]);
      i2 = _mm512_load_si512(idx[2]);
      i3 = _mm512_load_si512(idx[3]);
    }
    a0 = _mm512_add_pd(a0, _mm512_i64gather_pd(i0, x, 8));
    a1 = _mm512_add_pd(a1, _mm512_i64gather_pd(i1, x, 8));
    a2 = _mm512_add_pd(a2, _mm512_i64gather_pd(i2, x, 8));
    a3 = _mm512_add_pd(a3, _mm512_i64gather_pd(i3, x, 8));
  }
  alignas(64) double acc[4][kLanes];
  _mm512_store_pd(acc[0], a0);
  _mm512_store_pd(acc[1], a1);
  _mm512_store_pd(acc[2], a2);
  _mm512_store_pd(acc[3], a3);
  _mm512_store_si512(state, st);
  for (int l = 0; l < kLanes; ++l) {
    double lane[4] = {acc[0][l], acc[1][l], acc[2][l], acc[3][l]};
    Rng rng(state[l]);
    drawTail(x, n, threshold, j, s, rng, lane);
    out[l] = ((lane[0] + lane[1]) + (lane[2] + lane[3])) / double(s);
  }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool lanesSupported() {
  static const bool supported =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  return supported;
}

#endif

}  // namespace

bool resampleLanesAvailable() {
#ifdef RAGSCOPE_RESAMPLE_LANES
  return lanesSupported();
#else
  return false;
#endif
}

bool resampleMeansRangeScalar(std::span<const double> values, std::size_t sampleSize,
                              std::uint64_t seed, Domain domain, std::uint64_t salt,
                              std::size_t begin, std::size_t end, double* out,
                              const std::atomic<bool>* cancel) {
  return scalarRange(values.data(), static_cast<std::uint32_t>(values.size()), sampleSize, seed,
                     domain, salt, begin, end, out, cancel);
}

bool resampleMeansRange(std::span<const double> values, std::size_t sampleSize, std::uint64_t seed,
                        Domain domain, std::uint64_t salt, std::size_t begin, std::size_t end,
                        double* out, const std::atomic<bool>* cancel) {
  const double* x = values.data();
  const auto n = static_cast<std::uint32_t>(values.size());
#ifdef RAGSCOPE_RESAMPLE_LANES
  if (lanesSupported()) {
    const std::uint32_t threshold = Rng::rejectionThreshold(n);
    std::size_t b = begin;
    for (; b + kLanes <= end; b += kLanes) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return false;
      Rng streams[kLanes] = {
          streamFor(seed, domain, b, salt),     streamFor(seed, domain, b + 1, salt),
          streamFor(seed, domain, b + 2, salt), streamFor(seed, domain, b + 3, salt),
          streamFor(seed, domain, b + 4, salt), streamFor(seed, domain, b + 5, salt),
          streamFor(seed, domain, b + 6, salt), streamFor(seed, domain, b + 7, salt)};
      eightResampleMeans(x, n, threshold, sampleSize, streams, out + (b - begin));
    }
    return scalarRange(x, n, sampleSize, seed, domain, salt, b, end, out + (b - begin), cancel);
  }
#endif
  return scalarRange(x, n, sampleSize, seed, domain, salt, begin, end, out, cancel);
}

}  // namespace ragscope::core::stats
