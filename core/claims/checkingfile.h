#pragma once
// RAGChecker's checking-output layout (core/claims/README.md, "RAGChecker metrics"): read and
// written, so a RAGChecker user can read what ragscope writes and the other way round.
//
//   {"results": [{"query_id", "query", "gt_answer", "response",
//                 "retrieved_context": [{"doc_id", "text"}],
//                 "response_claims": [[s, r, o], ...], "gt_answer_claims": [...],
//                 "answer2response": [label per response claim],
//                 "response2answer": [label per gold claim],
//                 "retrieved2response": [[label per chunk] per response claim],
//                 "retrieved2answer": [[label per chunk] per gold claim],
//                 "metrics": {"precision": 0.72, ...}}, ...],
//    "metrics": {"overall": {...}, "retriever": {...}, "generator": {...}}}
//
//   auto file = readCheckingOutput(path);           // LoadOptions: Stop at the first error
//   if (!file.report.ok() || file.report.hasErrors()) { print file.report.diagnostics; }
//   for (const ClaimExample& ex : file.value) ...
//
// Reading. Sizes come from the claims when present (R = response_claims, G = gt_answer_claims,
// K = retrieved_context), else from the largest label list. Labels are the exact strings
// Entailment / Neutral / Contradiction (RAGChecker's), or Supported / Unsupported / Unparsed /
// Error (ragscope's); null, a missing entry (a list shorter than its claims, a row shorter than
// the chunks), a missing field, or any other string is Unparsed (each reported once per field
// as a warning). Errors, with file, line, `results[i].field[j]` and the query id: a record that
// is not an object, a missing or repeated query_id, a label that is not a string or null, a
// claim that is not a string or a list of strings, a matrix row that is not a list, more labels
// than claims or chunks. Stored per-example metrics are kept in ClaimExample::storedMetrics.
//
// Writing. Labels: Entailment / Neutral / Contradiction as they are; a binary Supported is
// written "Entailment" and Unsupported "Neutral" (RAGChecker counts only "Entailment"); Unparsed
// and Error keep their names, which RAGChecker reads as not entailed, as it reads its own
// Neutral padding. A one-element claim is written as a string, others as lists. With scores,
// each record's "metrics" holds the metrics that have a value (RAGChecker recomputes any that is
// absent) and the top level the printed corpus figures under "overall", "retriever",
// "generator" (the example file's naming; RAGChecker's current code adds "_metrics").

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/claims/claimexample.h"
#include "core/claims/ragchecker.h"
#include "core/data/diagnostic.h"

namespace ragscope::core::claims {

Loaded<std::vector<ClaimExample>> readCheckingOutput(const std::filesystem::path& path,
                                                     const LoadOptions& options = {});

// The file's top-level corpus figures, group -> metric -> value, with "overall_metrics" and
// friends read as "overall", ...; empty when the file has none. Never throws: on a file that
// cannot be read or parsed, returns empty and sets *error.
std::map<std::string, std::map<std::string, double>> readStoredCorpusMetrics(
    const std::filesystem::path& path, std::string* error = nullptr);

// The document above; `scores` (same order as `examples`) adds the metrics, or nullptr for none.
nlohmann::ordered_json checkingOutputJson(std::span<const ClaimExample> examples,
                                          const CorpusScores* scores = nullptr);

// Writes checkingOutputJson atomically (core/export/json.h); false and *error on failure.
bool writeCheckingOutput(const std::filesystem::path& path, std::span<const ClaimExample> examples,
                         const CorpusScores* scores, std::string* error);

}  // namespace ragscope::core::claims
