// Format detection and dispatch (core/data/dataset.cpp: detectFormat, loadInto): what `dataset
// info FILE` and the GUI's Open do with a file of unknown format. The input is tried under the
// names a user's files commonly have.
// max_len: 32768
// dict: json
// seed: data/msmarco_trecdl/topics
// seed: data/kilt/tests/test_data
// seed: data/ragchecker/examples
// seed: data/trec_eval/test/out.test.aq
// seed: data/docugami/KG-RAG-datasets/sec-10-q/data/v1/qna_data_mini.csv
// seed: resources/demo

#include "core/data/dataset.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char* const kNames[] = {"input.txt",  "input.tsv",    "input.jsonl",
                                       "input.json", "qna_data.csv", "run.trec"};
  const auto input = fuzz::bytes(data, size);
  for (const char* name : kNames) {
    fuzz::removeScratch("detect");
    const auto path = fuzz::writeScratch(std::filesystem::path("detect") / name, input);
    const auto format = core::detectFormat(path);
    if (!format) continue;
    core::Dataset dataset;
    auto report = core::loadInto(dataset, {path, format}, fuzz::loadOptions());
    fuzz::checkReport(report);
  }
  return 0;
}
