// trec_eval-compatible evaluation of what the TREC loaders accept (core/metrics/
// retrievalevaluator.cpp over readTrecQrels + readTrecRun, and parseMeasureArgs for `-m`): a file
// that loads must evaluate without a crash, whatever its qids, docnos, grades and scores; and
// evaluating the file as it is read (evaluateRunFile, what `eval` does) must print exactly what
// evaluating the loaded run prints.
// Parts (fuzz::kPartSeparator between them): 0 measure arguments (whitespace separated, as -m),
// 1 qrels, 2 run.
// max_len: 32768
// seed: tests/fuzz/seeds/trec_eval
// seed-join: tests/fuzz/seeds/parts/all_trec.txt data/trec_eval/test/qrels-302.test
// data/trec_eval/test/results-302.test seed-join: tests/fuzz/seeds/parts/measures.txt
// resources/demo/qrels.txt resources/demo/run-good.trec seed-join:
// tests/fuzz/seeds/parts/all_trec.txt resources/demo/qrels.txt resources/demo/run-weak.trec

#include "core/data/loaders.h"
#include "core/metrics/retrievalevaluator.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parts = fuzz::splitParts(fuzz::bytes(data, size), 3);
  if (parts.size() < 3) return -1;
  std::vector<std::string> args;
  std::string arg;
  for (char c : parts[0]) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!arg.empty()) args.push_back(std::move(arg));
      arg.clear();
    } else {
      arg += c;
    }
  }
  if (!arg.empty()) args.push_back(std::move(arg));
  if (args.size() > 8) return -1;

  const auto options = fuzz::loadOptions();
  auto qrels = core::readTrecQrels(fuzz::writeScratch("qrels.txt", parts[1]), options);
  const auto runPath = fuzz::writeScratch("run.trec", parts[2]);
  auto run = core::readTrecRun(runPath, options);
  fuzz::checkReport(qrels.report);
  fuzz::checkReport(run.report);

  core::EvalSettings settings;
  settings.threads = 1;
  const auto measures = core::parseMeasureArgs(args);
  if (measures.ok()) settings.measures = measures.value;
  auto result = core::evaluate(qrels.value, run.value, settings);
  fuzz::touch(core::formatTrecEval(result, true));
  if (run.report.ok()) {
    core::LoadReport report;
    const auto streamed = core::evaluateRunFile(qrels.value, runPath, settings, options, report);
    if (!report.ok() || core::formatTrecEval(streamed, true) != core::formatTrecEval(result, true))
      __builtin_trap();
  }

  settings.complete = true;
  settings.relevanceLevel = 2;
  settings.maxDepth = 10;
  result = core::evaluate(qrels.value, run.value, settings);
  fuzz::touch(core::formatTrecEval(result, false));
  return 0;
}
