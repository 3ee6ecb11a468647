#include "core/claims/numpycompat.h"

#include <cmath>
#include <limits>

namespace ragscope::core::claims {

namespace {

constexpr std::size_t kBlock = 128;  // numpy's PW_BLOCKSIZE

double pairwise(const double* a, std::size_t n) {
  if (n < 8) {
    double res = 0.0;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= kBlock) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return pairwise(a, half) + pairwise(a + half, n - half);
}

}  // namespace

double numpySum(std::span<const double> values) {
  // The reduction starts from the identity (0.0), which changes no bit of the pairwise sum.
  return 0.0 + pairwise(values.data(), values.size());
}

double numpyMean(std::span<const double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  return numpySum(values) / static_cast<double>(values.size());
}

double numpyRound(double x, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::nearbyint(x * f) / f;
}

}  // namespace ragscope::core::claims
