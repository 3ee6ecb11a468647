// eRAG bookkeeping at scale: 1,000 queries x 10 documents = 10,000 generator calls with a cached
// generator. The first run fills the response cache; the second (a new run store, the same plan)
// is timed end to end: planning (prompts, contains-answer labels), store creation and items,
// the engine with every call served from the cache, ROUGE-L labels from the stored outputs,
// aggregation (P_10, success_10), bootstrap CIs, the labels and scores written to the store and
// the labels JSON. Target: under 2 s. Exits 1 when missed or when any call reached the generator.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

#include "benchutil.h"
#include "core/data/dataset.h"
#include "core/eval/engine/runengine.h"
#include "core/eval/jobs/eragjob.h"
#include "core/export/json.h"
#include "core/llm/cachingprovider.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/prompts.h"
#include "core/llm/responsecache.h"
#include "core/store/runstore.h"

using namespace ragscope::core;
using namespace ragscope::core::llm;
namespace bench = ragscope::bench;
using Clock = std::chrono::steady_clock;

namespace {

const char* kWords[] = {"reservoir", "pump",   "station", "filter",  "pipe",   "valve",    "meter",
                        "tank",      "river",  "plant",   "board",   "budget", "capacity", "litres",
                        "district",  "tunnel", "well",    "quality", "survey", "permit"};

std::string words(std::size_t seed, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (!out.empty()) out += ' ';
    out += kWords[(seed * 7 + static_cast<std::size_t>(i) * 13) % 20];
  }
  return out;
}

// Concatenation by appending: GCC 12 at -O2 reports a bogus -Wrestrict for chains of
// `"literal" + std::string` temporaries.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto p : parts) out.append(p);
  return out;
}

Dataset syntheticDataset(std::size_t queries, std::size_t docs) {
  Dataset d;
  const std::size_t corpusSize = 5000;
  for (std::size_t i = 0; i < corpusSize; ++i) {
    d.corpus.add({cat({"d", std::to_string(i)}), "",
                  cat({"The ", words(i, 3), " opened in ", std::to_string(1900 + i % 120), ". ",
                       words(i + 1, 12), ". It holds ", std::to_string(i), " units."}),
                  "", 0, -1});
  }
  for (std::size_t q = 0; q < queries; ++q) {
    Query query;
    query.id = cat({"q", std::to_string(q)});
    query.text = cat({"When did the ", words(q * docs, 3), " open?"});
    GoldOutput g;
    g.answer = cat({"in ", std::to_string(1900 + (q * docs) % 120)});
    g.hasAnswer = true;
    query.gold.push_back(g);
    d.queries.push_back(std::move(query));
  }
  return d;
}

Run syntheticRun(std::size_t queries, std::size_t docs) {
  Run run;
  run.tag = "bench";
  for (std::size_t q = 0; q < queries; ++q) {
    Ranking r;
    r.queryId = cat({"q", std::to_string(q)});
    for (std::size_t j = 0; j < docs; ++j) {
      const auto stored = run.arena->store(cat({"d", std::to_string((q * docs + j * 37) % 5000)}));
      RunEntry e;
      e.doc = stored.data();
      e.docLen = static_cast<std::uint32_t>(stored.size());
      e.score = static_cast<double>(docs - j);
      r.entries.push_back(e);
    }
    run.rankings.push_back(std::move(r));
  }
  return run;
}

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

int main() {
  const std::size_t nq = 1000, k = 10;
  const auto dir = bench::makeBenchDir("erag");
  const Dataset dataset = syntheticDataset(nq, k);
  const Run run = syntheticRun(nq, k);
  ResponseCache cache;
  if (!bench::openBenchCache(cache, dir)) return 2;
  std::string err;
  struct Times {
    double plan = 0, store = 0, engine = 0, report = 0, write = 0, total = 0;
  } t[2];
  int callsSecond = 0;
  std::size_t fromCacheSecond = 0;
  double p10 = 0, s10 = 0;
  for (int round = 0; round < 2; ++round) {
    const auto start = Clock::now();
    auto mark = start;
    auto plan = eval::planErag(dataset, run, k, defaultRagTemplate());
    t[round].plan = since(mark);
    mark = Clock::now();
    store::RunStore runStore;
    store::RunRecord rec;
    rec.kind = std::string(eval::kEragJobKind);
    rec.settings = {{"plan", plan.plan}, {"metric", "rouge-l"}, {"measures", "P_10,success_10"}};
    rec.templateText = defaultRagTemplate();
    rec.templateHash = templateHash(rec.templateText);
    if (!runStore.create(dir / ("erag" + std::to_string(round) + ".db"), rec, &err) ||
        !runStore.addItems(plan.items, &err)) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return 2;
    }
    t[round].store = since(mark);
    mark = Clock::now();
    // The heuristic reader's answer, so the ROUGE-L labels vary as with a real generator.
    auto counting = std::make_unique<bench::CountingProvider>(
        "bench-reader",
        [](const std::string& prompt) { return offlineAnswer(OfflineRole::Reader, prompt); });
    auto* raw = counting.get();
    CachingProvider provider(std::move(counting), cache);
    eval::EngineOptions options;
    options.concurrency = 8;
    const auto summary = eval::executeRun(runStore, provider, options, nullptr, {});
    t[round].engine = since(mark);
    if (summary.progress.done != nq * k) {
      std::fprintf(stderr, "round %d: only %zu of %zu done\n", round, summary.progress.done,
                   nq * k);
      return 2;
    }
    mark = Clock::now();
    stats::BootstrapOptions bootstrap;
    bootstrap.resamples = 1000;
    const auto report = eval::computeEragReport(runStore, {}, bootstrap);
    if (!report.error.empty()) {
      std::fprintf(stderr, "%s\n", report.error.c_str());
      return 2;
    }
    t[round].report = since(mark);
    mark = Clock::now();
    if (!eval::storeEragScores(runStore.path(), report, &err) ||
        !exporting::writeJsonFile(dir / "labels.json", eval::labelsJson(report), &err, 1, false)) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return 2;
    }
    t[round].write = since(mark);
    t[round].total = since(start);
    if (round == 1) {
      callsSecond = raw->calls.load();
      fromCacheSecond = summary.progress.fromCache;
      p10 = report.aggregate.mean("P_10");
      s10 = report.aggregate.mean("success_10");
    }
  }
  std::printf("eRAG bookkeeping, %zu queries x %zu documents = %zu calls\n", nq, k, nq * k);
  std::printf("%-28s %10s %10s\n", "step (seconds)", "first", "cached");
  const char* names[] = {"plan (prompts, labels)",   "store create + items",       "engine",
                         "labels + aggregate + CIs", "store scores + labels.json", "total"};
  for (int i = 0; i < 6; ++i) {
    const double a[] = {t[0].plan, t[0].store, t[0].engine, t[0].report, t[0].write, t[0].total};
    const double b[] = {t[1].plan, t[1].store, t[1].engine, t[1].report, t[1].write, t[1].total};
    std::printf("%-28s %10.3f %10.3f\n", names[i], a[i], b[i]);
  }
  std::printf(
      "cached run: %d generator calls, %zu of %zu from the cache; P_10 %.4f success_10 %.4f "
      "(target total < 2 s)\n",
      callsSecond, fromCacheSecond, nq * k, p10, s10);
  std::filesystem::remove_all(dir);
  return (t[1].total < 2.0 && callsSecond == 0 && fromCacheSecond == nq * k) ? 0 : 1;
}
