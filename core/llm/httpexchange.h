#pragma once
// One HTTP exchange with an OpenAI-compatible endpoint, the parts shared by the multi-handle
// transport (httpprovider.cpp) and the one-shot connection test (connectiontest.cpp): the
// request headers (the key wiped before libcurl frees them), an easy handle configured under
// the transport policy (core/util/httpsafety.h), what came back (body, Retry-After) and a failed
// transfer put into words. libcurl is reached through its table (core/util/curlapi.h).
//
//   Exchange ex;
//   curl_slist* headers = makeHeaders(curl, key, true);
//   if (!configureEasy(curl, easy, url, headers, ex, timeoutSeconds, options)) ...kPolicyRefused
//   ... perform ...
//   Failure f = rc == CURLE_OK ? Failure{} : classifyCurl(curl, rc, easy, ex, timeoutSeconds);
//   freeHeaders(curl, headers);

#include <chrono>
#include <string>

#include "core/llm/httpprovider.h"
#include "core/llm/ratelimit.h"
#include "core/llm/retrypolicy.h"
#include "core/util/curlapi.h"

namespace ragscope::core::llm {

// What one HTTP exchange produced, kept per attempt.
struct Exchange {
  std::string body;
  std::string retryAfter;
  std::string retryAfterMs;
  bool overflow = false;
  std::size_t maxBytes = 0;
  char errbuf[CURL_ERROR_SIZE] = {0};
};

struct KeyResult {
  std::string key;
  std::string error;  // set when a key is configured but unavailable
};
// The endpoint's key: its environment variable, else TransportOptions::apiKey.
KeyResult resolveKey(const EndpointConfig& config, const TransportOptions& options);

// Content type (when `json`), Accept, an empty Expect, and the Authorization when `key` is set.
curl_slist* makeHeaders(const CurlApi& curl, const std::string& key, bool json);
// Wipes header strings (they hold the key) before libcurl frees them.
void freeHeaders(const CurlApi& curl, curl_slist* list);

// A handle for one exchange: `pooled` reset (every option of its last use cleared), else a new
// one; nullptr when libcurl cannot make one. configureEasy then applies the transport policy.
CURL* takeEasy(const CurlApi& curl, CURL* pooled = nullptr);

// false when the transport policy could not be set: the handle must then not be used.
bool configureEasy(const CurlApi& curl, CURL* easy, const std::string& url, curl_slist* headers,
                   Exchange& ex, double timeoutSeconds, const TransportOptions& options);

inline constexpr const char* kPolicyRefused =
    "cannot set libcurl's http/https-only transport policy";

struct Failure {
  FailureKind kind = FailureKind::None;
  std::string detail;
};

// Transport-level failure (rc != CURLE_OK) in words.
Failure classifyCurl(const CurlApi& curl, CURLcode rc, CURL* easy, const Exchange& ex,
                     double timeoutSeconds);

// The error text of a failure: "auth: HTTP 401: ...", "http 503 after 3 attempts: ...",
// "timeout after 30 s (...)", "dns: ...".
std::string describe(const Failure& f, long status, int attempts);

// "30 s", "0.25 s".
std::string formatSeconds(double s);

inline double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace ragscope::core::llm
