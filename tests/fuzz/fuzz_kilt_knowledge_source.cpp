// KILT knowledge source records (core/data/kiltformat.cpp: loadKiltKnowledgeSource):
// `{"wikipedia_id", "wikipedia_title", "text": [paragraphs], "anchors": [...], ...}` per line.
// No real records are in the shared data (see its MANIFEST), so the seed is written from the
// structure the KILT README gives.
// max_len: 32768
// dict: json
// seed: tests/fuzz/seeds/kilt_knowledge_source
// seed: data/kilt/tests/test_data

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("kilt_knowledgesource.json", fuzz::bytes(data, size));
  core::Dataset dataset;
  auto report = core::loadKiltKnowledgeSource(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
