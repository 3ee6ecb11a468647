// Topics JSONL (core/data/msmarcoformats.cpp: loadTopicsJsonl): `{"id": ..., "title": ...}`.
// max_len: 32768
// dict: json
// seed: data/msmarco_trecdl/topics/topics.rag25.test.jsonl

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (fuzz::hasOverflowingNumber(fuzz::bytes(data, size)))
    return -1;  // issue 12 item 1 (elsewhere)
  const auto path = fuzz::writeScratch("topics.jsonl", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadTopicsJsonl(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
