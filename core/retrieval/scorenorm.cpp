#include "core/retrieval/scorenorm.h"

#include <algorithm>
#include <cmath>

namespace ragscope::core {

std::optional<ScoreNorm> scoreNormFromName(std::string_view name) {
  if (name == "none") return ScoreNorm::None;
  if (name == "min-max" || name == "min_max") return ScoreNorm::MinMax;
  if (name == "max") return ScoreNorm::Max;
  if (name == "sum") return ScoreNorm::Sum;
  if (name == "zmuv") return ScoreNorm::Zmuv;
  return std::nullopt;
}

const char* scoreNormName(ScoreNorm norm) {
  switch (norm) {
    case ScoreNorm::None:
      return "none";
    case ScoreNorm::MinMax:
      return "min-max";
    case ScoreNorm::Max:
      return "max";
    case ScoreNorm::Sum:
      return "sum";
    case ScoreNorm::Zmuv:
      return "zmuv";
  }
  return "none";
}

void normaliseScores(std::span<double> scores, ScoreNorm norm) {
  if (scores.empty() || norm == ScoreNorm::None) return;
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const double min = *lo;
  const double max = *hi;
  switch (norm) {
    case ScoreNorm::None:
      return;
    case ScoreNorm::MinMax: {
      const double denominator = std::max(max - min, kNormFloor);
      for (double& s : scores) s = (s - min) / denominator;
      return;
    }
    case ScoreNorm::Max: {
      // As ranx: a ranking whose best score is <= 0 is divided by the floor, not by its max.
      const double denominator = std::max(max, kNormFloor);
      for (double& s : scores) s = s / denominator;
      return;
    }
    case ScoreNorm::Sum: {
      // ranx's sum_norm divides by the sum of the scores shifted to start at 0.
      double sum = 0.0;
      for (double s : scores) sum += s;
      const double denominator =
          std::max(sum - min * static_cast<double>(scores.size()), kNormFloor);
      for (double& s : scores) s = (s - min) / denominator;
      return;
    }
    case ScoreNorm::Zmuv: {
      // numpy's mean and std (ddof 0: the population standard deviation), summed left to right.
      const double n = static_cast<double>(scores.size());
      double sum = 0.0;
      for (double s : scores) sum += s;
      const double mean = sum / n;
      double squares = 0.0;
      for (double s : scores) squares += (s - mean) * (s - mean);
      const double denominator = std::max(std::sqrt(squares / n), kNormFloor);
      for (double& s : scores) s = (s - mean) / denominator;
      return;
    }
  }
}

}  // namespace ragscope::core
