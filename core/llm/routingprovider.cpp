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

std::vector<std::optional<LlmResponse>> RoutingProvider::knownAnswers(
    const std::vector<const LlmRequest*>& requests) {
  // Each provider is asked once, for its own requests; the answers go back to their slots.
  std::map<Provider*, std::vector<std::size_t>> slots;
  for (std::size_t i = 0; i < requests.size(); ++i) slots[&target(*requests[i])].push_back(i);
  std::vector<std::optional<LlmResponse>> out(requests.size());
  for (const auto& [provider, indices] : slots) {
    std::vector<const LlmRequest*> mine;
    mine.reserve(indices.size());
    for (const std::size_t i : indices) mine.push_back(requests[i]);
    auto answers = provider->knownAnswers(mine);
    for (std::size_t k = 0; k < indices.size() && k < answers.size(); ++k)
      out[indices[k]] = std::move(answers[k]);
  }
  return out;
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
