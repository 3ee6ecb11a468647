#pragma once

#include <limits>

namespace ragscope::core {

// "No value": a mean of nothing, a correlation of constants, a metric that was not scored. One
// definition for the whole engine, so that every place that writes it writes the same quiet NaN.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace ragscope::core
