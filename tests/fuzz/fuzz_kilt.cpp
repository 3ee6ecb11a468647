// KILT task files (core/data/kiltformat.cpp: loadKilt): JSONL `{"id", "input", "output": [...]}`,
// or a stream of pretty-printed objects (guess3_1.json).
// max_len: 32768
// dict: json
// seed: data/kilt/hf_dummy_data
// seed: data/kilt/tests/test_data
// seed: data/kilt/dev_full/hotpotqa-dev-kilt.jsonl
// seed: data/kilt/dev_full/wow-dev-kilt.jsonl
// seed: resources/demo/demo-kilt.jsonl

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("task-dev-kilt.jsonl", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadKilt(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
