#include "core/llm/llmjson.h"

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

json toJson(const LlmRequest& request) {
  json j;
  j["kind"] = endpointKindName(request.kind);
  switch (request.kind) {
    case EndpointKind::Chat: {
      json messages = json::array();
      for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
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
  return j;
}

std::optional<LlmRequest> requestFromJson(const json& j) {
  if (!j.is_object()) return std::nullopt;
  LlmRequest r;
  const auto kind = endpointKindFromName(j.value("kind", std::string("chat")));
  if (!kind) return std::nullopt;
  r.kind = *kind;
  try {
    if (j.contains("messages")) {
      for (const auto& m : j.at("messages")) {
        r.messages.push_back({m.at("role").get<std::string>(), m.at("content").get<std::string>()});
      }
    }
    if (j.contains("inputs")) r.inputs = j.at("inputs").get<std::vector<std::string>>();
    if (j.contains("query")) r.query = j.at("query").get<std::string>();
    if (j.contains("documents")) r.documents = j.at("documents").get<std::vector<std::string>>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
  return r;
}

json responseToJson(const LlmResponse& response) {
  json j;
  j["text"] = response.text;
  if (!response.embeddings.empty()) j["embeddings"] = response.embeddings;
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
    if (j.contains("embeddings")) r.embeddings = j.at("embeddings").get<std::vector<std::vector<float>>>();
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
  j["max_retries"] = c.maxRetries;
  return j;
}

EndpointConfig endpointFromJson(const json& j) {
  EndpointConfig c;
  if (!j.is_object()) return c;
  c.name = j.value("name", std::string());
  c.kind = endpointKindFromName(j.value("kind", std::string("chat"))).value_or(EndpointKind::Chat);
  c.baseUrl = j.value("base_url", std::string());
  c.model = j.value("model", std::string());
  c.apiKeyEnv = j.value("api_key_env", std::string());
  c.keychainEntry = j.value("keychain_entry", std::string());
  c.temperature = j.value("temperature", 0.0);
  c.maxTokens = j.value("max_tokens", 512);
  if (j.contains("seed") && j.at("seed").is_number_integer()) c.seed = j.at("seed").get<std::int64_t>();
  c.timeoutSeconds = j.value("timeout_s", 60.0);
  c.concurrency = j.value("concurrency", 8);
  c.requestsPerMinute = j.value("rpm", 0.0);
  c.tokensPerMinute = j.value("tpm", 0.0);
  c.pricePer1kInput = j.value("price_per_1k_input", 0.0);
  c.pricePer1kOutput = j.value("price_per_1k_output", 0.0);
  c.maxRetries = j.value("max_retries", 5);
  return c;
}

}  // namespace ragscope::core::llm
