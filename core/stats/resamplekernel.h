#pragma once
// The inner loop of the bootstrap (core/stats/bootstrap.h resampleMeans): the means of resamples
// [begin, end), resample b drawing `sampleSize` indices from streamFor(seed, domain, b, salt).
// Each mean is summed in one fixed order (four accumulators, draws dealt round-robin), so its
// value depends on the stream only. On a CPU with AVX-512 (F + DQ) eight resamples run side by
// side, one per vector lane, each with exactly the additions of the one-by-one loop: the same
// bits, in about a third of the time (the draws dominate: 10^8 of them for n = B = 10,000).
// The choice is made at run time; elsewhere the one-by-one loop runs.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/stats/random.h"

namespace ragscope::core::stats {

// out[b - begin] = mean of resample b. False when `cancel` became true (checked between
// resamples; the rest of out is then unspecified).
bool resampleMeansRange(std::span<const double> values, std::size_t sampleSize, std::uint64_t seed,
                        Domain domain, std::uint64_t salt, std::size_t begin, std::size_t end,
                        double* out, const std::atomic<bool>* cancel);

// Whether the eight-lane loop runs on this machine (for tests and benchmarks).
bool resampleLanesAvailable();

// For tests: the same with the eight-lane loop forced off.
bool resampleMeansRangeScalar(std::span<const double> values, std::size_t sampleSize,
                              std::uint64_t seed, Domain domain, std::uint64_t salt,
                              std::size_t begin, std::size_t end, double* out,
                              const std::atomic<bool>* cancel);

}  // namespace ragscope::core::stats
