#pragma once
// Inside the retrieval evaluator (retrievalevaluator.cpp): one query's ranking made ready for the
// measures (see core/metrics/README.md). The ranking is sorted and cut as trec_eval does, each
// retrieved doc gets its qrels grade (trec_eval's results_rel_list), and repeated docnos are
// collected for the input error. The measures (querymeasures.h) read only a PreparedQuery.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/data/model.h"

namespace ragscope::core::treceval {

// Values trec_eval puts in its relevance list for retrieved docs it has no usable grade for.
constexpr int kNonPool = -1;   // not in the qrels
constexpr int kUnjudged = -2;  // in the qrels with a negative grade

// Open-addressing table of (hash, index+1); reused per query to avoid allocations.
class SmallTable {
 public:
  // Empties the table for about n keys. Slots of an older generation count as empty, so a
  // reset costs nothing per slot (a fill per query was a visible share of evaluating 7M lines).
  void reset(std::size_t n);
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

// Per-thread buffers, reused from query to query.
struct Scratch {
  std::vector<const RunEntry*> order;
  std::vector<int> rels;           // relevance list in rank order (trec_eval's results_rel_list)
  std::vector<long> relRanks;      // 0-based ranks with rel >= level
  std::vector<long> nonrelBefore;  // judged nonrelevant docs ranked above each relRanks entry
  // (grade, judgments) for each grade >= 0 the query's qrels give, ascending: trec_eval's
  // rel_levels without the grades nobody was given, so a grade of 10^9 costs one entry, not 10^9.
  std::vector<std::pair<long, long>> gradeCounts;
  std::vector<int> grades;                  // building gradeCounts
  std::vector<std::pair<long, int>> gains;  // (rank, grade) of retrieved docs with grade > 0
  SmallTable judged;
  SmallTable seen;
};

// One query to evaluate: its qrels and its ranking.
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

// A run made of many copies of itself repeats every docno: only the first few repeats (by line)
// are kept to be named, the rest are counted.
constexpr std::size_t kListedDuplicates = 100;

// The repeats found, the first kListedDuplicates by line kept, the others counted.
struct DuplicateList {
  std::vector<DuplicateDoc> kept;
  std::size_t dropped = 0;

  // A repeat at lines (first, second); its strings are made only when it may be listed.
  void add(std::string_view qid, std::string_view docno, std::uint32_t first, std::uint32_t second);
  void absorb(DuplicateList&& other);
  void trim();

 private:
  // Once kListedDuplicates are kept, lines past the last of them cannot be listed.
  std::uint32_t m_cut = std::numeric_limits<std::uint32_t>::max();
};

// One query as the measures see it. The vectors are the Scratch's: valid until its next use.
struct PreparedQuery {
  const Scratch& s;
  int level = 1;    // relevant means grade >= level
  long numRet = 0;  // after the depth cut
  long numRel = 0;  // judged with grade >= level
  long numRelRet = 0;
  long nonpool = 0;    // retrieved, not in the qrels
  long unjudged = 0;   // retrieved, in the qrels with a negative grade
  long judgedRet = 0;  // retrieved with a grade >= 0

  // Relevant docs in the top k.
  long relAbove(long k) const {
    return static_cast<long>(std::lower_bound(s.relRanks.begin(), s.relRanks.end(), k) -
                             s.relRanks.begin());
  }
};

// Sorts and cuts the ranking, grades each doc and notes repeats into `dups`.
PreparedQuery prepareQuery(const QueryWork& work, int level, std::optional<std::size_t> maxDepth,
                           Scratch& s, DuplicateList& dups);

}  // namespace ragscope::core::treceval
