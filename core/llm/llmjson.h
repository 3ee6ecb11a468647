#pragma once
// JSON forms of the provider types, for the run store (requests of work items, endpoint settings)
// and the response cache. An endpoint's JSON holds where its key lives (apiKeyEnv, keychainEntry:
// names), never a key: EndpointConfig has no field that could hold one.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

std::string_view endpointKindName(EndpointKind kind);  // "chat", "embeddings", "rerank"
std::optional<EndpointKind> endpointKindFromName(std::string_view name);

nlohmann::json toJson(const LlmRequest& request);
std::optional<LlmRequest> requestFromJson(const nlohmann::json& j);

// The cacheable part of a response: text, embeddings, rerank scores, usage.
nlohmann::json responseToJson(const LlmResponse& response);
std::optional<LlmResponse> responseFromJson(const nlohmann::json& j);

nlohmann::json toJson(const EndpointConfig& config);
EndpointConfig endpointFromJson(const nlohmann::json& j);

}  // namespace ragscope::core::llm
