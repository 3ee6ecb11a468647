#pragma once
// RAGChecker's eleven metrics (core/claims/README.md, "RAGChecker metrics") from an example's label
// sets, per example and over a corpus, in two modes:
//
//   Mode::RagChecker  RAGChecker's own conventions, to reproduce its numbers bit for bit: only
//                     Entailment (or a binary Supported) is true, every other label, unparsed and
//                     error ones included, is false (RefChecker pads missing labels as Neutral);
//                     a case the formula cannot handle is 0.0 (no claims, no chunks, ...), and
//                     those 0.0s are averaged; corpus figures are macro means, printed as
//                     round(mean * 100, 1) with numpy's ties-to-even; F1 is the mean of the
//                     per-example F1s.
//   Mode::RagScope    ragscope's convention: unparsed and error labels are never 0 or 1. The
//                     per-claim (per-chunk) indicators are computed in three-valued logic (an
//                     entailing chunk decides "supported" whatever an unparsed cell beside it
//                     says; otherwise an undecided input leaves the indicator undecided), a
//                     metric averages the decided items only and counts the others, a mean over
//                     no items is "empty" (no value), and an OR over no chunks is false (no
//                     chunk supports anything). So with K = 0 faithfulness is 0 and
//                     faithfulness + hallucination + self_knowledge = 1 still holds.
//
//   CorpusScores s = scoreCorpus(examples, Mode::RagChecker);
//   s.metrics[index(Metric::F1)].percent;          // 68.3 on RAGChecker's example file
//   s.perExample[0][Metric::Precision].value;      // 0.7272727272727273 (8/11)
//
// Items per metric (what n_total counts): precision, noise sensitivity, hallucination,
// self_knowledge, faithfulness: response claims; recall, claim_recall: gold claims;
// context_precision: chunks; context_utilization: gold claims possibly recalled by a chunk;
// f1: response + gold claims (it is defined when precision and recall both are).

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims/claimexample.h"
#include "core/claims/labels.h"

namespace ragscope::core::claims {

enum class Metric : std::uint8_t {
  Precision,
  Recall,
  F1,
  ClaimRecall,
  ContextPrecision,
  ContextUtilization,
  NoiseSensitivityInRelevant,
  NoiseSensitivityInIrrelevant,
  Hallucination,
  SelfKnowledge,
  Faithfulness,
};

inline constexpr std::size_t kMetricCount = 11;
inline constexpr std::size_t index(Metric m) { return static_cast<std::size_t>(m); }
// In RAGChecker's order (overall, retriever, generator).
std::span<const Metric> allMetrics();

// "precision", ... as RAGChecker's files name them.
std::string_view metricKey(Metric m);
// "ragchecker.precision", ...: the namespaced names every report and CLI table uses.
std::string metricName(Metric m);
// "overall", "retriever" or "generator": the group RAGChecker prints the metric in.
std::string_view metricGroup(Metric m);
// From "precision" or "ragchecker.precision".
std::optional<Metric> metricFromName(std::string_view name);

enum class Mode : std::uint8_t { RagChecker, RagScope };
std::string_view modeName(Mode m);  // "ragchecker", "ragscope"
std::optional<Mode> modeFromName(std::string_view name);

struct MetricScore {
  double value = std::numeric_limits<double>::quiet_NaN();  // NaN unless Scored
  ScoreState state = ScoreState::Empty;
  std::uint32_t total = 0;     // items the metric averages over
  std::uint32_t scored = 0;    // items with a decided indicator
  std::uint32_t unparsed = 0;  // undecided items (an unparsed label among the undecided inputs)
  std::uint32_t errors = 0;    // undecided items (only error labels undecided)

  bool hasValue() const { return state == ScoreState::Scored; }
};

struct ExampleScores {
  std::array<MetricScore, kMetricCount> metrics;
  LabelCounts labels;  // in RagChecker mode unparsed/error ones were read as Neutral

  const MetricScore& operator[](Metric m) const { return metrics[index(m)]; }
  MetricScore& operator[](Metric m) { return metrics[index(m)]; }
};

// The example must satisfy shapeProblem(ex) == nullopt (the checking-file reader ensures it).
ExampleScores scoreExample(const ClaimExample& ex, Mode mode);

struct CorpusMetric {
  // numpyMean of the per-example values that have one (every example in RagChecker mode);
  // NaN when none has.
  double mean = std::numeric_limits<double>::quiet_NaN();
  double percent = std::numeric_limits<double>::quiet_NaN();  // ragcheckerPercent(mean)
  // Examples by state of this metric.
  std::size_t examples = 0;
  std::size_t scored = 0;
  std::size_t empty = 0;
  std::size_t unparsed = 0;
  std::size_t errors = 0;
  // Items summed over the examples.
  std::uint64_t itemsTotal = 0;
  std::uint64_t itemsScored = 0;
  std::uint64_t itemsUnparsed = 0;
  std::uint64_t itemsErrors = 0;
};

struct CorpusScores {
  Mode mode = Mode::RagChecker;
  std::vector<ExampleScores> perExample;  // in the examples' order
  std::array<CorpusMetric, kMetricCount> metrics;
  LabelCounts labels;

  const CorpusMetric& operator[](Metric m) const { return metrics[index(m)]; }
};

CorpusScores scoreCorpus(std::span<const ClaimExample> examples, Mode mode);

}  // namespace ragscope::core::claims
