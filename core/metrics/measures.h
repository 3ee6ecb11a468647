#pragma once
// The retrieval measures ragscope computes, named and parameterised exactly as trec_eval does
// (core/metrics/README.md, "Measure names"): `-m map`, `-m P.5,10`, `-m ndcg_cut.10`,
// `-m success.1,5`, `-m all_trec`, and with no `-m` trec_eval's "official" set. Output order is
// trec_eval's measure table order, whatever order the measures were asked in.
//
//   auto requests = parseMeasureArgs({"P.5,10", "map"});   // -> P_5, P_10, map
//   auto columns = resolveMeasures(requests.value);          // map before P, as trec_eval prints

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

// In trec_eval's table order (measures.c); the output follows this order.
enum class MeasureKind {
  Runid,
  NumQ,
  NumRet,
  NumRel,
  NumRelRet,
  Map,
  GmMap,
  Rprec,
  Bpref,
  RecipRank,
  IprecAtRecall,
  P,
  Relstring,
  Recall,
  InfAP,
  GmBpref,
  RprecMult,
  Utility,
  ElevenPtAvg,
  BinG,
  G,
  Ndcg,
  NdcgRel,
  Rndcg,
  NdcgCut,
  MapCut,
  RelativeP,
  Success,
  SetP,
  SetRelativeP,
  SetRecall,
  SetMap,
  SetF,
  NumNonrelJudgedRet,
  Rbp,
  RbpResid,
  Unj,
  // Not trec_eval measures: ir_measures names trec_eval has no column for (RR@10, Judged@10).
  RecipRankCut,
  Judged,
};

template <class T>
struct Parsed {
  T value{};
  std::string error;  // empty when ok
  bool ok() const { return error.empty(); }
};

// One `-m` argument: a measure (or nickname) and its optional parameter text after the '.'.
struct MeasureRequest {
  std::string name;                   // "P", "ndcg_cut", "all_trec", "official"
  std::optional<std::string> params;  // "5,10" for "P.5,10"
  // Set when asked by an ir_measures name ("P(rel=2)@10"): the text as given, and the relevance
  // level that overrides -l for this measure.
  std::string alias;
  std::optional<int> relevanceLevel;
};

// An ir_measures name ("nDCG@10", "P(rel=2)@10", "AP", "RR@10") as a request; nullopt when `text`
// is not ir_measures syntax; an error when it is, but trec_eval cannot express it.
std::optional<Parsed<MeasureRequest>> parseIrMeasure(std::string_view text);

// How a column's per-query values become the `all` value. None: printed per query only
// (relstring, as trec_eval does).
enum class Aggregate { Mean, Sum, GeometricMean, Count, Text, None };

struct MeasureColumn {
  std::string name;  // as printed: "P_5", "ndcg_cut_10", "map"
  MeasureKind kind;
  double param = 0.0;  // cutoff (P, recall, ...), recall level (iprec), multiplier (Rprec_mult)
  std::vector<double> paramList;  // 11pt_avg's recall points, set_F's beta, ndcg's level,gain pairs
  bool integer = false;           // printed with %ld (num_ret, ...)
  bool perQuery = true;           // printed in -q blocks (not runid, num_q, gm_map, gm_bpref)
  Aggregate aggregate = Aggregate::Mean;
  std::optional<int> relevanceLevel;  // overrides -l for this column (ir_measures "P(rel=2)@10")
  std::string alias;                  // the ir_measures name it was asked by, if any

  // A number per query (not runid's or relstring's text): what tables, statistics and exports use.
  bool numeric() const { return kind != MeasureKind::Runid && kind != MeasureKind::Relstring; }
};

// "P.5,10" -> {P, "5,10"}; several strings, one per -m argument.
Parsed<std::vector<MeasureRequest>> parseMeasureArgs(const std::vector<std::string>& args);

// Expands nicknames (official, all_trec, set), applies parameters (the first parameters given for
// a measure win, as in trec_eval), and returns the columns in trec_eval's output order. An empty
// request list means "official". ir_measures names (nDCG@10, P@5, AP, RR@10, P(rel=2)@10, ...) are
// accepted too: see irMeasuresAliasText(). Measures trec_eval has but ragscope does not implement
// (yaap, ndcg_p, ...) and ir_measures measures trec_eval cannot express are errors naming them.
Parsed<std::vector<MeasureColumn>> resolveMeasures(const std::vector<MeasureRequest>& requests);

// Known trec_eval measure names (implemented or not): lets tests and the CLI say "not implemented"
// instead of "unknown".
bool isTrecEvalMeasure(std::string_view name);
bool isImplementedMeasure(std::string_view name);

// The ir_measures names ragscope accepts, one line each with its trec_eval equivalent, for --help.
std::vector<std::string> irMeasuresAliasText();
// rbp's persistence when no p= is given (Moffat & Zobel's published definition; see measures.cpp).
constexpr double kDefaultRbpPersistence = 0.8;

}  // namespace ragscope::core
