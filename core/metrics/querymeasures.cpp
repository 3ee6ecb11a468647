// The measure families of the retrieval evaluator, one function each, and the dispatch over a
// query's columns (see querymeasures.h and core/metrics/README.md). Every formula follows
// trec_eval 10's measure code (m_*.c), including its order of summation, so the doubles are
// trec_eval's bit for bit.

#include "core/metrics/querymeasures.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/metrics/gainmeasures.h"

namespace ragscope::core::treceval {

namespace {

inline double safeDiv(double a, double b) { return b != 0.0 ? a / b : 0.0; }

// Interpolated precision at recall cutoffs, iprec_at_recall / 11pt_avg style. `cutoffs` are
// numbers of relevant docs; `visit(index, value)` is called from the last cutoff to the first,
// in trec_eval's order (11pt_avg sums in that order).
template <class Visit>
void interpolatedPrecision(const std::vector<long>& cutoffs, long numRet, long numRelRet,
                           const std::vector<int>& rels, const std::vector<long>& relRanks,
                           int level, Visit&& visit) {
  long cur = static_cast<long>(cutoffs.size()) - 1;
  while (cur >= 0 && cutoffs[static_cast<std::size_t>(cur)] > numRelRet) --cur;
  double precis = numRet > 0 ? static_cast<double>(numRelRet) / static_cast<double>(numRet) : 0.0;
  double intPrecis = precis;
  long relSoFar = numRelRet;
  if (static_cast<long>(relRanks.size()) == numRelRet) {
    // Between two relevant docs precision only falls, so the maximum is reached at relevant
    // ranks: visiting those alone gives trec_eval's values bit for bit, in O(R) not O(n).
    for (long j = static_cast<long>(relRanks.size()) - 1; j >= 0 && relSoFar > 0; --j) {
      const long i = relRanks[static_cast<std::size_t>(j)] + 1;
      precis = static_cast<double>(relSoFar) / static_cast<double>(i);
      if (intPrecis < precis) intPrecis = precis;
      while (cur >= 0 && relSoFar == cutoffs[static_cast<std::size_t>(cur)])
        visit(cur--, intPrecis);
      --relSoFar;
    }
  } else {
    // Negative levels make unjudged docs "relevant" in the list but not in num_rel_ret: follow
    // trec_eval's loop literally.
    for (long i = numRet; i > 0 && relSoFar > 0; --i) {
      precis = static_cast<double>(relSoFar) / static_cast<double>(i);
      if (intPrecis < precis) intPrecis = precis;
      if (rels[static_cast<std::size_t>(i - 1)] >= level) {
        while (cur >= 0 && relSoFar == cutoffs[static_cast<std::size_t>(cur)])
          visit(cur--, intPrecis);
        --relSoFar;
      }
    }
  }
  while (cur >= 0) visit(cur--, intPrecis);
}

// num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret.
double countMeasure(MeasureKind kind, const PreparedQuery& q) {
  switch (kind) {
    case MeasureKind::NumRet:
      return static_cast<double>(q.numRet);
    case MeasureKind::NumRel:
      return static_cast<double>(q.numRel);
    case MeasureKind::NumRelRet:
      return static_cast<double>(q.numRelRet);
    case MeasureKind::NumNonrelJudgedRet:
      return static_cast<double>(q.numRet - q.nonpool - q.unjudged - q.numRelRet);
    default:
      return 0.0;
  }
}

// Average precision: the precision at each relevant rank over num_rel.
double averagePrecision(const PreparedQuery& q) {
  const auto& relRanks = q.s.relRanks;
  double sum = 0.0;
  for (std::size_t j = 0; j < relRanks.size(); ++j)
    sum += static_cast<double>(j + 1) / static_cast<double>(relRanks[j] + 1);
  return relRanks.empty() ? 0.0 : sum / static_cast<double>(q.numRel);
}

// bpref: for each relevant doc, 1 - (judged nonrelevant above it) / min(R, N).
double bpref(const PreparedQuery& q) {
  const Scratch& s = q.s;
  const long numRel = q.numRel;
  long numNonrel = 0;  // judged with 0 <= rel < level
  for (const auto& [g, n] : s.gradeCounts)
    if (g < q.level) numNonrel += n;
  double sum = 0.0;
  for (std::size_t j = 0; j < s.relRanks.size(); ++j) {
    const int r = s.rels[static_cast<std::size_t>(s.relRanks[j])];
    if (r < 0) continue;  // bpref skips docs outside the pool even when "relevant" at level < 0
    const long nb = s.nonrelBefore[j];
    if (nb > 0)
      sum += 1.0 - static_cast<double>(std::min(nb, numRel)) /
                       static_cast<double>(std::min(numNonrel, numRel));
    else
      sum += 1.0;
  }
  if (numRel) sum /= static_cast<double>(numRel);
  return sum;
}

// Yilmaz & Aslam's inferred AP as trec_eval computes it: docs outside the pool are skipped,
// pooled-but-unjudged ones (negative grades) counted apart.
double inferredAp(const PreparedQuery& q) {
  constexpr double kEpsilon = 0.00001;
  long nonrel = 0, rel = 0, poolUnjudged = 0;
  double sum = 0.0;
  for (long j = 0; j < q.numRet; ++j) {
    const int r = q.s.rels[static_cast<std::size_t>(j)];
    if (r == kNonPool) continue;
    if (r == kUnjudged) {
      ++poolUnjudged;
      continue;
    }
    if (r >= 0 && r < q.level) {
      ++nonrel;
      continue;
    }
    ++rel;
    if (j == 0) {
      sum += 1.0;
    } else {
      const double fj = static_cast<double>(j);
      sum += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) *
                                    (static_cast<double>(rel - 1 + nonrel + poolUnjudged) / fj) *
                                    ((static_cast<double>(rel - 1) + kEpsilon) /
                                     (static_cast<double>(rel - 1 + nonrel) + 2 * kEpsilon));
    }
  }
  return q.numRel ? sum / static_cast<double>(q.numRel) : sum;
}

// The measures over the whole ranking's relevant ranks: map, gm_map, bpref, gm_bpref,
// recip_rank, infAP, binG.
double rankedListMeasure(MeasureKind kind, const PreparedQuery& q) {
  const auto& relRanks = q.s.relRanks;
  switch (kind) {
    case MeasureKind::Map:
    case MeasureKind::GmMap:
      return averagePrecision(q);
    case MeasureKind::Bpref:
    case MeasureKind::GmBpref:
      return bpref(q);
    case MeasureKind::RecipRank:
      return relRanks.empty() ? 0.0 : 1.0 / static_cast<double>(relRanks.front() + 1);
    case MeasureKind::InfAP:
      return inferredAp(q);
    case MeasureKind::BinG: {
      double sum = 0.0;
      for (std::size_t j = 0; j < relRanks.size(); ++j)
        sum += 1.0 / std::log2(static_cast<double>(3 + relRanks[j] - static_cast<long>(j + 1)));
      return relRanks.empty() ? 0.0 : sum / static_cast<double>(q.numRel);
    }
    default:
      return 0.0;
  }
}

// The measures of the top k: P, recall, relative_P, success, map_cut, unj, and ragscope's RR@k and
// Judged@k; k is the column's cutoff, or R (Rprec) or a multiple of R (Rprec_mult).
double cutoffMeasure(const MeasureColumn& c, const PreparedQuery& q) {
  const Scratch& s = q.s;
  const long k = static_cast<long>(c.param);
  const long numRel = q.numRel, numRet = q.numRet;
  switch (c.kind) {
    case MeasureKind::Rprec: {
      const long look = std::min(numRet, numRel);
      return look > 0 ? static_cast<double>(q.relAbove(look)) / static_cast<double>(numRel) : 0.0;
    }
    case MeasureKind::RprecMult: {
      const long cut = static_cast<long>(c.param * static_cast<double>(numRel) + 0.9);
      if (cut > numRet) return static_cast<double>(q.numRelRet) / static_cast<double>(cut);
      if (cut > 0 && !s.relRanks.empty() && cut >= s.relRanks.front() + 1)
        return static_cast<double>(q.relAbove(cut)) / static_cast<double>(cut);
      return 0.0;
    }
    case MeasureKind::P:
      return static_cast<double>(q.relAbove(k)) / static_cast<double>(k);
    case MeasureKind::Recall:
      return numRel ? static_cast<double>(q.relAbove(k)) / static_cast<double>(numRel) : 0.0;
    case MeasureKind::RelativeP:
      return numRel ? static_cast<double>(q.relAbove(k)) / static_cast<double>(std::min(k, numRel))
                    : 0.0;
    case MeasureKind::Success:
      return (!s.relRanks.empty() && s.relRanks.front() < k) ? 1.0 : 0.0;
    case MeasureKind::MapCut: {
      if (!numRel) return 0.0;
      double sum = 0.0;
      for (std::size_t j = 0; j < s.relRanks.size() && s.relRanks[j] < k; ++j)
        sum += static_cast<double>(j + 1) / static_cast<double>(s.relRanks[j] + 1);
      return sum / static_cast<double>(numRel);
    }
    case MeasureKind::RecipRankCut:
      return (!s.relRanks.empty() && s.relRanks.front() < k)
                 ? 1.0 / static_cast<double>(s.relRanks.front() + 1)
                 : 0.0;
    case MeasureKind::Unj:
    case MeasureKind::Judged: {
      // unj counts the unjudged docs in the top k, Judged@k the judged ones.
      const bool unj = c.kind == MeasureKind::Unj;
      long count = 0;
      for (long j = 0; j < std::min(k, numRet); ++j)
        count += (s.rels[static_cast<std::size_t>(j)] < 0) == unj ? 1 : 0;
      return static_cast<double>(count) / static_cast<double>(k);
    }
    default:
      return 0.0;
  }
}

// The measures of the retrieved set as a whole: set_P, set_relative_P, set_recall, set_map,
// set_F, utility.
double setMeasure(const MeasureColumn& c, const PreparedQuery& q) {
  const long numRet = q.numRet, numRel = q.numRel, numRelRet = q.numRelRet;
  switch (c.kind) {
    case MeasureKind::SetP:
      return safeDiv(static_cast<double>(numRelRet), static_cast<double>(numRet));
    case MeasureKind::SetRelativeP:
      return numRet && numRel
                 ? static_cast<double>(numRelRet) / static_cast<double>(std::min(numRet, numRel))
                 : 0.0;
    case MeasureKind::SetRecall:
      return safeDiv(static_cast<double>(numRelRet), static_cast<double>(numRel));
    case MeasureKind::SetMap:
      return numRet && numRel ? (static_cast<double>(numRelRet) * static_cast<double>(numRelRet)) /
                                    (static_cast<double>(numRet) * static_cast<double>(numRel))
                              : 0.0;
    case MeasureKind::SetF: {
      if (!numRelRet) return 0.0;
      const double P = static_cast<double>(numRelRet) / static_cast<double>(numRet);
      const double R = static_cast<double>(numRelRet) / static_cast<double>(numRel);
      const double x = c.param;
      return (x + 1.0) * P * R / (x * P + R);
    }
    case MeasureKind::Utility: {
      // a * rel_ret + b * nonrel_ret + c * rel_nonret + d * nonrel_nonret
      const auto& p = c.paramList;
      const double nr = static_cast<double>(numRelRet), ret = static_cast<double>(numRet),
                   rel = static_cast<double>(numRel);
      constexpr double kDocsInCollection = 0.0;  // trec_eval's -N, not given
      return p[0] * nr + p[1] * (ret - nr) + p[2] * (rel - nr) +
             p[3] * (kDocsInCollection + nr - ret - rel);
    }
    default:
      return 0.0;
  }
}

// iprec_at_recall: one column per recall point, all filled from one pass, from column `first`
// (the first of the run of iprec_at_recall columns) on.
void interpolatedPrecisionColumns(const std::vector<MeasureColumn>& columns, std::size_t first,
                                  const PreparedQuery& q, std::vector<double>& values) {
  std::size_t n = 0;
  while (first + n < columns.size() && columns[first + n].kind == MeasureKind::IprecAtRecall) ++n;
  std::vector<long> cutoffs;
  for (std::size_t t = 0; t < n; ++t)
    cutoffs.push_back(std::lround(columns[first + t].param * static_cast<double>(q.numRel)));
  interpolatedPrecision(
      cutoffs, q.numRet, q.numRelRet, q.s.rels, q.s.relRanks, q.level,
      [&](long idx, double val) { values[first + static_cast<std::size_t>(idx)] = val; });
}

// 11pt_avg: the mean of the interpolated precision at the recall points.
double elevenPointAverage(const MeasureColumn& c, const PreparedQuery& q) {
  std::vector<long> cutoffs;
  for (double pct : c.paramList)
    cutoffs.push_back(std::lround(pct * static_cast<double>(q.numRel)));
  double sum = 0.0;
  interpolatedPrecision(cutoffs, q.numRet, q.numRelRet, q.s.rels, q.s.relRanks, q.level,
                        [&](long, double val) { sum += val; });
  return sum / static_cast<double>(c.paramList.size());
}

// relstring: the grades of the top docs as characters, as trec_eval prints them.
std::string relstringOf(const MeasureColumn& c, const PreparedQuery& q) {
  const long len = std::max(0L, std::min(static_cast<long>(c.param), q.numRet));
  std::string out(static_cast<std::size_t>(len), ' ');
  for (long i = 0; i < len; ++i) {
    const int rel = q.s.rels[static_cast<std::size_t>(i)];
    char ch = '<';
    if (rel > 9)
      ch = '>';
    else if (rel >= 0)
      ch = static_cast<char>('0' + rel);
    else if (rel == kNonPool)
      ch = '-';
    else if (rel == kUnjudged)
      ch = '.';
    out[static_cast<std::size_t>(i)] = ch;
  }
  return out;
}

}  // namespace

void computeQueryMeasures(const std::vector<MeasureColumn>& columns, const PreparedQuery& q,
                          QueryEval& out) {
  out.values.assign(columns.size(), 0.0);
  for (std::size_t ci = 0; ci < columns.size(); ++ci) {
    const MeasureColumn& c = columns[ci];
    double& v = out.values[ci];
    switch (c.kind) {
      case MeasureKind::Runid:
      case MeasureKind::NumQ:
        break;
      case MeasureKind::NumRet:
      case MeasureKind::NumRel:
      case MeasureKind::NumRelRet:
      case MeasureKind::NumNonrelJudgedRet:
        v = countMeasure(c.kind, q);
        break;
      case MeasureKind::Map:
      case MeasureKind::GmMap:
      case MeasureKind::Bpref:
      case MeasureKind::GmBpref:
      case MeasureKind::RecipRank:
      case MeasureKind::InfAP:
      case MeasureKind::BinG:
        v = rankedListMeasure(c.kind, q);
        break;
      case MeasureKind::Rprec:
      case MeasureKind::RprecMult:
      case MeasureKind::P:
      case MeasureKind::Recall:
      case MeasureKind::RelativeP:
      case MeasureKind::Success:
      case MeasureKind::MapCut:
      case MeasureKind::RecipRankCut:
      case MeasureKind::Unj:
      case MeasureKind::Judged:
        v = cutoffMeasure(c, q);
        break;
      case MeasureKind::SetP:
      case MeasureKind::SetRelativeP:
      case MeasureKind::SetRecall:
      case MeasureKind::SetMap:
      case MeasureKind::SetF:
      case MeasureKind::Utility:
        v = setMeasure(c, q);
        break;
      case MeasureKind::IprecAtRecall:
        // One column per recall point; filled once for the whole run of columns.
        if (ci == 0 || columns[ci - 1].kind != MeasureKind::IprecAtRecall)
          interpolatedPrecisionColumns(columns, ci, q, out.values);
        break;
      case MeasureKind::ElevenPtAvg:
        v = elevenPointAverage(c, q);
        break;
      case MeasureKind::Relstring:
        out.relstring = relstringOf(c, q);
        break;
      case MeasureKind::Ndcg:
      case MeasureKind::NdcgCut:
      case MeasureKind::G:
      case MeasureKind::NdcgRel:
      case MeasureKind::Rndcg:
      case MeasureKind::Rbp:
      case MeasureKind::RbpResid:
        v = gainMeasure(c, q);
        break;
    }
  }
}

}  // namespace ragscope::core::treceval
