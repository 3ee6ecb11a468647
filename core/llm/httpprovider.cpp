// The multi-handle transport of core/llm/httpprovider.h: one worker thread drives every transfer
// of a provider; one exchange's headers, handle set-up and failure wording are in
// core/llm/httpexchange.h, the one-shot connection test in connectiontest.cpp.

#include "core/llm/httpprovider.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <unordered_map>

#include "core/llm/httpexchange.h"
#include "core/llm/openaiformat.h"
#include "core/llm/ratelimit.h"
#include "core/llm/retrypolicy.h"
#include "core/util/atomicfile.h"
#include "core/util/urlredact.h"

namespace ragscope::core::llm {

// ---------------------------------------------------------------------------------------------

struct HttpProvider::Impl {
  struct Call {
    std::uint64_t id = 0;
    std::string body;
    long expectedItems = -1;
    std::int64_t tokenEstimate = 0;
    ResponseCallback done;
    int attempts = 0;
    Clock::time_point attemptStart{};
    Clock::time_point readyAt{};
    // Per attempt.
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    Exchange exchange;
    // Last failure, for the final error after retries run out.
    Failure lastFailure;
    long lastStatus = 0;
  };
  using CallPtr = std::unique_ptr<Call>;

  EndpointConfig config;
  TransportOptions options;
  std::string url;
  std::string logUrl;

  // Shared with submitting threads.
  mutable std::mutex mutex;
  std::condition_variable idleCv;
  std::deque<CallPtr> submitted;
  std::vector<CallPtr> toCancel;
  std::uint64_t cancelEpoch = 0;
  std::int64_t outstanding = 0;  // submitted, callback not yet returned
  bool stopping = false;
  std::uint64_t nextId = 1;

  mutable std::mutex statsMutex;
  TransportStats stats;

  // libcurl, loaded on the first provider made (core/util/curlapi.h). Without it every call fails
  // with curlMissing (naming the library) and the worker waits on wakeCv instead of the multi
  // handle.
  const CurlApi* curl = nullptr;
  std::string curlMissing;
  std::condition_variable wakeCv;

  // Worker-owned.
  CURLM* multi = nullptr;
  std::thread worker;
  std::deque<CallPtr> ready;
  std::multimap<Clock::time_point, CallPtr> delayed;
  std::unordered_map<CURL*, CallPtr> active;
  std::vector<CURL*> easyPool;
  TokenBucket rpm;
  TokenBucket tpm;
  AdaptiveLimiter adaptive;
  Clock::time_point holdUntil{};
  Clock::time_point lastStart{};
  std::uint64_t seenEpoch = 0;
  std::mt19937_64 rng;
  int log = -1;  // the request log, appended to (private; never through a link at its name)
  std::vector<std::string> secrets;  // refreshed per attempt, for scrubbing error texts

  Impl(EndpointConfig c, TransportOptions o)
      : config(std::move(c)),
        options(std::move(o)),
        url(joinUrl(config.baseUrl, endpointPath(config.kind))),
        logUrl(redactUrl(url)),  // what may appear in logs
        rpm(TokenBucket::perMinute(config.requestsPerMinute)),
        tpm(TokenBucket::perMinute(config.tokensPerMinute)),
        adaptive(std::max(1, config.concurrency)),
        rng(options.jitterSeed
                ? options.jitterSeed
                : static_cast<std::uint64_t>(Clock::now().time_since_epoch().count())) {
    curl = curlApi(&curlMissing);
    stats.effectiveConcurrency = adaptive.limit();
    if (curl) multi = curl->multi_init();
    if (!options.logPath.empty())
      log = openForAppend(options.logPath, /*create=*/true, FileAccess::Private, nullptr);
    worker = std::thread([this] { run(); });
  }

  ~Impl() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
      ++cancelEpoch;
      for (auto& c : submitted) toCancel.push_back(std::move(c));
      submitted.clear();
    }
    wake();
    if (worker.joinable()) worker.join();
    if (curl) {
      for (CURL* e : easyPool) curl->easy_cleanup(e);
      curl->multi_cleanup(multi);
    }
    if (log >= 0) ::close(log);
  }

  void submit(LlmRequest request, ResponseCallback done) {
    auto call = std::make_unique<Call>();
    call->body = buildRequestBody(config, request);
    if (config.kind == EndpointKind::Embeddings)
      call->expectedItems = static_cast<long>(request.inputs.size());
    if (config.kind == EndpointKind::Rerank)
      call->expectedItems = static_cast<long>(request.documents.size());
    call->tokenEstimate = estimateRequestTokens(config, call->body.size());
    call->done = std::move(done);
    call->exchange.maxBytes = options.maxReplyBytes;
    {
      std::lock_guard lock(mutex);
      call->id = nextId++;
      ++outstanding;
      submitted.push_back(std::move(call));
    }
    {
      std::lock_guard lock(statsMutex);
      ++stats.submitted;
    }
    wake();
  }

  void cancelAll() {
    {
      std::lock_guard lock(mutex);
      ++cancelEpoch;
      for (auto& c : submitted) toCancel.push_back(std::move(c));
      submitted.clear();
    }
    wake();
  }

  // Wakes the worker from its wait: the multi handle's poll, or wakeCv without libcurl.
  void wake() {
    if (curl) {
      curl->multi_wakeup(multi);
    } else {
      std::lock_guard lock(mutex);  // the worker checks its condition under this lock
      wakeCv.notify_all();
    }
  }

  void waitIdle() {
    std::unique_lock lock(mutex);
    idleCv.wait(lock, [this] { return outstanding == 0; });
  }

  // ---- worker thread -------------------------------------------------------------------------

  void run() {
    pthread_setname_np(pthread_self(), "ragscope-http");
    for (;;) {
      std::vector<CallPtr> cancelNow;
      bool cancelHeld = false;
      bool exit = false;
      {
        std::lock_guard lock(mutex);
        if (cancelEpoch != seenEpoch) {
          seenEpoch = cancelEpoch;
          cancelHeld = true;
        }
        cancelNow.swap(toCancel);
        // Calls submitted after the last cancelAll() stay: they were not meant to be cancelled.
        while (!submitted.empty()) {
          ready.push_back(std::move(submitted.front()));
          submitted.pop_front();
        }
        exit = stopping;
      }
      if (cancelHeld) cancelEverythingHeld();
      for (auto& c : cancelNow) {
        LlmResponse r = cancelledResponse(*c);
        finish(std::move(c), std::move(r));
      }
      if (exit) {
        cancelEverythingHeld();
        std::lock_guard lock(mutex);
        if (submitted.empty() && toCancel.empty()) break;
        continue;
      }

      const auto now = Clock::now();
      while (!delayed.empty() && delayed.begin()->first <= now) {
        // Due retries go first so that old calls finish before new ones start.
        ready.push_front(std::move(delayed.begin()->second));
        delayed.erase(delayed.begin());
      }
      Clock::time_point wakeAt = now + std::chrono::seconds(1);
      if (!delayed.empty()) wakeAt = std::min(wakeAt, delayed.begin()->first);
      startTransfers(now, wakeAt);

      if (!curl) {
        // Every call started above failed at once; sleep until something new arrives.
        std::unique_lock lock(mutex);
        wakeCv.wait_until(lock, wakeAt, [this] {
          return !submitted.empty() || !toCancel.empty() || stopping || cancelEpoch != seenEpoch;
        });
        continue;
      }
      int running = 0;
      curl->multi_perform(multi, &running);
      int queued = 0;
      while (CURLMsg* msg = curl->multi_info_read(multi, &queued)) {
        if (msg->msg != CURLMSG_DONE) continue;
        CURL* easy = msg->easy_handle;
        CURLcode rc = msg->data.result;
        auto it = active.find(easy);
        if (it == active.end()) continue;
        CallPtr call = std::move(it->second);
        active.erase(it);
        curl->multi_remove_handle(multi, easy);
        completeAttempt(std::move(call), rc);
      }

      // Something may have become startable (a slot freed, a retry came due): go round again at
      // once instead of sleeping.
      const auto after = Clock::now();
      if (!ready.empty() && static_cast<int>(active.size()) < adaptive.limit() &&
          canStartBy(after) <= after) {
        continue;
      }
      // Retries scheduled just now count too.
      if (!delayed.empty()) wakeAt = std::min(wakeAt, delayed.begin()->first);
      long curlTimeout = -1;
      curl->multi_timeout(multi, &curlTimeout);
      long ourTimeout =
          static_cast<long>(std::max(0.0, std::chrono::duration<double, std::milli>(
                                              std::min(wakeAt, nextStartTime(after)) - after)
                                              .count()) +
                            1);
      long timeout = curlTimeout < 0 ? ourTimeout : std::min(curlTimeout, ourTimeout);
      timeout = std::clamp(timeout, 0L, 1000L);
      curl->multi_poll(multi, nullptr, 0, static_cast<int>(timeout), nullptr);
    }
  }

  // Earliest time the head of the ready queue may start given pacing (ignores the slot count).
  Clock::time_point canStartBy(Clock::time_point now) {
    if (ready.empty()) return Clock::time_point::max();
    Clock::time_point t = std::max(now, holdUntil);
    if (adaptive.spacing().count() > 0)
      t = std::max(t, lastStart + std::chrono::duration_cast<Clock::duration>(adaptive.spacing()));
    const auto w1 = rpm.waitFor(1, now);
    const auto w2 = tpm.waitFor(static_cast<double>(ready.front()->tokenEstimate), now);
    t = std::max(t, now + std::chrono::duration_cast<Clock::duration>(std::max(w1, w2)));
    return t;
  }

  Clock::time_point nextStartTime(Clock::time_point now) {
    if (ready.empty() || static_cast<int>(active.size()) >= adaptive.limit())
      return Clock::time_point::max();
    return canStartBy(now);
  }

  void startTransfers(Clock::time_point now, Clock::time_point& wakeAt) {
    while (!ready.empty() && static_cast<int>(active.size()) < adaptive.limit()) {
      const auto when = canStartBy(now);
      if (when > now) {
        wakeAt = std::min(wakeAt, when);
        return;
      }
      CallPtr call = std::move(ready.front());
      ready.pop_front();
      rpm.tryTake(1, now);
      tpm.tryTake(static_cast<double>(call->tokenEstimate), now);
      lastStart = now;
      startAttempt(std::move(call), now);
    }
  }

  void startAttempt(CallPtr call, Clock::time_point now) {
    KeyResult key = resolveKey(config, options);
    secrets.clear();
    if (!key.key.empty()) secrets.push_back(key.key);
    ++call->attempts;
    call->attemptStart = now;
    {
      std::lock_guard lock(statsMutex);
      ++stats.attempts;
      if (call->attempts > 1) ++stats.retries;
    }
    if (!key.error.empty()) {
      call->lastFailure = {FailureKind::Auth, key.error.substr(6)};  // drop "auth: "
      call->lastStatus = 0;
      writeLog(*call, 0, key.error, 0.0);
      LlmResponse r = baseResponse(*call);
      r.error = key.error;
      finish(std::move(call), std::move(r));
      return;
    }
    if (!curl) {
      call->lastFailure = {FailureKind::Other, curlMissing};
      writeLog(*call, 0, curlMissing, 0.0);
      LlmResponse r = baseResponse(*call);
      r.error = describe(call->lastFailure, 0, call->attempts);
      finish(std::move(call), std::move(r));
      return;
    }
    CURL* pooled = nullptr;
    if (!easyPool.empty()) {
      pooled = easyPool.back();
      easyPool.pop_back();
    }
    CURL* easy = takeEasy(*curl, pooled);
    call->exchange.body.clear();
    call->exchange.retryAfter.clear();
    call->exchange.retryAfterMs.clear();
    call->exchange.overflow = false;
    call->exchange.errbuf[0] = 0;
    call->headers = makeHeaders(*curl, key.key, true);
    std::fill(key.key.begin(), key.key.end(), '\0');
    call->easy = easy;
    if (!configureEasy(*curl, easy, url, call->headers, call->exchange, config.timeoutSeconds,
                       options)) {
      releaseEasy(*call);
      call->lastFailure = {FailureKind::Other, kPolicyRefused};
      writeLog(*call, 0, kPolicyRefused, 0.0);
      LlmResponse r = baseResponse(*call);
      r.error = describe(call->lastFailure, 0, call->attempts);
      finish(std::move(call), std::move(r));
      return;
    }
    curl->easy_setopt(easy, CURLOPT_POST, 1L);
    curl->easy_setopt(easy, CURLOPT_POSTFIELDS, call->body.data());
    curl->easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                      static_cast<curl_off_t>(call->body.size()));
    curl->multi_add_handle(multi, easy);
    active.emplace(easy, std::move(call));
    const int inFlight = static_cast<int>(active.size());
    std::lock_guard lock(statsMutex);
    stats.maxInFlight = std::max(stats.maxInFlight, inFlight);
  }

  void releaseEasy(Call& call) {
    if (call.headers) {
      freeHeaders(*curl, call.headers);
      call.headers = nullptr;
    }
    if (call.easy) {
      easyPool.push_back(call.easy);
      call.easy = nullptr;
    }
  }

  LlmResponse baseResponse(const Call& call) const {
    LlmResponse r;
    r.attempts = call.attempts;
    r.httpStatus = static_cast<int>(call.lastStatus);
    return r;
  }

  LlmResponse cancelledResponse(const Call& call) const {
    LlmResponse r = baseResponse(call);
    r.status = CallStatus::Cancelled;
    r.error = "cancelled";
    return r;
  }

  void completeAttempt(CallPtr call, CURLcode rc) {
    const auto now = Clock::now();
    const double latency = msBetween(call->attemptStart, now);
    long status = 0;
    curl->easy_getinfo(call->easy, CURLINFO_RESPONSE_CODE, &status);
    Failure failure;
    if (rc != CURLE_OK) {
      failure = classifyCurl(*curl, rc, call->easy, call->exchange, config.timeoutSeconds);
    } else {
      failure.kind = classifyHttpStatus(status);
      if (failure.kind != FailureKind::None)
        failure.detail = errorExcerpt(call->exchange.body, secrets);
    }
    releaseEasy(*call);
    call->lastStatus = status;

    if (failure.kind == FailureKind::None) {
      ParsedReply parsed = parseReply(config.kind, call->exchange.body, call->expectedItems);
      if (!parsed.ok) {
        // A body that is not JSON is retried like a cut connection; JSON without the fields
        // we need is not (another attempt gets the same).
        failure = {parsed.unreadable ? FailureKind::Unreadable : FailureKind::Malformed,
                   parsed.error};
      } else {
        adaptive.onSuccess();
        publishLimiter();
        LlmResponse r = responseFromReply(config, std::move(parsed), call->body.size());
        r.attempts = call->attempts;
        r.httpStatus = static_cast<int>(call->lastStatus);
        r.latencyMs = latency;
        // Give back what the tokens/min estimate over-charged (or take the shortfall).
        tpm.adjust(static_cast<double>(call->tokenEstimate - r.usage.promptTokens -
                                       r.usage.completionTokens),
                   now);
        writeLog(*call, status, "", latency);
        {
          std::lock_guard lock(statsMutex);
          stats.promptTokens += r.usage.promptTokens;
          stats.completionTokens += r.usage.completionTokens;
          stats.costUsd += r.usage.costUsd;
        }
        call->exchange.body.clear();
        finish(std::move(call), std::move(r));
        return;
      }
    }

    call->lastFailure = failure;
    const std::string err = redact(describe(failure, status, call->attempts), secrets);
    writeLog(*call, status, err, latency);
    call->exchange.body.clear();

    if (failure.kind == FailureKind::RateLimited) {
      adaptive.onRateLimited(now);
      publishLimiter();
      std::lock_guard lock(statsMutex);
      ++stats.rateLimited;
    }
    if (isRetryable(failure.kind) && call->attempts <= config.maxRetries) {
      auto wait = backoffDelay(call->attempts, Seconds(options.retryBaseSeconds),
                               Seconds(options.retryMaxSeconds),
                               std::uniform_real_distribution<double>(0.0, 1.0)(rng));
      std::optional<double> retryAfter;
      if (!call->exchange.retryAfterMs.empty()) {
        if (auto ms = parseRetryAfter(call->exchange.retryAfterMs, std::time(nullptr)))
          retryAfter = *ms / 1000.0;
      }
      if (!call->exchange.retryAfter.empty()) {
        if (auto s = parseRetryAfter(call->exchange.retryAfter, std::time(nullptr)))
          retryAfter = std::max(retryAfter.value_or(0.0), *s);
      }
      if (retryAfter && *retryAfter > options.maxRetryAfterSeconds) {
        LlmResponse r = baseResponse(*call);
        r.latencyMs = latency;
        r.error = err + " (server asks to retry after " + formatSeconds(*retryAfter) +
                  ", more than the " + formatSeconds(options.maxRetryAfterSeconds) + " limit)";
        finish(std::move(call), std::move(r));
        return;
      }
      if (retryAfter) {
        wait = std::max(wait, Seconds(*retryAfter));
        // The server speaks for the whole endpoint: hold every start until then, not just this
        // call.
        if (failure.kind == FailureKind::RateLimited)
          holdUntil = std::max(
              holdUntil, now + std::chrono::duration_cast<Clock::duration>(Seconds(*retryAfter)));
      }
      const auto due = now + std::chrono::duration_cast<Clock::duration>(wait);
      delayed.emplace(due, std::move(call));
      return;
    }
    LlmResponse r = baseResponse(*call);
    r.latencyMs = latency;
    r.error = err;
    finish(std::move(call), std::move(r));
  }

  void cancelEverythingHeld() {
    std::vector<CallPtr> calls;
    for (auto& [easy, call] : active) {
      curl->multi_remove_handle(multi, easy);
      releaseEasy(*call);
      calls.push_back(std::move(call));
    }
    active.clear();
    for (auto& c : ready) calls.push_back(std::move(c));
    ready.clear();
    for (auto& [t, c] : delayed) calls.push_back(std::move(c));
    delayed.clear();
    for (auto& c : calls) {
      writeLog(*c, 0, "cancelled", 0.0);
      LlmResponse r = cancelledResponse(*c);
      finish(std::move(c), std::move(r));
    }
  }

  void finish(CallPtr call, LlmResponse response) {
    {
      std::lock_guard lock(statsMutex);
      switch (response.status) {
        case CallStatus::Ok:
          ++stats.succeeded;
          break;
        case CallStatus::Error:
          ++stats.failed;
          break;
        case CallStatus::Cancelled:
          ++stats.cancelled;
          break;
      }
    }
    if (call->done) {
      try {
        call->done(std::move(response));
      } catch (...) {
        // A throwing callback must not take the worker (and every other call) down with it.
      }
    }
    call.reset();
    std::lock_guard lock(mutex);
    if (--outstanding == 0) idleCv.notify_all();
  }

  void writeLog(const Call& call, long status, const std::string& error, double latencyMs) {
    if (log < 0) return;
    nlohmann::json line = {{"t_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count()},
                           {"endpoint", config.name},
                           {"url", logUrl},
                           {"call", call.id},
                           {"attempt", call.attempts},
                           {"status", status},
                           {"latency_ms", latencyMs},
                           {"error", redact(error, secrets)}};
    writeAll(log, line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n');
  }

  // The limiter is worker-owned; readers get its state through the stats copy.
  void publishLimiter() {
    std::lock_guard lock(statsMutex);
    stats.effectiveConcurrency = adaptive.limit();
    stats.throttleEvents = adaptive.throttleEvents();
  }

  TransportStats snapshot() const {
    std::lock_guard lock(statsMutex);
    return stats;
  }
};

// ---------------------------------------------------------------------------------------------

HttpProvider::HttpProvider(EndpointConfig config, TransportOptions options)
    : m_impl(std::make_unique<Impl>(std::move(config), std::move(options))) {}

HttpProvider::~HttpProvider() = default;

std::string HttpProvider::cacheIdentity() const { return httpCacheIdentity(m_impl->config); }

std::string HttpProvider::requestBody(const LlmRequest& request) const {
  return buildRequestBody(m_impl->config, request);
}

void HttpProvider::submit(LlmRequest request, ResponseCallback done) {
  m_impl->submit(std::move(request), std::move(done));
}

void HttpProvider::cancelAll() { m_impl->cancelAll(); }
void HttpProvider::waitIdle() { m_impl->waitIdle(); }
const EndpointConfig& HttpProvider::config() const { return m_impl->config; }

TransportStats HttpProvider::stats() const { return m_impl->snapshot(); }

std::unique_ptr<Provider> makeHttpProvider(EndpointConfig config, TransportOptions options) {
  return std::make_unique<HttpProvider>(std::move(config), std::move(options));
}

}  // namespace ragscope::core::llm
