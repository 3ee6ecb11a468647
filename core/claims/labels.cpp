#include "core/claims/labels.h"

#include <array>

namespace ragscope::core::claims {

namespace {
constexpr std::array<std::string_view, kLabelCount> kNames = {
    "Entailment", "Neutral", "Contradiction", "Supported", "Unsupported", "Unparsed", "Error"};
}  // namespace

std::string_view labelName(Label l) { return kNames[static_cast<std::size_t>(l)]; }

std::optional<Label> labelFromName(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<Label>(i);
  return std::nullopt;
}

std::string_view stateName(ScoreState s) {
  switch (s) {
    case ScoreState::Scored:
      return "scored";
    case ScoreState::Empty:
      return "empty";
    case ScoreState::Unparsed:
      return "unparsed";
    default:
      return "error";
  }
}

std::uint64_t LabelCounts::total() const {
  std::uint64_t n = 0;
  for (auto c : byLabel) n += c;
  return n;
}

LabelCounts& LabelCounts::operator+=(const LabelCounts& other) {
  for (std::size_t i = 0; i < kLabelCount; ++i) byLabel[i] += other.byLabel[i];
  return *this;
}

}  // namespace ragscope::core::claims
