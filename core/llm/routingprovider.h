#pragma once
// A Provider in front of a job's several endpoints: each request goes to the provider its
// LlmRequest::route names (the judging job's "generator" answers, its judge the rest), so one
// run store and one engine run hold calls to more than one endpoint. The main provider answers
// requests with no route or an unknown one; its config is the one the engine prices and paces by.
//
//   RoutingProvider p(std::move(judge));
//   p.addRoute("generator", std::move(reader));
//   executeRun(store, p, options, listener, stop);

#include <map>
#include <memory>
#include <string>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

class RoutingProvider : public Provider {
 public:
  explicit RoutingProvider(std::unique_ptr<Provider> main);
  void addRoute(const std::string& route, std::unique_ptr<Provider> provider);

  std::string cacheIdentity() const override;
  std::string requestBody(const LlmRequest& request) const override;
  void submit(LlmRequest request, ResponseCallback done) override;
  std::vector<std::optional<LlmResponse>> knownAnswers(
      const std::vector<const LlmRequest*>& requests) override;
  void cancelAll() override;
  void waitIdle() override;
  bool isHeuristic() const override;
  const EndpointConfig& config() const override { return m_main->config(); }

 private:
  Provider& target(const LlmRequest& request) const;

  std::unique_ptr<Provider> m_main;
  std::map<std::string, std::unique_ptr<Provider>> m_routes;
};

}  // namespace ragscope::core::llm
