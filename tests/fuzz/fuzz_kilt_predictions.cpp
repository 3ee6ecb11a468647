// KILT predictions files and their evaluation (core/eval/kilt/kilteval.h: readKiltPredictions, then
// evaluateKiltRecords against a fixed gold): JSON lines or pretty-printed objects one after
// another, ids as strings or integers, any shape of output and provenance. Every record read is
// scored; the evaluation must never crash whatever the predictions hold, and a report that stops
// must say why.
// max_len: 32768
// dict: json
// seed: data/kilt/tests/test_data

#include <nlohmann/json.hpp>

#include "core/eval/kilt/kilteval.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("guess.json", fuzz::bytes(data, size));
  std::vector<nlohmann::json> guess;
  std::vector<std::uint64_t> lines;
  auto report = core::eval::readKiltPredictions(path, fuzz::loadOptions(), guess, lines);
  fuzz::checkReport(report);
  if (guess.size() != lines.size()) __builtin_trap();
  static const std::vector<nlohmann::json> gold = {
      nlohmann::json::parse(R"({"id": 1, "input": "q", "output": [{"answer": "a b",
          "provenance": [{"wikipedia_id": "1", "section": 1, "start_paragraph_id": "2",
          "end_paragraph_id": 3}]}, {"answer": "c"}]})"),
      nlohmann::json::parse(R"({"id": "x", "output": [{"provenance": []}]})")};
  core::eval::KiltEvalOptions options;
  options.ks = {1, 3};
  options.rankKeys = {"wikipedia_id", "start_paragraph_id"};
  core::LoadReport scored;
  const auto e = core::eval::evaluateKiltRecords(gold, guess, lines, options, scored);
  if (scored.stopped && scored.diagnostics.empty()) __builtin_trap();
  if (!scored.stopped && e.items.size() != gold.size()) __builtin_trap();
  for (const auto& item : e.items)
    for (double v : item.values)
      if (!(v >= 0.0 && v <= 1.0)) __builtin_trap();
  return 0;
}
