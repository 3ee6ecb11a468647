// The bookkeeping of a 10,000-answer judging run (core/eval/jobs/judgejob.h through the job API):
// the phases planned from the stored replies, 50,000 calls committed (two extractions and three
// assessments per answer), every reply parsed and the notebook metrics computed with their CIs.
// The first run fills the response cache from a provider that answers at once (the offline
// judge's replies); the second, in a new store, is served entirely from the cache and must take
// under 2 s. Exits 1 when the target is missed or a call reached the provider.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "benchutil.h"
#include "core/eval/api/job.h"
#include "core/llm/cachingprovider.h"
#include "core/llm/offline.h"

using namespace ragscope::core;
namespace bench = ragscope::bench;

int main() {
  const int n = 10000;
  const auto dir = bench::makeBenchDir("judge");
  std::vector<eval::JudgeInput> inputs;
  for (int i = 0; i < n; ++i) {
    const std::string id = std::to_string(i);
    inputs.push_back(
        {"q" + id,
         "How much does reservoir " + id + " hold?",
         std::string("Reservoir " + id + " holds " + id + " million litres. It opened in 19" +
                     std::to_string(i % 100) + "."),
         "It holds " + id + " million litres.",
         {{"d" + id, "Reservoir " + id + " holds " + id + " million litres of water for the city."},
          {"e" + id, "The reservoir opened in 1973 after five years of building."}},
         {}});
  }
  llm::ResponseCache cache;
  if (!bench::openBenchCache(cache, dir)) return 2;
  double seconds[2] = {0, 0};
  int callsSecond = 0;
  std::size_t fromCache = 0, items = 0;
  double faithfulness[2] = {0, 0};
  for (int round = 0; round < 2; ++round) {
    eval::JobSpec spec;
    spec.kind = eval::JobKind::Judge;
    spec.judge.metrics = "notebook";
    spec.judge.inputs = inputs;
    spec.judge.judge.baseUrl = "http://bench.invalid/v1";
    spec.judge.judge.model = "bench";
    spec.limits.useCache = false;  // the job's own cache is replaced by the hook below
    spec.limits.concurrency = 8;
    spec.store = dir / ("judge" + std::to_string(round) + ".db");
    auto calls = std::make_shared<std::atomic<int>>(0);  // outlives the job's providers
    eval::ExecutionOptions x;
    x.makeProvider = [&cache, calls](const llm::EndpointConfig&) -> std::unique_ptr<llm::Provider> {
      auto p =
          std::make_unique<bench::CountingProvider>("bench", [calls](const std::string& prompt) {
            ++*calls;
            return llm::offlineAnswer(llm::OfflineRole::Auto, prompt);
          });
      return std::make_unique<llm::CachingProvider>(std::move(p), cache);
    };
    eval::ResultOptions results;
    results.bootstrap.resamples = 1000;
    const auto start = std::chrono::steady_clock::now();
    const auto plan = eval::planJob(spec, Dataset{});
    const auto r = eval::runJob(plan, spec, x, results);
    seconds[round] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.error.empty() || !r.judge) {
      std::fprintf(stderr, "round %d: %s\n", round, r.error.c_str());
      return 2;
    }
    faithfulness[round] = r.judge->metrics.front().mean;
    if (round == 1) {
      callsSecond = calls->load();
      fromCache = r.stages.front().summary.progress.fromCache;
      items = r.stages.front().counts.total;
    }
  }
  // Parts of the cached run: one planning pass over the finished store, and the report.
  double planSeconds = 0, reportSeconds = 0;
  {
    store::RunStore store;
    std::string err;
    if (!store.open(dir / "judge1.db", &err)) return 2;
    auto t0 = std::chrono::steady_clock::now();
    const auto next = eval::nextJudgeItems(store);
    planSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
    stats::BootstrapOptions b;
    b.resamples = 1000;
    const auto report = eval::computeJudgeReport(store, b);
    reportSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!next.empty() || !report.error.empty()) return 2;
  }
  std::printf("%-44s %10s\n", "benchmark", "seconds");
  std::printf("%-44s %10.3f\n", "judging 10k answers, first run (cache fill)", seconds[0]);
  std::printf("%-44s %10.3f\n", "judging 10k answers, served from the cache", seconds[1]);
  std::printf("%-44s %10.3f\n", "  of which one planning pass (finished store)", planSeconds);
  std::printf("%-44s %10.3f\n", "  of which the report (3 metrics, CIs)", reportSeconds);
  std::printf(
      "cached re-run: %zu calls in the store, %zu from the cache, %d reached the provider; "
      "faithfulness %.4f both runs: %s (target < 2 s)\n",
      items, fromCache, callsSecond, faithfulness[1],
      faithfulness[0] == faithfulness[1] ? "yes" : "NO");
  std::filesystem::remove_all(dir);
  return (seconds[1] < 2.0 && callsSecond == 0 && fromCache == items &&
          faithfulness[0] == faithfulness[1])
             ? 0
             : 1;
}
