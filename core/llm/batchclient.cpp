// The Batch API's requests (core/llm/batchclient.h): one easy handle per request, configured like
// every exchange of the HTTP transport (core/llm/httpexchange.h).

#include "core/llm/batchclient.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "core/llm/httpexchange.h"
#include "core/llm/openaiformat.h"
#include "core/util/atomicfile.h"

namespace ragscope::core::llm {

namespace {

// Uploads and downloads of files up to 200 MB take longer than one chat call.
constexpr double kBatchFileTimeoutSeconds = 1800.0;
constexpr std::size_t kBatchObjectMaxBytes = 4u << 20;
// What is kept of an error reply to a download, for its message.
constexpr std::size_t kDownloadErrorExcerptBytes = 64u << 10;

// Where a download's body goes: the file being written, for a 2xx reply only.
struct DownloadSink {
  const CurlApi* curl = nullptr;
  CURL* easy = nullptr;
  Exchange* exchange = nullptr;
  std::ostream* out = nullptr;
  std::uint64_t written = 0;
  std::uint64_t maxBytes = 0;
  bool writeFailed = false;
};

size_t onDownloadBody(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  const size_t bytes = size * n;
  long status = 0;
  sink->curl->easy_getinfo(sink->easy, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    // Not the file: its start says why, the rest is not wanted.
    std::string& excerpt = sink->exchange->body;
    if (excerpt.size() < kDownloadErrorExcerptBytes)
      excerpt.append(data, std::min(bytes, kDownloadErrorExcerptBytes - excerpt.size()));
    return bytes;
  }
  if (sink->written + bytes > sink->maxBytes) {
    sink->exchange->overflow = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  sink->out->write(data, static_cast<std::streamsize>(bytes));
  if (!*sink->out) {
    sink->writeFailed = true;
    return 0;
  }
  sink->written += bytes;
  return bytes;
}

std::string randomBoundary() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string b = "ragscope-batch-";
  for (int i = 0; i < 32; ++i) b += kDigits[rng() % 36];
  return b;
}

// The file name in a Content-Disposition header: its characters kept plain.
std::string plainFileName(std::string_view name) {
  std::string out;
  for (char c : name)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return out.empty() ? std::string("calls.jsonl") : out;
}

}  // namespace

std::string batchUploadBody(std::string_view boundary, std::string_view content,
                            std::string_view filename) {
  std::string body;
  body.reserve(content.size() + 512);
  body += "--";
  body += boundary;
  body += "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--";
  body += boundary;
  body += "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"";
  body += plainFileName(filename);
  body += "\"\r\nContent-Type: application/jsonl\r\n\r\n";
  body += content;
  body += "\r\n--";
  body += boundary;
  body += "--\r\n";
  return body;
}

BatchClient::BatchClient(EndpointConfig config, TransportOptions options)
    : m_config(std::move(config)), m_options(std::move(options)) {}

BatchClient::Reply BatchClient::request(const char* method, const std::string& path,
                                        std::string_view body, const std::string& contentType,
                                        std::uint64_t maxBytes, double timeoutSeconds,
                                        std::string* error, std::ostream* sink) const {
  Reply reply;
  m_transient = false;
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return reply;
  };
  std::string missing;
  const CurlApi* curl = curlApi(&missing);  // libcurl is loaded on the first request
  if (!curl) return fail(describe({FailureKind::Other, missing}, 0, 1));
  KeyResult key = resolveKey(m_config, m_options);
  if (!key.error.empty()) return fail(key.error);
  const std::vector<std::string> secrets =
      key.key.empty() ? std::vector<std::string>{} : std::vector<std::string>{key.key};
  const std::string url = joinUrl(m_config.baseUrl, path);
  CURL* easy = takeEasy(*curl);
  Exchange ex;
  ex.maxBytes = static_cast<std::size_t>(maxBytes);
  curl_slist* headers = makeHeaders(*curl, key.key, false);
  std::fill(key.key.begin(), key.key.end(), '\0');
  if (!contentType.empty())
    headers = curl->slist_append(headers, ("Content-Type: " + contentType).c_str());
  if (!easy || !configureEasy(*curl, easy, url, headers, ex, timeoutSeconds, m_options)) {
    freeHeaders(*curl, headers);
    if (easy) curl->easy_cleanup(easy);
    return fail(kPolicyRefused);
  }
  DownloadSink download{curl, easy, &ex, sink, 0, maxBytes, false};
  if (sink) {
    curl->easy_setopt(easy, CURLOPT_WRITEFUNCTION, &onDownloadBody);
    curl->easy_setopt(easy, CURLOPT_WRITEDATA, &download);
  }
  if (std::string_view(method) == "POST") {
    curl->easy_setopt(easy, CURLOPT_POST, 1L);
    curl->easy_setopt(easy, CURLOPT_POSTFIELDS, body.data());
    curl->easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  } else {
    curl->easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  }
  const CURLcode rc = curl->easy_perform(easy);
  long status = 0;
  curl->easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  Failure failure;
  if (rc != CURLE_OK) {
    failure = download.writeFailed ? Failure{FailureKind::Other, "cannot write the downloaded file"}
                                   : classifyCurl(*curl, rc, easy, ex, timeoutSeconds);
  } else {
    failure.kind = classifyHttpStatus(status);
    if (failure.kind != FailureKind::None) failure.detail = errorExcerpt(ex.body, secrets);
  }
  freeHeaders(*curl, headers);
  curl->easy_cleanup(easy);
  reply.status = status;
  if (failure.kind != FailureKind::None) {
    m_transient = isRetryable(failure.kind);
    return fail(
        redact(std::string(method) + " " + path + ": " + describe(failure, status, 1), secrets));
  }
  reply.ok = true;
  reply.body = std::move(ex.body);
  return reply;
}

std::optional<std::string> BatchClient::uploadFile(std::string_view content,
                                                   std::string_view filename,
                                                   std::string* error) const {
  std::string boundary = randomBoundary();
  while (content.find(boundary) != std::string_view::npos) boundary = randomBoundary();
  const Reply r = request("POST", "/files", batchUploadBody(boundary, content, filename),
                          "multipart/form-data; boundary=" + boundary, kBatchObjectMaxBytes,
                          std::max(m_config.timeoutSeconds, kBatchFileTimeoutSeconds), error);
  if (!r.ok) return std::nullopt;
  std::string why;
  auto id = parseFileId(r.body, &why);
  if (!id && error) *error = "POST /files: malformed reply: " + why;
  return id;
}

std::optional<BatchObject> BatchClient::createBatch(std::string_view inputFileId,
                                                    std::string_view url,
                                                    std::string* error) const {
  const nlohmann::json body = {{"input_file_id", std::string(inputFileId)},
                               {"endpoint", std::string(url)},
                               {"completion_window", "24h"}};
  const Reply r = request("POST", "/batches", body.dump(), "application/json", kBatchObjectMaxBytes,
                          m_config.timeoutSeconds, error);
  if (!r.ok) return std::nullopt;
  std::string why;
  auto batch = parseBatchObject(r.body, &why);
  if (!batch && error) *error = "POST /batches: malformed reply: " + why;
  return batch;
}

std::optional<BatchObject> BatchClient::getBatch(std::string_view id, std::string* error) const {
  if (!isSafeBatchId(id)) {
    if (error) *error = "not a batch id: \"" + std::string(id.substr(0, 80)) + "\"";
    return std::nullopt;
  }
  const std::string path = "/batches/" + std::string(id);
  const Reply r =
      request("GET", path, {}, {}, kBatchObjectMaxBytes, m_config.timeoutSeconds, error);
  if (!r.ok) return std::nullopt;
  std::string why;
  auto batch = parseBatchObject(r.body, &why);
  if (!batch && error) *error = "GET " + path + ": malformed reply: " + why;
  if (batch && batch->id != id) {
    if (error) *error = "GET " + path + ": the reply is about another batch";
    return std::nullopt;
  }
  return batch;
}

std::optional<BatchObject> BatchClient::cancelBatch(std::string_view id, std::string* error) const {
  if (!isSafeBatchId(id)) {
    if (error) *error = "not a batch id: \"" + std::string(id.substr(0, 80)) + "\"";
    return std::nullopt;
  }
  const std::string path = "/batches/" + std::string(id) + "/cancel";
  const Reply r = request("POST", path, "{}", "application/json", kBatchObjectMaxBytes,
                          m_config.timeoutSeconds, error);
  if (!r.ok) return std::nullopt;
  std::string why;
  auto batch = parseBatchObject(r.body, &why);
  if (!batch && error) *error = "POST " + path + ": malformed reply: " + why;
  return batch;
}

bool BatchClient::downloadFile(std::string_view fileId, const std::filesystem::path& to,
                               std::uint64_t maxBytes, std::string* error) const {
  if (!isSafeBatchId(fileId)) {
    if (error) *error = "not a file id: \"" + std::string(fileId.substr(0, 80)) + "\"";
    return false;
  }
  const std::string path = "/files/" + std::string(fileId) + "/content";
  std::string requestError, writeError;
  bool received = false;
  // The reply streams into the safe writer's fresh private file, renamed over `to` only once the
  // whole body of a 2xx reply is in it: a failed or cut download leaves nothing under `to`.
  const bool written = writeFileAtomically(
      to,
      [&](std::ostream& out) {
        const Reply r = request("GET", path, {}, {}, maxBytes,
                                std::max(m_config.timeoutSeconds, kBatchFileTimeoutSeconds),
                                &requestError, &out);
        received = r.ok;
        return r.ok && static_cast<bool>(out.flush());
      },
      &writeError, /*fsyncFile=*/false, FileAccess::Private);
  if (!received) {
    if (error) *error = requestError.empty() ? writeError : requestError;
    return false;
  }
  if (!written) {
    if (error) *error = writeError;
    return false;
  }
  return true;
}

}  // namespace ragscope::core::llm
