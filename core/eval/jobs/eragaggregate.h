#pragma once
// eRAG aggregation (Salemi & Zamani, SIGIR 2024, and their reference code;
// core/eval/jobs/README.md, "eRAG"): per-document labels G_q[d] in [0, 1] of each query's ranked
// list become per-query retrieval scores. Pure functions, no I/O.
//
//   std::vector<EragQueryLabels> lists = {{"q1", {1, 0, 1}}, {"q2", {0, 0}}};
//   EragAggregate a = aggregateErag(lists, {"P_5", "success_1", "map"});
//   if (!a.ok()) show(a.error);             // e.g. map on continuous labels
//   a.value("P_5", 0);  a.mean("map");
//
// Rules (exactly the reference's):
// - Binary or continuous is decided once for the whole run: binary when every label of every
//   query is exactly 0 or 1.
// - Binary labels go through the trec_eval-exact retrieval evaluator, one query at a time in
//   effect: the query's qrels are its own labels (document j of the list judged with its label,
//   relevance level 1; only retrieved documents are judged) and the ranking is the list order
//   (document j gets the score n - j, so no ties arise). Documents are identified by their
//   position, as in the reference, so a document listed twice stays two judged entries.
// - Continuous labels: only P_k (sum of the first k labels / k) and success_k (max of the first
//   k labels) are defined; without a cutoff k is the list's length. A list shorter than k is
//   padded with 0 (the reference raises KeyError there). Any other measure is an error naming
//   this rule.
// - A query with an empty list scores 0 on every measure (nothing was retrieved; trec_eval would
//   drop it, the reference would divide by zero).
//
// Measure names: pytrec_eval style ("P_5", "success_1", "ndcg_cut_10", "map", "recip_rank") or
// trec_eval style ("P.5", "ndcg_cut.10"); a bare "P"/"success" means "at the list length" for
// continuous labels and trec_eval's default cutoffs for binary ones (as the reference does).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/measures.h"

namespace ragscope::core::eval {

struct EragQueryLabels {
  std::string qid;
  std::vector<double> labels;  // rank order: labels[0] belongs to the first (best) document
};

// The rule text quoted in errors and help (core/eval/jobs/README.md, "eRAG").
std::string_view continuousLabelRule();

// True when every label is exactly 0 or 1 (an empty run counts as binary).
bool labelsAreBinary(const std::vector<EragQueryLabels>& queries);

// Comma- or blank-separated list of measure names, each read by parseMeasureName
// (core/metrics/measurename.h): "P_5", "ndcg_cut.10", "nDCG@10", "map".
Parsed<std::vector<MeasureRequest>> parseEragMeasures(std::string_view list);

struct EragAggregate {
  bool binary = true;
  std::vector<std::string> qids;            // input order
  std::vector<std::string> measures;        // column names ("P_5", "map", ...), request order
  std::vector<std::vector<double>> values;  // [measure][query]
  std::vector<double> means;                // [measure], plain mean over queries
  std::string error;                        // non-empty: nothing computed

  bool ok() const { return error.empty(); }
  std::optional<std::size_t> measureIndex(std::string_view name) const;
  double value(std::string_view measure, std::size_t query) const;  // NaN when unknown
  double mean(std::string_view measure) const;                      // NaN when unknown
};

// Labels outside [0, 1] (or NaN) are an error, as in the reference.
EragAggregate aggregateErag(const std::vector<EragQueryLabels>& queries,
                            const std::vector<MeasureRequest>& measures);
// Convenience: measures as text ("P_5", "map", ...).
EragAggregate aggregateErag(const std::vector<EragQueryLabels>& queries,
                            const std::vector<std::string>& measures);

// The continuous rules alone (exposed for tests): mean / max of the first k labels, padded.
double continuousPrecision(const std::vector<double>& labels, std::optional<std::size_t> k);
double continuousSuccess(const std::vector<double>& labels, std::optional<std::size_t> k);

}  // namespace ragscope::core::eval
