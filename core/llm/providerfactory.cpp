#include "core/llm/providerfactory.h"

#include "core/llm/cachingprovider.h"
#include "core/llm/responsecache.h"

namespace ragscope::core::llm {

bool isOfflineEndpoint(const EndpointConfig& config) {
  return config.baseUrl == "offline" || config.baseUrl.empty();
}

std::unique_ptr<Provider> makeProvider(const EndpointConfig& config, OfflineRole offlineRole,
                                       ResponseCache* cache, const TransportOptions& transport) {
  if (isOfflineEndpoint(config)) return makeOfflineProvider(offlineRole, config);
  auto provider = makeHttpProvider(config, transport);
  if (cache) return std::make_unique<CachingProvider>(std::move(provider), *cache);
  return provider;
}

}  // namespace ragscope::core::llm
