// `trec_eval -q` output files (core/stats/perqueryfile.cpp: loadPerQueryFile):
// `measure<TAB>qid<TAB>value`, read by the statistics commands.
// max_len: 16384
// seed: data/trec_eval/test

#include "core/stats/perqueryfile.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("run.q.txt", fuzz::bytes(data, size));
  auto loaded = core::stats::loadPerQueryFile(path, fuzz::loadOptions());
  fuzz::checkReport(loaded.report);
  return 0;
}
