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

// response_format as sent: {"type":"json_schema","json_schema":{"name","schema","strict":true}}.
nlohmann::json responseFormatJson(const ResponseSchema& schema);
// The schema of a response_format in that form; nullopt for any other shape (another type, no
// name, a schema that is not an object, strict not true).
std::optional<ResponseSchema> responseSchemaFromFormat(const nlohmann::json& format);

// A chat request's "response_format" (when it has a schema) is stored as it is sent, so a run
// store shows which calls asked for schema-bound JSON.
nlohmann::json toJson(const LlmRequest& request);
std::optional<LlmRequest> requestFromJson(const nlohmann::json& j);

// The cacheable part of a response: text, embeddings, rerank scores, usage.
nlohmann::json responseToJson(const LlmResponse& response);
std::optional<LlmResponse> responseFromJson(const nlohmann::json& j);

nlohmann::json toJson(const EndpointConfig& config);
// What a run store records of an endpoint: toJson with the URL's credentials redacted
// (core/util/urlredact.h). A store is a file that travels; the URL with its credentials stays in
// this user's own configuration (the trust registry), from which a resume takes it again
// (TrustedEndpoints::fullUrlOf).
nlohmann::json recordedEndpointJson(const EndpointConfig& config);
// Never throws; fields of the wrong type read as their defaults, numbers are clamped to sane
// ranges.
EndpointConfig endpointFromJson(const nlohmann::json& j);
// Empty when `j` is an endpoint object whose known fields have their types; else what is wrong
// ("field \"base_url\" is not a string"), for refusing a damaged record.
std::string endpointJsonProblem(const nlohmann::json& j);

}  // namespace ragscope::core::llm
