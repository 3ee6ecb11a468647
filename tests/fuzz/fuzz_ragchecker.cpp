// RAGChecker input/output JSON (core/data/ragformats.cpp: loadRagChecker):
// `{"results": [{"query_id", "query", "gt_answer", "response", "retrieved_context": [...]}]}`.
// max_len: 32768
// dict: json
// seed: data/ragchecker/examples
// seed: data/ragchecker/data/meta_evaluation/baseline_ragchecker.json

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("checking_inputs.json", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadRagChecker(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
