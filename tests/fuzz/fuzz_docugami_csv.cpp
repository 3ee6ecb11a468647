// Docugami KG-RAG qna_data.csv (core/data/docugami.cpp: loadDocugami, through core/data/csvreader):
// RFC 4180 records `Question,Source Docs,Question Type,Source Chunk Type,Answer` with multi-line
// quoted answers. Loaded without a docs/ folder: the PDF text extraction is poppler's, not ours.
// max_len: 16384
// seed: data/docugami/KG-RAG-datasets/sec-10-q/data/v1/qna_data.csv
// seed: data/docugami/KG-RAG-datasets/sec-10-q/data/v1/qna_data_mini.csv
// seed: data/docugami/KG-RAG-datasets/sec-10-q/data/raw_questions

#include "core/data/docugami.h"
#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = fuzz::bytes(data, size);
  const auto path = fuzz::writeScratch("docugami/qna_data.csv", input);
  core::Dataset dataset;
  auto report = core::loadDocugami(path, dataset, fuzz::loadOptions());
  fuzz::checkReport(report);
  // The SOURCE(S) line parser and the glob matcher also see file text directly.
  core::parseSources(input);
  if (size > 0) core::globMatch(input.substr(0, size / 2), input.substr(size / 2));
  return 0;
}
