// Topics TSV (core/data/msmarcoformats.cpp: loadTopicsTsv): `qid<TAB>query`.
// max_len: 16384
// seed: data/msmarco_trecdl/topics
// seed: resources/demo/topics.tsv

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("topics.tsv", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadTopicsTsv(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
