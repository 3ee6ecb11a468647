#pragma once
// One place that turns an endpoint configuration into a Provider: base URL "offline" gives the
// heuristic provider of the given role, anything else the HTTP transport; with a cache, the
// provider is wrapped so successful answers are reused across runs.

#include <memory>

#include "core/llm/offline.h"
#include "core/llm/provider.h"

namespace ragscope::core::llm {

class ResponseCache;

bool isOfflineEndpoint(const EndpointConfig& config);

// `cache` may be null (no caching) and must outlive the provider.
std::unique_ptr<Provider> makeProvider(const EndpointConfig& config, OfflineRole offlineRole,
                                       ResponseCache* cache);

}  // namespace ragscope::core::llm
