#pragma once
// A local OpenAI-compatible server for tests and demos: chat completions, embeddings, rerank and
// model listing on 127.0.0.1 (never any other address), with scripted misbehaviour so the
// transport's retry, timeout, cancellation and error paths can be exercised deterministically.
//
//   TestServer server({.latencyMs = 50});
//   Rule r = rule(Behaviour::RateLimit, /*times=*/2, "/chat/completions");
//   r.retryAfter = "1";
//   server.addRule(r);
//   server.start();                                   // port 0: the OS picks one
//   endpoint.baseUrl = server.baseUrl();              // "http://127.0.0.1:PORT/v1"
//   ... run calls ...
//   for (const auto& e : server.log()) ...            // what the server saw, in arrival order
//
// Rules are tried in the order added; the first one that matches a request (path suffix, body
// substring) and still has uses left decides its behaviour and uses one up. Unmatched requests get
// the normal deterministic reply: chat answers "ANSWER: " + the first 40 bytes of the last user
// message unless Options::answer says otherwise.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "testserver/batchroutes.h"

namespace ragscope::testserver {

enum class Behaviour {
  Normal,          // the proper reply (after the latency)
  Status,          // HTTP `status` with an OpenAI-style error body (and Retry-After if given)
  RateLimit,       // HTTP 429 with Retry-After: `retryAfter` (default "1")
  Slow,            // headers and a few bytes, then a pause of `stallMs`, then the rest
  Truncate,        // Content-Length of the full reply, half the bytes, then the connection closes
  Reset,           // the connection is reset (TCP RST) before any reply
  InvalidJson,     // 200 with a body that is not JSON
  TruncatedJson,   // 200 with the first half of the proper reply (its Content-Length: only a
                   // JSON parser notices, as after a proxy that cut the upstream body)
  MissingContent,  // 200 with valid JSON lacking choices[0].message.content
  Custom,          // `status` with `body` verbatim (application/json)
};

const char* behaviourName(Behaviour b);

struct Rule {
  std::string pathSuffix;    // empty: any path; else the request path must end with it
  std::string bodyContains;  // empty: any body
  int times = -1;            // uses left; -1: unlimited
  Behaviour behaviour = Behaviour::Normal;
  int status = 500;                // Status / Custom
  std::string retryAfter;          // Retry-After header value (RateLimit defaults to "1")
  int latencyMs = -1;              // -1: the server's latency
  int stallMs = 5000;              // Slow
  std::string body;                // Custom body; Status: error message override
  bool echoAuthorization = false;  // Status: put the Authorization header into the error body
};

// A rule with the given behaviour, number of uses and path suffix; set other fields afterwards.
inline Rule rule(Behaviour behaviour, int times = -1, std::string pathSuffix = {}) {
  Rule r;
  r.behaviour = behaviour;
  r.times = times;
  r.pathSuffix = std::move(pathSuffix);
  return r;
}

struct LogEntry {
  std::int64_t unixMs = 0;  // arrival, wall clock
  double startMs = 0;       // arrival, ms since the server started (steady clock)
  double endMs = 0;         // when the reply (or its headers) was handed to the socket
  std::string method;
  std::string path;
  std::string bodyHash;       // FNV-1a 64 of the body, 16 hex digits: retries share it
  std::string body;           // in memory only (never in the log file)
  std::string authorization;  // in memory only (never in the log file)
  int status = 0;             // 0 for a reset connection
  Behaviour behaviour = Behaviour::Normal;
  int inFlightAtArrival = 0;  // requests being handled when this one arrived, itself included
};

// How a chat call carrying response_format {"type": "json_schema", ...} is answered
// (core/llm/README.md, "Structured outputs"). The JSON is built from the scripted text
// (Options::answer): "- claim" lines become {"claims": [...]}, lines ending in one of the
// schema's labels {"verdicts": [{"claim": k, "label": L}]} (k the claim's number), and
// any other schema gets its smallest valid instance (first enum value, "" / 0 / true / []).
enum class ResponseFormatMode {
  Ignore,     // as if it were absent: the scripted text, as a server without the feature
  Honour,     // the schema-valid JSON
  ProseJson,  // ignored by a model that writes JSON anyway, inside prose and a code fence; for
              // every chat call, the schema then guessed from the scripted text
};

// How /v1/embeddings replies go wrong once Options::embeddingFaultAfter replies were proper (each
// later reply has the fault), for the dense retriever's checks (core/retrieval/corpusembedding.h).
enum class EmbeddingFault {
  None,
  Count,      // one vector fewer than inputs
  Dimension,  // vectors of embeddingDim + 1 components
  Overflow,   // the first vector's first component 1e300: valid JSON, infinite as a float
              // (JSON has no NaN; 1e999 is no JSON number at all: an unreadable reply)
  Null,       // the first vector's first component null (what a NaN becomes in JSON)
  Model,      // the reply names Options::faultModel instead of the requested model
};
const char* embeddingFaultName(EmbeddingFault fault);

// The JSON reply a schema-honouring server gives for `schema` (a JSON Schema as JSON text; empty:
// guessed from `text`), built from the scripted `text` as described above. A verdict line whose
// text is one of `prompt`'s "Claims:" bullets gets that claim's number, so a line left out
// leaves its claim without an entry; other lines are numbered by their position.
std::string structuredReplyFromText(const std::string& schema, const std::string& text,
                                    const std::string& prompt = {});

struct Options {
  int port = 0;                    // 0: any free port
  int latencyMs = 0;               // before every reply
  double failRate = 0.0;           // probability of an unscripted HTTP 500
  double truncatedJsonRate = 0.0;  // probability of an unscripted TruncatedJson 200
  double invalidJsonRate = 0.0;    // probability of an unscripted InvalidJson 200
  std::uint64_t seed = 1;          // for the rates
  std::string logPath;             // JSONL request log (time, path, body hash, status); empty: none
  std::string requiredApiKey;      // non-empty: other Authorization headers get 401
  int threads = 64;                // connection handler threads (concurrent requests)
  int embeddingDim = 8;
  // Normal replies are compressed when the client accepts it (cpp-httplib picks brotli at its
  // slowest quality): false sends them plain, as vLLM and TEI do, so a benchmark measures the
  // client rather than the server's compressor.
  bool compressReplies = true;
  EmbeddingFault embeddingFault = EmbeddingFault::None;
  int embeddingFaultAfter = 0;  // proper embeddings replies before the fault begins
  std::string faultModel = "switched-model";
  std::vector<std::string> models = {"test-model"};
  std::function<std::string(const std::string& lastUserMessage)> answer;  // chat reply text
  ResponseFormatMode responseFormat = ResponseFormatMode::Ignore;
  // Documents (id, text) for the two retrieval endpoints, which stand in for a search service:
  //   POST .../_search   OpenSearch/Elasticsearch: {"size", "query": {"match" | "multi_match"}}
  //                      -> {"hits": {"hits": [{"_id", "_score", "_source": {"text"}}]}}
  //   POST .../retrieve  ragscope's generic HTTP retriever: {"query", "k"} -> [{"id", "score",
  //   "text"}]
  // Both rank by overlapScore(query, text), ties by id, and leave out documents scoring 0.
  // A kNN _search (Elasticsearch's top-level "knn" {"field", "query_vector", "k",
  // "num_candidates"}, or OpenSearch's "query": {"knn": {FIELD: {"vector", "k"}}}) ranks instead
  // by the inner product of the query vector with each document's embed(text) scaled to unit
  // length (knnSearch), ties by id.
  std::vector<std::pair<std::string, std::string>> documents;
  // GET / (any path ending in "/"): a search server's root. "elasticsearch": Elasticsearch
  // 8.15.0's reply; "opensearch": OpenSearch 2.17.0's; any other non-empty text: that body
  // verbatim (200); empty: 404.
  std::string searchRoot;
};

class TestServer {
 public:
  explicit TestServer(Options options = {});
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  bool start();  // binds 127.0.0.1 and serves on a thread; false if binding failed
  void stop();   // interrupts latencies and stalls, closes the socket, joins
  int port() const { return m_port; }
  std::string baseUrl() const;  // "http://127.0.0.1:PORT/v1"

  void addRule(Rule rule);
  void clearRules();
  void setLatencyMs(int ms);
  void setFailRate(double p);

  std::vector<LogEntry> log() const;
  std::size_t requestCount() const;
  void clearLog();
  int inFlight() const { return m_inFlight.load(); }
  int maxInFlight() const { return m_maxInFlight.load(); }
  void resetMaxInFlight() { m_maxInFlight = m_inFlight.load(); }

  // The Batch API routes (testserver/batchroutes.h): how batches run, what they counted, the
  // input files uploaded, and the chat requests sent outside batches.
  void setBatchOptions(BatchServerOptions options);
  BatchCounters batchCounters() const;
  std::vector<std::string> uploadedBatchFiles() const;
  std::size_t chatRequests() const;
  // Embeddings requests answered with a body (proper or faulty; not scripted errors) and the
  // inputs they held.
  std::size_t embeddingRequests() const;
  std::size_t embeddingInputs() const;
  // Changes Options::embeddingFault and embeddingFaultAfter (counted from the next request).
  void setEmbeddingFault(EmbeddingFault fault, int after = 0);

  static std::string defaultAnswer(const std::string& lastUserMessage);
  static std::string hashBody(std::string_view body);
  // Deterministic unit-length-ish embedding of `text` (what the server returns).
  static std::vector<float> embed(std::string_view text, int dim);
  // Fraction of the query's lower-cased words that occur in the document (the rerank score).
  static double overlapScore(std::string_view query, std::string_view document);
  // The top k of `documents` for a kNN query vector, as a kNN _search ranks them.
  static std::vector<std::pair<std::size_t, double>> knnSearch(
      const std::vector<std::pair<std::string, std::string>>& documents,
      const std::vector<float>& query, int dim, std::size_t k);
  // The top k of `documents` for `query`, as the retrieval endpoints rank them.
  static std::vector<std::pair<std::size_t, double>> search(
      const std::vector<std::pair<std::string, std::string>>& documents, std::string_view query,
      std::size_t k);

  struct Impl;

 private:
  std::unique_ptr<Impl> m_impl;
  int m_port = 0;
  std::atomic<int> m_inFlight{0};
  std::atomic<int> m_maxInFlight{0};
  friend struct Impl;
};

}  // namespace ragscope::testserver
