#include "core/llm/httpexchange.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "core/util/httpsafety.h"
#include "core/util/textescape.h"

namespace ragscope::core::llm {

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

size_t onBody(char* data, size_t size, size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const size_t bytes = size * n;
  if (ex->body.size() + bytes > ex->maxBytes) {
    ex->overflow = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  ex->body.append(data, bytes);
  return bytes;
}

size_t onHeader(char* data, size_t size, size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const size_t bytes = size * n;
  std::string_view line(data, bytes);
  // A new status line starts a new response (after 100 Continue or a redirect): forget headers.
  if (line.size() >= 5 && line.substr(0, 5) == "HTTP/") {
    ex->retryAfter.clear();
    ex->retryAfterMs.clear();
    return bytes;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "retry-after")
    ex->retryAfter = trimmed(std::string(line.substr(colon + 1)));
  else if (name == "retry-after-ms")
    ex->retryAfterMs = trimmed(std::string(line.substr(colon + 1)));
  return bytes;
}

bool isTlsError(CURLcode rc) {
  switch (rc) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string formatSeconds(double s) {
  char buf[32];
  if (s == static_cast<long long>(s))
    std::snprintf(buf, sizeof buf, "%lld s", static_cast<long long>(s));
  else
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

void freeHeaders(const CurlApi& curl, curl_slist* list) {
  for (curl_slist* p = list; p; p = p->next) {
    if (p->data) {
      volatile char* d = p->data;
      for (std::size_t i = 0; d[i]; ++i) d[i] = 0;
    }
  }
  curl.slist_free_all(list);
}

KeyResult resolveKey(const EndpointConfig& config, const TransportOptions& options) {
  KeyResult r;
  if (!config.apiKeyEnv.empty()) {
    const char* v = std::getenv(config.apiKeyEnv.c_str());
    if (!v || !*v) {
      r.error = "auth: environment variable " + config.apiKeyEnv + " is not set";
      return r;
    }
    r.key = v;
    return r;
  }
  if (options.apiKey) r.key = options.apiKey();
  return r;
}

curl_slist* makeHeaders(const CurlApi& curl, const std::string& key, bool json) {
  curl_slist* h = nullptr;
  if (json) h = curl.slist_append(h, "Content-Type: application/json");
  h = curl.slist_append(h, "Accept: application/json");
  // libcurl would otherwise wait for "100 Continue" before sending bodies over 1 kB.
  h = curl.slist_append(h, "Expect:");
  if (!key.empty()) {
    std::string line = "Authorization: Bearer " + key;
    h = curl.slist_append(h, line.c_str());
    std::fill(line.begin(), line.end(), '\0');
  }
  return h;
}

CURL* takeEasy(const CurlApi& curl, CURL* pooled) {
  if (!pooled) return curl.easy_init();
  curl.easy_reset(pooled);  // the policy goes with the other options: configureEasy sets it again
  return pooled;
}

bool configureEasy(const CurlApi& curl, CURL* easy, const std::string& url, curl_slist* headers,
                   Exchange& ex, double timeoutSeconds, const TransportOptions& options) {
  // http/https only, redirects never followed, TLS verified (core/util/httpsafety.h).
  if (!applyTransportPolicy(easy)) return false;
  curl.easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, &onBody);
  curl.easy_setopt(easy, CURLOPT_WRITEDATA, &ex);
  curl.easy_setopt(easy, CURLOPT_HEADERFUNCTION, &onHeader);
  curl.easy_setopt(easy, CURLOPT_HEADERDATA, &ex);
  curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, ex.errbuf);
  const auto timeoutMs = static_cast<long>(std::max(1.0, timeoutSeconds * 1000.0));
  curl.easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeoutMs);
  curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   std::min(timeoutMs, static_cast<long>(options.connectTimeoutSeconds * 1000.0)));
  if (!options.caInfo.empty()) curl.easy_setopt(easy, CURLOPT_CAINFO, options.caInfo.c_str());
  curl.easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl.easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
  curl.easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  curl.easy_setopt(easy, CURLOPT_USERAGENT, "ragscope/0.1");
  return true;
}

Failure classifyCurl(const CurlApi& curl, CURLcode rc, CURL* easy, const Exchange& ex,
                     double timeoutSeconds) {
  // libcurl's message may quote what the server sent (a status line, a header).
  std::string why = escapeControlChars(ex.errbuf[0] ? ex.errbuf : curl.easy_strerror(rc));
  if (rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY)
    return {FailureKind::Dns, why};
  if (isTlsError(rc)) return {FailureKind::Tls, why};
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    // No connect time means the connection itself never came up (connect timeout).
    curl_off_t connectUs = 0;
    curl.easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connectUs);
    if (connectUs == 0) return {FailureKind::Timeout, "while connecting (" + why + ")"};
    return {FailureKind::Timeout, "after " + formatSeconds(timeoutSeconds) + " (" + why + ")"};
  }
  if (rc == CURLE_COULDNT_CONNECT) return {FailureKind::Refused, why};
  if (rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING)
    return {FailureKind::Reset, why};
  if (rc == CURLE_PARTIAL_FILE) {
    curl_off_t expected = -1;
    curl.easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected);
    std::string d = "truncated body (" + std::to_string(ex.body.size()) + " bytes";
    if (expected >= 0) d += " of " + std::to_string(expected);
    return {FailureKind::Truncated, d + ")"};
  }
  if (rc == CURLE_WRITE_ERROR && ex.overflow)
    return {FailureKind::Malformed, "reply larger than " + std::to_string(ex.maxBytes) + " bytes"};
  // A chunked body cut short surfaces as a receive/decoding error.
  if (rc == CURLE_BAD_CONTENT_ENCODING) return {FailureKind::Truncated, why};
  return {FailureKind::Other, why};
}

std::string describe(const Failure& f, long status, int attempts) {
  std::string s;
  switch (f.kind) {
    case FailureKind::Auth:
      s = f.detail.rfind("environment variable", 0) == 0
              ? "auth: " + f.detail
              : "auth: HTTP " + std::to_string(status) + ": " + f.detail;
      break;
    case FailureKind::RateLimited:
    case FailureKind::ServerError:
    case FailureKind::HttpError:
      s = "http " + std::to_string(status);
      if (attempts > 1) s += " after " + std::to_string(attempts) + " attempts";
      if (!f.detail.empty()) s += ": " + f.detail;
      return s;
    case FailureKind::Timeout:
      s = "timeout " + f.detail;
      break;
    default:
      s = std::string(failureLabel(f.kind)) + ": " + f.detail;
      break;
  }
  if (attempts > 1) s += " (after " + std::to_string(attempts) + " attempts)";
  return s;
}

}  // namespace ragscope::core::llm
