// Cached re-run of 10,000 work items: the second run of the same plan (new run store) must be
// served entirely from the response cache, with every result committed, in under a second.
// Prints a small table; exits 1 when the target is missed or any call reached the provider.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "benchutil.h"
#include "core/eval/engine/runengine.h"
#include "core/llm/cachingprovider.h"
#include "core/llm/llmjson.h"
#include "core/llm/responsecache.h"
#include "core/store/runstore.h"

using namespace ragscope::core;
using namespace ragscope::core::llm;
namespace bench = ragscope::bench;

int main() {
  const int n = 10000;
  const auto dir = bench::makeBenchDir("engine");
  std::vector<store::NewItem> items;
  for (int i = 0; i < n; ++i) {
    LlmRequest r;
    r.messages.push_back({"user",
                          "Answer the question using the passages. Passage 1: a fairly long "
                          "passage text that stands in for retrieved context number " +
                              std::to_string(i) + ". Question: what is item " + std::to_string(i) +
                              "?"});
    items.push_back({"gen:q" + std::to_string(i), "generate", toJson(r).dump()});
  }
  ResponseCache cache;
  if (!bench::openBenchCache(cache, dir)) return 2;
  std::string err;
  double seconds[2] = {0, 0};
  int callsAfterFirst = 0;
  std::size_t fromCache = 0;
  for (int round = 0; round < 2; ++round) {
    store::RunStore store;
    store::RunRecord rec;
    rec.kind = "generate";
    if (!store.create(dir / ("run" + std::to_string(round) + ".db"), rec, &err) ||
        !store.addItems(items, &err)) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return 2;
    }
    auto counting = std::make_unique<bench::CountingProvider>(
        "bench", [](const std::string& prompt) { return "answer: " + prompt; });
    auto* raw = counting.get();
    CachingProvider provider(std::move(counting), cache);
    const auto start = std::chrono::steady_clock::now();
    eval::EngineOptions options;
    options.concurrency = 8;
    const auto summary = eval::executeRun(store, provider, options, nullptr, {});
    seconds[round] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (summary.progress.done != static_cast<std::size_t>(n)) {
      std::fprintf(stderr, "round %d: only %zu done\n", round, summary.progress.done);
      return 2;
    }
    if (round == 1) {
      callsAfterFirst = raw->calls.load();
      fromCache = summary.progress.fromCache;
    }
  }
  std::printf("%-34s %10s %12s\n", "benchmark", "seconds", "items/s");
  std::printf("%-34s %10.3f %12.0f\n", "engine first run (10k, cache fill)", seconds[0],
              n / seconds[0]);
  std::printf("%-34s %10.3f %12.0f\n", "engine cached re-run (10k)", seconds[1], n / seconds[1]);
  std::printf("cached re-run: %d provider calls, %zu of %d from the cache (target < 1 s)\n",
              callsAfterFirst, fromCache, n);
  std::filesystem::remove_all(dir);
  return (seconds[1] < 1.0 && callsAfterFirst == 0 && fromCache == static_cast<std::size_t>(n)) ? 0
                                                                                                : 1;
}
