#include "core/trecrag/qrelsagreement.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/stats/kappa.h"

namespace ragscope::core::trecrag {

namespace {

// The judgments of the queries in `qids` only, every other field as in `qrels`.
Qrels restrictedTo(const Qrels& qrels, const std::vector<std::string>& qids) {
  Qrels out;
  out.source = qrels.source;
  for (const auto& qid : qids)
    if (auto it = qrels.byQuery.find(qid); it != qrels.byQuery.end()) out.byQuery.emplace(*it);
  return out;
}

// 1 = the highest value; tied values share the mean of the ranks they span.
std::vector<double> ranksHighestFirst(const std::vector<double>& values) {
  std::vector<double> negated(values.size());
  std::transform(values.begin(), values.end(), negated.begin(), [](double v) { return -v; });
  return stats::averageRanks(negated);
}

}  // namespace

std::vector<Diagnostic> gradeScaleProblems(const Qrels& qrels, std::size_t max,
                                           std::size_t* total) {
  std::vector<Diagnostic> out;
  std::size_t count = 0;
  auto add = [&](Diagnostic d) {
    if (out.size() < max) out.push_back(std::move(d));
    ++count;
  };
  for (const auto& [qid, judgments] : qrels.byQuery)
    for (const Judgment& j : judgments)
      if (j.rel < 0 || j.rel > kTopGrade)
        add({Severity::Error, qrels.source, j.line, "rel",
             "grade " + std::to_string(j.rel) + " of '" + j.docId + "' for query '" + qid +
                 "' is outside the scale 0..3 the agreement compares (refused, not clamped)"});
  for (const auto& r : qrels.repeats)
    add({Severity::Error, r.file.empty() ? qrels.source : r.file, r.line, "docno",
         "'" + r.docId + "' judged twice for query '" + r.qid + "' (lines " +
             std::to_string(r.firstLine) + " and " + std::to_string(r.line) +
             "): which grade to compare would be a guess"});
  if (total) *total = count;
  return out;
}

GradeAgreement compareGrades(const Qrels& a, const Qrels& b, int level) {
  GradeAgreement g;
  g.level = level;
  std::vector<double> gradesA, gradesB, relA, relB;
  for (const auto& [qid, judgmentsA] : a.byQuery) {
    const auto itB = b.byQuery.find(qid);
    if (itB == b.byQuery.end()) {
      ++g.queriesOnlyA;
      g.onlyA += judgmentsA.size();
      continue;
    }
    ++g.queriesShared;
    std::unordered_map<std::string_view, int> gradeInB;
    gradeInB.reserve(itB->second.size());
    for (const Judgment& j : itB->second) gradeInB.emplace(j.docId, j.rel);
    std::size_t matched = 0;
    for (const Judgment& j : judgmentsA) {
      const auto found = gradeInB.find(j.docId);
      if (found == gradeInB.end()) {
        ++g.onlyA;
        continue;
      }
      ++matched;
      const int ga = j.rel, gb = found->second;
      if (ga < 0 || ga > kTopGrade || gb < 0 || gb > kTopGrade) {
        ++g.offScale;  // the caller skipped gradeScaleProblems(): never an index off the matrix
        continue;
      }
      ++g.grades[std::size_t(ga)][std::size_t(gb)];
      ++g.binary[ga >= level][gb >= level];
      gradesA.push_back(ga);
      gradesB.push_back(gb);
      relA.push_back(ga >= level);
      relB.push_back(gb >= level);
    }
    g.shared += matched;
    g.onlyB += itB->second.size() - matched;
  }
  for (const auto& [qid, judgmentsB] : b.byQuery)
    if (!a.byQuery.count(qid)) {
      ++g.queriesOnlyB;
      g.onlyB += judgmentsB.size();
    }
  g.shared -= g.offScale;
  if (g.shared > 0) {
    std::size_t same = 0, sameBinary = 0;
    for (int k = 0; k <= kTopGrade; ++k) same += g.grades[std::size_t(k)][std::size_t(k)];
    sameBinary = g.binary[0][0] + g.binary[1][1];
    g.accuracy = double(same) / double(g.shared);
    g.binaryAccuracy = double(sameBinary) / double(g.shared);
  }
  g.kappa = stats::cohenKappa(gradesA, gradesB);
  g.binaryKappa = stats::cohenKappa(relA, relB);
  return g;
}

SystemAgreement compareSystems(const Qrels& a, const Qrels& b, const std::vector<NamedRun>& runs,
                               const std::string& measure, const EvalSettings& settings) {
  SystemAgreement s;
  s.measure = measure;
  std::vector<std::string> shared;
  for (const auto& [qid, judgments] : a.byQuery)
    if (b.byQuery.count(qid)) shared.push_back(qid);
  s.sharedQueries = shared.size();
  if (shared.empty()) {
    s.error = "the two qrels judge no query in common";
    return s;
  }
  const Qrels sharedA = restrictedTo(a, shared), sharedB = restrictedTo(b, shared);
  std::vector<double> meansA, meansB;
  for (const NamedRun& named : runs) {
    SystemScore score;
    score.name = named.name;
    for (const bool underA : {true, false}) {
      const EvalResult r = evaluate(underA ? sharedA : sharedB, *named.run, settings);
      if (!r.ok()) {
        std::string why;
        for (const auto& d : r.diagnostics)
          if (d.severity == Severity::Error) why += (why.empty() ? "" : "; ") + d.toString();
        s.error = named.name + " under " + (underA ? "A" : "B") + ": " +
                  (why.empty() ? std::string("not evaluated") : why);
        return s;
      }
      const double mean = r.mean(measure);
      (underA ? score.underA : score.underB) = mean;
      score.queries = r.numQueries;
    }
    meansA.push_back(score.underA);
    meansB.push_back(score.underB);
    s.systems.push_back(std::move(score));
  }
  const auto ranksA = ranksHighestFirst(meansA), ranksB = ranksHighestFirst(meansB);
  for (std::size_t i = 0; i < s.systems.size(); ++i) {
    s.systems[i].rankA = ranksA[i];
    s.systems[i].rankB = ranksB[i];
  }
  stats::CorrelationOptions options;
  options.resamples = 0;  // a handful of systems: the coefficients and p, no bootstrap
  s.correlation = stats::correlate(meansA, meansB, options);
  if (!s.correlation.ok()) {
    // Fewer than two systems: no ordering to compare, still the means.
    s.correlation.kendall.value = s.correlation.spearman.value = kNaN;
    s.correlation.kendall.p = s.correlation.spearman.p = kNaN;
  }
  return s;
}

std::vector<SystemScore> largestRankSwaps(const SystemAgreement& s, std::size_t max) {
  std::vector<SystemScore> moved;
  for (const auto& system : s.systems)
    if (system.rankA != system.rankB) moved.push_back(system);
  std::stable_sort(moved.begin(), moved.end(), [](const SystemScore& x, const SystemScore& y) {
    const double dx = std::abs(x.rankB - x.rankA), dy = std::abs(y.rankB - y.rankA);
    if (dx != dy) return dx > dy;
    return x.name < y.name;
  });
  if (moved.size() > max) moved.resize(max);
  return moved;
}

}  // namespace ragscope::core::trecrag
