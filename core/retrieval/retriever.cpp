#include "core/retrieval/retriever.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>

#include "core/metrics/retrievalevaluator.h"
#include "core/util/atomicfile.h"

namespace ragscope::core {

namespace {

struct QueryOutcome {
  std::vector<ScoredDoc> docs;
  std::string error;
  bool done = false;
  bool failed = false;
};

}  // namespace

std::string sanitizeRunTag(std::string_view tag) {
  std::string out(tag);
  for (char& c : out)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') c = '_';
  return out.empty() ? std::string("ragscope") : out;
}

Loaded<Run> retrieveAll(Retriever& retriever, const std::vector<Query>& queries,
                        const RetrieveOptions& options) {
  Loaded<Run> result;
  result.value.tag = sanitizeRunTag(options.tag.empty() ? retriever.name() : options.tag);
  result.value.source = retriever.name();

  const std::size_t total = queries.size();
  std::vector<QueryOutcome> outcomes(total);
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> finished{0};
  std::atomic<bool> halt{false};  // cancel, stop token, or OnError::Stop
  std::mutex mutex;
  std::condition_variable wake;

  auto worker = [&] {
    while (!halt.load() && !options.stop.stop_requested()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= total) break;
      QueryOutcome& out = outcomes[i];
      std::string error;
      out.docs = retriever.search(queries[i], options.k, &error);
      if (!error.empty()) {
        out.failed = true;
        out.error = std::move(error);
        out.docs.clear();
        if (options.onError == OnError::Stop) halt = true;
      }
      out.done = true;
      finished.fetch_add(1);
      wake.notify_all();
    }
    wake.notify_all();
  };

  const unsigned threadCount = static_cast<unsigned>(
      std::clamp<std::size_t>(options.threads, 1, std::max<std::size_t>(total, 1)));
  std::vector<std::thread> workers;
  workers.reserve(threadCount);
  for (unsigned t = 0; t < threadCount; ++t) workers.emplace_back(worker);

  // The calling thread reports progress, so callbacks never run on a worker.
  bool cancelled = false;
  {
    std::unique_lock lock(mutex);
    while (true) {
      wake.wait_for(lock, std::chrono::milliseconds(100));
      const std::size_t done = finished.load();
      if (options.progress && !cancelled && !options.progress(done, total)) {
        cancelled = true;
        halt = true;
      }
      if (options.stop.stop_requested()) {
        cancelled = true;
        halt = true;
      }
      if (done >= total || halt.load()) break;
    }
  }
  for (auto& w : workers) w.join();
  if (options.progress && !cancelled) options.progress(finished.load(), total);

  const std::string who = retriever.name();
  Run& run = result.value;
  for (std::size_t i = 0; i < total; ++i) {
    QueryOutcome& out = outcomes[i];
    if (!out.done) continue;
    const Query& q = queries[i];
    if (out.failed) {
      result.report.add({Severity::Error, who, 0, "query " + q.id, out.error},
                        options.maxStoredDiagnostics);
      if (options.onError == OnError::Stop) {
        result.report.stopped = true;
      } else {
        ++result.report.skipped;
      }
      continue;
    }
    if (out.docs.empty()) continue;
    Ranking ranking;
    ranking.queryId = q.id;
    ranking.entries.reserve(out.docs.size());
    std::unordered_set<std::string_view> seen;  // views into out.docs, alive for the loop
    for (const ScoredDoc& d : out.docs) {
      if (d.id.empty()) {
        result.report.add({Severity::Warning, who, 0, "query " + q.id,
                           "a result without a document id was dropped"},
                          options.maxStoredDiagnostics);
        continue;
      }
      if (!seen.insert(d.id).second) {
        result.report.add({Severity::Warning, who, 0, "query " + q.id,
                           "document '" + d.id + "' returned twice; the first entry is kept"},
                          options.maxStoredDiagnostics);
        continue;
      }
      RunEntry e;
      const std::string_view stored = run.arena->store(d.id);
      e.doc = stored.data();
      e.docLen = static_cast<std::uint32_t>(stored.size());
      e.score = static_cast<double>(static_cast<float>(d.score));
      ranking.entries.push_back(e);
    }
    std::stable_sort(ranking.entries.begin(), ranking.entries.end(), trecRanksBefore);
    if (ranking.entries.size() > options.k) ranking.entries.resize(options.k);
    for (std::size_t r = 0; r < ranking.entries.size(); ++r)
      ranking.entries[r].line = static_cast<std::uint32_t>(r + 1);
    ++result.report.records;
    run.rankings.push_back(std::move(ranking));
  }
  result.report.cancelled = cancelled;
  return result;
}

void writeTrecRun(const Run& run, std::ostream& out, ScoreText scores) {
  const std::string tag = sanitizeRunTag(run.tag);
  char score[64];
  for (const Ranking& r : run.rankings) {
    const std::string qid = encodeTrecId(r.queryId);
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
      const RunEntry& e = r.entries[i];
      // %.17g reads back as the same double; scores from retrieveAll are floats, whose shortest
      // exact form %.9g also gives, but a run may come from elsewhere. A fused score is a double
      // that must read back bit for bit: its shortest round-trip text (never longer than 17
      // digits).
      const float f = static_cast<float>(e.score);
      if (scores == ScoreText::Shortest)
        *std::to_chars(score, score + sizeof score, e.score).ptr = '\0';
      else if (static_cast<double>(f) == e.score)
        std::snprintf(score, sizeof score, "%.9g", e.score);
      else
        std::snprintf(score, sizeof score, "%.17g", e.score);
      out << qid << " Q0 " << encodeTrecId(e.docId()) << ' ' << (i + 1) << ' ' << score << ' '
          << tag << '\n';
    }
  }
}

bool writeTrecRun(const Run& run, const std::filesystem::path& path, std::string* error,
                  ScoreText scores) {
  return writeFileAtomically(
      path,
      [&](std::ostream& out) {
        writeTrecRun(run, out, scores);
        return true;
      },
      error, /*fsyncFile=*/false);
}

}  // namespace ragscope::core
