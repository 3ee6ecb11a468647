#include "core/metrics/retrievalevaluator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "core/data/loaders.h"
#include "core/metrics/querymeasures.h"
#include "core/metrics/queryranking.h"

// The evaluation of a run: queries spread over threads, repeats reported, the `all` row. The
// parts live beside it (see core/metrics/README.md): queryranking.cpp prepares each query's
// ranking, querymeasures.cpp and gainmeasures.cpp compute the measures, trecevaltext.cpp prints
// trec_eval's text.

namespace ragscope::core {

namespace {

// trec_eval's floor for geometric means (MIN_GEO_MEAN).
constexpr double kMinGeoMean = 0.00001;

// Evaluates one query for a set of columns at one relevance level.
class QueryEvaluator {
 public:
  QueryEvaluator(const std::vector<MeasureColumn>& columns, const EvalSettings& settings)
      : m_columns(columns), m_settings(settings) {}

  void run(const treceval::QueryWork& work, QueryEval& out, treceval::Scratch& s,
           treceval::DuplicateList& dups) const {
    out.qid = *work.qid;
    out.inRun = work.ranking != nullptr;
    const treceval::PreparedQuery q =
        treceval::prepareQuery(work, m_settings.relevanceLevel, m_settings.maxDepth, s, dups);
    out.numRet = q.numRet;
    out.numRel = q.numRel;
    out.numRelRet = q.numRelRet;
    out.numJudgedRet = q.judgedRet;
    treceval::computeQueryMeasures(m_columns, q, out);
  }

 private:
  const std::vector<MeasureColumn>& m_columns;
  const EvalSettings& m_settings;
};

}  // namespace

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
// qrels queries in qid byte order; each slot is evaluated once, by whichever thread has its
// ranking.
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
      auto g = std::find_if(m_groups.begin(), m_groups.end(), [&](const LevelGroup& x) {
        return x.settings.relevanceLevel == *level;
      });
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
  void evaluate(std::size_t slot, const RankingView* ranking, treceval::Scratch& scratch,
                treceval::DuplicateList& dups) {
    treceval::QueryWork w = m_work[slot];
    w.ranking = ranking;
    QueryEval& out = m_result.queries[slot];
    m_main->run(w, out, scratch, dups);
    if (ranking) m_seen[slot].store(true, std::memory_order_relaxed);
    if (m_groups.empty()) return;
    QueryEval other;
    treceval::DuplicateList ignored;  // reported by the main pass already
    for (auto& g : m_groups) {
      g.evaluator->run(w, other, scratch, ignored);
      for (std::size_t k = 0; k < g.at.size(); ++k) out.values[g.at[k]] = other.values[k];
    }
  }
  bool seen(std::size_t slot) const { return m_seen[slot].load(std::memory_order_relaxed); }
  // Forgets which queries were evaluated (a streamed file being read again from its start).
  void forgetSeen() {
    for (std::size_t slot = 0; slot < m_work.size(); ++slot)
      m_seen[slot].store(false, std::memory_order_relaxed);
  }

  // The queries not in the run (skipped, or zero-filled under -c), the run's queries without
  // qrels, the repeats, and the `all` row.
  void finish(const std::vector<std::string>& runQueries, const std::string& runFile,
              treceval::DuplicateList& duplicates) {
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
                                      "'" + d.docno + "' retrieved twice for query '" + d.qid +
                                          "' (lines " + std::to_string(d.firstLine) + " and " +
                                          std::to_string(d.secondLine) + ")"});
    if (duplicates.dropped)
      m_result.diagnostics.push_back(
          {Severity::Error, runFile, 0, "docno",
           "... and " + std::to_string(duplicates.dropped) +
               " more docnos retrieved twice for a query (only the first " +
               std::to_string(treceval::kListedDuplicates) + " are listed)"});
    addQrelsRepeatErrors(m_qrels, m_result);
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
        case Aggregate::None:
          break;
        case Aggregate::Count:
          result.all[ci] = n;
          break;
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
  std::vector<treceval::QueryWork> m_work;
  std::unordered_map<std::string_view, std::size_t> m_slots;
  std::unique_ptr<std::atomic<bool>[]> m_seen;
  std::optional<QueryEvaluator> m_main;
  std::vector<LevelGroup> m_groups;
};

}  // namespace

void addQrelsRepeatErrors(const Qrels& qrels, EvalResult& result) {
  if (qrels.repeats.empty()) return;
  std::unordered_set<std::string_view> evaluated;
  for (const auto& q : result.queries) evaluated.insert(q.qid);
  for (const auto& r : qrels.repeats) {
    if (!evaluated.count(r.qid)) continue;
    result.diagnostics.push_back(
        {Severity::Error, r.file.empty() ? qrels.source : r.file, r.line, "docno",
         "'" + r.docId + "' judged twice for query '" + r.qid + "' (lines " +
             std::to_string(r.firstLine) + " and " + std::to_string(r.line) +
             "), and the query is evaluated: trec_eval stops here too (duplicate docs)"});
  }
}

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

  treceval::DuplicateList duplicates;
  std::mutex dupMutex;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<bool> cancel{false};
  unsigned threads =
      settings.threads ? settings.threads : std::max(1u, std::thread::hardware_concurrency());
  if (entries < 200000 || work.size() < 2) threads = 1;
  // Batches of queries per grab: big enough to keep the counter cold, small enough to balance.
  const std::size_t kBatch =
      std::clamp<std::size_t>(work.size() / (std::size_t{threads} * 8), 1, 32);

  auto worker = [&](bool reportProgress) {
    treceval::Scratch scratch;
    treceval::DuplicateList localDups;
    std::size_t lastReport = 0;
    for (;;) {
      if (cancel.load(std::memory_order_relaxed)) break;
      const std::size_t begin = next.fetch_add(kBatch);
      if (begin >= work.size()) break;
      const std::size_t end = std::min(work.size(), begin + kBatch);
      for (std::size_t q = begin; q < end; ++q)
        evaluation.evaluate(work[q].first, work[q].second, scratch, localDups);
      const std::size_t d = done.fetch_add(end - begin) + (end - begin);
      if (reportProgress && progress &&
          d - lastReport >= std::max<std::size_t>(1, work.size() / 100)) {
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

EvalResult evaluateRunFile(const Qrels& qrels, const std::filesystem::path& runPath,
                           const EvalSettings& settings, const LoadOptions& load,
                           LoadReport& report) {
  EvalResult result;
  RunEvaluation evaluation(qrels, settings, result);
  if (!evaluation.ok()) return result;
  treceval::DuplicateList duplicates;
  std::mutex mutex;  // guards duplicates and runQueries
  std::vector<std::string> runQueries;
  // Each parser thread evaluates the rankings it hands over, with scratch space of its own.
  auto visit = [&](const RankingView& ranking) {
    thread_local treceval::Scratch scratch;
    treceval::DuplicateList dups;
    if (auto slot = evaluation.slotOf(ranking.queryId))
      evaluation.evaluate(*slot, &ranking, scratch, dups);
    std::lock_guard lock(mutex);
    runQueries.emplace_back(ranking.queryId);
    if (!dups.kept.empty() || dups.dropped) duplicates.absorb(std::move(dups));
  };
  // The file is read again from its start (a query's lines in several places): forget all.
  auto restart = [&] {
    evaluation.forgetSeen();
    runQueries.clear();
    duplicates = treceval::DuplicateList();
  };
  auto loaded = streamTrecRun(runPath, load, visit, restart);
  report = std::move(loaded.report);
  result.runId = loaded.value.tag;
  result.runSource = loaded.value.source;
  if (!report.ok()) return result;
  if (settings.complete) {
    treceval::Scratch scratch;
    treceval::DuplicateList none;
    for (std::size_t slot = 0; slot < evaluation.size(); ++slot)
      if (!evaluation.seen(slot)) evaluation.evaluate(slot, nullptr, scratch, none);
  }
  evaluation.finish(runQueries, result.runSource.empty() ? std::string("run") : result.runSource,
                    duplicates);
  return result;
}

}  // namespace ragscope::core
