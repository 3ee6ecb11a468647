#pragma once
// A provider that passes everything to another one: the base of a decorator that changes one
// step (checks or reshapes replies, for instance) and forwards the rest unchanged.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

class ForwardingProvider : public Provider {
 public:
  explicit ForwardingProvider(std::unique_ptr<Provider> inner) : m_inner(std::move(inner)) {}
  std::string cacheIdentity() const override { return m_inner->cacheIdentity(); }
  std::string requestBody(const LlmRequest& request) const override {
    return m_inner->requestBody(request);
  }
  void submit(LlmRequest request, ResponseCallback done) override {
    m_inner->submit(std::move(request), std::move(done));
  }
  void cancelAll() override { m_inner->cancelAll(); }
  void waitIdle() override { m_inner->waitIdle(); }
  std::vector<std::optional<LlmResponse>> knownAnswers(
      const std::vector<const LlmRequest*>& requests) override {
    return m_inner->knownAnswers(requests);
  }
  bool isHeuristic() const override { return m_inner->isHeuristic(); }
  const EndpointConfig& config() const override { return m_inner->config(); }

 protected:
  Provider& inner() { return *m_inner; }

 private:
  std::unique_ptr<Provider> m_inner;
};

}  // namespace ragscope::core::llm
