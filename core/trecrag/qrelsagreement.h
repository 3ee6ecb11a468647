#pragma once
// Agreement of two qrels files on the same queries (core/trecrag/README.md, "Qrels agreement"):
// how UMBRELA's LLM grades are validated against NIST's, and how any two assessors compare.
//
//   if (auto bad = gradeScaleProblems(a); !bad.empty()) ...   // grades outside 0..3, repeats
//   GradeAgreement g = compareGrades(a, b, 2);   // kappa on 0..3 and at level 2, confusion
//   SystemAgreement s = compareSystems(a, b, runs, settings);  // means under A and B, tau-b, rho
//
// Pairs are (qid, docid). On the pairs both files judge: unweighted Cohen's kappa on the four
// grades 0..3 (stats::cohenKappa, core/stats/kappa.h) with the 4x4 confusion matrix, and binary
// kappa at a level (relevant = grade >= level) with the 2x2 one. Pairs judged by one file only
// are counted, never compared. Systems: each run evaluated by the trec_eval-exact evaluator
// (core/metrics/retrievalevaluator.h) under A and under B, both restricted to the queries both
// files judge so that the two means average the same queries; Kendall's tau-b and Spearman's rho
// (core/stats/correlation.h) between the two lists of means, and each system's rank under both
// (1 = best, tied means share their mean rank).

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/stats/correlation.h"
#include "core/util/nan.h"

namespace ragscope::core::trecrag {

// The graded scale both TREC DL and the TREC RAG tracks judge on (UMBRELA's 0-3).
inline constexpr int kTopGrade = 3;
// TREC DL and the RAG tracks count grade >= 2 relevant where a measure binarises.
inline constexpr int kDefaultBinaryLevel = 2;

// Why `qrels` cannot enter the agreement, one diagnostic per problem (file:line: field: problem):
// a grade outside 0..3 (a negative "judged but unjudged" grade included: on the four-grade scale
// it has no place, and clamping would invent a grade), a document judged twice for one query
// (the reader keeps the first; which grade counts would be a guess). Empty: usable. At most
// `max` diagnostics are returned; *total (when given) counts all of them.
std::vector<Diagnostic> gradeScaleProblems(const Qrels& qrels, std::size_t max = 20,
                                           std::size_t* total = nullptr);

struct GradeAgreement {
  int level = kDefaultBinaryLevel;
  std::size_t shared = 0;  // pairs both judge: what is compared
  std::size_t onlyA = 0;   // pairs only A judges
  std::size_t onlyB = 0;
  std::size_t offScale = 0;       // shared pairs with a grade outside 0..3 on a side: not compared
  std::size_t queriesShared = 0;  // queries both judge (at least one document each)
  std::size_t queriesOnlyA = 0;
  std::size_t queriesOnlyB = 0;
  // counts[grade in A][grade in B] over the shared pairs.
  std::array<std::array<std::size_t, kTopGrade + 1>, kTopGrade + 1> grades{};
  // counts[relevant in A][relevant in B] (index 1 = grade >= level).
  std::array<std::array<std::size_t, 2>, 2> binary{};
  double kappa = kNaN;  // unweighted, on the grades 0..3; NaN without shared pairs or when p_e = 1
  double binaryKappa = kNaN;
  double accuracy = kNaN;  // share of shared pairs with the same grade
  double binaryAccuracy = kNaN;
};

// Both files should be free of gradeScaleProblems(); a shared pair with a grade off the scale
// is counted in offScale and left out of every figure. `level` in 1..3.
GradeAgreement compareGrades(const Qrels& a, const Qrels& b, int level = kDefaultBinaryLevel);

// One run for compareSystems: its label (stats::runLabels) and the run itself.
struct NamedRun {
  std::string name;
  const Run* run = nullptr;
};

struct SystemScore {
  std::string name;
  double underA = kNaN;  // the measure's mean under A
  double underB = kNaN;
  double rankA = 0.0;  // 1 = the highest mean; ties share the mean of their ranks
  double rankB = 0.0;
  std::size_t queries = 0;  // queries averaged (the same under A and B)
};

struct SystemAgreement {
  std::string measure;                   // the column, as trec_eval prints it ("ndcg_cut_20")
  std::size_t sharedQueries = 0;         // queries both files judge: the ones evaluated
  std::vector<SystemScore> systems;      // in the order given
  stats::CorrelationResult correlation;  // over (underA, underB); no bootstrap
  std::string error;                     // empty when every run was evaluated
  bool ok() const { return error.empty(); }
};

// Evaluates every run under A and under B (settings.measures must yield the one column
// `measure`; settings.relevanceLevel applies to both). Errors (a run none of whose queries the
// shared queries hold, an evaluator diagnostic) end it with `error` set.
SystemAgreement compareSystems(const Qrels& a, const Qrels& b, const std::vector<NamedRun>& runs,
                               const std::string& measure, const EvalSettings& settings);

// The systems whose rank moved most between A and B (|rankB - rankA| descending, then name),
// at most `max`, those that did not move left out.
std::vector<SystemScore> largestRankSwaps(const SystemAgreement& s, std::size_t max = 5);

}  // namespace ragscope::core::trecrag
