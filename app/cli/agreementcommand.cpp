// ragscope-cli agreement (SPEC §7, CLAIMS.md §4): judge vs human agreement with bootstrap CIs and
// the annotator-vs-annotator ceiling, from RAGChecker's meta-evaluation files or qid,label CSVs.

#include <iostream>
#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "core/claims/agreementreport.h"
#include "core/claims/metaeval.h"
#include "core/eval/agreementinputs.h"
#include "core/export/json.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kAgreementHelp =
    R"(usage: ragscope-cli agreement --human FILE --judge FILE [--name NAME] [--resamples N]
                              [--seed S] [--json]

Agreement between a judge's scores and human labels: Pearson's r, Spearman's rho, Kendall's
tau-b and Cohen's kappa, each x 100 (as RAGChecker's meta_eval.py prints them, two decimals)
with a 95% percentile bootstrap CI over instances, and the same between the first and second
annotator (the human ceiling) where an instance has two.

Inputs (by extension):
  --human FILE.json  RAGChecker's meta-evaluation human file (pairwise preferences, one record
                     per annotator, <aspect>_label in -2..2); --judge is then a baseline file
                     with model1.<NAME>.<metric> and model2.<NAME>.<metric>: the score
                     difference is compared, as meta_eval.py does (NaN -> median, rescaled
                     to [-2, 2]); kappa compares the preference direction (-1, 0, +1)
  --human FILE.csv   qid,label (rows with the same qid are several annotators); --judge is a
                     CSV qid,<value columns> (each column an aspect), a judging run store of
                     `ragscope-cli judge` (each of its metrics an aspect; a query without a
                     value is left out) or a RAGChecker checking-output JSON (each
                     ragchecker.* metric an aspect); kappa when both sides are whole numbers
  --name NAME        the judge's key in a baseline file (default: ragchecker)
  --resamples N      bootstrap resamples (default 1000; 0 = no CIs)
  --seed S           bootstrap seed (default 42)
  --json             {"layout", "judge", "resamples", "seed", "level", "kappa_on", "aspects":
                     {aspect: {"judge_metric", "n", "instances", "pearson", "spearman",
                     "kendall_tau_b", "cohen_kappa", "ci95": {...}, "human_ceiling": {...}}}}

Exit codes: 0 ok, 2 bad arguments or input (file:line: field: problem).
)";

bool failed(const LoadReport& report, const std::string& path) {
  if (report.ok() && !report.hasErrors()) return false;
  printLoadDiagnostics(report);
  std::cerr << "ragscope-cli: agreement: " << path << " cannot be used\n";
  return true;
}

}  // namespace

int agreementCommand(const Args& args) {
  std::string humanPath, judgePath, name = "ragchecker", v;
  claims::AgreementOptions options;
  bool asJson = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kAgreementHelp;
      return 0;
    } else if (a == "--human" || a == "--judge" || a == "--name") {
      std::string& into = a == "--human" ? humanPath : a == "--judge" ? judgePath : name;
      if (!nextValue(args, i, into)) return usageError(a + " needs a value", kAgreementHelp);
    } else if (a == "--resamples") {
      if (!nextValue(args, i, v) || !parseCount(v, 0, 1000000, options.resamples))
        return usageError("--resamples needs a number 0..1000000", kAgreementHelp);
    } else if (a == "--seed") {
      if (!nextValue(args, i, v) || !parseUnsigned(v, options.seed))
        return usageError("--seed needs a whole number", kAgreementHelp);
    } else if (a == "--json") {
      asJson = true;
    } else {
      return usageError("agreement: unexpected argument '" + a + "'", kAgreementHelp);
    }
  }
  if (humanPath.empty() || judgePath.empty())
    return usageError("agreement needs --human FILE and --judge FILE", kAgreementHelp);

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
