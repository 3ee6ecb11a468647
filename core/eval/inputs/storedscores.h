#pragma once
// Per-query values of an eRAG or end-to-end run store (core/eval/inputs/README.md), for the
// statistics commands (`ragscope-cli bootstrap / compare / correlate`) that otherwise read
// `trec_eval -q` files. Values are recomputed from the store's outputs exactly as `ragscope-cli
// erag/e2e --json` print them (complete queries only, keyed by qid):
//  - an eRAG store holds its run's measures, named as printed ("P_5", "success_5", "map");
//  - an end-to-end store holds one measure named by its downstream metric ("rouge-l", "f1", ...);
//  - a judging store holds its metrics ("faithfulness", "ragchecker.precision", ...), each over
//    the queries that have a value in the run's mode.
//
//   if (store::RunStore::hasSqliteHeader(path)) {
//     StoredScores s = readStoredScores(path);
//     if (!s.ok()) ... s.error ...;   const stats::QueryValues& p5 = s.table.at("P_5");
//   }

#include <filesystem>
#include <string>

#include "core/stats/queryvalues.h"

namespace ragscope::core::eval {

struct StoredScores {
  std::string kind;           // "erag", "e2e" or "judge"
  stats::MeasureTable table;  // measure -> qid -> value
  std::string error;          // non-empty: nothing read (not a run store, other job kind, ...)
  bool ok() const { return error.empty(); }
};

StoredScores readStoredScores(const std::filesystem::path& path);

struct JudgeReport;
// A judging report's metrics as per-query values: the queries with a value in the run's mode.
stats::MeasureTable judgeMeasureTable(const JudgeReport& report);

}  // namespace ragscope::core::eval
