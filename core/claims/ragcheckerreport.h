#pragma once
// What `ragscope-cli ragchecker` shows (and a later view can reuse): RAGChecker's metrics of a
// checking-output file recomputed from its labels, as JSON or as a text table.
//
// JSON (metric names namespaced `ragchecker.*`, except under "metrics", which mirrors the figures
// RAGChecker prints: percent, one decimal, grouped under overall / retriever / generator):
//   {"mode": "ragchecker", "n": 2,
//    "per_example": {"0": {"ragchecker.precision": 0.7272727272727273, ...}, ...},
//    "metrics": {"overall": {"precision": 76.4, "recall": 62.5, "f1": 68.3}, ...},
//    "mean": {"ragchecker.precision": 0.7636363636363637, ...},          // full precision
//    "labels": {"total", "entailment", "neutral", "contradiction", "supported", "unsupported",
//               "unparsed", "error"},
//    "stored_check": {"compared": 22, "equal": 22, "differ": [...]}}   // vs the file's metrics
// ragscope mode adds, per metric, "n_total" (examples), "n_scored" and "states" {"scored",
// "unparsed", "error", "empty"} (examples), "items" {"total", "scored", "unparsed", "error"},
// and "per_example_states" for the examples whose metric is not fully scored; values without a
// score are null, never 0.

#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "core/claims/claimexample.h"
#include "core/claims/ragchecker.h"

namespace ragscope::core::claims {

using StoredCorpusMetrics = std::map<std::string, std::map<std::string, double>>;

// Compares the file's stored per-example metrics with the recomputed ones (bit for bit).
struct StoredCheck {
  std::size_t compared = 0;
  std::size_t equal = 0;
  struct Difference {
    std::string queryId;
    std::string metric;
    double stored = 0.0;
    double recomputed = 0.0;
  };
  std::vector<Difference> differences;  // all of them (the JSON lists the first 20)
};
StoredCheck checkStoredMetrics(std::span<const ClaimExample> examples, const CorpusScores& scores);

nlohmann::ordered_json ragcheckerReportJson(std::span<const ClaimExample> examples,
                                            const CorpusScores& scores);

// A corpus table (group, metric, RAGChecker's figure, full-precision mean, and in ragscope mode
// scored/total with the states), the stored-figure check, then one row per example.
// `storedCorpus` (readStoredCorpusMetrics) adds a "stored" column when not empty.
std::string formatRagCheckerReport(std::span<const ClaimExample> examples,
                                   const CorpusScores& scores,
                                   const StoredCorpusMetrics& storedCorpus = {});

}  // namespace ragscope::core::claims
