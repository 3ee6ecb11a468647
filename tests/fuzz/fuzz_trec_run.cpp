// TREC run files (core/data/trecformat.cpp: readTrecRun): `qid Q0 docno rank score tag`.
// max_len: 16384
// seed: data/msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt
// seed: data/msmarco_trecdl/runs/rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl20.txt
// seed: data/trec_eval/test/results.test
// seed: data/trec_eval/test/results.trunc
// seed: data/trec_eval/test/results-302.test
// seed: resources/demo/run-good.trec

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
  return 0;
}
