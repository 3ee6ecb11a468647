#include "app/cli/assessreport.h"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "core/export/json.h"

namespace ragscope::cli {

using namespace ragscope::core;
using nlohmann::json;

void printAssessResult(const eval::JobResult& result, bool asJson) {
  const eval::AssessReport& r = *result.assess;
  const trecrag::AssessCounts& c = r.counts;
  if (asJson) {
    json j = eval::assessSummaryJson(r);
    for (const auto& s : result.stages)
      if (s.kind == eval::JobKind::Assess)
        j["run"] = {{"path", s.store.string()}, {"status", s.status}, {"items", s.counts.total}};
    j["qrels_out"] = result.qrels.empty() ? json() : json(result.qrels.string());
    if (result.mergedQrels) {
      json conflicts = json::array();
      for (const auto& k : result.mergedQrels->conflicts)
        conflicts.push_back(
            {{"qid", k.qid}, {"doc", k.docId}, {"human", k.human}, {"judge", k.judge}});
      j["merged"] = {{"rows", result.mergedQrels->rows},
                     {"from_human", result.mergedQrels->fromHuman},
                     {"from_judge", result.mergedQrels->fromJudge},
                     {"conflicts", conflicts}};
    }
    if (result.assessLabels)
      j["labels"] = {{"written", result.assessLabels->written},
                     {"skipped", result.assessLabels->skipped},
                     {"scope", result.assessLabelsScope},
                     {"annotator", result.assessAnnotator}};
    exporting::writeJson(std::cout, j, 2);
    return;
  }
  std::cout << "assess:     " << c.graded << " of " << c.pairs << " pairs graded";
  if (c.ungraded > 0) std::cout << ", " << c.ungraded << " without a grade";
  std::cout << "\n";
  std::cout << "replies:    " << c.replies << " (" << c.repliesGraded << " graded, "
            << c.repliesUnparsed << " unparsed, " << c.repliesFailed << " failed, "
            << c.repliesPending << " not answered yet)";
  if (r.heuristicReplies > 0) std::cout << "; offline heuristic";
  std::cout << "\n";
  std::cout << "grades:     0: " << c.byGrade[0] << ", 1: " << c.byGrade[1]
            << ", 2: " << c.byGrade[2] << ", 3: " << c.byGrade[3] << "\n";
  if (r.repeats > 1) {
    std::ostringstream mean;
    mean << std::fixed << std::setprecision(3) << c.meanSpread;
    std::cout << "repeats:    " << r.repeats << " per pair (lower median); " << c.spreadPairs
              << " pairs disagree, mean spread " << mean.str() << " over " << c.multiParsed
              << " pairs with two or more grades\n";
  }
  for (const auto& e : r.unparsedExamples) std::cout << "unparsed:   " << e << "\n";
  std::size_t judged = 0, same = 0;
  for (const auto& p : r.pairs)
    if (p.judged && p.grade) {
      ++judged;
      if (*p.judged == *p.grade) ++same;
    }
  if (judged > 0)
    std::cout << "regraded:   " << judged << " judged pairs graded again, " << same
              << " with the qrels' grade (qrels-agreement gives kappa)\n";
  if (!result.qrels.empty()) {
    std::cout << "qrels:      " << result.qrels.string();
    if (result.mergedQrels) {
      const auto& m = *result.mergedQrels;
      std::cout << " (merged, the people's grades win: " << m.fromHuman << " from their qrels, "
                << m.fromJudge << " added by the judge; " << m.conflicts.size() << " conflicts)";
      for (const auto& k : m.conflicts)
        std::cerr << "conflict: query " << k.qid << ", document " << k.docId << ": qrels grade "
                  << k.human << ", judge graded " << k.judge << " (the qrels' written)\n";
    }
    std::cout << "\n";
  } else if (!r.complete()) {
    std::cout << "qrels:      not written: " << c.repliesPending
              << " replies are still to come (ragscope-cli resume RUN.db --out FILE)\n";
  }
  if (result.assessLabels)
    std::cout << "labels:     " << result.assessLabels->written << " relevance labels of \""
              << result.assessAnnotator << "\" on \"" << result.assessLabelsScope << "\" added to "
              << result.assessLabelsPath.string()
              << (result.assessLabels->skipped > 0
                      ? " (" + std::to_string(result.assessLabels->skipped) +
                            " pairs whose ids a label cannot hold left out)"
                      : std::string())
              << "\n";
}

}  // namespace ragscope::cli
