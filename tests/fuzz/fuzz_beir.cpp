// BEIR folders (core/data/beirformat.cpp: loadBeir): corpus.jsonl, queries.jsonl and qrels/*.tsv.
// The input holds up to four files separated by fuzz::kPartSeparator: corpus.jsonl,
// queries.jsonl, qrels/test.tsv, qrels/train.tsv (a missing part: no such file). The shared data
// has no BEIR folder, so the seed is a small hand-written one.
// max_len: 32768
// dict: json
// seed: tests/fuzz/seeds/beir

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char* const kFiles[] = {"corpus.jsonl", "queries.jsonl", "qrels/test.tsv",
                                       "qrels/train.tsv"};
  const auto parts = fuzz::splitParts(fuzz::bytes(data, size), 4);
  fuzz::removeScratch("beir");
  for (std::size_t i = 0; i < parts.size(); ++i)
    fuzz::writeScratch(std::filesystem::path("beir") / kFiles[i], parts[i]);
  core::Dataset dataset;
  auto report = core::loadBeir(fuzz::scratchDir() / "beir", dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  return 0;
}
