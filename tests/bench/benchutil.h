#pragma once
// Pieces shared by the LLM-job benchmarks (bench_engine, bench_erag): a provider that answers at
// once and counts the calls reaching it, a scratch folder, and the response cache opened in it.

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <utility>

#include "core/llm/llmjson.h"
#include "core/llm/provider.h"
#include "core/llm/responsecache.h"

namespace ragscope::bench {

// Answers on a thread of its own (as a transport would) with `answer(last user message)`, counting
// the calls, so a cached re-run can prove that nothing reached the provider.
class CountingProvider final : public core::llm::Provider {
 public:
  using Answer = std::function<std::string(const std::string& prompt)>;
  std::atomic<int> calls{0};

  CountingProvider(std::string model, Answer answer) : m_answer(std::move(answer)) {
    m_config.baseUrl = "http://bench.invalid/v1";
    m_config.model = std::move(model);
  }
  std::string cacheIdentity() const override { return "bench|chat|" + m_config.model; }
  std::string requestBody(const core::llm::LlmRequest& r) const override {
    return core::llm::toJson(r).dump();
  }
  void submit(core::llm::LlmRequest request, core::llm::ResponseCallback done) override {
    ++calls;
    core::llm::LlmResponse r;
    r.status = core::llm::CallStatus::Ok;
    r.text = m_answer(request.messages.back().content);
    r.usage = {120, 20, 0.0};
    std::thread([r = std::move(r), done = std::move(done)]() mutable {
      done(std::move(r));
    }).detach();
  }
  void cancelAll() override {}
  void waitIdle() override {}
  const core::llm::EndpointConfig& config() const override { return m_config; }

 private:
  core::llm::EndpointConfig m_config;
  Answer m_answer;
};

// A fresh folder "ragscope-bench-<name>-<pid>" under the temp directory.
inline std::filesystem::path makeBenchDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ragscope-bench-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// Opens the response cache in `dir`; prints the error and returns false on failure.
inline bool openBenchCache(core::llm::ResponseCache& cache, const std::filesystem::path& dir) {
  std::string err;
  if (!cache.open(dir / "responses.sqlite", &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return false;
  }
  return true;
}

}  // namespace ragscope::bench
