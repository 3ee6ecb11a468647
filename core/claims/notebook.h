#pragma once
// The claim metrics of the "Deep Dive Into RAG Evaluation" notebook (core/claims/README.md,
// "Notebook metrics"): faithfulness (response claims vs the retrieved documents joined),
// correctness (response claims vs the gold answer) and coverage (gold-answer claims vs the
// response). Each is supported / labelled over one example.
//
//   std::vector<Label> faith = {Supported, Supported, Unsupported, ...};
//   ClaimScore s = notebookFaithfulness(faith);   // s.value, s.supported, s.unparsed, ...
//
// ragscope's convention: unparsed and error labels are counted, never 0 or 1; no claims at all is
// "empty"; no labelled claim leaves the score without a value (the notebook raises
// ZeroDivisionError there). The notebook itself counts "SUPPORTED=1" / "SUPPORTED=0" anywhere in
// the judge's whole reply, not per claim: countSupportedMarkers() is that count, for its
// compatibility figures.

#include <cstddef>
#include <limits>
#include <span>
#include <string_view>

#include "core/claims/labels.h"

namespace ragscope::core::claims {

struct ClaimScore {
  double value = std::numeric_limits<double>::quiet_NaN();  // NaN unless Scored
  ScoreState state = ScoreState::Empty;
  std::size_t total = 0;
  std::size_t supported = 0;
  std::size_t unsupported = 0;
  std::size_t unparsed = 0;
  std::size_t errors = 0;

  std::size_t scored() const { return supported + unsupported; }
  bool hasValue() const { return state == ScoreState::Scored; }
};

// supported / (supported + unsupported) over the resolved labels; Entailment and Supported count
// as supported, Neutral, Contradiction and Unsupported as unsupported.
ClaimScore supportScore(std::span<const Label> labels);

inline ClaimScore notebookFaithfulness(std::span<const Label> responseVsContext) {
  return supportScore(responseVsContext);
}
inline ClaimScore notebookCorrectness(std::span<const Label> responseVsGold) {
  return supportScore(responseVsGold);
}
inline ClaimScore notebookCoverage(std::span<const Label> goldVsResponse) {
  return supportScore(goldVsResponse);
}

// The notebook's regex counts over a whole judge reply.
struct MarkerCounts {
  std::size_t supported = 0;    // "SUPPORTED=1"
  std::size_t unsupported = 0;  // "SUPPORTED=0"
};
MarkerCounts countSupportedMarkers(std::string_view reply);
// s / (s + u); NaN when there is no marker (the notebook's ZeroDivisionError).
double notebookScore(const MarkerCounts& counts);

}  // namespace ragscope::core::claims
