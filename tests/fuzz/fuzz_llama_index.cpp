// llama-index LabelledRagDataset JSON (core/data/ragformats.cpp: loadLlamaRagDataset):
// `{"examples": [{"query", "reference_contexts", "reference_answer", ...}]}`. The shared data has
// no rag_dataset.json (an LFS pointer upstream), so the seed is written from its documented shape.
// max_len: 32768
// dict: json
// seed: tests/fuzz/seeds/llama_index

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("rag_dataset.json", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadLlamaRagDataset(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
