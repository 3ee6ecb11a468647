#pragma once
// One place that turns an endpoint configuration into a Provider: base URL "offline" gives the
// heuristic provider of the given role, anything else the HTTP transport; with a cache, the
// provider is wrapped so successful answers are reused across runs.

#include <memory>

#include "core/llm/httpprovider.h"
#include "core/llm/offline.h"
#include "core/llm/provider.h"

namespace ragscope::core::llm {

class ResponseCache;

bool isOfflineEndpoint(const EndpointConfig& config);

// `cache` may be null (no caching) and must outlive the provider; `transport` carries what the
// front end adds to HTTP calls (e.g. the GUI's keychain lookup).
std::unique_ptr<Provider> makeProvider(const EndpointConfig& config, OfflineRole offlineRole,
                                       ResponseCache* cache,
                                       const TransportOptions& transport = {});

}  // namespace ragscope::core::llm
