#include "core/retrieval/fusion.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>

namespace ragscope::core {

namespace {

constexpr std::uint32_t kNoRun = std::numeric_limits<std::uint32_t>::max();

// trec_eval's ranking order: score descending, equal scores by docno descending (bytes).
bool trecBefore(double scoreA, std::string_view docA, double scoreB, std::string_view docB) {
  if (scoreA != scoreB) return scoreA > scoreB;
  return docA > docB;
}

// One document of one query while it is fused.
struct FusedDoc {
  std::string_view doc;  // in an input run's arena
  double sum = 0.0;
  std::uint32_t count = 0;         // runs holding the document (CombMNZ)
  std::uint32_t lastRun = kNoRun;  // the run that added to it last: a second add is a duplicate
  std::uint32_t lastLine = 0;      // its line there
  std::uint32_t firstRun = 0;      // where it was seen first, for messages
  std::uint32_t firstLine = 0;
  double fused = 0.0;
};

std::string quotedId(std::string_view s) { return "'" + std::string(s) + "'"; }

class Fuser {
 public:
  Fuser(std::span<const Run* const> runs, const FusionOptions& options, Loaded<Run>& out)
      : m_runs(runs), m_o(options), m_out(out) {}

  // One query: (run index, ranking) pairs, grouped by run in run order.
  void fuseQuery(std::string_view qid,
                 const std::vector<std::pair<std::uint32_t, const Ranking*>>& rankings) {
    m_slots.clear();
    m_index.clear();
    bool bad = false;
    for (std::size_t i = 0; i < rankings.size();) {
      const std::uint32_t run = rankings[i].first;
      // A run built in memory may hold a query twice; its rankings are one list then.
      m_entries.clear();
      for (; i < rankings.size() && rankings[i].first == run; ++i)
        for (const RunEntry& e : rankings[i].second->entries) m_entries.push_back(&e);
      if (!addRun(qid, run)) bad = true;
    }
    if (bad) return;
    m_ranked.clear();
    for (FusedDoc& s : m_slots) {
      s.fused = m_o.method == FusionMethod::CombMnz ? s.sum * static_cast<double>(s.count) : s.sum;
      if (!std::isfinite(s.fused)) {
        error(s.firstRun, s.firstLine, "score",
              "the fused score of " + quotedId(s.doc) + " for query " + quotedId(qid) +
                  " is not finite (the scores are too large to add up)");
        bad = true;
      }
      m_ranked.push_back(&s);
    }
    if (bad) return;
    std::sort(m_ranked.begin(), m_ranked.end(), [](const FusedDoc* a, const FusedDoc* b) {
      return trecBefore(a->fused, a->doc, b->fused, b->doc);
    });
    if (m_o.depth > 0 && m_ranked.size() > m_o.depth) m_ranked.resize(m_o.depth);
    Ranking ranking;
    ranking.queryId = std::string(qid);
    ranking.entries.reserve(m_ranked.size());
    for (const FusedDoc* s : m_ranked) {
      const std::string_view doc = m_out.value.arena->store(s->doc);
      ranking.entries.push_back(
          RunEntry{doc.data(), static_cast<std::uint32_t>(doc.size()), 0, s->fused});
    }
    m_out.value.rankings.push_back(std::move(ranking));
  }

 private:
  // Adds run `run`'s entries (m_entries) to the query's slots; false on an input error.
  bool addRun(std::string_view qid, std::uint32_t run) {
    bool ok = true;
    for (const RunEntry* e : m_entries)
      if (!std::isfinite(e->score)) {
        error(run, e->line, "score",
              "not finite (" + std::string(e->score > 0 ? "inf" : "-inf") +
                  "): fusion needs finite scores");
        ok = false;
      }
    if (!ok) return false;
    // Ranks, and sums in a fixed order, come from trec_eval's order, never from the file's.
    std::sort(m_entries.begin(), m_entries.end(), [](const RunEntry* a, const RunEntry* b) {
      return trecBefore(a->score, a->docId(), b->score, b->docId());
    });
    m_scores.resize(m_entries.size());
    if (m_o.method == FusionMethod::Rrf) {
      // ranx: 1 / (k + i + 1) for the document at 0-based position i.
      for (std::size_t i = 0; i < m_entries.size(); ++i)
        m_scores[i] = 1.0 / (m_o.rrfK + static_cast<double>(i) + 1.0);
    } else {
      for (std::size_t i = 0; i < m_entries.size(); ++i) m_scores[i] = m_entries[i]->score;
      normaliseScores(m_scores, m_o.norm);
      for (std::size_t i = 0; i < m_scores.size(); ++i)
        if (!std::isfinite(m_scores[i])) {
          error(run, m_entries[i]->line, "score",
                "cannot be normalised (" + std::string(scoreNormName(m_o.norm)) + ") for query " +
                    quotedId(qid) + ": the scores are too large (the result is not finite)");
          return false;
        }
      if (m_o.method == FusionMethod::WeightedSum)
        for (double& s : m_scores) s = m_o.weights[run] * s;
    }
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
      const RunEntry& e = *m_entries[i];
      auto [it, inserted] = m_index.try_emplace(e.docId(), m_slots.size());
      if (inserted) {
        m_slots.push_back(FusedDoc{});
        m_slots.back().doc = e.docId();
        m_slots.back().firstRun = run;
        m_slots.back().firstLine = e.line;
      }
      FusedDoc& s = m_slots[it->second];
      if (s.lastRun == run) {
        error(run, std::max(s.lastLine, e.line), "docno",
              quotedId(e.docId()) + " retrieved twice for query " + quotedId(qid) + " (lines " +
                  std::to_string(std::min(s.lastLine, e.line)) + " and " +
                  std::to_string(std::max(s.lastLine, e.line)) + ")");
        ok = false;
        continue;
      }
      s.lastRun = run;
      s.lastLine = e.line;
      s.sum += m_scores[i];
      ++s.count;
    }
    return ok;
  }

  void error(std::uint32_t run, std::uint64_t line, std::string field, std::string problem) {
    m_out.report.add(
        {Severity::Error, m_runs[run]->source, line, std::move(field), std::move(problem)},
        kMaxStoredDiagnostics);
  }

  static constexpr std::size_t kMaxStoredDiagnostics = 10000;
  std::span<const Run* const> m_runs;
  const FusionOptions& m_o;
  Loaded<Run>& m_out;
  std::vector<FusedDoc> m_slots;
  std::unordered_map<std::string_view, std::size_t> m_index;
  std::vector<const RunEntry*> m_entries;
  std::vector<double> m_scores;
  std::vector<const FusedDoc*> m_ranked;
};

}  // namespace

std::optional<FusionMethod> fusionMethodFromName(std::string_view name) {
  if (name == "rrf") return FusionMethod::Rrf;
  if (name == "combsum") return FusionMethod::CombSum;
  if (name == "combmnz") return FusionMethod::CombMnz;
  if (name == "wsum") return FusionMethod::WeightedSum;
  return std::nullopt;
}

const char* fusionMethodName(FusionMethod method) {
  switch (method) {
    case FusionMethod::Rrf:
      return "rrf";
    case FusionMethod::CombSum:
      return "combsum";
    case FusionMethod::CombMnz:
      return "combmnz";
    case FusionMethod::WeightedSum:
      return "wsum";
  }
  return "rrf";
}

std::string fusionOptionsProblem(const FusionOptions& options, std::size_t runs) {
  if (runs < 2) return "fusion needs at least two runs, got " + std::to_string(runs);
  if (runs >= kNoRun) return "too many runs";
  if (!std::isfinite(options.rrfK) || options.rrfK < 0)
    return "the RRF k must be a finite number >= 0";
  if (options.method == FusionMethod::WeightedSum) {
    if (options.weights.size() != runs)
      return "wsum needs one weight per run: " + std::to_string(runs) + " runs, " +
             std::to_string(options.weights.size()) + " weight" +
             (options.weights.size() == 1 ? "" : "s");
    for (double w : options.weights)
      if (!std::isfinite(w)) return "weights must be finite numbers";
  } else if (!options.weights.empty()) {
    return std::string("weights apply to wsum only, not to ") + fusionMethodName(options.method);
  }
  return {};
}

Loaded<Run> fuseRuns(std::span<const Run* const> runs, const FusionOptions& options) {
  Loaded<Run> out;
  out.value.tag = options.tag.empty() ? fusionMethodName(options.method) : options.tag;
  if (std::string problem = fusionOptionsProblem(options, runs.size()); !problem.empty()) {
    out.report.add({Severity::Error, {}, 0, {}, std::move(problem)}, 1);
    return out;
  }
  // The union of the queries, in order of first appearance; each with its rankings by run.
  std::vector<std::string_view> qids;
  std::vector<std::vector<std::pair<std::uint32_t, const Ranking*>>> byQuery;
  std::unordered_map<std::string_view, std::size_t> queryIndex;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (const Ranking& ranking : runs[r]->rankings) {
      auto [it, inserted] = queryIndex.try_emplace(ranking.queryId, qids.size());
      if (inserted) {
        qids.push_back(ranking.queryId);
        byQuery.emplace_back();
      }
      byQuery[it->second].emplace_back(static_cast<std::uint32_t>(r), &ranking);
    }
  Fuser fuser(runs, options, out);
  for (std::size_t q = 0; q < qids.size(); ++q) fuser.fuseQuery(qids[q], byQuery[q]);
  out.report.records = out.value.rankings.size();
  if (out.report.hasErrors()) out.value.rankings.clear();
  return out;
}

}  // namespace ragscope::core
