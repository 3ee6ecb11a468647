#pragma once
// The connection test's probe for structured outputs (core/llm/README.md, "Structured
// outputs"): one small chat call carrying response_format with a JSON schema, built by the same
// request builder as every call (openaiformat.h), whose reply tells whether the server honours
// the schema. The question does not mention JSON, so a server that ignores response_format
// answers in prose and is found out; a server that refuses the field (HTTP 400 / 422) does not
// honour it either; a call that fails otherwise (network, auth, 5xx) decides nothing.
//
//   StructuredProbe p = probeStructuredOutputs(endpoint, transport);   // blocking
//   p.support == StructuredSupport::Yes;  p.detail;                    // why, for people

#include <string>
#include <string_view>

#include "core/llm/httpprovider.h"
#include "core/llm/provider.h"

namespace ragscope::core::llm {

enum class StructuredSupport { Unknown, Yes, No };
std::string_view structuredSupportName(StructuredSupport s);  // "unknown", "yes", "no"

struct StructuredProbe {
  StructuredSupport support = StructuredSupport::Unknown;
  std::string detail;  // the reply or the failure, in words
  int httpStatus = 0;
  double latencyMs = 0.0;
};

// The probe's call: "Is 7 a prime number?" with the schema
// {"type":"object","properties":{"answer":{"type":"string","enum":["yes","no"]}},
//  "required":["answer"],"additionalProperties":false} named "ragscope_probe".
LlmRequest structuredProbeRequest();
// Yes when `content` is exactly a JSON object of that schema; No otherwise (*detail says why).
StructuredSupport judgeStructuredProbeReply(std::string_view content, std::string* detail);

// Blocking (at most the endpoint's timeout, capped at 30 s; no retries): call on a worker
// thread. Offline and non-chat endpoints are not probed (Unknown, with a detail saying so).
StructuredProbe probeStructuredOutputs(const EndpointConfig& config,
                                       const TransportOptions& options = {});

}  // namespace ragscope::core::llm
