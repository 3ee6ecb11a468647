// ragscope-cli ragchecker (core/claims/README.md): RAGChecker's eleven metrics recomputed from the
// labels of a checking-output file, with no LLM call.

#include <iostream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "core/claims/checkingfile.h"
#include "core/claims/ragchecker.h"
#include "core/claims/ragcheckerreport.h"
#include "core/export/json.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kRagCheckerIntro =
    R"(Recomputes RAGChecker's eleven metrics (ragchecker.precision, .recall, .f1, .claim_recall,
.context_precision, .context_utilization, .noise_sensitivity_in_relevant,
.noise_sensitivity_in_irrelevant, .hallucination, .self_knowledge, .faithfulness) from the
labels of a RAGChecker checking-output file (results[] with response_claims, gt_answer_claims,
answer2response, response2answer, retrieved2response, retrieved2answer). No LLM is called.
RAGChecker itself keeps metrics already stored in a file; this command recomputes all of them
and reports every stored per-example value that differs from its recomputation.
)";

}  // namespace

int ragcheckerCommand(const Args& args) {
  std::vector<std::string> files;
  std::string modeText = "ragchecker";
  bool asJson = false;
  CommandLine cli("ragchecker");
  cli.synopsis("FILE [--mode ragchecker|ragscope] [--json]");
  cli.intro(kRagCheckerIntro);
  cli.positionals("FILE", files, 1);
  cli.positionalRoles({{PathRole::Input, "FILE"}});
  cli.choice("--mode", {"ragchecker", "ragscope"}, modeText,
             "ragchecker (default): RAGChecker's conventions: only \"Entailment\" counts, "
             "missing or unparsed labels are read as Neutral, a case without claims or chunks is "
             "0.0 and averaged; corpus figures are the mean of the per-example values in percent, "
             "one decimal, as RAGChecker prints them (F1 = mean of the F1s).\n"
             "ragscope: ragscope's: missing and unparsed labels are states, never 0 or 1; every "
             "metric shows how many examples and claims it could score");
  cli.flag("--json", asJson,
           "{\"mode\", \"n\", \"per_example\": {query_id: {metric: value}}, \"metrics\": "
           "{\"overall\", \"retriever\", \"generator\"} (percent, one decimal), \"mean\": "
           "{metric: full precision}, \"labels\", \"stored_check\"}; ragscope mode adds "
           "\"n_scored\", \"states\", \"items\", \"per_example_states\"");
  cli.epilogue(
      "Exit codes: 0 ok, 2 bad arguments or a file that cannot be read (file:line: "
      "results[i].field: problem).");
  if (auto exit = cli.parse(args)) return *exit;
  if (files.empty()) return cli.usageError("ragchecker needs a checking-output FILE");
  const std::string& path = files.front();
  const auto mode = claims::modeFromName(modeText);
  if (!mode) return cli.usageError("--mode: '" + modeText + "' is not ragchecker or ragscope");

  auto file = claims::readCheckingOutput(path);
  const auto& report = file.report;
  if (!report.ok() || report.hasErrors()) {
    printLoadDiagnostics(report);
    std::cerr << "ragscope-cli: ragchecker: " << path << " cannot be scored (" << report.errors
              << " error(s))\n";
    return 2;
  }
  printLoadDiagnostics(report);  // warnings (stderr): missing labels and the like
  const auto scores = claims::scoreCorpus(file.value, *mode);
  if (asJson) {
    exporting::writeJson(std::cout, claims::ragcheckerReportJson(file.value, scores), 2);
  } else {
    std::string storedError;
    const auto stored = claims::readStoredCorpusMetrics(path, &storedError);
    std::cout << claims::formatRagCheckerReport(file.value, scores, stored);
  }
  return 0;
}

}  // namespace ragscope::cli
