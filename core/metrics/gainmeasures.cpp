// The gain measures of the retrieval evaluator (see gainmeasures.h and core/metrics/README.md):
// trec_eval's ndcg and ndcg_cut (the grade as gain), and the measures over its gain table (ndcg
// with level=gain pairs, G, ndcg_rel, Rndcg), rank-biased precision and its residual.

#include "core/metrics/gainmeasures.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ragscope::core::treceval {

namespace {

// trec_eval's gain table for the gain measures (ndcg with level=gain pairs, G, ndcg_rel, Rndcg,
// rbp): the pairs given, then each judged grade 0..max not named with gain = grade; sorted by
// gain, comparing as trec_eval's comparator does (the difference truncated to int, a stable sort).
struct GainTable {
  static constexpr long kListedGrades = 4096;
  struct Level {
    long level;
    double gain;
    long count;
  };
  std::vector<Level> levels;  // ascending gain

  GainTable(const std::vector<double>& pairs, const std::vector<std::pair<long, long>>& counts) {
    for (std::size_t p = 0; p + 1 < pairs.size(); p += 2)
      levels.push_back({static_cast<long>(pairs[p]), pairs[p + 1], 0});
    const std::size_t named = levels.size();
    auto add = [&](long lvl, long count) {
      for (std::size_t g = 0; g < named; ++g)
        if (levels[g].level == lvl) {
          levels[g].count = count;
          return;
        }
      levels.push_back({lvl, static_cast<double>(lvl), count});
    };
    // trec_eval lists every grade from 0 to the highest judged, given or not. Up to
    // kListedGrades that is kept, so that the sort below sees the same elements as trec_eval's;
    // above it only the grades judged and the two extremes of the others are listed (a grade of
    // 10^9 would otherwise cost 10^9 levels). A grade nobody was given adds nothing to any gain
    // measure (its count is 0); leaving it out can only move others in the sort when gains given
    // with level=gain are fractional (core/metrics/README.md, "Grades").
    const long numLevels = counts.empty() ? 0 : counts.back().first + 1;
    if (numLevels <= kListedGrades) {
      std::size_t next = 0;
      for (long lvl = 0; lvl < numLevels; ++lvl) {
        long count = 0;
        if (next < counts.size() && counts[next].first == lvl) count = counts[next++].second;
        add(lvl, count);
      }
    } else {
      // The lowest and the highest grade left out stay, with no judgments: rank-biased precision
      // scales by the table's lowest and highest gain, which they may be.
      auto listed = [&](long lvl) {
        for (std::size_t g = 0; g < named; ++g)
          if (levels[g].level == lvl) return true;
        return std::binary_search(counts.begin(), counts.end(), std::pair<long, long>{lvl, 0},
                                  [](const auto& a, const auto& b) { return a.first < b.first; });
      };
      long lo = 0, hi = numLevels - 1;
      while (lo < numLevels && listed(lo)) ++lo;
      while (hi > lo && listed(hi)) --hi;
      std::vector<std::pair<long, long>> kept(counts);
      if (lo < numLevels) kept.push_back({lo, 0});
      if (hi > lo) kept.push_back({hi, 0});
      std::sort(kept.begin(), kept.end());
      for (const auto& [lvl, count] : kept) add(lvl, count);
    }
    std::stable_sort(levels.begin(), levels.end(), [](const Level& a, const Level& b) {
      return static_cast<int>(a.gain - b.gain) < 0;
    });
    index();
  }
  // The gain of a grade: the gain measures ask once per rank, several measures per query.
  double gainOf(int rel) const {
    const long i = static_cast<long>(rel) - m_minLevel;
    if (i >= 0 && i < static_cast<long>(m_byLevel.size()))
      return m_byLevel[static_cast<std::size_t>(i)];
    if (!m_byLevel.empty() || levels.empty()) return 0.0;
    for (const auto& g : levels)  // grades too far apart for a table
      if (g.level == rel) return g.gain;
    return 0.0;
  }
  // Builds the grade -> gain table again (after the gains were changed).
  void index() {
    m_byLevel.clear();
    if (levels.empty()) return;
    long lo = levels.front().level, hi = lo;
    for (const auto& g : levels) {
      lo = std::min(lo, g.level);
      hi = std::max(hi, g.level);
    }
    if (hi - lo >= 4096) return;
    m_minLevel = lo;
    m_byLevel.assign(static_cast<std::size_t>(hi - lo + 1), 0.0);
    // The first level named wins, as the search over `levels` in order would find it.
    std::vector<bool> set(m_byLevel.size(), false);
    for (const auto& g : levels) {
      const auto k = static_cast<std::size_t>(g.level - lo);
      if (set[k]) continue;
      set[k] = true;
      m_byLevel[k] = g.gain;
    }
  }

 private:
  std::vector<double> m_byLevel;
  long m_minLevel = 0;
};

// Walks the ideal ranking's gains, highest first, as trec_eval's gain measures do.
class IdealGains {
 public:
  explicit IdealGains(const GainTable& t) : m_t(t), m_cur(static_cast<long>(t.levels.size()) - 1) {
    m_gain = m_cur >= 0 ? t.levels[static_cast<std::size_t>(m_cur)].gain : 0.0;
  }
  double current() const { return m_gain; }
  // The gain at the next ideal rank.
  double next() {
    ++m_atLevel;
    while (m_cur >= 0 && m_atLevel > m_t.levels[static_cast<std::size_t>(m_cur)].count) {
      m_atLevel = 1;
      --m_cur;
      m_gain = m_cur >= 0 ? m_t.levels[static_cast<std::size_t>(m_cur)].gain : 0.0;
    }
    return m_gain;
  }

 private:
  const GainTable& m_t;
  long m_cur;
  long m_atLevel = 0;
  double m_gain = 0.0;
};

double customGainNdcg(const GainTable& gains, const std::vector<int>& rels) {
  double dcg = 0.0;
  for (std::size_t i = 0; i < rels.size(); ++i) {
    const double g = gains.gainOf(rels[i]);
    if (g != 0) dcg += g / std::log2(static_cast<double>(i + 2));
  }
  double ideal = 0.0;
  long i = 0;
  for (auto it = gains.levels.rbegin(); it != gains.levels.rend() && it->gain > 0.0; ++it)
    for (long n = 0; n < it->count; ++n, ++i)
      ideal += it->gain / std::log2(static_cast<double>(i + 2));
  return ideal > 0.0 ? dcg / ideal : 0.0;
}

// G (trec_eval's experimental gain measure): each doc's gain over log2(2 + ideal cost so far -
// gain so far), normalised by the ideal gain sum.
double gainG(const GainTable& gains, const std::vector<int>& rels) {
  IdealGains ideal(gains);
  double sumResults = 0.0, sumIdeal = 0.0, sumCost = 0.0, g = 0.0;
  constexpr double kMinCost = 1.0;
  std::size_t i = 0;
  for (; i < rels.size() && ideal.current() > 0.0; ++i) {
    const double gain = gains.gainOf(rels[i]);
    sumResults += gain;
    const double idealGain = ideal.next();
    if (idealGain > 0.0) sumIdeal += idealGain;
    sumCost += idealGain >= kMinCost ? idealGain : kMinCost;
    if (gain != 0) g += gain / std::log2(2 + sumCost - sumResults);
  }
  for (; i < rels.size(); ++i) {
    const double gain = gains.gainOf(rels[i]);
    sumResults += gain;
    sumCost += kMinCost;
    if (gain != 0) g += gain / std::log2(2 + sumCost - sumResults);
  }
  while (ideal.current() > 0.0) {
    const double idealGain = ideal.next();
    if (idealGain > 0.0) sumIdeal += idealGain;
  }
  return sumIdeal > 0.0 ? g / sumIdeal : 0.0;
}

// ndcg_rel: NDCG averaged over the relevant docs (gain > 0); an unretrieved one counts the
// final DCG over its ideal DCG.
double ndcgRel(const GainTable& gains, const std::vector<int>& rels) {
  IdealGains ideal(gains);
  double dcg = 0.0, idealDcg = 0.0, sum = 0.0;
  long numRel = 0, numRelRet = 0;
  std::size_t i = 0;
  for (; i < rels.size() && ideal.current() > 0.0; ++i) {
    const double gain = gains.gainOf(rels[i]);
    if (gain != 0) dcg += gain / std::log2(static_cast<double>(i + 2));
    const double idealGain = ideal.next();
    if (idealGain > 0.0) {
      ++numRel;
      idealDcg += idealGain / std::log2(static_cast<double>(i + 2));
    }
    if (gain > 0) {
      sum += dcg / idealDcg;
      ++numRelRet;
    }
  }
  for (; i < rels.size(); ++i) {
    const double gain = gains.gainOf(rels[i]);
    if (gain != 0) dcg += gain / std::log2(static_cast<double>(i + 2));
    if (gain > 0) {
      sum += dcg / idealDcg;
      ++numRelRet;
    }
  }
  while (ideal.current() > 0.0) {
    const double idealGain = ideal.next();
    if (idealGain > 0.0) {
      ++numRel;
      idealDcg += idealGain / std::log2(static_cast<double>(i + 2));
    }
    ++i;
  }
  sum += static_cast<double>(numRel - numRelRet) * dcg / idealDcg;
  return sum > 0.0 ? sum / static_cast<double>(numRel) : 0.0;
}

// Rndcg: NDCG averaged at the ranks where the ideal gain changes (the R levels), plus at the
// end of the ranking when the ideal gain is already 0 there.
double rNdcg(const GainTable& gains, const std::vector<int>& rels, long numRel) {
  if (numRel == 0) return 0.0;
  IdealGains ideal(gains);
  double dcg = 0.0, idealDcg = 0.0, sum = 0.0;
  double oldIdeal = ideal.current();
  long changes = 0;
  std::size_t i = 0;
  for (; i < rels.size() && ideal.current() > 0.0; ++i) {
    const double gain = gains.gainOf(rels[i]);
    const double idealGain = ideal.next();
    if (oldIdeal != idealGain) {
      if (idealDcg > 0.0) {
        sum += dcg / idealDcg;
        ++changes;
      }
      oldIdeal = idealGain;
    }
    if (gain != 0) dcg += gain / std::log2(static_cast<double>(i + 2));
    if (idealGain > 0.0) idealDcg += idealGain / std::log2(static_cast<double>(i + 2));
  }
  if (i < rels.size()) {
    for (; i < rels.size(); ++i) {
      const double gain = gains.gainOf(rels[i]);
      if (gain != 0) dcg += gain / std::log2(static_cast<double>(i + 2));
    }
    if (idealDcg > 0.0) {
      sum += dcg / idealDcg;
      ++changes;
    }
  }
  while (ideal.current() > 0.0) {
    const double idealGain = ideal.next();
    if (oldIdeal != idealGain) {
      if (idealDcg > 0.0) {
        sum += dcg / idealDcg;
        ++changes;
      }
      oldIdeal = idealGain;
    }
    if (idealGain > 0.0) idealDcg += idealGain / std::log2(static_cast<double>(i + 2));
    ++i;
  }
  return sum / static_cast<double>(changes);
}

// Rank-biased precision (Moffat & Zobel 2008): (1 - p) * sum of gain(rank i) * p^(i-1), gains
// scaled into [0, 1] when any lies outside. trec_eval 10 reads uninitialised min/max here, so
// its value depends on the build; this is the published definition.
double rankBiasedPrecision(GainTable gains, const std::vector<int>& rels, double p) {
  if (!gains.levels.empty()) {
    double lo = gains.levels.front().gain, hi = lo;
    for (const auto& g : gains.levels) {
      lo = std::min(lo, g.gain);
      hi = std::max(hi, g.gain);
    }
    if ((lo < 0 || hi > 1) && hi > lo) {
      for (auto& g : gains.levels) g.gain = (g.gain - lo) / (hi - lo);
      gains.index();
    }
  }
  double sum = 0.0, weight = 1.0;
  for (int rel : rels) {
    const double gain = gains.gainOf(rel);
    if (gain != 0) sum += gain * weight;
    weight *= p;
  }
  return (1.0 - p) * sum;
}

// rbp_resid: the RBP weight of the unjudged and unretrieved ranks (the most RBP could still
// rise); 0 when every retrieved doc is judged, as trec_eval prints.
double rbpResidual(const std::vector<int>& rels, double p) {
  double sum = 0.0, weight = 1.0;
  long unjudged = 0;
  for (int rel : rels) {
    if (rel < 0) {
      ++unjudged;
      sum += weight;
    }
    weight *= p;
  }
  return unjudged ? weight + (1.0 - p) * sum : 0.0;
}

// ndcg and ndcg_cut: the grade itself as gain, log2 discount. Sums run in rank order, as
// trec_eval's loops, so the doubles are identical.
double linearNdcg(const Scratch& s, long cut) {
  double dcg = 0.0;
  for (const auto& [i, g] : s.gains) {
    if (i >= cut) break;
    dcg += static_cast<double>(g) / std::log2(static_cast<double>(i + 2));
  }
  double ideal = 0.0;
  long i = 0;
  for (auto it = s.gradeCounts.rbegin(); it != s.gradeCounts.rend() && it->first >= 1 && i < cut;
       ++it)
    for (long n = 0; n < it->second && i < cut; ++n, ++i)
      ideal += static_cast<double>(it->first) / std::log2(static_cast<double>(i + 2));
  return ideal > 0.0 ? dcg / ideal : 0.0;
}

}  // namespace

double gainMeasure(const MeasureColumn& c, const PreparedQuery& q) {
  const Scratch& s = q.s;
  switch (c.kind) {
    case MeasureKind::Ndcg:
      if (!c.paramList.empty())
        return customGainNdcg(GainTable(c.paramList, s.gradeCounts), s.rels);
      return linearNdcg(s, std::numeric_limits<long>::max());
    case MeasureKind::NdcgCut:
      return linearNdcg(s, static_cast<long>(c.param));
    case MeasureKind::G:
      return gainG(GainTable(c.paramList, s.gradeCounts), s.rels);
    case MeasureKind::NdcgRel:
      return ndcgRel(GainTable(c.paramList, s.gradeCounts), s.rels);
    case MeasureKind::Rndcg:
      return rNdcg(GainTable(c.paramList, s.gradeCounts), s.rels, q.numRel);
    case MeasureKind::Rbp:
      return rankBiasedPrecision(GainTable(c.paramList, s.gradeCounts), s.rels, c.param);
    case MeasureKind::RbpResid:
      return rbpResidual(s.rels, c.param);
    default:
      return 0.0;
  }
}

}  // namespace ragscope::core::treceval
