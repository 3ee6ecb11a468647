#pragma once
// KILT's own evaluation of a predictions file against a KILT task file, the way the KILT
// leaderboard scores it (kilt/eval_downstream.py + kilt/eval_retrieval.py;
// core/eval/kilt/README.md, "KILT evaluation"). The one place `ragscope-cli kilt-eval`, the
// workbench's KILT view and the reports compute KILT's three groups:
//   downstream  accuracy, em, f1, rougel
//   retrieval   Rprec, precision@k, recall@k, success_rate@k for each k (over --rank-keys)
//   kilt        KILT-accuracy, KILT-em, KILT-f1, KILT-rougel (downstream counted only where the
//               wikipedia_id R-precision is 1, whatever the rank keys of the retrieval group,
//               as KILT's eval_downstream gates them)
// with each item's values and, on request, a bootstrap CI of each mean.
//
//   KiltEvalOptions o;  o.ks = {1, 5};  o.resamples = 1000;
//   auto loaded = evaluateKiltFiles("hotpotqa-dev-kilt.jsonl", "guess.jsonl", o);
//   if (!loaded.report.ok()) ... loaded.report.diagnostics say why (file:line: field: problem)
//   for (const auto& m : loaded.value.metrics) ... m.group, m.name, m.mean, m.ci
//
// KILT's rules kept: guesses are matched to gold by str(id).strip() (1 and "1" are one id); a
// guess must have exactly one output; gold and guess ids must be unique; guess ids that are not in
// gold are ignored (a warning names them). A gold id without a guess is an error in KILT
// (ValueError); here it is scored as an empty guess (0 everywhere, counted in n) and named in a
// warning, unless `strictIds` asks for KILT's error.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/data/diagnostic.h"

namespace ragscope::core::eval {

struct KiltEvalOptions {
  std::vector<int> ks{1, 5};                          // positive, as given (sorted on use)
  std::vector<std::string> rankKeys{"wikipedia_id"};  // provenance keys joined by "+"
  bool strictIds = false;     // a gold id without a guess is an error, as in KILT
  std::size_t resamples = 0;  // bootstrap B for each mean's CI; 0 = no CIs
  std::uint64_t seed = 42;
  double level = 0.95;
  unsigned threads = 0;
  const std::atomic<bool>* cancel = nullptr;
  LoadOptions load;  // how the two files are read (Skip/Stop, progress)
};

// One provenance entry as the view shows it (ids as KILT's str() gives them).
struct KiltPageRef {
  std::string wikipediaId;
  std::string title;
  std::string section;
  int startParagraph = -1, endParagraph = -1;  // -1: not given
};

struct KiltEvalItem {
  std::string id;
  std::string input;                     // the gold record's question / claim / dialogue
  std::vector<std::string> goldAnswers;  // KILT's candidates (distinct, stripped, non-empty)
  std::vector<std::vector<KiltPageRef>> goldProvenance;  // one evidence set per gold output
  bool hasGuess = false;                                 // false: missing from the guess file
  std::string guessAnswer;                               // str(output[0].answer).strip()
  std::vector<KiltPageRef> guessProvenance;              // the guess's ranking, file order
  std::vector<double> values;                            // aligned with KiltEvaluation::metrics
  std::uint64_t guessLine = 0;                           // first line of the guess record (0: none)
};

struct KiltMetricSummary {
  std::string group;  // "downstream", "retrieval" or "kilt"
  std::string name;   // as KILT names it: "em", "recall@5", "KILT-f1"
  double mean = 0.0;
  std::optional<double> ciLow, ciHigh;  // with resamples > 0
};

struct KiltEvaluation {
  std::string goldPath, guessPath;
  std::vector<int> ks;
  std::vector<std::string> rankKeys;
  std::vector<KiltMetricSummary> metrics;  // downstream, then retrieval, then kilt
  std::vector<KiltEvalItem> items;         // gold order
  std::vector<std::string> missingIds;     // gold ids without a guess
  std::vector<std::string> extraIds;       // guess ids not in gold (ignored)
  std::size_t emptyAnswers = 0;            // guesses with no or an empty answer (score 0)
  std::size_t resamples = 0;
  double level = 0.95;

  std::size_t n() const { return items.size(); }
  // Index of a metric by name, or -1.
  int metricIndex(std::string_view name) const;
};

// The metric names of the three groups for these ks, in output order.
std::vector<KiltMetricSummary> kiltMetricLayout(const std::vector<int>& ks);

// Parses "1,5,10" (positive integers, no duplicates kept) and "wikipedia_id,section"; "" on
// success, else the problem.
std::string parseKiltKs(const std::string& text, std::vector<int>& out);
std::string parseKiltRankKeys(const std::string& text, std::vector<std::string>& out);

// Scores records already read (gold and guess in any order; guess lines for messages may be
// empty). Problems (duplicate ids, a guess without exactly one output, missing ids) go to
// `report` naming `guessPath`; report.stopped when the evaluation cannot be made.
KiltEvaluation evaluateKiltRecords(const std::vector<nlohmann::json>& gold,
                                   const std::vector<nlohmann::json>& guess,
                                   const std::vector<std::uint64_t>& guessLines,
                                   const KiltEvalOptions& options, LoadReport& report,
                                   const std::string& goldPath = "gold",
                                   const std::string& guessPath = "guess");

// Reads GOLD (a KILT task file) and GUESS (JSON lines, or pretty-printed JSON objects one after
// another as KILT's guess3_1.json) and scores them.
Loaded<KiltEvaluation> evaluateKiltFiles(const std::filesystem::path& goldPath,
                                         const std::filesystem::path& guessPath,
                                         const KiltEvalOptions& options = {});

// Reads a KILT predictions file (either layout) into records with their first lines. Records
// that are not objects, or lack an "id", are errors (file:line: field: problem).
LoadReport readKiltPredictions(const std::filesystem::path& path, const LoadOptions& options,
                               std::vector<nlohmann::json>& records,
                               std::vector<std::uint64_t>& lines);

// The summary as one JSON object: {"downstream": {...}, "retrieval": {...}, "kilt": {...}, "n",
// "settings": {"ks", "rank_keys"}} plus "ci": {group: {metric: [low, high]}} and "resamples"
// when CIs were computed, "missing_ids" / "extra_ids" when there are any, and with `perItem`
// "per_item": {id: {metric: value}}.
nlohmann::ordered_json kiltEvaluationJson(const KiltEvaluation& e, bool perItem = false);

// Per-item rows in trec_eval -q layout ("metric\tid\tvalue"), then the means as "metric\tall\t
// value": what `ragscope-cli bootstrap / compare / correlate` read (core/stats/perqueryfile.h).
std::string kiltPerItemText(const KiltEvaluation& e);

// KILT's groups as text: a header, then each group with its metrics (and CIs).
std::string kiltEvaluationText(const KiltEvaluation& e);

}  // namespace ragscope::core::eval
