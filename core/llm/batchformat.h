#pragma once
// The Batch API's file and object formats (core/llm/README.md, "Batch calls") as pure functions:
// input lines for a batch file, strict readers of output lines and of batch objects. The same
// JSONL is read and written by OpenAI's Batch API and by vLLM's batch runner
// (vllm.entrypoints.openai.run_batch). No I/O here: core/llm/batchclient.h talks to the server,
// core/eval/engine/batchrun.h moves calls between a run store and these files.
//
//   std::string line = batchInputLine("gen:q1", "/v1/chat/completions", body);
//   auto out = parseBatchOutputLine(outputLine, &error);   // nullopt: *error names the field
//   auto batch = parseBatchObject(replyBody, &error);

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

// One input file holds at most 50,000 requests and 200 MB (the Batch API's limits); longer
// exports are split.
inline constexpr std::size_t kBatchMaxLines = 50000;
inline constexpr std::uint64_t kBatchMaxFileBytes = 200'000'000;
// An output line longer than this is refused unread (a live reply is capped at 64 MiB).
inline constexpr std::size_t kBatchMaxOutputLineBytes = std::size_t{65} << 20;
// A custom_id longer than this is not one of ours (item keys are short).
inline constexpr std::size_t kBatchMaxCustomIdBytes = 4096;

// The url of a batch line for an endpoint kind: "/v1/chat/completions", "/v1/embeddings";
// nullopt for rerank, which the Batch API does not offer.
std::optional<std::string> batchUrl(EndpointKind kind);

// {"body":<body>,"custom_id":"...","method":"POST","url":"..."} (sorted keys, no whitespace).
// `body` is embedded byte for byte: it must be the JSON text the live call sends
// (buildRequestBody), so the batch asks exactly what the live call would.
std::string batchInputLine(std::string_view customId, std::string_view url, std::string_view body);

// One line of a batch output or error file:
//   {"id", "custom_id", "response": {"status_code", "request_id", "body"} | null,
//    "error": {"code", "message"} | null}
struct BatchOutputLine {
  std::string customId;
  bool hasResponse = false;
  int statusCode = 0;     // response.status_code
  std::string body;       // response.body as JSON text (a string body: the string itself)
  std::string model;      // response.body.model, the model the reply says answered (may be empty)
  bool hasError = false;  // a non-null "error"
  std::string errorCode;  // error.code (may be empty)
  std::string errorText;  // error.message (may be empty)
  bool succeeded() const {
    return hasResponse && !hasError && statusCode >= 200 && statusCode < 300;
  }
};
// Strict: a line that is not an object, lacks custom_id, or has a field of another type gives
// nullopt with *error naming the field ("response.status_code is not an integer").
std::optional<BatchOutputLine> parseBatchOutputLine(std::string_view line, std::string* error);

struct BatchRequestCounts {
  std::int64_t total = 0;
  std::int64_t completed = 0;
  std::int64_t failed = 0;
};

// A batch object (POST /v1/batches, GET /v1/batches/ID).
struct BatchObject {
  std::string id;
  std::string status;  // validating, in_progress, finalizing, completed, expired, cancelling,
                       // cancelled, failed
  std::string endpoint;
  std::string inputFileId;
  std::string outputFileId;  // empty until there is one
  std::string errorFileId;   // empty until there is one
  BatchRequestCounts counts;
  std::vector<std::string> errors;  // errors.data[].message ("line 3: ..." when a line is named)
};
std::optional<BatchObject> parseBatchObject(std::string_view body, std::string* error);

// True when a reply naming `replied` answers a request for `asked`: the same name, or a dated
// snapshot of it (OpenAI answers "gpt-4o-mini" as "gpt-4o-mini-2024-07-18"). An empty name
// matches nothing.
bool replyModelMatches(std::string_view replied, std::string_view asked);

bool isKnownBatchStatus(std::string_view status);
// completed, expired, cancelled, failed: nothing changes any more.
bool isTerminalBatchStatus(std::string_view status);

// A file object's id (POST /v1/files).
std::optional<std::string> parseFileId(std::string_view body, std::string* error);

// True for ids that may go into a URL path as they are (letters, digits, '-', '_', '.'; at most
// 256 bytes): an id from a server or a store never steers a request elsewhere.
bool isSafeBatchId(std::string_view id);

}  // namespace ragscope::core::llm
