#include "core/llm/retrypolicy.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/util/curlapi.h"

namespace ragscope::core::llm {

const char* failureLabel(FailureKind kind) {
  switch (kind) {
    case FailureKind::None:
      return "ok";
    case FailureKind::Auth:
      return "auth";
    case FailureKind::Dns:
      return "dns";
    case FailureKind::Tls:
      return "tls";
    case FailureKind::Timeout:
      return "timeout";
    case FailureKind::Refused:
      return "connection refused";
    case FailureKind::Reset:
      return "connection reset";
    case FailureKind::Truncated:
      return "malformed reply";
    case FailureKind::Unreadable:
      return "malformed reply";
    case FailureKind::RateLimited:
      return "rate limited";
    case FailureKind::ServerError:
      return "server error";
    case FailureKind::HttpError:
      return "http";
    case FailureKind::Malformed:
      return "malformed reply";
    case FailureKind::Other:
      return "transport";
  }
  return "transport";
}

bool isRetryable(FailureKind kind) {
  switch (kind) {
    case FailureKind::Timeout:
    case FailureKind::Reset:
    case FailureKind::Truncated:
    case FailureKind::Unreadable:
    case FailureKind::RateLimited:
    case FailureKind::ServerError:
      return true;
    default:
      return false;
  }
}

FailureKind classifyHttpStatus(long status) {
  // Only a 2xx carries what was asked: a 3xx (redirects are never followed) or 1xx has no reply
  // to read, and reading its body as one would take an empty file for a result.
  if (status >= 200 && status < 300) return FailureKind::None;
  if (status == 401 || status == 403) return FailureKind::Auth;
  if (status == 429) return FailureKind::RateLimited;
  if (status == 408 || status >= 500) return FailureKind::ServerError;
  return FailureKind::HttpError;
}

std::optional<double> parseRetryAfter(std::string_view value, std::time_t nowUnix) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r'))
    value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value.front()))) {
    double seconds = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || ptr != value.data() + value.size() || !std::isfinite(seconds))
      return std::nullopt;
    return std::max(0.0, seconds);
  }
  // HTTP dates: libcurl's parser knows all three forms RFC 9110 asks recipients to accept. A
  // Retry-After header comes with a reply libcurl received, so libcurl is loaded by then; without
  // it the date is not understood and the caller's own backoff applies.
  const CurlApi* curl = curlApi();
  if (!curl) return std::nullopt;
  const std::string text(value);
  const std::time_t when = curl->getdate(text.c_str(), nullptr);
  if (when == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::max(0.0, std::difftime(when, nowUnix));
}

std::chrono::duration<double> backoffDelay(int attempt, std::chrono::duration<double> base,
                                           std::chrono::duration<double> cap, double random01) {
  attempt = std::clamp(attempt, 1, 62);
  double d = std::min(cap.count(), base.count() * std::ldexp(1.0, attempt - 1));
  random01 = std::clamp(random01, 0.0, 1.0);
  return std::chrono::duration<double>(d / 2.0 + d / 2.0 * random01);
}

}  // namespace ragscope::core::llm
