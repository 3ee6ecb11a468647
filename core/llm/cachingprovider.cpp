#include "core/llm/cachingprovider.h"

#include <chrono>
#include <utility>

#include "core/stats/parallel.h"

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

std::vector<std::optional<LlmResponse>> CachingProvider::knownAnswers(
    const std::vector<const LlmRequest*>& requests) {
  std::vector<std::optional<LlmResponse>> out(requests.size());
  if (m_inner->isHeuristic() || requests.empty()) return out;
  const auto start = std::chrono::steady_clock::now();
  // Hashing a request body takes a few microseconds: split only windows worth a thread.
  const unsigned threads = stats::resolveThreads(0, requests.size(), 256);
  std::vector<std::string> keys(requests.size());
  stats::forChunks(requests.size(), threads, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      keys[i] = ResponseCache::key(m_identity, m_inner->requestBody(*requests[i]));
  });
  std::vector<std::optional<std::string>> stored = m_cache.lookupStored(keys);
  stats::forChunks(requests.size(), threads, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      if (stored[i]) out[i] = ResponseCache::fromStored(*stored[i]);
  });
  std::size_t hits = 0;
  for (const auto& r : out) hits += r.has_value();
  m_cache.countLookups(hits, requests.size() - hits);
  // The window's time shared by its hits: what one of them cost to answer.
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (auto& r : out)
    if (r) r->latencyMs = ms / static_cast<double>(std::max<std::size_t>(1, hits));
  return out;
}

}  // namespace ragscope::core::llm
