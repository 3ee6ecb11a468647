#include "core/metrics/retrievalevaluator.h"

#include "core/data/loaders.h"
#include "core/util/bytes.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace ragscope::core {

namespace {

// trec_eval's floor for geometric means (MIN_GEO_MEAN).
constexpr double kMinGeoMean = 0.00001;
// Values trec_eval puts in its relevance list for retrieved docs it has no usable grade for.
constexpr int kNonPool = -1;    // not in the qrels
constexpr int kUnjudged = -2;   // in the qrels with a negative grade

inline std::uint64_t hashBytes(const char* p, std::size_t n) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xff51afd7ed558ccdull);
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    p += 8;
    n -= 8;
  }
  if (n) {
    // The last 1-7 bytes from fixed-size loads (overlapping ones; n is in h already): a memcpy of
    // n bytes was a library call and a stalled load for nearly every docno.
    std::uint64_t w;
    if (n >= 4) {
      std::uint32_t a, b;
      std::memcpy(&a, p, 4);
      std::memcpy(&b, p + n - 4, 4);
      w = (std::uint64_t{a} << 32) | b;
    } else {
      const auto* u = reinterpret_cast<const unsigned char*>(p);
      w = (std::uint64_t{u[0]} << 16) | (std::uint64_t{u[n / 2]} << 8) | u[n - 1];
    }
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  }
  h ^= h >> 31;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 29;
  return h;
}

// Open-addressing table of (hash, index+1); reused per query to avoid allocations.
class SmallTable {
 public:
  // Empties the table for about n keys. Slots of an older generation count as empty, so a
  // reset costs nothing per slot (a fill per query was a visible share of evaluating 7M lines).
  void reset(std::size_t n) {
    std::size_t size = 16;
    while (size < n * 2) size <<= 1;
    m_mask = size - 1;
    if (m_slots.size() < size) m_slots.resize(size);
    if (++m_generation == 0) {  // wrapped: clear for real once in 4 billion resets
      std::fill(m_slots.begin(), m_slots.end(), Slot{});
      m_generation = 1;
    }
  }
  // Returns the index stored under an equal key, or inserts `index` and returns -1.
  template <class Eq>
  long findOrInsert(std::uint64_t h, std::uint32_t index, Eq&& equalsIndex) {
    std::size_t i = h & m_mask;
    for (;;) {
      Slot& s = m_slots[i];
      if (s.generation != m_generation) {
        s.hash = h;
        s.index = index;
        s.generation = m_generation;
        return -1;
      }
      if (s.hash == h && equalsIndex(s.index)) return static_cast<long>(s.index);
      i = (i + 1) & m_mask;
    }
  }
  template <class Eq>
  long find(std::uint64_t h, Eq&& equalsIndex) const {
    std::size_t i = h & m_mask;
    for (;;) {
      const Slot& s = m_slots[i];
      if (s.generation != m_generation) return -1;
      if (s.hash == h && equalsIndex(s.index)) return static_cast<long>(s.index);
      i = (i + 1) & m_mask;
    }
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t index = 0;
    std::uint32_t generation = 0;  // 0: never used
  };
  std::vector<Slot> m_slots;
  std::size_t m_mask = 0;
  std::uint32_t m_generation = 0;
};

struct Scratch {
  std::vector<const RunEntry*> order;
  std::vector<int> rels;          // relevance list in rank order (trec_eval's results_rel_list)
  std::vector<long> relRanks;     // 0-based ranks with rel >= level
  std::vector<long> nonrelBefore; // judged nonrelevant docs ranked above each relRanks entry
  std::vector<long> levels;       // judgments per grade >= 0
  std::vector<std::pair<long, int>> gains;  // (rank, grade) of retrieved docs with grade > 0 (NDCG)
  SmallTable judged;
  SmallTable seen;
};

struct QueryWork {
  const std::string* qid;
  const std::vector<Judgment>* judgments;
  const RankingView* ranking;  // nullptr: absent from the run (complete mode)
};

struct DuplicateDoc {
  std::string qid;
  std::string docno;
  std::uint32_t firstLine;
  std::uint32_t secondLine;
};

inline double safeDiv(double a, double b) { return b != 0.0 ? a / b : 0.0; }

// A run made of many copies of itself repeats every docno: only the first few repeats (by line)
// are kept to be named, the rest are counted.
constexpr std::size_t kListedDuplicates = 100;

// The repeats found, the first kListedDuplicates by line kept, the others counted.
struct DuplicateList {
  std::vector<DuplicateDoc> kept;
  std::size_t dropped = 0;

  // A repeat at lines (first, second); its strings are made only when it may be listed.
  void add(std::string_view qid, std::string_view docno, std::uint32_t first, std::uint32_t second) {
    if (kept.size() >= kListedDuplicates && second >= m_cut) {
      ++dropped;
      return;
    }
    kept.push_back({std::string(qid), std::string(docno), first, second});
    if (kept.size() >= 2 * kListedDuplicates) trim();
  }
  void absorb(DuplicateList&& other) {
    dropped += other.dropped;
    for (auto& d : other.kept) add(d.qid, d.docno, d.firstLine, d.secondLine);
    trim();
  }
  void trim() {
    std::sort(kept.begin(), kept.end(), [](const DuplicateDoc& a, const DuplicateDoc& b) {
      return a.secondLine != b.secondLine ? a.secondLine < b.secondLine : a.qid < b.qid;
    });
    if (kept.size() < kListedDuplicates) return;
    dropped += kept.size() - kListedDuplicates;
    kept.resize(kListedDuplicates);
    m_cut = kept.back().secondLine;
  }

 private:
  // Once kListedDuplicates are kept, lines past the last of them cannot be listed.
  std::uint32_t m_cut = std::numeric_limits<std::uint32_t>::max();
};

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
      while (cur >= 0 && relSoFar == cutoffs[static_cast<std::size_t>(cur)]) visit(cur--, intPrecis);
      --relSoFar;
    }
  } else {
    // Negative levels make unjudged docs "relevant" in the list but not in num_rel_ret: follow
    // trec_eval's loop literally.
    for (long i = numRet; i > 0 && relSoFar > 0; --i) {
      precis = static_cast<double>(relSoFar) / static_cast<double>(i);
      if (intPrecis < precis) intPrecis = precis;
      if (rels[static_cast<std::size_t>(i - 1)] >= level) {
        while (cur >= 0 && relSoFar == cutoffs[static_cast<std::size_t>(cur)]) visit(cur--, intPrecis);
        --relSoFar;
      }
    }
  }
  while (cur >= 0) visit(cur--, intPrecis);
}

// trec_eval's gain table for the gain measures (ndcg with level=gain pairs, G, ndcg_rel, Rndcg,
// rbp): the pairs given, then each judged grade 0..max not named with gain = grade; sorted by
// gain, comparing as trec_eval's comparator does (the difference truncated to int, a stable sort).
struct GainTable {
  struct Level {
    long level;
    double gain;
    long count;
  };
  std::vector<Level> levels;  // ascending gain

  GainTable(const std::vector<double>& pairs, const std::vector<long>& counts) {
    for (std::size_t p = 0; p + 1 < pairs.size(); p += 2)
      levels.push_back({static_cast<long>(pairs[p]), pairs[p + 1], 0});
    const std::size_t named = levels.size();
    std::size_t numLevels = counts.size();
    while (numLevels > 0 && counts[numLevels - 1] == 0) --numLevels;
    for (std::size_t lvl = 0; lvl < numLevels; ++lvl) {
      bool found = false;
      for (std::size_t g = 0; g < named && !found; ++g)
        if (levels[g].level == static_cast<long>(lvl)) {
          levels[g].count = counts[lvl];
          found = true;
        }
      if (!found) levels.push_back({static_cast<long>(lvl), static_cast<double>(lvl), counts[lvl]});
    }
    std::stable_sort(levels.begin(), levels.end(),
                     [](const Level& a, const Level& b) { return static_cast<int>(a.gain - b.gain) < 0; });
    index();
  }
  // The gain of a grade: the gain measures ask once per rank, several measures per query.
  double gainOf(int rel) const {
    const long i = static_cast<long>(rel) - m_minLevel;
    if (i >= 0 && i < static_cast<long>(m_byLevel.size())) return m_byLevel[static_cast<std::size_t>(i)];
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
    for (long n = 0; n < it->count; ++n, ++i) ideal += it->gain / std::log2(static_cast<double>(i + 2));
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

class QueryEvaluator {
 public:
  QueryEvaluator(const std::vector<MeasureColumn>& columns, const EvalSettings& settings)
      : m_columns(columns), m_settings(settings) {}

  void run(const QueryWork& work, QueryEval& out, Scratch& s, DuplicateList& dups) const {
    out.qid = *work.qid;
    out.inRun = work.ranking != nullptr;
    out.values.assign(m_columns.size(), 0.0);
    const int level = m_settings.relevanceLevel;
    const auto& judgments = *work.judgments;

    // Grades of the judged docs (trec_eval's rel_levels), and a lookup table docno -> judgment.
    int maxRel = 0;
    for (const auto& j : judgments) maxRel = std::max(maxRel, j.rel);
    s.levels.assign(static_cast<std::size_t>(maxRel) + 1, 0);
    for (const auto& j : judgments)
      if (j.rel >= 0) ++s.levels[static_cast<std::size_t>(j.rel)];
    long numRel = 0;
    for (std::size_t g = 0; g < s.levels.size(); ++g)
      if (static_cast<long>(g) >= level) numRel += s.levels[g];

    s.judged.reset(judgments.size());
    for (std::uint32_t k = 0; k < judgments.size(); ++k) {
      const auto& d = judgments[k].docId;
      s.judged.findOrInsert(hashBytes(d.data(), d.size()), k, [](std::uint32_t) { return false; });
    }

    // Sorted, cut ranking.
    s.order.clear();
    if (work.ranking) {
      const auto& entries = work.ranking->entries;
      s.order.reserve(entries.size());
      for (const auto& e : entries) s.order.push_back(&e);
      // Equal score and docno is a repeat (an input error): file order among those, so the
      // repeat named is the later line.
      auto before = [](const RunEntry* a, const RunEntry* b) {
        if (a->score != b->score) return a->score > b->score;
        const int c = a->docId().compare(b->docId());
        return c != 0 ? c > 0 : a->line < b->line;
      };
      // Runs are nearly always written by descending score: then only the docs of equal score
      // (in trec_eval's order, by docno descending) may need sorting, among themselves.
      const auto first = s.order.begin(), last = s.order.end();
      const bool byScore = std::adjacent_find(first, last, [](const RunEntry* a, const RunEntry* b) {
                             return a->score < b->score;
                           }) == last;
      if (!byScore) {
        std::sort(first, last, before);
      } else {
        for (auto g = first; g != last;) {
          auto h = g + 1;
          while (h != last && (*h)->score == (*g)->score) ++h;
          if (h - g > 1 && !std::is_sorted(g, h, before)) std::sort(g, h, before);
          g = h;
        }
      }
      if (m_settings.maxDepth && s.order.size() > *m_settings.maxDepth) s.order.resize(*m_settings.maxDepth);
    }
    const long numRet = static_cast<long>(s.order.size());

    s.rels.resize(s.order.size());
    s.relRanks.clear();
    s.nonrelBefore.clear();
    s.gains.clear();
    s.seen.reset(s.order.size());
    long numRelRet = 0, nonpool = 0, unjudged = 0, nonrelSoFar = 0, judgedRet = 0;
    for (std::uint32_t i = 0; i < s.order.size(); ++i) {
      const RunEntry& e = *s.order[i];
      const std::uint64_t h = hashBytes(e.doc, e.docLen);
      const std::string_view doc = e.docId();
      const long prev = s.seen.findOrInsert(h, i, [&](std::uint32_t k) { return sameBytes(s.order[k]->docId(), doc); });
      if (prev >= 0)
        dups.add(out.qid, doc, std::min(s.order[static_cast<std::size_t>(prev)]->line, e.line),
                 std::max(s.order[static_cast<std::size_t>(prev)]->line, e.line));
      const long jk = s.judged.find(h, [&](std::uint32_t k) { return sameBytes(judgments[k].docId, doc); });
      int rel;
      if (jk < 0) {
        rel = kNonPool;
        ++nonpool;
      } else {
        const int g = judgments[static_cast<std::size_t>(jk)].rel;
        if (g < 0) {
          rel = kUnjudged;
          ++unjudged;
        } else {
          rel = g;
          ++judgedRet;
          if (g >= level)
            ++numRelRet;
          else
            ++nonrelSoFar;
        }
      }
      s.rels[i] = rel;
      if (rel > 0) s.gains.emplace_back(static_cast<long>(i), rel);
      if (rel >= level) {
        s.relRanks.push_back(i);
        s.nonrelBefore.push_back(nonrelSoFar);
      }
    }
    out.numRet = work.ranking ? numRet : 0;
    out.numRel = numRel;
    out.numRelRet = numRelRet;
    out.numJudgedRet = judgedRet;

    // Shared pieces.
    auto relAbove = [&](long k) {  // relevant docs in the top k
      return static_cast<long>(std::lower_bound(s.relRanks.begin(), s.relRanks.end(), k) - s.relRanks.begin());
    };
    double ap = 0.0;
    {
      double sum = 0.0;
      for (std::size_t j = 0; j < s.relRanks.size(); ++j)
        sum += static_cast<double>(j + 1) / static_cast<double>(s.relRanks[j] + 1);
      if (!s.relRanks.empty()) ap = sum / static_cast<double>(numRel);
    }
    long numNonrel = 0;  // judged with 0 <= rel < level
    for (long g = 0; g < level && g < static_cast<long>(s.levels.size()); ++g) numNonrel += s.levels[static_cast<std::size_t>(g)];
    double bpref = 0.0;
    for (std::size_t j = 0; j < s.relRanks.size(); ++j) {
      const int r = s.rels[static_cast<std::size_t>(s.relRanks[j])];
      if (r < 0) continue;  // bpref skips docs outside the pool even when "relevant" at level < 0
      const long nb = s.nonrelBefore[j];
      if (nb > 0)
        bpref += 1.0 - static_cast<double>(std::min(nb, numRel)) / static_cast<double>(std::min(numNonrel, numRel));
      else
        bpref += 1.0;
    }
    if (numRel) bpref /= static_cast<double>(numRel);

    std::vector<long> cutoffs;
    for (std::size_t ci = 0; ci < m_columns.size(); ++ci) {
      const MeasureColumn& c = m_columns[ci];
      double& v = out.values[ci];
      const long k = static_cast<long>(c.param);
      switch (c.kind) {
        case MeasureKind::Runid:
        case MeasureKind::NumQ:
          break;
        case MeasureKind::NumRet: v = static_cast<double>(out.numRet); break;
        case MeasureKind::NumRel: v = static_cast<double>(numRel); break;
        case MeasureKind::NumRelRet: v = static_cast<double>(numRelRet); break;
        case MeasureKind::Map:
        case MeasureKind::GmMap: v = ap; break;
        case MeasureKind::Rprec: {
          const long look = std::min(numRet, numRel);
          if (look > 0) v = static_cast<double>(relAbove(look)) / static_cast<double>(numRel);
          break;
        }
        case MeasureKind::Bpref:
        case MeasureKind::GmBpref: v = bpref; break;
        case MeasureKind::RecipRank:
          if (!s.relRanks.empty()) v = 1.0 / static_cast<double>(s.relRanks.front() + 1);
          break;
        case MeasureKind::IprecAtRecall: {
          // One column per recall point; handled once for the whole run of columns.
          if (ci > 0 && m_columns[ci - 1].kind == MeasureKind::IprecAtRecall) break;
          std::size_t n = 0;
          while (ci + n < m_columns.size() && m_columns[ci + n].kind == MeasureKind::IprecAtRecall) ++n;
          cutoffs.clear();
          for (std::size_t t = 0; t < n; ++t)
            cutoffs.push_back(std::lround(m_columns[ci + t].param * static_cast<double>(numRel)));
          interpolatedPrecision(cutoffs, numRet, numRelRet, s.rels, s.relRanks, level,
                                [&](long idx, double val) { out.values[ci + static_cast<std::size_t>(idx)] = val; });
          break;
        }
        case MeasureKind::P: v = static_cast<double>(relAbove(k)) / static_cast<double>(k); break;
        case MeasureKind::Recall:
          if (numRel) v = static_cast<double>(relAbove(k)) / static_cast<double>(numRel);
          break;
        case MeasureKind::RprecMult: {
          const long cut = static_cast<long>(c.param * static_cast<double>(numRel) + 0.9);
          if (cut > numRet)
            v = static_cast<double>(numRelRet) / static_cast<double>(cut);
          else if (cut > 0 && !s.relRanks.empty() && cut >= s.relRanks.front() + 1)
            v = static_cast<double>(relAbove(cut)) / static_cast<double>(cut);
          break;
        }
        case MeasureKind::ElevenPtAvg: {
          cutoffs.clear();
          for (double pct : c.paramList) cutoffs.push_back(std::lround(pct * static_cast<double>(numRel)));
          double sum = 0.0;
          interpolatedPrecision(cutoffs, numRet, numRelRet, s.rels, s.relRanks, level,
                                [&](long, double val) { sum += val; });
          v = sum / static_cast<double>(c.paramList.size());
          break;
        }
        case MeasureKind::Ndcg:
          if (!c.paramList.empty()) {
            v = customGainNdcg(GainTable(c.paramList, s.levels), s.rels);
            break;
          }
          [[fallthrough]];
        case MeasureKind::NdcgCut: {
          // Sums run in rank order, as trec_eval's loops, so the doubles are identical.
          const long cut = c.kind == MeasureKind::Ndcg ? std::numeric_limits<long>::max() : k;
          double dcg = 0.0;
          for (const auto& [i, g] : s.gains) {
            if (i >= cut) break;
            dcg += static_cast<double>(g) / std::log2(static_cast<double>(i + 2));
          }
          double ideal = 0.0;
          long i = 0;
          for (long g = static_cast<long>(s.levels.size()) - 1; g >= 1 && i < cut; --g)
            for (long n = 0; n < s.levels[static_cast<std::size_t>(g)] && i < cut; ++n, ++i)
              ideal += static_cast<double>(g) / std::log2(static_cast<double>(i + 2));
          if (ideal > 0.0) v = dcg / ideal;
          break;
        }
        case MeasureKind::MapCut:
          if (numRel) {
            double sum = 0.0;
            for (std::size_t j = 0; j < s.relRanks.size() && s.relRanks[j] < k; ++j)
              sum += static_cast<double>(j + 1) / static_cast<double>(s.relRanks[j] + 1);
            v = sum / static_cast<double>(numRel);
          }
          break;
        case MeasureKind::RelativeP:
          if (numRel) v = static_cast<double>(relAbove(k)) / static_cast<double>(std::min(k, numRel));
          break;
        case MeasureKind::Success: v = (!s.relRanks.empty() && s.relRanks.front() < k) ? 1.0 : 0.0; break;
        case MeasureKind::SetP: v = safeDiv(static_cast<double>(numRelRet), static_cast<double>(numRet)); break;
        case MeasureKind::SetRelativeP:
          if (numRet && numRel) v = static_cast<double>(numRelRet) / static_cast<double>(std::min(numRet, numRel));
          break;
        case MeasureKind::SetRecall: v = safeDiv(static_cast<double>(numRelRet), static_cast<double>(numRel)); break;
        case MeasureKind::SetMap:
          if (numRet && numRel)
            v = (static_cast<double>(numRelRet) * static_cast<double>(numRelRet)) /
                (static_cast<double>(numRet) * static_cast<double>(numRel));
          break;
        case MeasureKind::SetF:
          if (numRelRet) {
            const double P = static_cast<double>(numRelRet) / static_cast<double>(numRet);
            const double R = static_cast<double>(numRelRet) / static_cast<double>(numRel);
            const double x = c.param;
            v = (x + 1.0) * P * R / (x * P + R);
          }
          break;
        case MeasureKind::NumNonrelJudgedRet:
          v = static_cast<double>(numRet - nonpool - unjudged - numRelRet);
          break;
        case MeasureKind::Relstring: {
          const long len = std::max(0L, std::min(static_cast<long>(c.param), numRet));
          out.relstring.resize(static_cast<std::size_t>(len));
          for (long i = 0; i < len; ++i) {
            const int rel = s.rels[static_cast<std::size_t>(i)];
            out.relstring[static_cast<std::size_t>(i)] =
                rel > 9 ? '>' : rel >= 0 ? static_cast<char>('0' + rel) : rel == kNonPool ? '-' : rel == kUnjudged ? '.' : '<';
          }
          break;
        }
        case MeasureKind::InfAP: {
          // Yilmaz & Aslam's inferred AP as trec_eval computes it: docs outside the pool are
          // skipped, pooled-but-unjudged ones (negative grades) counted apart.
          constexpr double kEpsilon = 0.00001;
          long nonrel = 0, rel = 0, poolUnjudged = 0;
          double sum = 0.0;
          for (long j = 0; j < numRet; ++j) {
            const int r = s.rels[static_cast<std::size_t>(j)];
            if (r == kNonPool) continue;
            if (r == kUnjudged) {
              ++poolUnjudged;
              continue;
            }
            if (r >= 0 && r < level) {
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
          v = numRel ? sum / static_cast<double>(numRel) : sum;
          break;
        }
        case MeasureKind::Utility: {
          const auto& p = c.paramList;  // a * rel_ret + b * nonrel_ret + c * rel_nonret + d * nonrel_nonret
          const double nr = static_cast<double>(numRelRet), ret = static_cast<double>(numRet),
                       rel = static_cast<double>(numRel);
          constexpr double kDocsInCollection = 0.0;  // trec_eval's -N, not given
          v = p[0] * nr + p[1] * (ret - nr) + p[2] * (rel - nr) + p[3] * (kDocsInCollection + nr - ret - rel);
          break;
        }
        case MeasureKind::BinG: {
          double sum = 0.0;
          for (std::size_t j = 0; j < s.relRanks.size(); ++j)
            sum += 1.0 / std::log2(static_cast<double>(3 + s.relRanks[j] - static_cast<long>(j + 1)));
          if (!s.relRanks.empty()) v = sum / static_cast<double>(numRel);
          break;
        }
        case MeasureKind::G: v = gainG(GainTable(c.paramList, s.levels), s.rels); break;
        case MeasureKind::NdcgRel: v = ndcgRel(GainTable(c.paramList, s.levels), s.rels); break;
        case MeasureKind::Rndcg: v = rNdcg(GainTable(c.paramList, s.levels), s.rels, numRel); break;
        case MeasureKind::Rbp: v = rankBiasedPrecision(GainTable(c.paramList, s.levels), s.rels, c.param); break;
        case MeasureKind::RbpResid: v = rbpResidual(s.rels, c.param); break;
        case MeasureKind::Unj: {
          long unj = 0;
          for (long j = 0; j < std::min(k, numRet); ++j) unj += s.rels[static_cast<std::size_t>(j)] < 0 ? 1 : 0;
          v = static_cast<double>(unj) / static_cast<double>(k);
          break;
        }
        case MeasureKind::RecipRankCut:
          if (!s.relRanks.empty() && s.relRanks.front() < k) v = 1.0 / static_cast<double>(s.relRanks.front() + 1);
          break;
        case MeasureKind::Judged: {
          long judged = 0;
          for (long j = 0; j < std::min(k, numRet); ++j) judged += s.rels[static_cast<std::size_t>(j)] >= 0 ? 1 : 0;
          v = static_cast<double>(judged) / static_cast<double>(k);
          break;
        }
      }
    }
  }

 private:
  const std::vector<MeasureColumn>& m_columns;
  const EvalSettings& m_settings;
};

// printf("%-22s\t%s\t%6.4f\n") without a fixed buffer: qids can be long.
void printLine(std::string& out, const std::string& name, const std::string& qid, const MeasureColumn& c,
               double value) {
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

bool trecRanksBefore(const RunEntry& a, const RunEntry& b) {
  if (a.score > b.score) return true;
  if (a.score < b.score) return false;
  return a.docId() > b.docId();  // docno descending, byte order (strcmp on the reversed pair)
}

std::vector<const RunEntry*> trecOrder(const Ranking& ranking, std::optional<std::size_t> maxDepth) {
  std::vector<const RunEntry*> order;
  order.reserve(ranking.entries.size());
  for (const auto& e : ranking.entries) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const RunEntry* a, const RunEntry* b) { return trecRanksBefore(*a, *b); });
  if (maxDepth && order.size() > *maxDepth) order.resize(*maxDepth);
  return order;
}

bool EvalResult::ok() const {
  if (cancelled) return false;
  for (const auto& d : diagnostics)
    if (d.severity == Severity::Error) return false;
  return true;
}

std::optional<std::size_t> EvalResult::columnIndex(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return i;
  return std::nullopt;
}

double EvalResult::mean(std::string_view name) const {
  auto i = columnIndex(name);
  if (!i || *i >= all.size()) return std::numeric_limits<double>::quiet_NaN();
  return all[*i];
}

const QueryEval* EvalResult::query(std::string_view qid) const {
  auto it = std::lower_bound(queries.begin(), queries.end(), qid,
                             [](const QueryEval& q, std::string_view id) { return q.qid < id; });
  return it != queries.end() && it->qid == qid ? &*it : nullptr;
}

namespace {

// One evaluation of one run against qrels, whichever way the rankings arrive: all at once from a
// Run (evaluate) or one by one from the file reader's threads (evaluateRunFile). Slots are the
// qrels queries in qid byte order; each slot is evaluated once, by whichever thread has its ranking.
class RunEvaluation {
 public:
  RunEvaluation(const Qrels& qrels, const EvalSettings& settings, EvalResult& result)
      : m_qrels(qrels), m_settings(settings), m_result(result) {
    result.settings = settings;
    auto resolved = resolveMeasures(settings.measures);
    if (!resolved.ok()) {
      result.diagnostics.push_back({Severity::Error, "", 0, "measure", resolved.error});
      return;
    }
    result.columns = std::move(resolved.value);
    m_ok = true;
    for (const auto& [qid, judgments] : qrels.byQuery) {
      m_slots.emplace(qid, m_work.size());
      m_work.push_back({&qid, &judgments, nullptr});
    }
    m_seen = std::make_unique<std::atomic<bool>[]>(m_work.size());
    result.queries.resize(m_work.size());
    m_main.emplace(result.columns, settings);
    // Columns with a relevance level of their own (ir_measures "P(rel=2)@10") are computed
    // again at that level and written over the main pass's values.
    for (std::size_t c = 0; c < result.columns.size(); ++c) {
      const auto& level = result.columns[c].relevanceLevel;
      if (!level) continue;
      auto g = std::find_if(m_groups.begin(), m_groups.end(),
                            [&](const LevelGroup& x) { return x.settings.relevanceLevel == *level; });
      if (g == m_groups.end()) {
        m_groups.push_back({settings, {}, {}, {}});
        g = m_groups.end() - 1;
        g->settings.relevanceLevel = *level;
      }
      g->columns.push_back(result.columns[c]);
      g->at.push_back(c);
    }
    for (auto& g : m_groups) g.evaluator.emplace(g.columns, g.settings);
  }
  RunEvaluation(const RunEvaluation&) = delete;
  RunEvaluation& operator=(const RunEvaluation&) = delete;

  bool ok() const { return m_ok; }
  std::size_t size() const { return m_work.size(); }
  std::optional<std::size_t> slotOf(std::string_view qid) const {
    auto it = m_slots.find(qid);
    return it == m_slots.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  }

  // Evaluates a slot with its ranking (nullptr: not in the run, -c's zero fill).
  void evaluate(std::size_t slot, const RankingView* ranking, Scratch& scratch, DuplicateList& dups) {
    QueryWork w = m_work[slot];
    w.ranking = ranking;
    QueryEval& out = m_result.queries[slot];
    m_main->run(w, out, scratch, dups);
    if (ranking) m_seen[slot].store(true, std::memory_order_relaxed);
    if (m_groups.empty()) return;
    QueryEval other;
    DuplicateList ignored;  // reported by the main pass already
    for (auto& g : m_groups) {
      g.evaluator->run(w, other, scratch, ignored);
      for (std::size_t k = 0; k < g.at.size(); ++k) out.values[g.at[k]] = other.values[k];
    }
  }
  bool seen(std::size_t slot) const { return m_seen[slot].load(std::memory_order_relaxed); }
  // Forgets which queries were evaluated (a streamed file being read again from its start).
  void forgetSeen() {
    for (std::size_t slot = 0; slot < m_work.size(); ++slot) m_seen[slot].store(false, std::memory_order_relaxed);
  }

  // The queries not in the run (skipped, or zero-filled under -c), the run's queries without
  // qrels, the repeats, and the `all` row.
  void finish(const std::vector<std::string>& runQueries, const std::string& runFile, DuplicateList& duplicates) {
    for (const auto& qid : runQueries)
      if (!m_qrels.byQuery.count(qid)) m_result.ignoredRunQueries.push_back(qid);
    std::sort(m_result.ignoredRunQueries.begin(), m_result.ignoredRunQueries.end());
    std::vector<QueryEval> kept;
    kept.reserve(m_work.size());
    for (std::size_t slot = 0; slot < m_work.size(); ++slot) {
      if (seen(slot)) {
        kept.push_back(std::move(m_result.queries[slot]));
      } else if (m_settings.complete) {
        m_result.zeroFilledQueries.push_back(*m_work[slot].qid);
        kept.push_back(std::move(m_result.queries[slot]));
      } else {
        m_result.skippedQueries.push_back(*m_work[slot].qid);
      }
    }
    m_result.queries = std::move(kept);

    for (const auto& d : duplicates.kept)
      m_result.diagnostics.push_back({Severity::Error, runFile, d.secondLine, "docno",
                                      "'" + d.docno + "' retrieved twice for query '" + d.qid + "' (lines " +
                                          std::to_string(d.firstLine) + " and " + std::to_string(d.secondLine) + ")"});
    if (duplicates.dropped)
      m_result.diagnostics.push_back({Severity::Error, runFile, 0, "docno",
                                      "... and " + std::to_string(duplicates.dropped) +
                                          " more docnos retrieved twice for a query (only the first " +
                                          std::to_string(kListedDuplicates) + " are listed)"});
    m_result.numQueries = m_result.queries.size();
    if (m_result.numQueries == 0)
      m_result.diagnostics.push_back({Severity::Error, runFile, 0, "",
                                      "no queries with both results and relevance judgments"});
    aggregate();
  }

 private:
  struct LevelGroup {
    EvalSettings settings;
    std::vector<MeasureColumn> columns;
    std::vector<std::size_t> at;  // index in result.columns
    std::optional<QueryEvaluator> evaluator;
  };

  // The `all` row: plain sums in qid order (bit-identical to trec_eval), then the average.
  void aggregate() {
    EvalResult& result = m_result;
    result.all.assign(result.columns.size(), 0.0);
    const double n = static_cast<double>(result.numQueries);
    for (std::size_t ci = 0; ci < result.columns.size(); ++ci) {
      const auto& c = result.columns[ci];
      double sum = 0.0;
      switch (c.aggregate) {
        case Aggregate::Text:
        case Aggregate::None: break;
        case Aggregate::Count: result.all[ci] = n; break;
        case Aggregate::Sum:
          for (const auto& q : result.queries) sum += q.values[ci];
          result.all[ci] = sum;
          break;
        case Aggregate::Mean:
          for (const auto& q : result.queries) sum += q.values[ci];
          result.all[ci] = result.numQueries ? sum / n : 0.0;
          break;
        case Aggregate::GeometricMean:
          for (const auto& q : result.queries) sum += std::log(std::max(q.values[ci], kMinGeoMean));
          result.all[ci] = result.numQueries ? std::exp(sum / n) : 0.0;
          break;
      }
    }
    if (m_settings.complete) {
      // trec_eval -c: the summary num_rel counts every qrels line graded > 0, over all topics and
      // whatever -l says (per-query num_rel follows -l).
      std::size_t positive = 0;
      if (m_qrels.positiveLines) {
        positive = *m_qrels.positiveLines;
      } else {
        for (const auto& [qid, judgments] : m_qrels.byQuery)
          for (const auto& j : judgments) positive += j.rel > 0 ? 1 : 0;
      }
      for (std::size_t ci = 0; ci < result.columns.size(); ++ci)
        if (result.columns[ci].kind == MeasureKind::NumRel && !result.columns[ci].relevanceLevel)
          result.all[ci] = static_cast<double>(positive);
    }
  }

  const Qrels& m_qrels;
  const EvalSettings& m_settings;
  EvalResult& m_result;
  bool m_ok = false;
  std::vector<QueryWork> m_work;
  std::unordered_map<std::string_view, std::size_t> m_slots;
  std::unique_ptr<std::atomic<bool>[]> m_seen;
  std::optional<QueryEvaluator> m_main;
  std::vector<LevelGroup> m_groups;
};

}  // namespace

EvalResult evaluate(const Qrels& qrels, const Run& run, const EvalSettings& settings,
                    const ProgressFn& progress) {
  EvalResult result;
  result.runId = run.tag;
  result.runSource = run.source;
  RunEvaluation evaluation(qrels, settings, result);
  if (!evaluation.ok()) return result;

  // The slots with a ranking in the run (and all of them under -c), in qid order.
  std::vector<std::pair<std::size_t, const RankingView*>> work;
  std::vector<std::string> runQueries;
  runQueries.reserve(run.rankings.size());
  std::vector<RankingView> views;
  views.reserve(run.rankings.size());
  std::vector<const RankingView*> bySlot(evaluation.size(), nullptr);
  std::size_t entries = 0;
  for (const auto& r : run.rankings) {
    runQueries.push_back(r.queryId);
    views.push_back(viewOf(r));
    if (auto slot = evaluation.slotOf(r.queryId)) {
      bySlot[*slot] = &views.back();
      entries += r.entries.size();
    }
  }
  for (std::size_t slot = 0; slot < bySlot.size(); ++slot)
    if (bySlot[slot] || settings.complete) work.emplace_back(slot, bySlot[slot]);

  DuplicateList duplicates;
  std::mutex dupMutex;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<bool> cancel{false};
  unsigned threads = settings.threads ? settings.threads : std::max(1u, std::thread::hardware_concurrency());
  if (entries < 200000 || work.size() < 2) threads = 1;
  // Batches of queries per grab: big enough to keep the counter cold, small enough to balance.
  const std::size_t kBatch = std::clamp<std::size_t>(work.size() / (std::size_t{threads} * 8), 1, 32);

  auto worker = [&](bool reportProgress) {
    Scratch scratch;
    DuplicateList localDups;
    std::size_t lastReport = 0;
    for (;;) {
      if (cancel.load(std::memory_order_relaxed)) break;
      const std::size_t begin = next.fetch_add(kBatch);
      if (begin >= work.size()) break;
      const std::size_t end = std::min(work.size(), begin + kBatch);
      for (std::size_t q = begin; q < end; ++q) evaluation.evaluate(work[q].first, work[q].second, scratch, localDups);
      const std::size_t d = done.fetch_add(end - begin) + (end - begin);
      if (reportProgress && progress && d - lastReport >= std::max<std::size_t>(1, work.size() / 100)) {
        lastReport = d;
        if (!progress(d, work.size())) cancel = true;
      }
    }
    std::lock_guard lock(dupMutex);
    duplicates.absorb(std::move(localDups));
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(worker, false);
  worker(true);
  for (auto& t : helpers) t.join();
  if (cancel) {
    result.cancelled = true;
    return result;
  }
  if (progress) progress(work.size(), work.size());
  evaluation.finish(runQueries, run.source.empty() ? std::string("run") : run.source, duplicates);
  return result;
}

EvalResult evaluateRunFile(const Qrels& qrels, const std::filesystem::path& runPath, const EvalSettings& settings,
                           const LoadOptions& load, LoadReport& report) {
  EvalResult result;
  RunEvaluation evaluation(qrels, settings, result);
  if (!evaluation.ok()) return result;
  DuplicateList duplicates;
  std::mutex mutex;  // guards duplicates and runQueries
  std::vector<std::string> runQueries;
  // Each parser thread evaluates the rankings it hands over, with scratch space of its own.
  auto visit = [&](const RankingView& ranking) {
    thread_local Scratch scratch;
    DuplicateList dups;
    if (auto slot = evaluation.slotOf(ranking.queryId)) evaluation.evaluate(*slot, &ranking, scratch, dups);
    std::lock_guard lock(mutex);
    runQueries.emplace_back(ranking.queryId);
    if (!dups.kept.empty() || dups.dropped) duplicates.absorb(std::move(dups));
  };
  // The file is read again from its start (a query's lines in several places): forget all.
  auto restart = [&] {
    evaluation.forgetSeen();
    runQueries.clear();
    duplicates = DuplicateList();
  };
  auto loaded = streamTrecRun(runPath, load, visit, restart);
  report = std::move(loaded.report);
  result.runId = loaded.value.tag;
  result.runSource = loaded.value.source;
  if (!report.ok()) return result;
  if (settings.complete) {
    Scratch scratch;
    DuplicateList none;
    for (std::size_t slot = 0; slot < evaluation.size(); ++slot)
      if (!evaluation.seen(slot)) evaluation.evaluate(slot, nullptr, scratch, none);
  }
  evaluation.finish(runQueries, result.runSource.empty() ? std::string("run") : result.runSource, duplicates);
  return result;
}

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
        printLine(out, c.name, q.qid, c, q.values[ci]);
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
    printLine(out, c.name, "all", c, result.all[ci]);
  }
  return out;
}

std::vector<std::string> conventionsText(const EvalSettings& settings) {
  std::vector<std::string> out;
  out.push_back("Rankings sorted by score descending, ties by docno descending (trec_eval); the file's rank column is ignored.");
  out.push_back("Relevant means qrels grade >= " + std::to_string(settings.relevanceLevel) +
                "; NDCG uses the graded relevance as gain (linear) and ignores this level.");
  if (settings.maxDepth) out.push_back("Rankings cut at depth " + std::to_string(*settings.maxDepth) + " after sorting.");
  out.push_back(settings.complete
                    ? "Qrels queries absent from the run count as 0 (trec_eval -c); means divide by all qrels queries."
                    : "Qrels queries absent from the run are skipped (trec_eval 9 default); run queries without qrels are ignored.");
  out.push_back("Means are plain sums in query-id byte order divided by the number of queries.");
  if (settings.complete)
    out.push_back("The summary num_rel counts every qrels line graded > 0 over all topics, whatever the relevance level (trec_eval -c).");
  out.push_back("rbp is Moffat & Zobel's rank-biased precision with persistence p = 0.8 unless rbp.p=... is given; "
                "trec_eval 10's own rbp reads uninitialised variables, and its test outputs equal this definition at p = 0.9.");
  return out;
}

std::vector<RankedDoc> rankedList(const Ranking& ranking, const std::vector<Judgment>* judgments,
                                  std::optional<std::size_t> maxDepth) {
  const std::vector<const RunEntry*> order = trecOrder(ranking, maxDepth);
  std::unordered_map<std::string_view, int> grades;
  if (judgments)
    for (const auto& j : *judgments) grades.emplace(j.docId, j.rel);
  std::vector<RankedDoc> out;
  out.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    RankedDoc d;
    d.rank = i + 1;
    d.docId = order[i]->docId();
    d.score = order[i]->score;
    d.line = order[i]->line;
    auto it = grades.find(d.docId);
    if (it != grades.end()) d.rel = it->second;
    out.push_back(d);
  }
  return out;
}

}  // namespace ragscope::core
