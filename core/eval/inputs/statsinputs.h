#pragma once
// The inputs of the statistics commands (`ragscope-cli bootstrap / compare / correlate`): per-query
// values by measure from `trec_eval -q` outputs, eRAG / end-to-end / judging run stores, or TREC
// runs evaluated in-process against qrels. Each input is loaded once; values are then handed out
// by measure name in any spelling parseMeasureName takes (ndcg_cut_10, ndcg_cut.10, nDCG@10), or
// by a run store's own metric name (rouge-l, faithfulness). See core/stats/README.md.
//
//   StatsInputs inputs;
//   StatsInputRequest request{{"bm25.q.txt", "splade.q.txt"}, {"ndcg_cut.10"}};
//   if (!inputs.load(request)) ... inputs.messages() say why ...;
//   const stats::QueryValues* a = inputs.values(0, "ndcg_cut.10", &error);

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/data/model.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/stats/queryvalues.h"

namespace ragscope::core::eval {

struct StatsInputRequest {
  std::vector<std::string> files;     // per-query files, run stores, or TREC runs (with qrels)
  std::vector<std::string> measures;  // the measures asked for (evaluated when qrels are given)
  std::string measureY;               // correlate's second measure, also evaluated
  std::optional<std::string> qrels;   // given: files that are not run stores are TREC runs
  unsigned threads = 0;               // evaluation threads; 0: 2
};

class StatsInputs {
 public:
  // Loads every input; false when one could not be read. Either way messages() holds what the
  // readers reported (diagnostics as "file:line: field: problem", warnings marked), in order.
  bool load(const StatsInputRequest& request);
  const std::vector<std::string>& messages() const { return m_messages; }

  // The measure to use when none was named: the only one the first input holds.
  std::optional<std::string> soleMeasure() const;

  // Input `input`'s per-query values of `measure`; nullptr with `error` ("FILE: no per-query
  // values for measure 'M' (have: ...)") when it holds none.
  const stats::QueryValues* values(std::size_t input, const std::string& measure,
                                   std::string* error) const;

 private:
  bool anyStore() const;
  bool prepareEvaluation();
  std::optional<stats::MeasureTable> loadPerQuery(const std::string& file);
  std::optional<stats::MeasureTable> loadStore(const std::string& file);
  std::optional<stats::MeasureTable> evaluateRun(const std::string& file);
  void report(const LoadReport& report);

  StatsInputRequest m_request;
  Qrels m_qrels;
  EvalSettings m_settings;
  std::vector<stats::MeasureTable> m_tables;
  std::vector<std::string> m_messages;
};

// A measure as the statistics commands print it: its trec_eval column name when it names one
// retrieval measure ("ndcg_cut.10" -> "ndcg_cut_10"), otherwise as written ("rouge-l").
std::string statsMeasureLabel(const std::string& measure);

}  // namespace ragscope::core::eval
