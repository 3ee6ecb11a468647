#include "core/claims/ragas.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/claims/numpycompat.h"
#include "core/util/nan.h"

namespace ragscope::core::claims {

namespace {}  // namespace

double ragasContextPrecision(std::span<const int> verdicts) {
  // Python: sum([(sum(v[:i+1]) / (i+1)) * v[i] for i ...]) / (sum(v) + 1e-10); integer prefix
  // sums, float terms added left to right from 0.
  double numerator = 0.0;
  long long prefix = 0, relevant = 0;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const int v = verdicts[i] != 0 ? 1 : 0;
    prefix += v;
    relevant += v;
    numerator += (static_cast<double>(prefix) / static_cast<double>(i + 1)) * v;
  }
  const double denominator = static_cast<double>(relevant) + kRagasEpsilon;
  return numerator / denominator;
}

std::optional<double> ragasContextPrecision(std::span<const Label> verdicts) {
  std::vector<int> v;
  v.reserve(verdicts.size());
  for (Label l : verdicts) {
    if (!isResolved(l)) return std::nullopt;
    v.push_back(isSupported(l) ? 1 : 0);
  }
  return ragasContextPrecision(v);
}

double ragasFaithfulness(std::size_t statements, std::span<const int> verdicts) {
  if (statements == 0 || verdicts.empty()) return kNaN;
  const auto truthy = std::count_if(verdicts.begin(), verdicts.end(), [](int v) { return v != 0; });
  return static_cast<double>(truthy) / static_cast<double>(verdicts.size());
}

double ragasContextRecall(std::span<const int> attributed) {
  if (attributed.empty()) return kNaN;
  const auto yes =
      std::count_if(attributed.begin(), attributed.end(), [](int v) { return v != 0; });
  return static_cast<double>(yes) / static_cast<double>(attributed.size());
}

double cosineSimilarity(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size() || a.empty()) return kNaN;
  double dot = 0.0, na = 0.0, nb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  const double norm = std::sqrt(nb) * std::sqrt(na);
  if (norm == 0.0) return kNaN;
  return dot / norm;
}

double ragasAnswerRelevancy(std::span<const double> question,
                            std::span<const GeneratedQuestion> generated, RagasVersion version) {
  if (generated.empty()) return kNaN;
  const bool allNoncommittal =
      std::all_of(generated.begin(), generated.end(),
                  [](const GeneratedQuestion& g) { return g.noncommittal; });
  std::vector<double> cosines;
  for (const auto& g : generated) {
    if (version == RagasVersion::V04 && g.empty) continue;
    cosines.push_back(cosineSimilarity(question, g.embedding));
  }
  const bool allEmpty = std::all_of(generated.begin(), generated.end(),
                                    [](const GeneratedQuestion& g) { return g.empty; });
  if (version == RagasVersion::Legacy && allEmpty) return kNaN;
  if (cosines.empty()) return 0.0;  // V04: every question was empty
  return numpyMean(cosines) * (allNoncommittal ? 0.0 : 1.0);
}

}  // namespace ragscope::core::claims
