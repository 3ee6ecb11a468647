#include "core/llm/cachingprovider.h"

#include <chrono>
#include <utility>

namespace ragscope::core::llm {

CachingProvider::CachingProvider(std::unique_ptr<Provider> inner, ResponseCache& cache)
    : m_inner(std::move(inner)), m_cache(cache), m_identity(m_inner->cacheIdentity()) {}

void CachingProvider::submit(LlmRequest request, ResponseCallback done) {
  if (m_inner->isHeuristic()) {
    m_inner->submit(std::move(request), std::move(done));
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  std::string key = ResponseCache::key(m_identity, m_inner->requestBody(request));
  if (auto hit = m_cache.lookup(key)) {
    hit->latencyMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    done(std::move(*hit));
    return;
  }
  m_inner->submit(std::move(request),
                  [this, key = std::move(key), done = std::move(done)](LlmResponse response) {
                    if (response.status == CallStatus::Ok) m_cache.store(key, m_identity, response);
                    done(std::move(response));
                  });
}

}  // namespace ragscope::core::llm
