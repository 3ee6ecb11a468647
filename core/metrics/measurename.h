#pragma once
// One measure name as a user writes it, in any of the three spellings ragscope meets, turned into
// the request the evaluator takes and the column names trec_eval prints (see
// core/metrics/README.md):
//
//   printed by `trec_eval -q`   ndcg_cut_10, P_5, iprec_at_recall_0.50, map
//   requested with `-m`         ndcg_cut.10, P.5, iprec_at_recall.0.50, map
//   ir_measures                 nDCG@10,     P@5, IPrec@0.5,            AP
//
//   auto name = parseMeasureName("ndcg_cut_10");
//   name.value.request     // {ndcg_cut, "10"}: for EvalSettings::measures
//   name.value.requested   // "ndcg_cut.10"
//   name.value.column()    // "ndcg_cut_10": the key of per-query files and run stores
//
// The name is checked as `-m` is (parseMeasureArgs, resolveMeasures): one name, one measure; the
// nicknames official, all_trec and set are not measure names.

#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/measures.h"

namespace ragscope::core {

struct MeasureName {
  MeasureRequest request;            // what resolveMeasures and EvalSettings::measures take
  std::string requested;             // as `-m` takes it; ir_measures names stay as written
  std::vector<std::string> printed;  // the columns it yields, as trec_eval prints them
  // The column name when the measure yields exactly one column ("ndcg_cut_10"); "" when it yields
  // several ("P" without a cutoff: P_5 ... P_1000).
  std::string column() const { return printed.size() == 1 ? printed.front() : std::string(); }
};

// Errors name the text as given: unknown names, trec_eval measures ragscope does not implement,
// ir_measures names trec_eval cannot express, and bad parameters.
Parsed<MeasureName> parseMeasureName(std::string_view text);

}  // namespace ragscope::core
