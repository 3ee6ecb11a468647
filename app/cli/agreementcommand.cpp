// ragscope-cli agreement (core/claims/README.md): judge vs human agreement with bootstrap CIs and
// the annotator-vs-annotator ceiling, from RAGChecker's meta-evaluation files or qid,label CSVs.

#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "core/claims/agreementreport.h"
#include "core/claims/metaeval.h"
#include "core/eval/agreementinputs.h"
#include "core/export/json.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kAgreementIntro =
    R"(Agreement between a judge's scores and human labels: Pearson's r, Spearman's rho, Kendall's
tau-b and Cohen's kappa, each x 100 (as RAGChecker's meta_eval.py prints them, two decimals)
with a 95% percentile bootstrap CI over instances, and the same between the first and second
annotator (the human ceiling) where an instance has two.

Inputs, by extension: RAGChecker's meta-evaluation files (.json) or CSVs (.csv), see --human.
)";

bool failed(const LoadReport& report, const std::string& path) {
  if (report.ok() && !report.hasErrors()) return false;
  printLoadDiagnostics(report);
  std::cerr << "ragscope-cli: agreement: " << path << " cannot be used\n";
  return true;
}

}  // namespace

int agreementCommand(const Args& args) {
  std::string humanPath, judgePath, name = "ragchecker";
  claims::AgreementOptions options;
  bool asJson = false;
  CommandLine cli("agreement");
  cli.synopsis("--human FILE --judge FILE [--name NAME] [--resamples N] [--seed S] [--json]");
  cli.intro(kAgreementIntro);
  cli.path("--human", "FILE", humanPath,
           "FILE.json: RAGChecker's meta-evaluation human file (pairwise preferences, one record "
           "per annotator, <aspect>_label in -2..2); --judge is then a baseline file with "
           "model1.<NAME>.<metric> and model2.<NAME>.<metric>: the score difference is compared, "
           "as meta_eval.py does (NaN -> median, rescaled to [-2, 2]); kappa compares the "
           "preference direction (-1, 0, +1).\n"
           "FILE.csv: qid,label (rows with the same qid are several annotators); --judge is a CSV "
           "qid,<value columns> (each column an aspect), a judging run store of `ragscope-cli "
           "judge` (each of its metrics an aspect; a query without a value is left out) or a "
           "RAGChecker checking-output JSON (each ragchecker.* metric an aspect); kappa when both "
           "sides are whole numbers");
  cli.path("--judge", "FILE", judgePath, "the judge's scores (see --human)");
  cli.text("--name", "NAME", name, "the judge's key in a baseline file (default: ragchecker)");
  cli.integer("--resamples", "N", options.resamples, 0, 1000000,
              "bootstrap resamples (default 1000; 0 = no CIs)");
  cli.integer("--seed", "S", options.seed, 0, std::numeric_limits<std::uint64_t>::max(),
              "bootstrap seed (default 42)");
  cli.flag("--json", asJson,
           "{\"layout\", \"judge\", \"resamples\", \"seed\", \"level\", \"kappa_on\", "
           "\"aspects\": {aspect: {\"judge_metric\", \"n\", \"instances\", \"pearson\", "
           "\"spearman\", \"kendall_tau_b\", \"cohen_kappa\", \"ci95\": {...}, "
           "\"human_ceiling\": {...}}}}");
  cli.epilogue("Exit codes: 0 ok, 2 bad arguments or input (file:line: field: problem).");
  if (auto exit = cli.parse(args)) return *exit;
  if (humanPath.empty() || judgePath.empty())
    return cli.usageError("agreement needs --human FILE and --judge FILE");

  const auto outcome = eval::compareAgreementFiles(humanPath, judgePath, name, options);
  if (!outcome.failedFile.empty() && failed(outcome.report, outcome.failedFile)) return 2;
  if (!outcome.ok()) {
    std::cerr << "ragscope-cli: agreement: " << outcome.error << "\n";
    return 2;
  }
  const claims::MetaEvalResult& result = outcome.result;
  if (asJson)
    exporting::writeJson(std::cout, claims::agreementReportJson(result, name, options), 2);
  else
    std::cout << claims::formatAgreementReport(result, name, options);
  return 0;
}

}  // namespace ragscope::cli
