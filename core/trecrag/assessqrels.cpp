#include "core/trecrag/assessqrels.h"

#include <algorithm>
#include <map>
#include <utility>

#include "core/data/trecid.h"

namespace ragscope::core::trecrag {

std::size_t PairGrades::count(ReplyState s) const {
  return static_cast<std::size_t>(std::count_if(
      replies.begin(), replies.end(), [s](const AssessReply& r) { return r.state == s; }));
}

int lowerMedian(std::vector<int> grades) {
  std::sort(grades.begin(), grades.end());
  return grades[(grades.size() - 1) / 2];
}

void combineReplies(PairGrades& pair) {
  std::vector<int> parsed;
  for (const auto& r : pair.replies)
    if (r.state == ReplyState::Graded && r.grade) parsed.push_back(*r.grade);
  pair.grade.reset();
  pair.spread = 0;
  if (parsed.empty()) return;
  const auto [lo, hi] = std::minmax_element(parsed.begin(), parsed.end());
  pair.spread = *hi - *lo;
  pair.grade = lowerMedian(std::move(parsed));
}

AssessCounts countAssessment(const std::vector<PairGrades>& pairs) {
  AssessCounts c;
  double spreadSum = 0.0;
  for (const auto& p : pairs) {
    ++c.pairs;
    c.replies += p.replies.size();
    c.repliesGraded += p.count(ReplyState::Graded);
    c.repliesUnparsed += p.count(ReplyState::Unparsed);
    c.repliesFailed += p.count(ReplyState::Failed);
    c.repliesPending += p.count(ReplyState::Pending);
    if (!p.grade) {
      ++c.ungraded;
      continue;
    }
    ++c.graded;
    ++c.byGrade[*p.grade];
    if (p.spread > 0) ++c.spreadPairs;
    if (p.count(ReplyState::Graded) >= 2) {
      ++c.multiParsed;
      spreadSum += p.spread;
    }
  }
  if (c.multiParsed > 0) c.meanSpread = spreadSum / static_cast<double>(c.multiParsed);
  return c;
}

namespace {

using Key = std::pair<std::string, std::string>;

std::string line(const Key& k, int grade) {
  return encodeTrecId(k.first) + " 0 " + encodeTrecId(k.second) + " " + std::to_string(grade) +
         "\n";
}

}  // namespace

std::string assessQrelsText(const std::vector<PairGrades>& pairs) {
  std::map<Key, int> rows;
  for (const auto& p : pairs)
    if (p.grade) rows.emplace(Key{p.qid, p.docId}, *p.grade);
  std::string out;
  for (const auto& [k, g] : rows) out += line(k, g);
  return out;
}

MergedQrels mergeAssessQrels(const Qrels& human, const std::vector<PairGrades>& pairs) {
  MergedQrels out;
  std::map<Key, int> rows;
  for (const auto& [qid, judgments] : human.byQuery)
    for (const auto& j : judgments)
      if (rows.emplace(Key{qid, j.docId}, j.rel).second) ++out.fromHuman;
  std::map<Key, int> judge;
  for (const auto& p : pairs)
    if (p.grade) judge.emplace(Key{p.qid, p.docId}, *p.grade);
  for (const auto& [k, g] : judge) {
    const auto it = rows.find(k);
    if (it == rows.end()) {
      rows.emplace(k, g);
      ++out.fromJudge;
    } else if (it->second != g) {
      out.conflicts.push_back({k.first, k.second, it->second, g});
    }
  }
  for (const auto& [k, g] : rows) out.text += line(k, g);
  out.rows = rows.size();
  return out;
}

}  // namespace ragscope::core::trecrag
