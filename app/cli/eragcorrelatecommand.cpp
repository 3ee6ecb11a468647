// ragscope-cli erag-correlate (core/eval/jobs/README.md): the correlation of retrieval evaluation
// methods with end-to-end quality over stored eRAG and end-to-end runs (the eRAG paper's Table 1),
// one pair of stores per system.

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "core/data/loaders.h"
#include "core/eval/jobs/correlationanalysis.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragjob.h"
#include "core/export/json.h"
#include "core/store/runstore.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
namespace fs = std::filesystem;

constexpr const char* kCorrelateIntro =
    R"(The eRAG paper's Table 1: Kendall's tau-b and Spearman's rho between each retrieval evaluation
method's per-query scores and the end-to-end per-query scores, queries paired by id. Methods:
qrels (with --qrels), provenance (the gold outputs' source documents; chunks count as their
document), contains-answer document labels, and eRAG. Each --erag store is paired with the
--e2e store given in the same position (one pair per system, same downstream metric); with two
or more systems a table over the systems' means follows.
)";

}  // namespace

int eragCorrelateCommand(const Args& args) {
  std::vector<std::string> eragPaths, e2ePaths;
  std::string qrelsPath, measuresText;
  std::size_t resamples = 1000;
  bool asJson = false;
  CommandLine cli("erag-correlate");
  cli.synopsis(
      "--erag RUN.db --e2e RUN.db [--erag RUN.db --e2e RUN.db]... [--qrels QRELS] "
      "[--measures LIST] [--resamples N] [--json]");
  cli.intro(kCorrelateIntro);
  cli.paths("--erag", "RUN.db", eragPaths, "an eRAG run store, repeatable (one per system)")
      .input();
  cli.paths("--e2e", "RUN.db", e2ePaths,
            "the end-to-end run store of the system of the --erag store in the same position")
      .input();
  cli.path("--qrels", "QRELS", qrelsPath, "qrels for the qrels method").input();
  cli.text("--measures", "LIST", measuresText, "default: the eRAG run's measures");
  cli.integer("--resamples", "N", resamples, 0, 1000000,
              "bootstrap resamples for the coefficient CIs (default 1000; 0 = none)");
  cli.flag("--json", asJson, "print the analysis as JSON");
  if (auto exit = cli.parse(args)) return *exit;
  if (eragPaths.empty() || eragPaths.size() != e2ePaths.size())
    return cli.usageError("erag-correlate needs one --e2e store for each --erag store");
  std::vector<MeasureRequest> measures;
  if (!measuresText.empty()) {
    auto parsed = eval::parseEragMeasures(measuresText);
    if (!parsed.ok()) return cli.usageError("--measures: " + parsed.error);
    measures = parsed.value;
  }
  std::optional<Qrels> qrels;
  if (!qrelsPath.empty()) {
    auto q = readTrecQrels(qrelsPath, LoadOptions{});
    if (!q.report.ok() || q.report.hasErrors()) {
      printLoadDiagnostics(q.report);
      std::cerr << "ragscope-cli: erag-correlate: the qrels have errors\n";
      return 2;
    }
    qrels = std::move(q.value);
  }
  std::vector<eval::EragReport> eragReports(eragPaths.size());
  std::vector<eval::E2eReport> e2eReports(e2ePaths.size());
  std::vector<eval::SystemInput> systems;
  stats::BootstrapOptions noBootstrap;
  noBootstrap.resamples = 0;
  for (std::size_t s = 0; s < eragPaths.size(); ++s) {
    store::RunStore eragStore, e2eStore;
    std::string err;
    if (!eragStore.openReadOnly(eragPaths[s], &err) || !e2eStore.openReadOnly(e2ePaths[s], &err)) {
      std::cerr << "ragscope-cli: " << err << "\n";
      return 2;
    }
    // The eRAG report with continuous-safe measures; refused measures become rows with notes.
    eragReports[s] = eval::computeEragReport(eragStore, {}, noBootstrap);
    e2eReports[s] = eval::computeE2eReport(e2eStore, noBootstrap);
    for (const auto* error : {&eragReports[s].error, &e2eReports[s].error}) {
      if (!error->empty()) {
        std::cerr << "ragscope-cli: erag-correlate: " << *error << "\n";
        return 2;
      }
    }
    const auto settings = eragStore.run().settings;
    std::string name = settings.value("system", std::string());
    if (name.empty()) name = fs::path(eragPaths[s]).stem().string();
    for (const auto& other : systems) {
      if (other.name == name) name = fs::path(eragPaths[s]).stem().string();
    }
    systems.push_back({name, &eragReports[s], &e2eReports[s]});
  }
  eval::CorrelationAnalysisOptions options;
  options.measures = measures;
  options.qrels = qrels ? &*qrels : nullptr;
  options.stats.resamples = resamples;
  const auto analysis = eval::analyseCorrelation(systems, options);
  if (!analysis.ok()) {
    std::cerr << "ragscope-cli: erag-correlate: " << analysis.error << "\n";
    return 2;
  }
  if (asJson) {
    exporting::writeJson(std::cout, eval::correlationAnalysisJson(analysis), 2);
  } else {
    std::cout << eval::formatCorrelationAnalysis(analysis);
  }
  return 0;
}

}  // namespace ragscope::cli
