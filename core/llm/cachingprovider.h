#pragma once
// A Provider decorator that answers from the ResponseCache when it can and stores every
// successful answer of the wrapped provider. Heuristic (offline) providers pass straight through:
// they cost nothing and caching them would only grow the file.
//
//   auto provider = std::make_unique<CachingProvider>(makeHttpProvider(ep), cache);

#include <memory>

#include "core/llm/provider.h"
#include "core/llm/responsecache.h"

namespace ragscope::core::llm {

class CachingProvider final : public Provider {
 public:
  // `cache` must outlive this provider.
  CachingProvider(std::unique_ptr<Provider> inner, ResponseCache& cache);

  std::string cacheIdentity() const override { return m_inner->cacheIdentity(); }
  std::string requestBody(const LlmRequest& request) const override {
    return m_inner->requestBody(request);
  }
  // A hit calls `done` at once, on the caller's thread.
  void submit(LlmRequest request, ResponseCallback done) override;
  // The cache's answers to a window of calls: keys hashed and replies parsed on all cores, one
  // read transaction. The inner provider is not asked: a slot left empty goes through submit().
  std::vector<std::optional<LlmResponse>> knownAnswers(
      const std::vector<const LlmRequest*>& requests) override;
  void cancelAll() override { m_inner->cancelAll(); }
  void waitIdle() override { m_inner->waitIdle(); }
  bool isHeuristic() const override { return m_inner->isHeuristic(); }
  const EndpointConfig& config() const override { return m_inner->config(); }

  Provider& inner() { return *m_inner; }

 private:
  std::unique_ptr<Provider> m_inner;
  ResponseCache& m_cache;
  std::string m_identity;
};

}  // namespace ragscope::core::llm
