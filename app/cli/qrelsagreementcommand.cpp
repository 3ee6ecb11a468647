// ragscope-cli qrels-agreement (core/trecrag/README.md, "Qrels agreement"): two qrels files on
// the pairs both judge (Cohen's kappa on the grades and at a level, confusion matrices) and,
// given runs, how the two files order the systems (Kendall's tau-b, Spearman's rho).

#include <iostream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "core/data/loaders.h"
#include "core/export/json.h"
#include "core/metrics/measurename.h"
#include "core/stats/runsummary.h"
#include "core/trecrag/qrelsagreement.h"
#include "core/trecrag/qrelsagreementreport.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kIntro =
    R"(Compares two qrels files, e.g. NIST's grades (A) and an LLM assessor's (B), as UMBRELA and the
TREC RAG tracks validate LLM relevance labels. On the (qid, docid) pairs both files judge: Cohen's
kappa on the four grades 0..3 (unweighted) with the 4x4 confusion matrix, and binary kappa at
level -l (relevant = grade >= LEVEL) with the 2x2 matrix; pairs judged by one file only are
counted. Given runs, each run's mean of the measure under A and under B (the trec_eval-exact
evaluator, -l LEVEL, over the queries both files judge), each system's rank under both, Kendall's
tau-b and Spearman's rho between the two orderings (ties: tau-b, average ranks), and the largest
rank swaps.
)";

constexpr const char* kEpilogue =
    R"(Grades must be 0..3: a grade outside the scale (negative ones included) or a document judged
twice for one query is refused (file:line: field: problem), never clamped. Exit codes: 0 ok, 1 no
pair judged by both files, 2 usage or input errors.
)";

// TREC 2024 RAG's first retrieval measure (Upadhyay et al. 2024, the UMBRELA study): nDCG@20.
constexpr const char* kDefaultMeasure = "ndcg_cut_20";

// Reads a qrels file and checks it is on the 0..3 scale; prints the problems. Nothing on errors.
std::optional<Qrels> readGradedQrels(const std::string& path) {
  auto loaded = readTrecQrels(path, LoadOptions{});
  printLoadDiagnostics(loaded.report);
  if (!loaded.report.ok() || loaded.report.hasErrors()) return std::nullopt;
  std::size_t total = 0;
  const auto problems = trecrag::gradeScaleProblems(loaded.value, 20, &total);
  for (const auto& d : problems) std::cerr << d.toString() << '\n';
  if (total > problems.size())
    std::cerr << "... and " << (total - problems.size()) << " more problems\n";
  if (total > 0) return std::nullopt;
  return std::move(loaded.value);
}

}  // namespace

int qrelsAgreementCommand(const Args& args) {
  std::vector<std::string> qrelsPaths, runPaths;
  std::string measureText = kDefaultMeasure;
  int level = trecrag::kDefaultBinaryLevel;
  bool complete = false, asJson = false;
  CommandLine cli("qrels-agreement");
  cli.synopsis("--qrels A --qrels B [--run RUN]... [--measure M] [-l LEVEL] [-c] [--json]");
  cli.intro(kIntro);
  cli.epilogue(kEpilogue);
  cli.paths("--qrels", "FILE", qrelsPaths, "a TREC qrels file; given exactly twice (A, then B)")
      .input();
  cli.paths("--run", "RUN", runPaths,
            "a TREC run file, repeatable: each is evaluated under A and under B")
      .input();
  cli.text("--measure", "M", measureText,
           "the measure that orders the systems, one column in any spelling eval takes "
           "(ndcg_cut_20, ndcg_cut.20, nDCG@20); default ndcg_cut_20, the TREC 2024 RAG track's "
           "nDCG@20");
  cli.integer("-l", "LEVEL", level, 1, trecrag::kTopGrade,
              "relevant = grade >= LEVEL, for the binary kappa and the evaluation (trec_eval's "
              "-l; NDCG ignores it); default 2, as TREC DL and the RAG tracks binarise");
  cli.flag("-c", complete,
           "complete: a query a run does not answer counts as 0 (trec_eval -c); default: skipped");
  cli.flag("--json", asJson,
           "one JSON document: pairs, queries, grades and binary (kappa, accuracy, confusion, "
           "rows A, columns B), systems (runs with mean_a, mean_b, rank_a, rank_b; "
           "kendall_tau_b, spearman_rho with p-values; largest_rank_swaps)");
  if (auto exit = cli.parse(args)) return *exit;
  if (qrelsPaths.size() != 2)
    return cli.usageError("give --qrels exactly twice (A and B), got " +
                          std::to_string(qrelsPaths.size()));
  const auto measure = parseMeasureName(measureText);
  if (!measure.ok()) return cli.usageError("--measure: " + measure.error);
  if (measure.value.column().empty())
    return cli.usageError("--measure: '" + measureText +
                          "' yields several columns; give one (e.g. ndcg_cut_20)");

  const auto a = readGradedQrels(qrelsPaths[0]);
  if (!a) return 2;
  const auto b = readGradedQrels(qrelsPaths[1]);
  if (!b) return 2;
  const trecrag::GradeAgreement grades = trecrag::compareGrades(*a, *b, level);

  std::optional<trecrag::SystemAgreement> systems;
  if (!runPaths.empty()) {
    std::vector<Run> runs;
    std::vector<stats::RunName> names;
    for (const auto& path : runPaths) {
      auto run = readTrecRun(path, LoadOptions{});
      printLoadDiagnostics(run.report);
      if (!run.report.ok() || run.report.hasErrors()) return 2;
      names.push_back({run.value.tag, path});
      runs.push_back(std::move(run.value));
    }
    const auto labels = stats::runLabels(names);
    std::vector<trecrag::NamedRun> named;
    for (std::size_t i = 0; i < runs.size(); ++i) named.push_back({labels[i], &runs[i]});
    EvalSettings settings;
    settings.relevanceLevel = level;
    settings.complete = complete;
    settings.measures = {measure.value.request};
    systems = trecrag::compareSystems(*a, *b, named, measure.value.column(), settings);
    if (!systems->ok()) {
      std::cerr << "ragscope-cli qrels-agreement: " << systems->error << '\n';
      return 2;
    }
  }

  const trecrag::QrelsNames names{qrelsPaths[0], qrelsPaths[1], level};
  const trecrag::SystemAgreement* s = systems ? &*systems : nullptr;
  if (asJson)
    exporting::writeJson(std::cout, trecrag::qrelsAgreementJson(grades, s, names), 2);
  else
    std::cout << trecrag::formatQrelsAgreement(grades, s, names);
  if (grades.shared == 0) {
    std::cerr << "ragscope-cli qrels-agreement: the two files judge no pair in common\n";
    return 1;
  }
  return 0;
}

}  // namespace ragscope::cli
