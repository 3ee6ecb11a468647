#include "core/llm/routingprovider.h"

namespace ragscope::core::llm {

RoutingProvider::RoutingProvider(std::unique_ptr<Provider> main) : m_main(std::move(main)) {}

void RoutingProvider::addRoute(const std::string& route, std::unique_ptr<Provider> provider) {
  m_routes[route] = std::move(provider);
}

Provider& RoutingProvider::target(const LlmRequest& request) const {
  if (!request.route.empty())
    if (const auto it = m_routes.find(request.route); it != m_routes.end()) return *it->second;
  return *m_main;
}

std::string RoutingProvider::cacheIdentity() const {
  std::string id = m_main->cacheIdentity();
  for (const auto& [route, p] : m_routes) id += "|" + route + "=" + p->cacheIdentity();
  return id;
}

std::string RoutingProvider::requestBody(const LlmRequest& request) const {
  return target(request).requestBody(request);
}

void RoutingProvider::submit(LlmRequest request, ResponseCallback done) {
  Provider& p = target(request);
  p.submit(std::move(request), std::move(done));
}

void RoutingProvider::cancelAll() {
  m_main->cancelAll();
  for (auto& [route, p] : m_routes) p->cancelAll();
}

void RoutingProvider::waitIdle() {
  m_main->waitIdle();
  for (auto& [route, p] : m_routes) p->waitIdle();
}

bool RoutingProvider::isHeuristic() const {
  if (!m_main->isHeuristic()) return false;
  for (const auto& [route, p] : m_routes)
    if (!p->isHeuristic()) return false;
  return true;
}

}  // namespace ragscope::core::llm
