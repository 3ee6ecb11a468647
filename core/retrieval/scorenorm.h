#pragma once
// Score normalisation of one run's ranking for one query, before fusion (fusion.h), with ranx's
// definitions (AmenRa/ranx, ranx/normalization: min_max_norm, max_norm, sum_norm, zmuv_norm);
// core/retrieval/README.md, "Fusion", gives the formulas.

#include <optional>
#include <span>
#include <string_view>

namespace ragscope::core {

enum class ScoreNorm {
  None,    // scores as they are
  MinMax,  // (s - min) / max(max - min, 1e-9)
  Max,     // s / max(max, 1e-9)
  Sum,     // (s - min) / max(sum - min * n, 1e-9)
  Zmuv,    // (s - mean) / max(std, 1e-9), std the population standard deviation
};

// ranx's floor on every denominator: a ranking whose scores are all equal normalises to 0
// (min-max, sum) instead of dividing by zero.
inline constexpr double kNormFloor = 1e-9;

// "none", "min-max", "max", "sum", "zmuv" (the CLI's names; ranx also spells min-max "min_max").
std::optional<ScoreNorm> scoreNormFromName(std::string_view name);
const char* scoreNormName(ScoreNorm norm);

// Normalises `scores` (one query's ranking of one run) in place. Sums run in the order given,
// left to right, as ranx's do over its ranking order. Non-finite results (scores near the
// double's range, whose difference or sum overflows) are left for the caller to detect.
void normaliseScores(std::span<double> scores, ScoreNorm norm);

}  // namespace ragscope::core
