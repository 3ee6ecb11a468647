#pragma once
// trec_eval-exact retrieval evaluation (core/metrics/README.md, "trec_eval conventions"). One
// evaluator for the CLI, the GUI, eRAG and the statistics code:
//
//   EvalSettings s;                       // official measures, -l 1, no -c, no -M
//   s.measures = parseMeasureArgs({"ndcg_cut.10", "map"}).value;
//   EvalResult r = evaluate(qrels, run, s);
//   double ndcg10 = r.mean("ndcg_cut_10");
//   std::string text = formatTrecEval(r, /*perQuery=*/true);   // diffs against trec_eval -q
//
// Conventions (trec_eval 9.0.x, shown to the user by conventionsText()):
// - each ranking is sorted by score descending, ties by docno descending (strcmp); the rank
//   column and the line order of the file are ignored; -M cuts after sorting;
// - relevant = rel >= relevanceLevel; NDCG ignores the level and uses the graded rel as gain;
//   negative qrels values are "judged but unjudged" (as trec_eval: not relevant, not in bpref);
// - queries are those of the qrels, in qid byte order; run queries without qrels are ignored;
//   qrels queries missing from the run are skipped, or count as 0 with `complete` (-c);
// - means are plain sums in qid order divided by the number of queries; with -c the summary
//   num_rel is trec_eval's: every qrels line with a grade > 0, whatever -l says;
// - rbp follows Moffat & Zobel (p = 0.8 unless rbp.p=... is given), not trec_eval 10's build-
//   dependent value (it reads uninitialised variables).
// A docno retrieved twice for one query (after the depth cut) is an input error; so is a document
// the qrels judge twice for a query that is evaluated (elsewhere, trec_eval and the reader warn).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/metrics/measures.h"

namespace ragscope::core {

struct EvalSettings {
  int relevanceLevel = 1;                // -l
  bool complete = false;                 // -c
  std::optional<std::size_t> maxDepth;   // -M
  std::vector<MeasureRequest> measures;  // -m ...; empty = trec_eval's "official" set
  unsigned threads = 2;                  // per-query work is spread over this many threads
};

struct QueryEval {
  std::string qid;
  std::vector<double> values;  // one per EvalResult::columns entry (runid/num_q columns: 0)
  long numRet = 0;
  long numRel = 0;
  long numRelRet = 0;
  long numJudgedRet = 0;  // retrieved docs with a qrels judgment >= 0
  bool inRun = true;      // false: absent from the run, counted as 0 (complete mode)
  std::string relstring;  // the relstring column's text (trec_eval prints it per query only)
};

struct EvalResult {
  std::string runId;
  std::string runSource;
  std::vector<MeasureColumn> columns;          // trec_eval's output order
  std::vector<QueryEval> queries;              // evaluated queries, qid byte order
  std::vector<double> all;                     // the `all` row, one per column (runid: 0)
  std::size_t numQueries = 0;                  // queries averaged over (num_q)
  std::vector<std::string> skippedQueries;     // qrels queries absent from the run (not -c)
  std::vector<std::string> zeroFilledQueries;  // qrels queries absent from the run (-c)
  std::vector<std::string> ignoredRunQueries;  // run queries without qrels
  std::vector<Diagnostic> diagnostics;         // duplicate docnos, no queries, bad measures
  bool cancelled = false;
  EvalSettings settings;

  bool ok() const;
  std::optional<std::size_t> columnIndex(std::string_view name) const;
  // The `all` value of a measure by printed name ("P_10"); NaN when not computed.
  double mean(std::string_view name) const;
  const QueryEval* query(std::string_view qid) const;
};

EvalResult evaluate(const Qrels& qrels, const Run& run, const EvalSettings& settings,
                    const ProgressFn& progress = {});

// The same evaluation of a TREC run file, read and evaluated in one go (streamTrecRun): each
// ranking is evaluated by the parser thread that read it and then forgotten, so a run of any size
// takes a few chunks of memory. `report` is the file's load report; on load errors (not ok()) the
// result holds no queries. What `ragscope-cli eval` uses; views that show rankings load the Run.
EvalResult evaluateRunFile(const Qrels& qrels, const std::filesystem::path& runPath,
                           const EvalSettings& settings, const LoadOptions& load,
                           LoadReport& report);

// trec_eval's relational output: "%-22s\t%s\t%6.4f" per line (integers "%ld", runid text);
// with perQuery, each query's block (qid order) comes before the `all` block, as `trec_eval -q`.
std::string formatTrecEval(const EvalResult& result, bool perQuery);

// The conventions in force, one sentence per line, for summaries and reports.
std::vector<std::string> conventionsText(const EvalSettings& settings);

// One query's ranking as the evaluator sees it (sorted, depth-cut), with qrels grades, for views.
struct RankedDoc {
  std::size_t rank = 0;  // 1-based
  std::string_view docId;
  double score = 0.0;
  std::uint32_t line = 0;
  std::optional<int> rel;  // qrels grade; nullopt when not judged
};
std::vector<RankedDoc> rankedList(const Ranking& ranking, const std::vector<Judgment>* judgments,
                                  std::optional<std::size_t> maxDepth = {});

// Errors for the evaluated queries (result.queries) that the qrels judge a document twice in
// (Qrels::repeats): trec_eval stops on them (form_res_rels: "duplicate docs"), while a repeat in a
// query it does not evaluate stays the reader's warning. evaluate(), evaluateRunFile() and
// evaluateRunDocLevel() call it.
void addQrelsRepeatErrors(const Qrels& qrels, EvalResult& result);

// trec_eval's ranking order: score descending, then docno descending (strcmp).
bool trecRanksBefore(const RunEntry& a, const RunEntry& b);

// One ranking's entries in trec_eval's order (the file's rank column and line order ignored), cut
// after `maxDepth`: what "top k" means everywhere (views, document level, LLM jobs).
std::vector<const RunEntry*> trecOrder(const Ranking& ranking,
                                       std::optional<std::size_t> maxDepth = {});

}  // namespace ragscope::core
