// ragscope-cli ppi (core/stats/README.md, "Prediction-powered inference"; items in
// core/eval/inputs/README.md, "Human labels and PPI"): a judge's mean corrected by human labels on
// a sample, beside the judge-only and human-only means.

#include <iostream>
#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "app/cli/pathroles.h"
#include "core/eval/inputs/ppifiles.h"
#include "core/eval/inputs/ppiinputs.h"
#include "core/export/json.h"
#include "core/labels/labelscope.h"
#include "core/labels/labelstore.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kPpiIntro =
    R"(Prediction-powered inference for a mean (Angelopoulos et al., Science 2023; PPI++,
Angelopoulos, Duchi and Zrnic 2023; as the ppi_py package computes it): a judge's value f on
all N items, a human value Y on n of them, and the estimate
  mean over the unlabelled items of (lambda f) + mean over the labelled items of (Y - lambda f)
with the normal interval +- z sqrt(var_U(lambda f) / N_u + var_L(Y - lambda f) / n), beside the
judge-only mean (f over all N items) and the human-only mean (Y over the n labelled items).
lambda = 1 is classical PPI; by default PPI++ tunes lambda to cov_L(Y, f) / ((1 + n / N_u)
var(f)), clipped to [0, 1].

Inputs, one of:
  --predictions FILE --labels FILE   two CSV files with a header naming the columns id and
                                     value: the judge's value of every item, the human value
                                     of some (ids not in the predictions are an error)
  --store RUN.db --labels P --metric M
                                     a run store's judged items against the human labels of a
                                     project (P a project file: its labels store) or of a
                                     labels store; M one of faithfulness, correctness, coverage
                                     (claims of a judging run), erag (an eRAG run's document
                                     labels), answer:<metric> (answers of an end-to-end or
                                     judging run)

A claim label is the truth of the metric whose question it answered only: faithfulness uses the
response-claim labels judged against the retrieved chunks, correctness those judged against
the gold answer, coverage the gold-claim labels judged against the response. The run's labels
are those whose scope names RUN.db itself (the path as the project lists it, relative to the
project's folder), never another store of the same file name.
)";

}  // namespace

int ppiCommand(const Args& args) {
  std::string predictions, labelsPath, storePath, metric;
  stats::PpiOptions options;
  bool asJson = false;
  CommandLine cli("ppi");
  cli.synopsis(
      "(--predictions FILE --labels FILE | --store RUN.db --labels PROJECT_OR_LABELS_STORE "
      "--metric M) [--level 0.95] [--lambda auto|X] [--json]");
  cli.intro(kPpiIntro);
  cli.path("--predictions", "FILE", predictions, "CSV id,value: the judge's value of every item")
      .input();
  cli.path("--labels", "FILE", labelsPath,
           "with --predictions: CSV id,value, the human value of the labelled items; with "
           "--store: a project file or a labels store")
      .input(labelsSourcePaths("--labels", core::PathUse::Read));
  cli.path("--store", "RUN.db", storePath, "a judging, eRAG or end-to-end run store").input();
  cli.text("--metric", "M", metric, "with --store: the judged metric (see above)");
  cli.number("--level", "L", options.level, NumberBounds::strictlyBetween(0, 1),
             "the intervals' confidence level (default 0.95)");
  cli.custom(
      "--lambda", "auto|X",
      [&options](const std::string& value) -> std::string {
        if (value == "auto") {
          options.lambda.reset();
          return {};
        }
        double x = 0;
        if (!parseFiniteDouble(value, x)) return "expected auto or a finite number";
        options.lambda = x;
        return {};
      },
      "auto: PPI++ power tuning (default); 1: classical PPI; 0: the human mean alone");
  cli.flag("--json", asJson,
           "{\"estimate\", \"ci_low\", \"ci_high\", \"lambda\", \"n_labelled\", "
           "\"n_unlabelled\", \"judge_only\": {\"mean\", \"ci_low\", \"ci_high\"}, "
           "\"human_only\": {\"mean\", \"ci_low\", \"ci_high\"}} (null where undefined)");
  cli.epilogue(
      "Exit codes: 0 ok, 2 bad arguments or input (file:line: field: problem), or no estimate "
      "(no item labelled, every item labelled).");
  if (auto exit = cli.parse(args)) return *exit;
  if (labelsPath.empty()) return cli.usageError("ppi needs --labels");
  if (!predictions.empty() && !storePath.empty())
    return cli.usageError("--predictions and --store exclude each other");
  if (predictions.empty() && storePath.empty())
    return cli.usageError("ppi needs --predictions FILE or --store RUN.db");
  if (!predictions.empty() && !metric.empty())
    return cli.usageError("--metric applies to --store only");
  if (!storePath.empty() && metric.empty()) return cli.usageError("--store needs --metric M");

  stats::PpiInput input;
  if (!predictions.empty()) {
    eval::PpiFiles files = eval::readPpiFiles(predictions, labelsPath);
    if (!files.ok()) {
      std::cerr << "ragscope-cli: ppi: " << files.error << "\n";
      return 2;
    }
    input = std::move(files.input);
  } else {
    labels::LabelStore store;
    std::string err;
    if (!store.openProjectOrStore(labelsPath, true, &err)) {
      std::cerr << "ragscope-cli: ppi: " << err << "\n";
      return 2;
    }
    // The run's labels are those whose scope names the store, relative scopes read against the
    // labels store's folder (the project's), never by file name (core/labels/labelscope.h).
    const eval::RunPpi run =
        eval::ppiItemsOfStore(storePath, labels::labelsFolder(store.path()), store.current());
    if (!run.error.empty()) {
      std::cerr << "ragscope-cli: ppi: " << run.error << "\n";
      return 2;
    }
    const eval::PpiItems* items = run.find(metric);
    if (!items) {
      std::string known;
      for (const auto& name : run.metricNames()) known += (known.empty() ? "" : ", ") + name;
      std::cerr << "ragscope-cli: ppi: " << storePath << " (a '" << run.kind
                << "' run) has no metric '" << metric << "'"
                << (known.empty() ? std::string(" (it has no judged item)") : "; it has: " + known)
                << "\n";
      return 2;
    }
    if (!asJson) {
      std::cout << items->metric << ": " << items->description << "\n";
      if (items->premise)
        std::cout << "human truth: the claim labels judged against "
                  << labels::claimPremiseText(*items->premise)
                  << (items->otherPremise ? "; " + std::to_string(items->otherPremise) +
                                                " labelled claim(s) judged against another "
                                                "premise not used"
                                          : std::string())
                  << "\n";
      if (items->judgeUnresolved || items->abstained || items->staleLabels ||
          items->labelsNotUsed || items->severalAnnotators)
        std::cout << "left out: " << items->judgeUnresolved
                  << " item(s) with an unresolved judge verdict; " << items->staleLabels
                  << " stale label(s), " << items->labelsNotUsed
                  << " labelled target(s) that are not items; unlabelled: " << items->abstained
                  << " item(s) labelled cannot_tell only; " << items->severalAnnotators
                  << " item(s) with several annotators (their mean)\n";
    }
    input = items->input;
  }
  const stats::PpiResult result = stats::ppiMean(input, options);
  if (!result.ok()) {
    std::cerr << "ragscope-cli: ppi: no estimate: " << result.error << "\n";
    return 2;
  }
  if (asJson)
    exporting::writeJson(std::cout, eval::ppiResultJson(result), 2);
  else
    std::cout << eval::formatPpiResult(result, options);
  return 0;
}

}  // namespace ragscope::cli
