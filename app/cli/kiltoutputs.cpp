#include "app/cli/kiltoutputs.h"

#include <iostream>
#include <unordered_map>

#include "core/data/loaders.h"
#include "core/eval/jobs/generatejob.h"
#include "core/eval/kilt/kiltoutput.h"

namespace ragscope::cli {

using namespace ragscope::core;

int writeGenerateKiltPredictions(const JobInputArgs& inputs, const std::string& answersPath,
                                 const std::string& kiltOut, const CommandLine& cli) {
  const auto dataset = loadJobInputs(inputs, "generate", cli);
  if (!dataset) return 2;
  auto answers = eval::readAnswersJsonl(answersPath);
  if (!answers.report.ok() || answers.report.hasErrors()) {
    printLoadDiagnostics(answers.report);
    std::cerr << "ragscope-cli: generate: --kilt-out: cannot read the answers " << answersPath
              << "\n";
    return 2;
  }
  std::unordered_map<std::string, std::string> byQid;
  for (const auto& a : answers.value) byQid.emplace(a.qid, a.error.empty() ? a.answer : "");
  std::optional<Loaded<Run>> run;
  if (!inputs.runPath.empty()) {
    run = readTrecRun(inputs.runPath, LoadOptions{});
    if (!run->report.ok() || run->report.hasErrors()) {
      printLoadDiagnostics(run->report);
      std::cerr << "ragscope-cli: generate: --kilt-out: cannot read the run " << inputs.runPath
                << "\n";
      return 2;
    }
  }
  const auto predictions =
      eval::kiltPredictionsFor(*dataset, run ? &run->value : nullptr, inputs.k, &byQid, true);
  std::string error;
  if (!exporting::writeKiltPredictions(kiltOut, predictions, &error)) {
    std::cerr << "ragscope-cli: generate: " << error << "\n";
    return 2;
  }
  std::cout << "wrote: " << kiltOut << " (KILT predictions, " << predictions.size()
            << " queries)\n";
  return 0;
}

bool writeRetrieveKiltPredictions(const Dataset& dataset, const Run& run, std::size_t k,
                                  const std::string& kiltOut) {
  const auto predictions = eval::kiltPredictionsFor(dataset, &run, k, nullptr);
  std::string error;
  if (!exporting::writeKiltPredictions(kiltOut, predictions, &error)) {
    std::cerr << "ragscope-cli retrieve: " << error << "\n";
    return false;
  }
  std::cout << "wrote: " << kiltOut << " (KILT predictions, provenance only, " << predictions.size()
            << " queries)\n";
  return true;
}

}  // namespace ragscope::cli
