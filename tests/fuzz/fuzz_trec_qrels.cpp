// TREC qrels (core/data/trecformat.cpp: readTrecQrels): `qid iter docno rel`.
// max_len: 16384
// seed: data/msmarco_trecdl/qrels
// seed: data/trec_eval/test/qrels.test
// seed: data/trec_eval/test/qrels.rel_level
// seed: data/trec_eval/test/qrels.test.with-comments
// seed: data/trec_eval/test/qrels.comment.test
// seed: resources/demo/qrels.txt

#include "core/data/loaders.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("qrels.txt", fuzz::bytes(data, size));
  auto loaded = core::readTrecQrels(path, fuzz::loadOptions());
  fuzz::checkReport(loaded.report);
  std::size_t judgments = 0;
  for (const auto& [qid, list] : loaded.value.byQuery) judgments += list.size();
  fuzz::check(judgments == loaded.value.judgmentCount(), "qrels judgment count disagrees");
  return 0;
}
