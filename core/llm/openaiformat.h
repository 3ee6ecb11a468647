#pragma once
// The OpenAI-compatible wire format (core/llm/README.md, "Endpoints") as pure functions: request
// bodies for chat completions, embeddings and rerank, and strict parsers for the replies. No I/O,
// no clocks, so every rule here is unit-testable with hand-written JSON.
//
//   std::string body = buildRequestBody(config, request);   // what the transport POSTs
//   ParsedReply r = parseReply(EndpointKind::Chat, replyBody);
//   if (!r.ok) fail("malformed reply: " + r.error);
//
// Bodies are serialised with sorted keys and no whitespace, so the same request always gives the
// same bytes (the response cache hashes them).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

// Path appended to the base URL for each endpoint kind: "/chat/completions", "/embeddings",
// "/rerank".
std::string endpointPath(EndpointKind kind);
// baseUrl without trailing slashes + path. "http://h/v1/" + "/models" -> "http://h/v1/models".
std::string joinUrl(std::string_view baseUrl, std::string_view path);

// {"max_tokens","messages","model","response_format"?,"seed"?,"stream":false,"temperature"};
// `seed` (a request's own) wins over the endpoint's; `schema` adds response_format
// {"type":"json_schema","json_schema":{"name","schema","strict":true}} (core/llm/README.md,
// "Structured outputs").
std::string buildChatBody(const EndpointConfig& config, const std::vector<Message>& messages,
                          std::optional<std::int64_t> seed = std::nullopt,
                          const std::optional<ResponseSchema>& schema = std::nullopt);
// {"input":[...],"model"}
std::string buildEmbeddingsBody(const EndpointConfig& config,
                                const std::vector<std::string>& inputs);
// {"documents":[...],"model","query"} (Cohere/Jina/TEI-compatible)
std::string buildRerankBody(const EndpointConfig& config, std::string_view query,
                            const std::vector<std::string>& documents);
// Dispatches on config.kind (the endpoint decides the wire shape, not the request).
std::string buildRequestBody(const EndpointConfig& config, const LlmRequest& request);

// Rough token estimate used for tokens/min limits and when a reply has no `usage`: bytes / 4,
// rounded up (the usual rule of thumb for English text with BPE tokenisers).
std::int64_t estimateTokens(std::size_t bytes);
// Tokens a request will consume against a tokens/min budget before the reply is known: the body
// estimate plus, for chat, the completion allowance (max_tokens), as hosted APIs count it.
std::int64_t estimateRequestTokens(const EndpointConfig& config, std::size_t bodyBytes);

struct ParsedReply {
  bool ok = false;
  std::string error;  // why the reply was rejected (without the "malformed reply: " prefix)
  // The body is empty or not JSON at all (cut short, an HTML page): a fault on the way, worth
  // another attempt; false for JSON that lacks what we need, which another attempt repeats.
  bool unreadable = false;
  std::string text;
  std::vector<std::vector<float>> embeddings;
  std::string model;  // embeddings: the reply's "model" when it is a string
  std::vector<std::pair<std::size_t, double>> rerank;
  bool hasUsage = false;
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
};

// Chat: choices[0].message.content must be a string. Usage from usage.prompt_tokens /
// completion_tokens when present.
ParsedReply parseChatReply(std::string_view body);
// Embeddings: data[i].embedding arrays of numbers; data[i].index (when present) decides the
// order; every input index 0..expected-1 must appear exactly once (expected < 0: not checked).
ParsedReply parseEmbeddingsReply(std::string_view body, long expected = -1);
// Rerank: {"results":[{"index","relevance_score"}]} (Cohere/Jina) or a top-level array of
// {"index","score"} (TEI). Indexes must be < documentCount (when >= 0). Kept in server order.
ParsedReply parseRerankReply(std::string_view body, long documentCount = -1);
ParsedReply parseReply(EndpointKind kind, std::string_view body, long expectedItems = -1);

// GET {base}/models: data[].id (OpenAI) or models[].name/model (Ollama-style); empty on failure
// with `error` set.
std::vector<std::string> parseModelList(std::string_view body, std::string* error = nullptr);

// A short, single-line excerpt of an error body for people: the OpenAI-style error.message when
// the body has one, else the body itself; tabs and line breaks become spaces, other control
// characters and invalid UTF-8 visible escapes (core/util/textescape.h); at most maxChars
// (UTF-8 safe cut, "..." appended). Every occurrence of each `secrets` entry is replaced with
// "[redacted]" so a server echoing a key back cannot leak it into an error.
std::string errorExcerpt(std::string_view body, const std::vector<std::string>& secrets = {},
                         std::size_t maxChars = 200);

// Replaces every occurrence of each non-empty secret with "[redacted]".
std::string redact(std::string text, const std::vector<std::string>& secrets);

// usage -> cost in USD with per-1k prices.
double costUsd(const EndpointConfig& config, std::int64_t promptTokens,
               std::int64_t completionTokens);

// The answer a parsed, ok reply gives, the one conversion of a live reply and of a Batch API
// output line (core/llm/README.md, "Batch calls"): text, embeddings, rerank scores, usage (when
// the reply has none, estimated from the request body's bytes and the text, so budgets still add
// up) and its cost at the endpoint's prices. Latency and attempts are the caller's.
LlmResponse responseFromReply(const EndpointConfig& config, ParsedReply parsed,
                              std::size_t requestBodyBytes);

// The response cache's identity of an OpenAI-compatible endpoint (core/llm/README.md, "Response
// cache"): {kind, base_url without trailing '/' and credentials (core/util/urlredact.h), model},
// plus temperature, max_tokens and seed
// for chat. HttpProvider::cacheIdentity() is this.
std::string httpCacheIdentity(const EndpointConfig& config);

}  // namespace ragscope::core::llm
