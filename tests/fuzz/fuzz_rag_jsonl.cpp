// Generic RAG JSONL (core/data/ragformats.cpp: loadRagJsonl): one example per line
// `{"id", "question", "contexts", "answer", "gold" ...}`.
// max_len: 32768
// dict: json
// seed: resources/demo/rag-examples.jsonl
// seed: data/kilt/tests/test_data

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("examples.jsonl", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadRagJsonl(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
