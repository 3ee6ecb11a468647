#pragma once
// The Batch API's requests (core/llm/README.md, "Batch calls"): upload a file (POST {base}/files,
// purpose "batch", multipart), create a batch (POST {base}/batches, completion window 24h), read
// it (GET {base}/batches/ID), cancel it (POST {base}/batches/ID/cancel) and download a file
// (GET {base}/files/ID/content, streamed to a file). One blocking request each, on the caller's
// thread, under the one transport policy (core/util/httpsafety.h) with the same headers, key
// handling and error wording as the calls of the HTTP transport (core/llm/httpexchange.h). The key
// is read for each request and sent only as `Authorization: Bearer`; callers send to an endpoint
// the user confirmed (core/llm/trustedendpoints.h), as for live calls.
//
//   BatchClient client(endpoint);
//   auto file = client.uploadFile(text, "calls.jsonl", &error);
//   auto batch = client.createBatch(*file, "/v1/chat/completions", &error);
//   while (!isTerminalBatchStatus(batch->status)) batch = client.getBatch(batch->id, &error);
//   client.downloadFile(batch->outputFileId, "run.db.batch_1-output.jsonl", 2 << 30, &error);

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "core/llm/batchformat.h"
#include "core/llm/httpprovider.h"

namespace ragscope::core::llm {

class BatchClient {
 public:
  explicit BatchClient(EndpointConfig config, TransportOptions options = {});

  std::optional<std::string> uploadFile(std::string_view content, std::string_view filename,
                                        std::string* error) const;
  std::optional<BatchObject> createBatch(std::string_view inputFileId, std::string_view url,
                                         std::string* error) const;
  std::optional<BatchObject> getBatch(std::string_view id, std::string* error) const;
  std::optional<BatchObject> cancelBatch(std::string_view id, std::string* error) const;
  // A file's content, at most maxBytes, streamed to `to` (core/util/atomicfile.h: a fresh
  // private file beside it, renamed over it once complete), never held in memory. Only a 2xx
  // reply with the whole body counts; anything else leaves no file and sets *error.
  bool downloadFile(std::string_view fileId, const std::filesystem::path& to,
                    std::uint64_t maxBytes, std::string* error) const;

  // A failure worth asking again (timeouts, resets, 429, 5xx), as opposed to one that repeats.
  // Set by the last request that failed.
  bool lastFailureTransient() const { return m_transient; }

 private:
  struct Reply {
    bool ok = false;
    long status = 0;
    std::string body;
  };
  // `sink`, when given, receives the body of a 2xx reply instead of Reply::body (which then
  // keeps only the start of an error reply, for its message).
  Reply request(const char* method, const std::string& path, std::string_view body,
                const std::string& contentType, std::uint64_t maxBytes, double timeoutSeconds,
                std::string* error, std::ostream* sink = nullptr) const;

  EndpointConfig m_config;
  TransportOptions m_options;
  mutable bool m_transient = false;
};

// The multipart/form-data body of a file upload: fields purpose=batch and file (named
// `filename`, application/jsonl), with `boundary` (which must not occur in `content`).
std::string batchUploadBody(std::string_view boundary, std::string_view content,
                            std::string_view filename);

}  // namespace ragscope::core::llm
