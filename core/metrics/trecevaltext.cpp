// trec_eval's text for an evaluation (see core/metrics/README.md): the relational lines of
// `trec_eval [-q]`, byte for byte, and the conventions in force as sentences for reports.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core {

namespace {

// printf("%-22s\t%s\t%6.4f\n") without a fixed buffer: qids can be long.
void printTrecLine(std::string& out, const std::string& name, const std::string& qid,
                   const MeasureColumn& c, double value) {
  out += name;
  if (name.size() < 22) out.append(22 - name.size(), ' ');
  out += '\t';
  out += qid;
  out += '\t';
  char buf[64];
  const int n = c.integer ? std::snprintf(buf, sizeof buf, "%ld\n", static_cast<long>(value))
                          : std::snprintf(buf, sizeof buf, "%6.4f\n", value);
  if (n > 0 && n < static_cast<int>(sizeof buf)) {
    out.append(buf, static_cast<std::size_t>(n));
  } else {  // astronomically large values: let the string grow
    std::vector<char> big(static_cast<std::size_t>(std::max(n, 0)) + 1);
    std::snprintf(big.data(), big.size(), "%6.4f\n", value);
    out += big.data();
  }
}

}  // namespace

std::string formatTrecEval(const EvalResult& result, bool perQuery) {
  std::string out;
  out.reserve(64 * result.columns.size() * (perQuery ? result.queries.size() + 1 : 1));
  if (perQuery) {
    for (const auto& q : result.queries)
      for (std::size_t ci = 0; ci < result.columns.size(); ++ci) {
        const auto& c = result.columns[ci];
        if (!c.perQuery) continue;
        if (c.kind == MeasureKind::Relstring) {
          std::string name = c.name;
          if (name.size() < 22) name.append(22 - name.size(), ' ');
          out += name + "\t" + q.qid + "\t'" + q.relstring + "'\n";
          continue;
        }
        printTrecLine(out, c.name, q.qid, c, q.values[ci]);
      }
  }
  for (std::size_t ci = 0; ci < result.columns.size(); ++ci) {
    const auto& c = result.columns[ci];
    if (c.aggregate == Aggregate::None) continue;
    if (c.aggregate == Aggregate::Text) {
      std::string name = c.name;
      if (name.size() < 22) name.append(22 - name.size(), ' ');
      out += name + "\tall\t" + result.runId + "\n";
      continue;
    }
    printTrecLine(out, c.name, "all", c, result.all[ci]);
  }
  return out;
}

std::vector<std::string> conventionsText(const EvalSettings& settings) {
  std::vector<std::string> out;
  out.push_back(
      "Rankings sorted by score descending, ties by docno descending (trec_eval); the file's rank "
      "column is ignored.");
  out.push_back("Relevant means qrels grade >= " + std::to_string(settings.relevanceLevel) +
                "; NDCG uses the graded relevance as gain (linear) and ignores this level.");
  if (settings.maxDepth)
    out.push_back("Rankings cut at depth " + std::to_string(*settings.maxDepth) +
                  " after sorting.");
  out.push_back(settings.complete ? "Qrels queries absent from the run count as 0 (trec_eval -c); "
                                    "means divide by all qrels queries."
                                  : "Qrels queries absent from the run are skipped (trec_eval 9 "
                                    "default); run queries without qrels are ignored.");
  out.push_back("Means are plain sums in query-id byte order divided by the number of queries.");
  if (settings.complete)
    out.push_back(
        "The summary num_rel counts every qrels line graded > 0 over all topics, whatever the "
        "relevance level (trec_eval -c).");
  out.push_back(
      "rbp is Moffat & Zobel's rank-biased precision with persistence p = 0.8 unless rbp.p=... is "
      "given; "
      "trec_eval 10's own rbp reads uninitialised variables, and its test outputs equal this "
      "definition at p = 0.9.");
  return out;
}

}  // namespace ragscope::core
