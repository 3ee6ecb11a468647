// rank_llm retrieve_results JSON (core/data/msmarcoformats.cpp: loadRankLlmJson):
// `[{"query": ..., "hits": [{"content", "qid", "docid", "rank", "score"}]}]`.
// max_len: 32768
// dict: json
// seed: data/msmarco_trecdl/runs/rank_llm/BM25/retrieve_results_dl19.json
// seed: data/msmarco_trecdl/runs/rank_llm/BM25/retrieve_results_dl20.json

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (fuzz::hasOverflowingNumber(fuzz::bytes(data, size)))
    return -1;  // issue 12 item 1 (elsewhere)
  const auto path = fuzz::writeScratch("retrieve_results.json", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadRankLlmJson(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  for (const auto& run : dataset.runs)
    for (const auto& ranking : run.rankings)
      for (const auto& e : ranking.entries) fuzz::touch(e.docId());
  return 0;
}
