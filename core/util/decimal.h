#pragma once

// Reading a decimal number exactly as strtod/from_chars would, faster for the common case.
//
// Run scores are mostly short decimals ("12.3456", "-0.5"). When the digits form an integer of at
// most 2^53 and there are at most 22 of them after the point, both that integer and the power of
// ten are exact doubles, so one IEEE division gives the correctly rounded value (Clinger's fast
// path), which is what std::from_chars returns. Everything else goes to std::from_chars.

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace ragscope::core {

// Parses all of `s` as a decimal floating-point number. Returns std::errc() on success,
// std::errc::invalid_argument when `s` is not entirely a number, and result_out_of_range as
// std::from_chars does.
inline std::errc parseDecimal(std::string_view s, double& value) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = s.data();
  const char* const end = p + s.size();
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  std::uint64_t mantissa = 0;
  int digits = 0;
  int fraction = 0;
  const char* const intStart = p;
  for (; p < end && static_cast<unsigned>(*p - '0') < 10; ++p, ++digits)
    mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
  const bool intDigits = p > intStart;
  if (p < end && *p == '.') {
    ++p;
    const char* const fracStart = p;
    for (; p < end && static_cast<unsigned>(*p - '0') < 10; ++p, ++digits)
      mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    fraction = static_cast<int>(p - fracStart);
  }
  if (p == end && intDigits && digits <= 19 && mantissa <= (std::uint64_t{1} << 53) &&
      fraction <= 22) {
    const double v = static_cast<double>(mantissa) / kPow10[fraction];
    value = negative ? -v : v;
    return std::errc();
  }
  // Exponents, long mantissas, "inf", ".5", malformed text: the library decides.
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc()) return ec;
  return ptr == end ? std::errc() : std::errc::invalid_argument;
}

}  // namespace ragscope::core
