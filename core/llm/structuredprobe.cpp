#include "core/llm/structuredprobe.h"

#include <algorithm>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/data/jsonguard.h"
#include "core/llm/providerfactory.h"
#include "core/util/jsonstrict.h"
#include "core/util/textescape.h"

namespace ragscope::core::llm {

namespace {

using nlohmann::json;

// A reply longer than this is not the one-member object the schema allows.
constexpr std::size_t kMaxProbeReplyBytes = 4096;

std::string probeExcerpt(std::string_view text) {
  std::string s = escapeControlChars(text.substr(0, std::min<std::size_t>(text.size(), 80)));
  return text.size() > 80 ? s + "..." : s;
}

}  // namespace

std::string_view structuredSupportName(StructuredSupport s) {
  switch (s) {
    case StructuredSupport::Yes:
      return "yes";
    case StructuredSupport::No:
      return "no";
    case StructuredSupport::Unknown:
      return "unknown";
  }
  return "unknown";
}

LlmRequest structuredProbeRequest() {
  static const std::string schema = json{
      {"type", "object"},
      {"properties", {{"answer", {{"type", "string"}, {"enum", {"yes", "no"}}}}}},
      {"required", {"answer"}},
      {"additionalProperties", false}}.dump();
  LlmRequest r;
  r.kind = EndpointKind::Chat;
  r.messages = {{"user", "Is 7 a prime number?"}};
  r.responseSchema = ResponseSchema{"ragscope_probe", schema};
  return r;
}

StructuredSupport judgeStructuredProbeReply(std::string_view content, std::string* detail) {
  auto no = [&](std::string why) {
    if (detail) *detail = std::move(why);
    return StructuredSupport::No;
  };
  if (content.size() > kMaxProbeReplyBytes)
    return no("the reply is " + std::to_string(content.size()) +
              " bytes, not the one-member JSON object the schema allows");
  if (auto deep = checkJsonDepth(content, 8)) return no("the reply is not that JSON: " + *deep);
  json j;
  if (JsonStrictError why; !parseJsonStrict(content, j, &why, 8))
    return no(why.repeated ? "the reply is not strict JSON: " + describeJsonStrictError(why)
                           : "the reply is not JSON: \"" + probeExcerpt(content) + "\"");
  if (!j.is_object() || j.size() != 1 || !j.contains("answer"))
    return no("the reply is JSON of another shape: " + probeExcerpt(j.dump()));
  const json& a = j["answer"];
  if (!a.is_string() || (a != "yes" && a != "no"))
    return no("\"answer\" is not \"yes\" or \"no\": " + probeExcerpt(a.dump()));
  if (detail) *detail = "the reply followed the schema: " + j.dump();
  return StructuredSupport::Yes;
}

StructuredProbe probeStructuredOutputs(const EndpointConfig& config,
                                       const TransportOptions& options) {
  StructuredProbe out;
  if (isOfflineEndpoint(config)) {
    out.detail = "the offline heuristic provider writes text; it is never asked for JSON";
    return out;
  }
  if (config.kind != EndpointKind::Chat) {
    out.detail = "only chat endpoints are asked for structured outputs";
    return out;
  }
  EndpointConfig probe = config;
  probe.maxRetries = 0;
  probe.concurrency = 1;
  probe.timeoutSeconds = std::min(config.timeoutSeconds, 30.0);
  auto provider = makeHttpProvider(probe, options);
  auto promise = std::make_shared<std::promise<LlmResponse>>();
  auto future = promise->get_future();
  provider->submit(structuredProbeRequest(),
                   [promise](LlmResponse r) { promise->set_value(std::move(r)); });
  const LlmResponse r = future.get();
  provider->waitIdle();
  out.httpStatus = r.httpStatus;
  out.latencyMs = r.latencyMs;
  if (r.status == CallStatus::Ok) {
    out.support = judgeStructuredProbeReply(r.text, &out.detail);
    return out;
  }
  // A server that rejects the request for its response_format refuses the feature; any other
  // failure says nothing about it.
  if (r.httpStatus == 400 || r.httpStatus == 422) {
    out.support = StructuredSupport::No;
    out.detail = "the server refused a request with response_format: " + r.error;
  } else {
    out.detail = "the probe call failed: " + r.error;
  }
  return out;
}

}  // namespace ragscope::core::llm
