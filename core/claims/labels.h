#pragma once
// Claim labels (core/claims/README.md): what a judge said about one claim against one premise.
//
// Three-way labels are RAGChecker's (Entailment / Neutral / Contradiction), binary ones the
// notebook's (SUPPORTED=1 / SUPPORTED=0). Only Entailment and Supported count as supported.
// Unparsed (the reply had no usable label for the claim: missing, duplicated, reordered or
// label-less line, or no label in a file; or the claim is past the kMaxClaimsPerAnswer claims of
// an answer that are judged, judgeparse.h) and Error (the call failed) are states, not verdicts:
// ragscope's own mode never counts them as 0 or 1; RAGChecker's compatibility mode treats them
// as it treats its own padding, "Neutral" (not supported).
//
//   Label l = labelFromName("Entailment").value();   // exact spelling, as RAGChecker writes it
//   isSupported(l);  isResolved(Label::Unparsed) == false;

#include <cstdint>
#include <optional>
#include <string_view>

namespace ragscope::core::claims {

enum class Label : std::uint8_t {
  Entailment,
  Neutral,
  Contradiction,
  Supported,    // binary SUPPORTED=1
  Unsupported,  // binary SUPPORTED=0
  Unparsed,
  Error,
};

inline constexpr std::size_t kLabelCount = 7;

constexpr bool isResolved(Label l) { return l != Label::Unparsed && l != Label::Error; }
constexpr bool isSupported(Label l) { return l == Label::Entailment || l == Label::Supported; }

// "Entailment", "Neutral", "Contradiction", "Supported", "Unsupported", "Unparsed", "Error".
std::string_view labelName(Label l);

// The label of an exact name above (case-sensitive, as RAGChecker's to_bool compares), or nullopt.
std::optional<Label> labelFromName(std::string_view name);

// The state of a score over claims (core/claims/README.md, "Parse states").
enum class ScoreState : std::uint8_t {
  Scored,    // a value (possibly from some of the items: see the counts beside it)
  Empty,     // nothing to average: no claims, no chunks, no recalled gold claim
  Unparsed,  // every item undecided, by unparsed labels
  Error,     // every item undecided, by error labels only
};
std::string_view stateName(ScoreState s);  // "scored", "empty", "unparsed", "error"

// How many labels of each kind; `unresolved()` = unparsed + error.
struct LabelCounts {
  std::uint64_t byLabel[kLabelCount] = {};

  void add(Label l) { ++byLabel[static_cast<std::size_t>(l)]; }
  std::uint64_t count(Label l) const { return byLabel[static_cast<std::size_t>(l)]; }
  std::uint64_t total() const;
  std::uint64_t supported() const { return count(Label::Entailment) + count(Label::Supported); }
  std::uint64_t unparsed() const { return count(Label::Unparsed); }
  std::uint64_t errors() const { return count(Label::Error); }
  std::uint64_t unresolved() const { return unparsed() + errors(); }
  LabelCounts& operator+=(const LabelCounts& other);
};

}  // namespace ragscope::core::claims
