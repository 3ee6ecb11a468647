// TREC run files (core/data/trecformat.cpp: readTrecRun, streamTrecRun): `qid Q0 docno rank score
// tag`. max_len: 16384 seed: data/msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt seed:
// data/msmarco_trecdl/runs/rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl20.txt seed:
// data/trec_eval/test/results.test seed: data/trec_eval/test/results.trunc seed:
// data/trec_eval/test/results-302.test seed: resources/demo/run-good.trec

#include <atomic>
#include <cstdlib>

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("run.trec", fuzz::bytes(data, size));
  auto loaded = core::readTrecRun(path, fuzz::loadOptions());
  fuzz::checkReport(loaded.report);
  // Every docno view must point into live arena memory (ASan checks each byte read).
  for (const auto& ranking : loaded.value.rankings)
    for (const auto& e : ranking.entries) fuzz::touch(e.docId());
  // Streamed, the same file hands over the same entries, and reports the same.
  std::atomic<std::size_t> visited{0};
  auto streamed = core::streamTrecRun(
      path, fuzz::loadOptions(),
      [&](const core::RankingView& r) {
        for (const auto& e : r.entries) fuzz::touch(e.docId());
        visited += r.entries.size();
      },
      [&] { visited = 0; });
  fuzz::checkReport(streamed.report);
  if (streamed.report.ok() != loaded.report.ok() ||
      streamed.report.records != loaded.report.records)
    std::abort();
  if (loaded.report.ok() && visited != loaded.value.entryCount()) std::abort();
  return 0;
}
