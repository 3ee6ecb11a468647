#pragma once
// What every LLM-based evaluation talks to (core/llm/README.md): an endpoint configuration, a
// request, a response, and the Provider interface that both the HTTP transport (OpenAI-compatible
// servers) and the offline heuristic providers implement. The run engine (core/eval) only sees
// Provider.
//
//   EndpointConfig ep{.name = "local", .baseUrl = "http://127.0.0.1:8000/v1", .model = "m"};
//   auto provider = makeHttpProvider(ep);          // core/llm/httpprovider.h
//   provider->submit(request, [](LlmResponse r) { ... });   // called on the provider's thread
//
// Secrets: a config names where the key lives (environment variable or keychain entry), never the
// key itself; providers resolve it when they send and never log or store it.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ragscope::core::llm {

enum class EndpointKind { Chat, Embeddings, Rerank };

struct EndpointConfig {
  std::string name;
  EndpointKind kind = EndpointKind::Chat;
  std::string baseUrl;  // "http://127.0.0.1:8000/v1", "offline" for the heuristic providers
  std::string model;
  std::string apiKeyEnv;  // environment variable holding the key (empty: none)
  std::string
      keychainEntry;  // OS keychain entry (resolved by the UI layer into apiKeyEnv-like lookup)
  double temperature = 0.0;
  int maxTokens = 512;
  std::optional<std::int64_t> seed;
  double timeoutSeconds = 60.0;
  int concurrency = 8;             // transfers in flight at most
  double requestsPerMinute = 0.0;  // 0 = unlimited
  double tokensPerMinute = 0.0;    // 0 = unlimited (estimated from the request size)
  double pricePer1kInput = 0.0;    // USD
  double pricePer1kOutput = 0.0;   // USD
  // Prices of calls sent through the Batch API (usually half); unset: the prices above
  // (core/llm/README.md, "Batch calls").
  std::optional<double> batchPricePer1kInput;
  std::optional<double> batchPricePer1kOutput;
  int maxRetries = 5;
  // The server honours `response_format` with a JSON schema (core/llm/README.md, "Structured
  // outputs"): judging then asks for claim lists and verdicts as schema-bound JSON.
  bool structuredOutputs = false;
};

// A JSON schema a chat reply must follow, sent as response_format {"type": "json_schema",
// "json_schema": {"name", "strict": true, "schema"}} (core/llm/README.md, "Structured outputs").
struct ResponseSchema {
  std::string name;    // [a-zA-Z0-9_-], at most 64 characters (OpenAI's rule)
  std::string schema;  // the JSON Schema, as JSON text
  bool operator==(const ResponseSchema&) const = default;
};

struct Message {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct LlmRequest {
  EndpointKind kind = EndpointKind::Chat;
  std::vector<Message> messages;       // Chat
  std::vector<std::string> inputs;     // Embeddings
  std::string query;                   // Rerank
  std::vector<std::string> documents;  // Rerank
  // Chat: the seed sent for this call instead of the endpoint's (a judge's repeated assessments
  // each have their own, so each is a distinct call and cached on its own).
  std::optional<std::int64_t> seed;
  // Chat: the reply must be JSON following this schema (sent as response_format); unset: text.
  std::optional<ResponseSchema> responseSchema;
  // Which of a job's endpoints answers (llm::RoutingProvider); empty: the job's main one. Never
  // sent to a server.
  std::string route;
};

struct Usage {
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
  double costUsd = 0.0;
};

enum class CallStatus { Ok, Error, Cancelled };

struct LlmResponse {
  CallStatus status = CallStatus::Error;
  std::string text;                            // Chat: the first choice's content
  std::vector<std::vector<float>> embeddings;  // Embeddings, in input order
  // Embeddings: the model the reply names ("model"); empty when it names none. A corpus embedded
  // by two models is refused (core/retrieval/corpusembedding.h).
  std::string model;
  std::vector<std::pair<std::size_t, double>> rerank;  // Rerank: (document index, score)
  Usage usage;
  int httpStatus = 0;
  int attempts = 0;
  double latencyMs = 0.0;
  bool fromCache = false;
  bool heuristic = false;  // produced by an offline heuristic provider, not an LLM
  // Why a call failed, for people: "auth: HTTP 401 ...", "dns: ...", "tls: ...", "timeout after
  // 60 s", "http 500 after 5 attempts", "malformed reply: ...". Empty when ok.
  std::string error;
};

using ResponseCallback = std::function<void(LlmResponse)>;

class Provider {
 public:
  virtual ~Provider() = default;
  // Identity for the response cache: endpoint kind, base URL, model and generation parameters.
  // Two providers with the same identity give interchangeable answers for the same request.
  virtual std::string cacheIdentity() const = 0;
  // The JSON body this provider would send for `request` (also the cache key's content).
  virtual std::string requestBody(const LlmRequest& request) const = 0;
  // Starts a call; `done` is called exactly once, on a provider thread, with the final result
  // (after retries), or with CallStatus::Cancelled after cancelAll().
  virtual void submit(LlmRequest request, ResponseCallback done) = 0;
  // Aborts transfers in flight and queued calls promptly; each gets its Cancelled callback.
  virtual void cancelAll() = 0;
  // Blocks until every submitted call has had its callback.
  virtual void waitIdle() = 0;
  // Answers known without a call, one slot per request in order (the response cache's, through
  // CachingProvider); the engine asks for a window of calls at once and submits only the empty
  // slots. A cached re-run is then one read transaction and parallel parsing per window instead
  // of a lookup per call. Known answers have fromCache set and cost nothing.
  virtual std::vector<std::optional<LlmResponse>> knownAnswers(
      const std::vector<const LlmRequest*>& requests) {
    return std::vector<std::optional<LlmResponse>>(requests.size());
  }
  virtual bool isHeuristic() const { return false; }
  virtual const EndpointConfig& config() const = 0;
};

}  // namespace ragscope::core::llm
