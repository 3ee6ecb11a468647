#include "core/llm/llmjson.h"

#include <algorithm>
#include <cmath>

#include "core/util/urlredact.h"

namespace ragscope::core::llm {

using nlohmann::json;

std::string_view endpointKindName(EndpointKind kind) {
  switch (kind) {
    case EndpointKind::Chat:
      return "chat";
    case EndpointKind::Embeddings:
      return "embeddings";
    case EndpointKind::Rerank:
      return "rerank";
  }
  return "chat";
}

std::optional<EndpointKind> endpointKindFromName(std::string_view name) {
  if (name == "chat") return EndpointKind::Chat;
  if (name == "embeddings") return EndpointKind::Embeddings;
  if (name == "rerank") return EndpointKind::Rerank;
  return std::nullopt;
}

json responseFormatJson(const ResponseSchema& schema) {
  json parsed = json::parse(schema.schema, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) parsed = json();  // a schema is checked where it is made
  json spec = {{"name", schema.name}, {"strict", true}, {"schema", std::move(parsed)}};
  return {{"type", "json_schema"}, {"json_schema", std::move(spec)}};
}

std::optional<ResponseSchema> responseSchemaFromFormat(const json& format) {
  if (!format.is_object() || format.value("type", json()) != "json_schema") return std::nullopt;
  const auto spec = format.find("json_schema");
  if (spec == format.end() || !spec->is_object()) return std::nullopt;
  const auto name = spec->find("name");
  const auto schema = spec->find("schema");
  const auto strict = spec->find("strict");
  if (name == spec->end() || !name->is_string() || schema == spec->end() || !schema->is_object() ||
      strict == spec->end() || *strict != true)
    return std::nullopt;
  return ResponseSchema{name->get<std::string>(), schema->dump()};
}

json toJson(const LlmRequest& request) {
  json j;
  j["kind"] = endpointKindName(request.kind);
  switch (request.kind) {
    case EndpointKind::Chat: {
      json messages = json::array();
      for (const auto& m : request.messages)
        messages.push_back({{"role", m.role}, {"content", m.content}});
      j["messages"] = std::move(messages);
      break;
    }
    case EndpointKind::Embeddings:
      j["inputs"] = request.inputs;
      break;
    case EndpointKind::Rerank:
      j["query"] = request.query;
      j["documents"] = request.documents;
      break;
  }
  if (request.seed) j["seed"] = *request.seed;
  if (request.responseSchema) j["response_format"] = responseFormatJson(*request.responseSchema);
  if (!request.route.empty()) j["route"] = request.route;
  return j;
}

std::optional<LlmRequest> requestFromJson(const json& j) {
  if (!j.is_object()) return std::nullopt;
  LlmRequest r;
  try {
    const auto kind = endpointKindFromName(j.value("kind", std::string("chat")));
    if (!kind) return std::nullopt;
    r.kind = *kind;
    if (j.contains("messages")) {
      for (const auto& m : j.at("messages")) {
        r.messages.push_back({m.at("role").get<std::string>(), m.at("content").get<std::string>()});
      }
    }
    if (j.contains("inputs")) r.inputs = j.at("inputs").get<std::vector<std::string>>();
    if (j.contains("query")) r.query = j.at("query").get<std::string>();
    if (j.contains("documents")) r.documents = j.at("documents").get<std::vector<std::string>>();
    if (j.contains("seed")) r.seed = j.at("seed").get<std::int64_t>();
    if (j.contains("route")) r.route = j.at("route").get<std::string>();
    if (j.contains("response_format")) {
      r.responseSchema = responseSchemaFromFormat(j.at("response_format"));
      if (!r.responseSchema) return std::nullopt;  // a damaged record is refused, not dropped
    }
  } catch (const json::exception&) {
    return std::nullopt;
  }
  return r;
}

json responseToJson(const LlmResponse& response) {
  json j;
  j["text"] = response.text;
  if (!response.embeddings.empty()) j["embeddings"] = response.embeddings;
  if (!response.model.empty()) j["model"] = response.model;
  if (!response.rerank.empty()) {
    json rr = json::array();
    for (const auto& [index, score] : response.rerank) rr.push_back({index, score});
    j["rerank"] = std::move(rr);
  }
  j["prompt_tokens"] = response.usage.promptTokens;
  j["completion_tokens"] = response.usage.completionTokens;
  j["cost_usd"] = response.usage.costUsd;
  j["http_status"] = response.httpStatus;
  j["latency_ms"] = response.latencyMs;
  if (response.heuristic) j["heuristic"] = true;
  return j;
}

std::optional<LlmResponse> responseFromJson(const json& j) {
  if (!j.is_object()) return std::nullopt;
  LlmResponse r;
  try {
    r.status = CallStatus::Ok;
    r.text = j.value("text", std::string());
    r.model = j.value("model", std::string());
    if (j.contains("embeddings"))
      r.embeddings = j.at("embeddings").get<std::vector<std::vector<float>>>();
    if (j.contains("rerank")) {
      for (const auto& pair : j.at("rerank")) {
        r.rerank.emplace_back(pair.at(0).get<std::size_t>(), pair.at(1).get<double>());
      }
    }
    r.usage.promptTokens = j.value("prompt_tokens", std::int64_t{0});
    r.usage.completionTokens = j.value("completion_tokens", std::int64_t{0});
    r.usage.costUsd = j.value("cost_usd", 0.0);
    r.httpStatus = j.value("http_status", 0);
    r.latencyMs = j.value("latency_ms", 0.0);
    r.heuristic = j.value("heuristic", false);
  } catch (const json::exception&) {
    return std::nullopt;
  }
  return r;
}

json toJson(const EndpointConfig& c) {
  json j;
  j["name"] = c.name;
  j["kind"] = endpointKindName(c.kind);
  j["base_url"] = c.baseUrl;
  j["model"] = c.model;
  j["api_key_env"] = c.apiKeyEnv;  // the variable's name only
  j["keychain_entry"] = c.keychainEntry;
  j["temperature"] = c.temperature;
  j["max_tokens"] = c.maxTokens;
  if (c.seed) j["seed"] = *c.seed;
  j["timeout_s"] = c.timeoutSeconds;
  j["concurrency"] = c.concurrency;
  j["rpm"] = c.requestsPerMinute;
  j["tpm"] = c.tokensPerMinute;
  j["price_per_1k_input"] = c.pricePer1kInput;
  j["price_per_1k_output"] = c.pricePer1kOutput;
  if (c.batchPricePer1kInput) j["batch_price_per_1k_input"] = *c.batchPricePer1kInput;
  if (c.batchPricePer1kOutput) j["batch_price_per_1k_output"] = *c.batchPricePer1kOutput;
  j["max_retries"] = c.maxRetries;
  if (c.structuredOutputs) j["structured_outputs"] = true;
  return j;
}

json recordedEndpointJson(const EndpointConfig& c) {
  json j = toJson(c);
  j["base_url"] = redactUrl(c.baseUrl);
  return j;
}

namespace {

// The endpoint's fields by type; endpointFromJson and endpointJsonProblem share the list.
constexpr const char* kEndpointStrings[] = {"name",  "kind",        "base_url",
                                            "model", "api_key_env", "keychain_entry"};
constexpr const char* kEndpointNumbers[] = {"temperature",
                                            "max_tokens",
                                            "seed",
                                            "timeout_s",
                                            "concurrency",
                                            "rpm",
                                            "tpm",
                                            "price_per_1k_input",
                                            "price_per_1k_output",
                                            "max_retries",
                                            "batch_price_per_1k_input",
                                            "batch_price_per_1k_output"};

std::string stringField(const json& j, const char* key, std::string fallback = {}) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

double numberField(const json& j, const char* key, double fallback, double lo, double hi) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  const double v = it->get<double>();
  if (!std::isfinite(v)) return fallback;
  return std::clamp(v, lo, hi);
}

int intField(const json& j, const char* key, int fallback, int lo, int hi) {
  return static_cast<int>(std::llround(numberField(j, key, fallback, lo, hi)));
}

}  // namespace

EndpointConfig endpointFromJson(const json& j) {
  // Never throws: a field of the wrong type (a damaged or hand-made store) reads as its default;
  // endpointJsonProblem() says which, for callers that refuse such records.
  EndpointConfig c;
  if (!j.is_object()) return c;
  c.name = stringField(j, "name");
  c.kind = endpointKindFromName(stringField(j, "kind", "chat")).value_or(EndpointKind::Chat);
  c.baseUrl = stringField(j, "base_url");
  c.model = stringField(j, "model");
  c.apiKeyEnv = stringField(j, "api_key_env");
  c.keychainEntry = stringField(j, "keychain_entry");
  c.temperature = numberField(j, "temperature", 0.0, 0.0, 100.0);
  c.maxTokens = intField(j, "max_tokens", 512, 1, 1 << 24);
  if (const auto it = j.find("seed"); it != j.end() && it->is_number_integer())
    c.seed = it->get<std::int64_t>();
  c.timeoutSeconds = numberField(j, "timeout_s", 60.0, 0.001, 86400.0);
  c.concurrency = intField(j, "concurrency", 8, 1, 4096);
  c.requestsPerMinute = numberField(j, "rpm", 0.0, 0.0, 1e9);
  c.tokensPerMinute = numberField(j, "tpm", 0.0, 0.0, 1e12);
  c.pricePer1kInput = numberField(j, "price_per_1k_input", 0.0, 0.0, 1e6);
  c.pricePer1kOutput = numberField(j, "price_per_1k_output", 0.0, 0.0, 1e6);
  c.maxRetries = intField(j, "max_retries", 5, 0, 100);
  if (const auto it = j.find("structured_outputs"); it != j.end() && it->is_boolean())
    c.structuredOutputs = it->get<bool>();
  for (auto [key, field] : {std::pair{"batch_price_per_1k_input", &c.batchPricePer1kInput},
                            std::pair{"batch_price_per_1k_output", &c.batchPricePer1kOutput}})
    if (const auto it = j.find(key); it != j.end() && it->is_number())
      *field = numberField(j, key, 0.0, 0.0, 1e6);
  return c;
}

std::string endpointJsonProblem(const json& j) {
  if (!j.is_object()) return "is not a JSON object";
  for (const char* key : kEndpointStrings) {
    const auto it = j.find(key);
    if (it != j.end() && !it->is_string())
      return std::string("field \"") + key + "\" is not a string";
  }
  for (const char* key : kEndpointNumbers) {
    const auto it = j.find(key);
    if (it != j.end() && !it->is_number())
      return std::string("field \"") + key + "\" is not a number";
  }
  if (const auto it = j.find("structured_outputs"); it != j.end() && !it->is_boolean())
    return "field \"structured_outputs\" is not true or false";
  if (const auto it = j.find("kind");
      it != j.end() && !endpointKindFromName(it->get<std::string>()))
    return "field \"kind\" is not chat, embeddings or rerank";
  return {};
}

}  // namespace ragscope::core::llm
