#pragma once
// Correlation of retrieval evaluation methods with end-to-end RAG quality, as in the eRAG paper's
// Table 1 (core/eval/jobs/README.md, "End-to-end and correlation"): for each evaluation method and
// measure, Kendall's tau-b and Spearman's rho between the method's per-query scores and the
// end-to-end per-query scores of the same system (queries paired by id); with several systems also
// over the systems' means.
//
//   EragReport erag = computeEragReport(eragStore, measures, {});
//   E2eReport e2e = computeE2eReport(e2eStore, {});
//   CorrelationAnalysis a = analyseCorrelation({{"bm25", &erag, &e2e}}, {.measures = measures});
//   std::cout << formatCorrelationAnalysis(a);
//
// Methods, side by side (each aggregated with the same measures):
//  - "qrels": relevance judgments (a qrels file) through the retrieval evaluator over the
//    retrieved lists (trec_eval conventions: only queries with judgments count);
//  - "provenance (document)": the gold outputs' provenance documents as judgments, with chunk ids
//    ("file#page#n") counted as their document and only a document's first chunk counting (for
//    chunked corpora such as Docugami's, whose gold is a list of source PDFs);
//  - "contains-answer": a document is relevant when its text contains a gold answer (the paper's
//    "Answers" baseline), binary labels through the evaluator;
//  - "eRAG (<metric>)": the eRAG labels, aggregated by eragaggregate.h (with continuous labels
//    only P and success exist; other measures are listed with the rule as their note).
// A coefficient is undefined (NaN, shown as "-") when a side is constant, e.g. contains-answer
// labels that are all 0 for long gold answers.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/data/model.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragjob.h"
#include "core/stats/correlation.h"

namespace ragscope::core::eval {

struct SystemInput {
  std::string name;
  const EragReport* erag = nullptr;  // must be ok()
  const E2eReport* e2e = nullptr;    // must be ok()
};

struct CorrelationAnalysisOptions {
  std::vector<MeasureRequest> measures;  // empty: those of the eRAG report
  const Qrels* qrels = nullptr;          // the "qrels" method; null = not shown
  bool provenance = true;                // the "provenance (document)" method when gold docs exist
  stats::CorrelationOptions stats;       // bootstrap resamples for the CIs (0 = none)
};

// One method's per-query scores for one measure.
struct MethodScores {
  std::string method;   // "qrels", "provenance (document)", "contains-answer", "eRAG (rouge-l)"
  std::string measure;  // "P_5", ...
  std::map<std::string, double> perQuery;
  std::string note;  // why there are no scores (refused measure, no judgments)
};

// Every method's scores for one system's eRAG report.
std::vector<MethodScores> evaluationMethods(const EragReport& erag,
                                            const std::vector<MeasureRequest>& measures,
                                            const Qrels* qrels, bool provenance);

struct CorrelationRow {
  std::string method;
  std::string measure;
  std::size_t n = 0;        // pairs correlated (queries or systems)
  double methodMean = 0.0;  // mean of the method's values over the paired items
  double targetMean = 0.0;  // mean end-to-end score over the same items
  stats::CorrelationResult result;
  std::string note;
};

struct CorrelationTable {
  std::string title;        // "system bm25, per query" or "over 3 systems' means"
  std::string target;       // "end-to-end rouge-l"
  std::size_t queries = 0;  // queries with an end-to-end score
  double targetMean = 0.0;  // their mean end-to-end score (per system: the mean of the means)
  std::vector<CorrelationRow> rows;
};

struct CorrelationAnalysis {
  std::vector<CorrelationTable> tables;  // one per system, then the per-system table (>= 2 systems)
  std::string error;
  bool ok() const { return error.empty(); }
};

CorrelationAnalysis analyseCorrelation(const std::vector<SystemInput>& systems,
                                       const CorrelationAnalysisOptions& options);

// Plain-text tables like the paper's Table 1 (tau, rho, n, means, CIs).
std::string formatCorrelationAnalysis(const CorrelationAnalysis& analysis);
nlohmann::json correlationAnalysisJson(const CorrelationAnalysis& analysis);

}  // namespace ragscope::core::eval
