// The endpoint editor's "test connection" (core/llm/httpprovider.h): one GET {base}/models on a
// plain easy handle, no retries, with the same headers, transport policy and error wording as a
// call of the multi-handle transport (core/llm/httpexchange.h).

#include <algorithm>

#include "core/llm/httpexchange.h"
#include "core/llm/httpprovider.h"
#include "core/llm/openaiformat.h"

namespace ragscope::core::llm {

ConnectionTest testConnection(const EndpointConfig& config, const TransportOptions& options) {
  ConnectionTest result;
  std::string missing;
  const CurlApi* curl = curlApi(&missing);  // libcurl is loaded on the first request
  if (!curl) {
    result.error = describe({FailureKind::Other, missing}, 0, 1);
    return result;
  }
  KeyResult key = resolveKey(config, options);
  if (!key.error.empty()) {
    result.error = key.error;
    return result;
  }
  const std::vector<std::string> secrets =
      key.key.empty() ? std::vector<std::string>{} : std::vector<std::string>{key.key};
  const std::string url = joinUrl(config.baseUrl, "/models");
  CURL* easy = takeEasy(*curl);
  Exchange ex;
  ex.maxBytes = options.maxReplyBytes;
  curl_slist* headers = makeHeaders(*curl, key.key, false);
  std::fill(key.key.begin(), key.key.end(), '\0');
  const double timeout = std::min(config.timeoutSeconds, 30.0);
  if (!easy || !configureEasy(*curl, easy, url, headers, ex, timeout, options)) {
    freeHeaders(*curl, headers);
    if (easy) curl->easy_cleanup(easy);
    result.error = kPolicyRefused;
    return result;
  }
  curl->easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  const auto start = Clock::now();
  CURLcode rc = curl->easy_perform(easy);
  result.latencyMs = msBetween(start, Clock::now());
  long status = 0;
  curl->easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  result.httpStatus = static_cast<int>(status);
  Failure failure;
  if (rc != CURLE_OK) {
    failure = classifyCurl(*curl, rc, easy, ex, std::min(config.timeoutSeconds, 30.0));
  } else {
    failure.kind = classifyHttpStatus(status);
    if (failure.kind != FailureKind::None) failure.detail = errorExcerpt(ex.body, secrets);
  }
  freeHeaders(*curl, headers);
  curl->easy_cleanup(easy);
  if (failure.kind == FailureKind::None) {
    std::string why;
    result.modelIds = parseModelList(ex.body, &why);
    if (!why.empty()) failure = {FailureKind::Malformed, why};
  }
  if (failure.kind != FailureKind::None) {
    result.error = redact(describe(failure, status, 1), secrets);
    return result;
  }
  result.ok = true;
  result.modelFound = std::find(result.modelIds.begin(), result.modelIds.end(), config.model) !=
                      result.modelIds.end();
  return result;
}

std::vector<std::string> listModels(const EndpointConfig& config, std::string* error,
                                    const TransportOptions& options) {
  ConnectionTest t = testConnection(config, options);
  if (error) *error = t.error;
  return t.modelIds;
}

}  // namespace ragscope::core::llm
