// Ranking preparation for the retrieval evaluator (see queryranking.h and
// core/metrics/README.md): trec_eval's ranking order, the depth cut, the qrels grade of each
// retrieved doc, and repeated docnos; also the ranking views (trecOrder, rankedList).

#include "core/metrics/queryranking.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "core/metrics/retrievalevaluator.h"
#include "core/util/bytes.h"

namespace ragscope::core {

namespace treceval {

namespace {

inline std::uint64_t docnoHash(const char* p, std::size_t n) {
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

}  // namespace

void SmallTable::reset(std::size_t n) {
  std::size_t size = 16;
  while (size < n * 2) size <<= 1;
  m_mask = size - 1;
  if (m_slots.size() < size) m_slots.resize(size);
  if (++m_generation == 0) {  // wrapped: clear for real once in 4 billion resets
    std::fill(m_slots.begin(), m_slots.end(), Slot{});
    m_generation = 1;
  }
}

void DuplicateList::add(std::string_view qid, std::string_view docno, std::uint32_t first,
                        std::uint32_t second) {
  if (kept.size() >= kListedDuplicates && second >= m_cut) {
    ++dropped;
    return;
  }
  kept.push_back({std::string(qid), std::string(docno), first, second});
  if (kept.size() >= 2 * kListedDuplicates) trim();
}

void DuplicateList::absorb(DuplicateList&& other) {
  dropped += other.dropped;
  for (auto& d : other.kept) add(d.qid, d.docno, d.firstLine, d.secondLine);
  trim();
}

void DuplicateList::trim() {
  std::sort(kept.begin(), kept.end(), [](const DuplicateDoc& a, const DuplicateDoc& b) {
    return a.secondLine != b.secondLine ? a.secondLine < b.secondLine : a.qid < b.qid;
  });
  if (kept.size() < kListedDuplicates) return;
  dropped += kept.size() - kListedDuplicates;
  kept.resize(kListedDuplicates);
  m_cut = kept.back().secondLine;
}

PreparedQuery prepareQuery(const QueryWork& work, int level, std::optional<std::size_t> maxDepth,
                           Scratch& s, DuplicateList& dups) {
  const auto& judgments = *work.judgments;
  const std::string& qid = *work.qid;

  // Grades of the judged docs (trec_eval's rel_levels), and a lookup table docno -> judgment.
  s.grades.clear();
  for (const auto& j : judgments)
    if (j.rel >= 0) s.grades.push_back(j.rel);
  std::sort(s.grades.begin(), s.grades.end());
  s.gradeCounts.clear();
  for (int g : s.grades) {
    if (s.gradeCounts.empty() || s.gradeCounts.back().first != g) s.gradeCounts.push_back({g, 0});
    ++s.gradeCounts.back().second;
  }
  long numRel = 0;
  for (const auto& [g, n] : s.gradeCounts)
    if (g >= level) numRel += n;

  s.judged.reset(judgments.size());
  for (std::uint32_t k = 0; k < judgments.size(); ++k) {
    const auto& d = judgments[k].docId;
    s.judged.findOrInsert(docnoHash(d.data(), d.size()), k, [](std::uint32_t) { return false; });
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
    if (maxDepth && s.order.size() > *maxDepth) s.order.resize(*maxDepth);
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
    const std::uint64_t h = docnoHash(e.doc, e.docLen);
    const std::string_view doc = e.docId();
    const long prev = s.seen.findOrInsert(
        h, i, [&](std::uint32_t k) { return sameBytes(s.order[k]->docId(), doc); });
    if (prev >= 0)
      dups.add(qid, doc, std::min(s.order[static_cast<std::size_t>(prev)]->line, e.line),
               std::max(s.order[static_cast<std::size_t>(prev)]->line, e.line));
    const long jk =
        s.judged.find(h, [&](std::uint32_t k) { return sameBytes(judgments[k].docId, doc); });
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
  PreparedQuery q{s};
  q.level = level;
  q.numRet = work.ranking ? numRet : 0;
  q.numRel = numRel;
  q.numRelRet = numRelRet;
  q.nonpool = nonpool;
  q.unjudged = unjudged;
  q.judgedRet = judgedRet;
  return q;
}

}  // namespace treceval

bool trecRanksBefore(const RunEntry& a, const RunEntry& b) {
  if (a.score > b.score) return true;
  if (a.score < b.score) return false;
  return a.docId() > b.docId();  // docno descending, byte order (strcmp on the reversed pair)
}

std::vector<const RunEntry*> trecOrder(const Ranking& ranking,
                                       std::optional<std::size_t> maxDepth) {
  std::vector<const RunEntry*> order;
  order.reserve(ranking.entries.size());
  for (const auto& e : ranking.entries) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const RunEntry* a, const RunEntry* b) { return trecRanksBefore(*a, *b); });
  if (maxDepth && order.size() > *maxDepth) order.resize(*maxDepth);
  return order;
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
