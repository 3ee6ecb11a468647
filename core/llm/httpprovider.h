#pragma once
// The HTTP transport for OpenAI-compatible servers (core/llm/README.md): chat completions,
// embeddings and rerank over libcurl's multi interface. One worker thread owns the multi handle and
// drives every transfer; submit() only queues and wakes it. Per endpoint: bounded concurrency,
// requests/min and tokens/min buckets, retries with exponential backoff and jitter on
// 429/5xx/timeouts/resets (Retry-After honoured), adaptive slow-down after 429s, prompt
// cancellation, usage and cost.
//
//   EndpointConfig ep{.name = "local", .baseUrl = "http://127.0.0.1:8000/v1", .model = "m",
//                     .apiKeyEnv = "OPENAI_API_KEY"};
//   auto provider = makeHttpProvider(ep);
//   provider->submit(request, [](LlmResponse r) { ... });   // on the transport's worker thread
//   provider->waitIdle();
//
// Callbacks run on the worker thread: keep them short, never call waitIdle() or destroy the
// provider from inside one (submit() and cancelAll() are fine).
//
// The API key is read from the environment (or TransportOptions::apiKey) for each attempt, sent
// only as `Authorization: Bearer`, and scrubbed from every error text and log line; TLS peer and
// host verification stay on.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

struct TransportOptions {
  double retryBaseSeconds = 0.5;        // first backoff step (then doubles, jittered)
  double retryMaxSeconds = 30.0;        // backoff cap
  double maxRetryAfterSeconds = 300.0;  // a longer Retry-After fails the call instead of waiting
  double connectTimeoutSeconds = 10.0;  // also bounded by EndpointConfig::timeoutSeconds
  std::size_t maxReplyBytes = 64u << 20;
  // JSONL log, one line per attempt (time, endpoint, URL without query, attempt, status, error,
  // latency). Never holds keys, headers or bodies. Empty: no log.
  std::string logPath;
  std::string caInfo;            // extra CA bundle file (empty: the system store)
  std::uint64_t jitterSeed = 0;  // 0: seeded from the clock
  // Resolves the key when EndpointConfig::apiKeyEnv is not used (e.g. the UI's keychain lookup).
  // Called on the worker thread for each attempt; must be thread-safe.
  std::function<std::string()> apiKey;
};

struct TransportStats {
  std::int64_t submitted = 0;
  std::int64_t succeeded = 0;
  std::int64_t failed = 0;
  std::int64_t cancelled = 0;
  std::int64_t attempts = 0;  // HTTP attempts started
  std::int64_t retries = 0;
  std::int64_t rateLimited = 0;  // 429 replies seen
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
  double costUsd = 0.0;
  int maxInFlight = 0;           // most transfers in flight at once
  int effectiveConcurrency = 0;  // current adaptive limit
  int throttleEvents = 0;        // times the adaptive limiter cut concurrency
};

class HttpProvider final : public Provider {
 public:
  explicit HttpProvider(EndpointConfig config, TransportOptions options = {});
  ~HttpProvider() override;
  HttpProvider(const HttpProvider&) = delete;
  HttpProvider& operator=(const HttpProvider&) = delete;

  std::string cacheIdentity() const override;
  std::string requestBody(const LlmRequest& request) const override;
  void submit(LlmRequest request, ResponseCallback done) override;
  void cancelAll() override;
  void waitIdle() override;
  const EndpointConfig& config() const override;

  TransportStats stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> m_impl;
};

std::unique_ptr<Provider> makeHttpProvider(EndpointConfig config, TransportOptions options = {});

// For the endpoint editor's "test connection": GET {base}/models once (no retries), timing it.
struct ConnectionTest {
  bool ok = false;  // reachable, authorised, and the reply parsed as a model list
  int httpStatus = 0;
  double latencyMs = 0.0;
  std::vector<std::string> modelIds;
  bool modelFound = false;  // config.model is among modelIds
  std::string error;        // same wording as call errors ("auth: HTTP 401: ...")
};
ConnectionTest testConnection(const EndpointConfig& config, const TransportOptions& options = {});
// The model ids of GET {base}/models; empty with *error set on failure.
std::vector<std::string> listModels(const EndpointConfig& config, std::string* error = nullptr,
                                    const TransportOptions& options = {});

}  // namespace ragscope::core::llm
