#include "core/eval/engine/runengine.h"

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <utility>

#include "core/llm/llmjson.h"
#include "core/llm/responsecache.h"
#include "core/stats/parallel.h"

namespace ragscope::core::eval {

namespace {

using Clock = std::chrono::steady_clock;

struct Arrival {
  std::size_t index = 0;  // into the session's item list
  llm::LlmResponse response;
};

double costFromPrices(const llm::EndpointConfig& c, std::int64_t prompt, std::int64_t completion) {
  return static_cast<double>(prompt) / 1000.0 * c.pricePer1kInput +
         static_cast<double>(completion) / 1000.0 * c.pricePer1kOutput;
}

}  // namespace

store::ItemResult storedResultOf(std::int64_t itemId, const llm::LlmResponse& r,
                                 const llm::EndpointConfig& config) {
  store::ItemResult out;
  out.itemId = itemId;
  switch (r.status) {
    case llm::CallStatus::Ok:
      out.status = store::ItemStatus::Done;
      break;
    case llm::CallStatus::Error:
      out.status = store::ItemStatus::Error;
      break;
    case llm::CallStatus::Cancelled:
      out.status = store::ItemStatus::Cancelled;
      break;
  }
  out.text = r.text;
  if (!r.embeddings.empty() || !r.rerank.empty()) {
    auto j = llm::responseToJson(r);
    nlohmann::json extra;
    if (j.contains("embeddings")) extra["embeddings"] = std::move(j["embeddings"]);
    if (j.contains("rerank")) extra["rerank"] = std::move(j["rerank"]);
    if (j.contains("model")) extra["model"] = std::move(j["model"]);
    out.extra = std::move(extra);
  }
  out.usage = r.usage;
  // Providers that report tokens but no cost still spend money at the configured prices; a
  // cached answer spent nothing.
  if (!r.fromCache && out.usage.costUsd == 0.0) {
    out.usage.costUsd = costFromPrices(config, r.usage.promptTokens, r.usage.completionTokens);
  }
  out.latencyMs = r.latencyMs;
  out.httpStatus = r.httpStatus;
  out.error = r.status == llm::CallStatus::Ok ? std::string() : r.error;
  if (out.status == store::ItemStatus::Error && out.error.empty()) out.error = "call failed";
  out.fromCache = r.fromCache;
  out.heuristic = r.heuristic;
  out.attempts = std::max(1, r.attempts);  // retried bad replies count: each attempt is recorded
  return out;
}

namespace {

// A window of a session's items: their requests, parsed, and the answers the provider knows.
struct Window {
  static constexpr std::size_t kSize = 4096;
  std::size_t begin = 0, end = 0;
  std::vector<std::optional<llm::LlmRequest>> requests;
  std::vector<std::optional<llm::LlmResponse>> known;

  static Window read(const std::vector<store::WorkItem>& items, std::size_t from,
                     llm::Provider& provider) {
    Window w;
    w.load(items, from, provider);
    return w;
  }

  void load(const std::vector<store::WorkItem>& items, std::size_t from, llm::Provider& provider) {
    begin = from;
    end = std::min(items.size(), from + kSize);
    requests.assign(end - begin, std::nullopt);
    const unsigned threads = stats::resolveThreads(0, end - begin, 256);
    stats::forChunks(end - begin, threads, [&](unsigned, std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i)
        requests[i] = llm::requestFromJson(
            nlohmann::json::parse(items[begin + i].requestJson, nullptr, false));
    });
    std::vector<const llm::LlmRequest*> valid;
    std::vector<std::size_t> slot;
    for (std::size_t i = 0; i < requests.size(); ++i)
      if (requests[i]) {
        valid.push_back(&*requests[i]);
        slot.push_back(i);
      }
    known.assign(end - begin, std::nullopt);
    auto answers = provider.knownAnswers(valid);
    for (std::size_t k = 0; k < slot.size() && k < answers.size(); ++k)
      known[slot[k]] = std::move(answers[k]);
  }
};

}  // namespace

std::string_view outcomeStatus(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::Done:
      return "done";
    case RunOutcome::DoneWithErrors:
      return "done with errors";
    case RunOutcome::Cancelled:
      return "cancelled";
    case RunOutcome::PausedBudget:
      return "paused: budget";
    case RunOutcome::Failed:
      return "failed";
    case RunOutcome::PausedBatch:
      return "paused: batch";
  }
  return "failed";
}

std::int64_t estimatePromptTokens(const llm::LlmRequest& request) {
  std::size_t bytes = 0;
  for (const auto& m : request.messages) bytes += m.content.size();
  for (const auto& s : request.inputs) bytes += s.size();
  bytes += request.query.size();
  for (const auto& s : request.documents) bytes += s.size();
  return static_cast<std::int64_t>((bytes + 3) / 4);
}

RunSummary executeRun(store::RunStore& store, llm::Provider& provider, const EngineOptions& options,
                      ProgressListener* listener, std::stop_token stop) {
  RunSummary summary;
  const auto& config = provider.config();
  const std::size_t concurrency = std::max<std::size_t>(1, options.concurrency);
  std::vector<store::WorkItem> items = store.itemsToRun(options.retryErrors);
  const store::RunCounts before = store.counts();

  Progress progress;
  progress.total = before.total;
  progress.errors = options.retryErrors ? 0 : before.errors;
  progress.done = before.done + progress.errors;
  progress.promptTokens = before.promptTokens;
  progress.completionTokens = before.completionTokens;
  progress.costUsd = before.costUsd;
  summary.skipped = progress.done;

  std::string err;
  if (!store.setStatus("running", &err)) {
    summary.outcome = RunOutcome::Failed;
    summary.error = err;
    summary.progress = progress;
    return summary;
  }

  std::size_t inFlight = 0;  // submitted, not yet committed (engine thread only)
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<Arrival> inbox;
  // Answers from the response cache waiting for their commit. They hold no concurrency slot: no
  // transfer is open for them and a kill loses nothing the cache does not give back. So a cached
  // re-run commits up to maxBatch results per transaction instead of `concurrency`.
  std::size_t cachedWaiting = 0;  // under `mutex`
  auto deliver = [&](std::size_t index, llm::LlmResponse response) {
    // Notify under the lock: once the engine sees the last arrival it returns and these
    // locals die, so nothing may touch them after the lock is released.
    std::lock_guard lock(mutex);
    if (response.fromCache) ++cachedWaiting;
    inbox.push_back({index, std::move(response)});
    arrived.notify_one();
  };
  auto slotsTaken = [&] {
    std::lock_guard lock(mutex);
    return inFlight - std::min(inFlight, cachedWaiting);
  };
  // Cancel from whichever thread asks; the provider then answers every call Cancelled.
  std::stop_callback onStop(stop, [&] {
    provider.cancelAll();
    std::lock_guard lock(mutex);
    arrived.notify_one();
  });

  const auto start = Clock::now();
  auto lastReport = start - std::chrono::hours(1);
  std::size_t next = 0;
  std::vector<double> estimateOf(items.size(), 0.0);
  double inFlightEstimate = 0.0;
  std::int64_t observedCompletion = 0;
  std::size_t observedCalls = 0;
  bool budgetPaused = false;
  bool failed = false;
  std::size_t callsDone = 0;
  std::size_t cancelledCalls = 0;

  auto report = [&](bool force) {
    const auto now = Clock::now();
    if (!force &&
        std::chrono::duration<double>(now - lastReport).count() < options.progressIntervalSeconds) {
      return;
    }
    lastReport = now;
    progress.inFlight = inFlight;
    progress.callsThisSession = callsDone;
    progress.elapsedSeconds = std::chrono::duration<double>(now - start).count();
    progress.callsPerSecond = progress.elapsedSeconds > 0
                                  ? static_cast<double>(callsDone) / progress.elapsedSeconds
                                  : 0.0;
    const std::size_t remaining =
        progress.total > progress.done ? progress.total - progress.done : 0;
    progress.etaSeconds = remaining == 0 ? 0.0
                          : progress.callsPerSecond > 0
                              ? static_cast<double>(remaining) / progress.callsPerSecond
                              : -1.0;
    if (listener) listener->onProgress(progress);
  };

  // The calls are read and offered to the provider's known answers (the response cache) a window
  // at a time: parsed on all cores, looked up together. Known answers are delivered without a
  // call; only the rest are submitted. The next window is read while this one is committed.
  Window window;
  std::future<Window> ahead;
  auto loadAhead = [&](std::size_t from) {
    if (from < items.size())
      ahead = std::async(std::launch::async,
                         [&items, &provider, from] { return Window::read(items, from, provider); });
  };
  std::vector<store::ItemResult> batch;
  std::vector<std::size_t> batchIndex;
  for (;;) {
    // Fill the free slots.
    while (!failed && !budgetPaused && !stop.stop_requested() && next < items.size() &&
           slotsTaken() < concurrency && inFlight < concurrency + options.maxBatch) {
      const std::size_t index = next;
      if (index >= window.end) {
        window = ahead.valid() ? ahead.get() : Window::read(items, index, provider);
        loadAhead(window.end);
      }
      if (auto& known = window.known[index - window.begin]) {
        ++next;
        ++inFlight;
        deliver(index, std::move(*known));
        continue;
      }
      auto& request = window.requests[index - window.begin];
      if (!request) {
        llm::LlmResponse bad;
        bad.status = llm::CallStatus::Error;
        bad.error = "malformed request in the run store";
        ++next;
        ++inFlight;
        deliver(index, std::move(bad));
        continue;
      }
      if (options.budgetUsd) {
        const std::int64_t completion =
            observedCalls > 0 ? observedCompletion / static_cast<std::int64_t>(observedCalls)
                              : config.maxTokens;
        const double estimate = costFromPrices(config, estimatePromptTokens(*request), completion);
        if (progress.costUsd + inFlightEstimate + estimate > *options.budgetUsd + 1e-12) {
          budgetPaused = true;
          break;
        }
        estimateOf[index] = estimate;
        inFlightEstimate += estimate;
      }
      ++next;
      ++inFlight;
      // No lock is held here: a provider may answer synchronously (cache hits).
      provider.submit(std::move(*request),
                      [&deliver, index](llm::LlmResponse r) { deliver(index, std::move(r)); });
    }
    if (inFlight == 0) break;

    std::vector<Arrival> got;
    {
      std::unique_lock lock(mutex);
      arrived.wait_for(lock, std::chrono::milliseconds(100), [&] { return !inbox.empty(); });
      if (inbox.size() <= options.maxBatch) {
        got.swap(inbox);
      } else {
        got.assign(
            std::make_move_iterator(inbox.begin()),
            std::make_move_iterator(inbox.begin() + static_cast<std::ptrdiff_t>(options.maxBatch)));
        inbox.erase(inbox.begin(), inbox.begin() + static_cast<std::ptrdiff_t>(options.maxBatch));
      }
    }
    if (got.empty()) {
      report(false);
      continue;
    }
    batch.clear();
    batchIndex.clear();
    {
      std::lock_guard lock(mutex);
      for (const auto& a : got)
        if (a.response.fromCache) --cachedWaiting;
    }
    for (auto& a : got) {
      batch.push_back(storedResultOf(items[a.index].id, a.response, config));
      batchIndex.push_back(a.index);
    }
    // Commit first: only a committed result counts as done and frees its slot.
    if (!failed && !store.commitResults(batch, &err)) {
      failed = true;
      summary.error = err;
      provider.cancelAll();
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      --inFlight;
      inFlightEstimate -= estimateOf[batchIndex[i]];
      if (failed) continue;
      const auto& r = batch[i];
      if (r.status == store::ItemStatus::Cancelled) ++cancelledCalls;
      if (r.status != store::ItemStatus::Cancelled) {
        ++callsDone;
        ++progress.done;
        if (r.status == store::ItemStatus::Error) ++progress.errors;
        if (r.fromCache) ++progress.fromCache;
        progress.promptTokens += r.usage.promptTokens;
        progress.completionTokens += r.usage.completionTokens;
        progress.costUsd += r.usage.costUsd;
        if (r.status == store::ItemStatus::Done && !r.fromCache) {
          observedCompletion += r.usage.completionTokens;
          ++observedCalls;
        }
      }
      if (listener) listener->onResult(items[batchIndex[i]], r);
    }
    report(false);
  }
  if (inFlightEstimate < 0) inFlightEstimate = 0;
  if (ahead.valid()) ahead.wait();  // a window read ahead and not needed (cancel, budget, failure)

  if (failed) {
    summary.outcome = RunOutcome::Failed;
    store.setStatus("failed: " + summary.error);
  } else if ((stop.stop_requested() && next < items.size()) || cancelledCalls > 0) {
    summary.outcome = RunOutcome::Cancelled;
  } else if (budgetPaused) {
    summary.outcome = RunOutcome::PausedBudget;
  } else {
    summary.outcome = progress.errors > 0 ? RunOutcome::DoneWithErrors : RunOutcome::Done;
  }
  if (summary.outcome == RunOutcome::Done && progress.errors > 0) {
    summary.outcome = RunOutcome::DoneWithErrors;
  }
  if (!failed) store.setStatus(outcomeStatus(summary.outcome));
  report(true);
  summary.progress = progress;
  return summary;
}

namespace {

void addToEstimate(Estimate& e, const std::string& requestJson, const llm::Provider& provider,
                   llm::ResponseCache* cache) {
  const auto& config = provider.config();
  auto request = llm::requestFromJson(nlohmann::json::parse(requestJson, nullptr, false));
  if (!request) return;
  ++e.calls;
  const std::int64_t prompt = estimatePromptTokens(*request);
  e.promptTokens += prompt;
  e.completionTokens += config.maxTokens;
  if (cache && !provider.isHeuristic() &&
      cache->lookup(llm::ResponseCache::key(provider, *request))) {
    ++e.cached;
    return;
  }
  e.costUsd += costFromPrices(config, prompt, config.maxTokens);
}

}  // namespace

Estimate estimateRun(store::RunStore& store, const llm::Provider& provider, bool retryErrors,
                     llm::ResponseCache* cache) {
  Estimate e;
  const auto counts = store.counts();
  const auto items = store.itemsToRun(retryErrors);
  e.alreadyDone = counts.total - items.size();
  for (const auto& item : items) addToEstimate(e, item.requestJson, provider, cache);
  return e;
}

Estimate estimateItems(const std::vector<store::NewItem>& items, const llm::Provider& provider,
                       llm::ResponseCache* cache) {
  Estimate e;
  for (const auto& item : items) addToEstimate(e, item.requestJson, provider, cache);
  return e;
}

}  // namespace ragscope::core::eval
