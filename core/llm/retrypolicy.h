#pragma once
// When and how long to wait before retrying a failed call (core/llm/README.md): exponential backoff
// with jitter on 429, 5xx, timeouts, connection resets, truncated bodies and 2xx bodies that are
// not JSON (cut short by a proxy, an HTML error page: faults of the way there, not of the request);
// `Retry-After` honoured (delta-seconds or an HTTP date); everything else (auth, DNS, TLS, other
// 4xx, well-formed JSON without the fields we need) fails at once because trying again cannot help.
//
//   auto wait = backoffDelay(attempt, opts.retryBase, opts.retryMax, uniform01(rng));
//   if (auto ra = parseRetryAfter(header, std::time(nullptr))) wait = std::max(wait, *ra);

#include <chrono>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace ragscope::core::llm {

enum class FailureKind {
  None,
  Auth,         // HTTP 401/403
  Dns,          // host name did not resolve
  Tls,          // handshake or certificate verification failed
  Timeout,      // connect or whole-transfer timeout
  Refused,      // nothing listening
  Reset,        // connection reset / closed with no reply / send or receive error
  Truncated,    // body shorter than Content-Length (or chunked stream cut)
  RateLimited,  // HTTP 429
  ServerError,  // HTTP 5xx (and 408)
  HttpError,    // other HTTP status >= 400
  Unreadable,   // 2xx whose body is empty or not JSON (e.g. cut short with a matching length)
  Malformed,    // 2xx with JSON we cannot use (fields missing, too deep, too large)
  Other,        // any other transport error
};

// The lower-case prefix used in error texts: "auth", "dns", "tls", "timeout", ...
const char* failureLabel(FailureKind kind);
bool isRetryable(FailureKind kind);
// Failure kind of an HTTP status: None for 2xx only; 1xx and 3xx are HttpError.
FailureKind classifyHttpStatus(long status);

// Retry-After header value -> seconds to wait from now. Accepts delta-seconds (also fractional,
// as some gateways send "1.5") and HTTP dates (IMF-fixdate, RFC 850, asctime); a date in the past
// gives 0. nullopt for an empty or unparseable value.
std::optional<double> parseRetryAfter(std::string_view value, std::time_t nowUnix);

// Exponential backoff with "equal jitter": d = min(cap, base * 2^(attempt-1)), wait in
// [d/2, d] using random01 in [0,1). attempt counts from 1 (the first retry).
std::chrono::duration<double> backoffDelay(int attempt, std::chrono::duration<double> base,
                                           std::chrono::duration<double> cap, double random01);

}  // namespace ragscope::core::llm
