// MS MARCO collection.tsv (core/data/msmarcoformats.cpp: loadMsmarcoCollection): `pid<TAB>text`.
// max_len: 16384
// seed: data/msmarco_trecdl/collection_subset
// seed: resources/demo/collection.tsv

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("collection.tsv", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadMsmarcoCollection(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
