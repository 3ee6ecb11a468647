#pragma once
// RAGAS formulas that need no model call once the verdicts or embeddings are known
// (core/claims/README.md, "RAGAS metrics"; explodinggradients/ragas v0.4.0 and its legacy metrics),
// in RAGAS's own conventions (ragas compatibility: NaN where RAGAS gives NaN).
//
//   ragasContextPrecision({1, 0, 1});            // 0.8333333332916666 (RAGAS's 1e-10 included)
//   ragasFaithfulness(4, {1, 1, 0});             // 2/3: the denominator is the verdicts returned
//   ragasContextRecall({1, 0});                  // 0.5
//   ragasAnswerRelevancy(q, {{e1, false}, {e2, true}, {e3, false}});   // mean cosine
//
// Names: these are ragas.context_precision, ragas.faithfulness, ragas.context_recall and
// ragas.answer_relevancy, not RAGChecker's metrics of similar names.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "core/claims/labels.h"

namespace ragscope::core::claims {

inline constexpr double kRagasEpsilon = 1e-10;

// Average precision over the relevant ranks of per-chunk verdicts in rank order:
// sum_k (sum_{i<=k} v_i / k) * v_k / (sum_k v_k + 1e-10), summed left to right as RAGAS does.
// No chunk or no relevant chunk gives 0.0. A verdict is relevant when non-zero.
double ragasContextPrecision(std::span<const int> verdicts);
// From labels: nullopt when any label is unresolved (rank-aware AP cannot skip a rank; RAGAS
// makes such a row NaN).
std::optional<double> ragasContextPrecision(std::span<const Label> verdicts);

// #truthy verdicts / #verdicts returned (not / #statements). NaN when there are no statements or
// no verdicts (RAGAS's NaN rows).
double ragasFaithfulness(std::size_t statements, std::span<const int> verdicts);

// #attributed / #classifications; NaN when there is none.
double ragasContextRecall(std::span<const int> attributed);

enum class RagasVersion {
  Legacy,  // empty generated questions are embedded like the others; all empty -> NaN
  V04,     // empty generated questions are dropped; none left -> 0.0
};

struct GeneratedQuestion {
  std::vector<double> embedding;
  bool noncommittal = false;
  bool empty = false;  // the generated question text was ""
};

// cos(a, b) = a.b / (|a| |b|); NaN when a norm is 0 or the sizes differ.
double cosineSimilarity(std::span<const double> a, std::span<const double> b);

// mean_i cos(emb(question), emb(q_i)) x (0 if every generation is noncommittal, else 1).
// NaN without generations (and, Legacy, when all are empty).
double ragasAnswerRelevancy(std::span<const double> question,
                            std::span<const GeneratedQuestion> generated,
                            RagasVersion version = RagasVersion::Legacy);

}  // namespace ragscope::core::claims
