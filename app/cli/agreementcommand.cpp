// ragscope-cli agreement (core/claims/README.md): judge vs human agreement with bootstrap CIs and
// the annotator-vs-annotator ceiling, from RAGChecker's meta-evaluation files or qid,label CSVs.

#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "app/cli/pathroles.h"
#include "core/claims/agreementreport.h"
#include "core/claims/metaeval.h"
#include "core/data/loaders.h"
#include "core/eval/inputs/agreementinputs.h"
#include "core/eval/inputs/labelsources.h"
#include "core/export/json.h"
#include "core/labels/labelagreement.h"
#include "core/labels/labelscope.h"
#include "core/labels/labelstore.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kAgreementIntro =
    R"(Agreement between a judge's scores and human labels: Pearson's r, Spearman's rho, Kendall's
tau-b and Cohen's kappa, each x 100 (as RAGChecker's meta_eval.py prints them, two decimals)
with a 95% percentile bootstrap CI over instances, and the same between the first and second
annotator (the human ceiling) where an instance has two.

Inputs, by extension: RAGChecker's meta-evaluation files (.json) or CSVs (.csv), see --human.

With --labels, the human side is the project's labels (core/labels/README.md, "Agreement"), per
annotator: claim verdicts against the judging run's verdicts against the premise each label
names (a response claim against the retrieved chunks or the gold answer; a gold claim against
the response or the chunks), one group per premise; relevance grades against the dataset's
qrels, eRAG labels against the run's stored labels
(kappa, confusion matrix, accuracy, n), answer labels against the run's per-query metrics as the
CSV path compares them; and between annotators, Cohen's kappa (two) and Krippendorff's alpha.
)";

// Labels of a project or labels store, compared with the project's runs and datasets, the
// --store run stores and the --qrels file.
int agreementFromLabels(const std::string& labelsPath, const std::vector<std::string>& stores,
                        const std::string& qrelsPath, const std::string& claimsVs, bool asJson,
                        const claims::AgreementOptions& agreement) {
  auto fail = [](const std::string& message) {
    std::cerr << "ragscope-cli: agreement: " << message << "\n";
    return 2;
  };
  labels::LabelStore store;
  std::string error;
  if (!store.openProjectOrStore(labelsPath, true, &error)) return fail(error);
  const std::vector<labels::Label> current = store.current();
  labels::LabelSources sources;
  // Relative scopes lead into the labels store's folder (the project's): a --store is matched
  // to the labels naming that file, never by its file name (core/labels/labelscope.h).
  sources.folder = labels::labelsFolder(store.path());
  if (std::filesystem::path(labelsPath).extension() == ".json") {
    bool needDatasets = false;
    for (const auto& l : current) needDatasets |= l.target.kind == labels::TargetKind::Relevance;
    if (!qrelsPath.empty()) needDatasets = false;
    if (!eval::readProjectFileLabelSources(labelsPath, needDatasets, sources, &error))
      return fail(error);
  }
  for (const auto& s : stores) {
    labels::RunSource run;
    if (!eval::readLabelRunSource(s, labels::scopeOfStore(sources.folder, s), run, &error))
      return fail(error);
    sources.runs.insert(sources.runs.begin(), std::move(run));  // before the project's
  }
  if (!qrelsPath.empty()) {
    auto loaded = readTrecQrels(qrelsPath, LoadOptions{});
    if (!loaded.report.ok() || loaded.report.hasErrors()) {
      printLoadDiagnostics(loaded.report);
      return fail(qrelsPath + " cannot be used");
    }
    // The qrels stand for every dataset the relevance labels name.
    auto dataset = std::make_shared<Dataset>();
    dataset->qrels = std::move(loaded.value);
    std::set<std::string> scopes;
    for (const auto& l : current)
      if (l.target.kind == labels::TargetKind::Relevance) scopes.insert(l.target.scope);
    for (const auto& scope : scopes) sources.datasets.push_back({scope, dataset});
  }
  labels::LabelAgreementOptions options;
  options.agreement = agreement;
  if (claimsVs == "chunks") options.responsePremise = labels::ClaimPremise::Chunks;
  if (claimsVs == "gold") options.responsePremise = labels::ClaimPremise::GoldAnswer;
  const auto report = labels::computeLabelAgreement(current, sources, options);
  if (asJson)
    exporting::writeJson(std::cout, labels::labelAgreementJson(report, options), 2);
  else
    std::cout << labels::formatLabelAgreement(report, options);
  return 0;
}

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
  std::string labelsPath, qrelsPath, claimsVs;
  std::vector<std::string> stores;
  CommandLine cli("agreement");
  cli.synopsis(
      "(--human FILE --judge FILE [--name NAME] | --labels PROJECT_OR_LABELS_STORE "
      "[--store RUN.db]... [--qrels FILE] [--claims-vs chunks|gold]) [--resamples N] [--seed S] "
      "[--json]");
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
           "sides are whole numbers")
      .input();
  cli.path("--judge", "FILE", judgePath, "the judge's scores (see --human)").input();
  cli.text("--name", "NAME", name, "the judge's key in a baseline file (default: ragchecker)");
  cli.path("--labels", "PATH", labelsPath,
           "the human side from a project's labels (a project file *.json: its labels store "
           "PROJECT.labels.db and its run stores and datasets) or from a labels store")
      .input(labelsSourcePaths("--labels", core::PathUse::Read));
  cli.paths("--store", "RUN.db", stores,
            "with --labels: a run store to compare with (judging, eRAG or end-to-end; matched to "
            "the labels whose scope names that file, relative scopes read from the labels "
            "store's folder, never by file name alone; repeatable)")
      .input();
  cli.path("--qrels", "FILE", qrelsPath,
           "with --labels: the qrels relevance labels are compared with (instead of the "
           "project's datasets)")
      .input();
  cli.choice("--claims-vs", {"chunks", "gold"}, claimsVs,
             "with --labels: only the response-claim labels judged against the retrieved chunks "
             "(faithfulness) or the gold answer (correctness); by default every premise, each "
             "label compared with the judge's verdict against the premise it names");
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
  if (!labelsPath.empty()) {
    if (!humanPath.empty() || !judgePath.empty())
      return cli.usageError("--labels replaces --human and --judge");
    return agreementFromLabels(labelsPath, stores, qrelsPath, claimsVs, asJson, options);
  }
  if (!stores.empty() || !qrelsPath.empty())
    return cli.usageError("--store and --qrels go with --labels");
  if (humanPath.empty() || judgePath.empty())
    return cli.usageError("agreement needs --human FILE and --judge FILE, or --labels");

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
