// ragscope-cli ragchecker (SPEC §7, CLAIMS.md §2): RAGChecker's eleven metrics recomputed from the
// labels of a checking-output file, with no LLM call.

#include <iostream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "core/claims/checkingfile.h"
#include "core/claims/ragchecker.h"
#include "core/claims/ragcheckerreport.h"
#include "core/export/json.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kRagCheckerHelp =
    R"(usage: ragscope-cli ragchecker FILE [--mode ragchecker|ragscope] [--json]

Recomputes RAGChecker's eleven metrics (ragchecker.precision, .recall, .f1, .claim_recall,
.context_precision, .context_utilization, .noise_sensitivity_in_relevant,
.noise_sensitivity_in_irrelevant, .hallucination, .self_knowledge, .faithfulness) from the
labels of a RAGChecker checking-output file (results[] with response_claims, gt_answer_claims,
answer2response, response2answer, retrieved2response, retrieved2answer). No LLM is called.
RAGChecker itself keeps metrics already stored in a file; this command recomputes all of them
and reports every stored per-example value that differs from its recomputation.

  --mode ragchecker  (default) RAGChecker's conventions: only "Entailment" counts, missing or
                     unparsed labels are read as Neutral, a case without claims or chunks is
                     0.0 and averaged; corpus figures are the mean of the per-example values in
                     percent, one decimal, as RAGChecker prints them (F1 = mean of the F1s)
  --mode ragscope    ragscope's: missing and unparsed labels are states, never 0 or 1; every
                     metric shows how many examples and claims it could score
  --json             {"mode", "n", "per_example": {query_id: {metric: value}},
                     "metrics": {"overall", "retriever", "generator"} (percent, one decimal),
                     "mean": {metric: full precision}, "labels", "stored_check"}; ragscope mode
                     adds "n_scored", "states", "items", "per_example_states"

Exit codes: 0 ok, 2 bad arguments or a file that cannot be read (file:line: results[i].field:
problem).
)";

}  // namespace

int ragcheckerCommand(const Args& args) {
  std::string path, modeText = "ragchecker";
  bool asJson = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kRagCheckerHelp;
      return 0;
    } else if (a == "--json") {
      asJson = true;
    } else if (a == "--mode") {
      if (!nextValue(args, i, modeText)) return usageError("--mode needs a value", kRagCheckerHelp);
    } else if (a.starts_with("-") || !path.empty()) {
      return usageError("ragchecker: unexpected argument '" + a + "'", kRagCheckerHelp);
    } else {
      path = a;
    }
  }
  if (path.empty()) return usageError("ragchecker needs a checking-output FILE", kRagCheckerHelp);
  const auto mode = claims::modeFromName(modeText);
  if (!mode)
    return usageError("--mode: '" + modeText + "' is not ragchecker or ragscope", kRagCheckerHelp);

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
