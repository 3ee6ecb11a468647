// ragscope-cli assess (core/trecrag/README.md, "Assessment"): LLM relevance grades 0..3 for the
// query-document pairs a run retrieves in its top --depth that the qrels do not judge (or all of
// them with --all), following UMBRELA's procedure, as TREC qrels. The command turns its
// arguments into a core job specification (core/eval/api/jobspec.h, JobKind::Assess); planning,
// the run store, the engine, the strict reading of the replies and the qrels are core's. A killed
// run continues with `ragscope-cli resume RUN.db`.

#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/joboptions.h"
#include "app/cli/options.h"
#include "app/cli/pathroles.h"
#include "app/cli/retrieveroptions.h"
#include "core/eval/api/job.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kAssessIntro =
    R"(LLM relevance assessment after UMBRELA (Upadhyay et al. 2024): for each query-document pair,
one judge call (--repeats R: R calls, each with its own seed) with a prompt that has the judge
reason about the query's intent, how well the passage meets it and how trustworthy it is, and end
with "##final score: N" on TREC DL's scale 0..3 (--template FILE replaces it: {query},
{passage}). The pairs are each query's top --depth documents of the run (trec_eval's order) that
the qrels (--qrels, else the dataset's) do not judge; --all grades the judged ones too, to
measure the judge's agreement with the people (`ragscope-cli qrels-agreement`).
Replies are read strictly: exactly one "##final score: N" line, a JSON object {"grade": N}, or
the bare number; anything else (no grade, two grades, 4, 2.5) is "unparsed", counted and
shown, never a grade. A pair's grade is the lower median of its parsed repeats, its spread the
largest minus the smallest. --out writes the judge's grades as TREC qrels (qid 0 docid grade);
with --merge-qrels the people's qrels with the judge's grades added for the pairs they do not
judge (the people's grade wins where both grade; differences are listed as conflicts).
--labels adds every grade to a project's labels store as a relevance label of the annotator
"judge:<model>" (--annotator), so `labels export --format qrels`, agreement and the labelling
queue work on them.
)";

}  // namespace

int assessCommand(const Args& args) {
  JobOptions jobOptions;
  JobInputArgs inputs;
  eval::JobSpec spec;
  spec.kind = eval::JobKind::Assess;
  RetrieverArgs retriever;
  std::string out, qrels, labels, scope, annotator;
  bool asJson = false;
  CommandLine cli("assess");
  cli.synopsis(
      "--dataset PATH [--dataset PATH]... (--run RUNFILE | --retriever R) [--qrels FILE] "
      "[--depth N] [--all] [--repeats R] [--out FILE [--merge-qrels]] [--labels PROJECT] "
      "[--judge URL --judge-model M] [LLM job options]");
  cli.intro(kAssessIntro);
  addJobInputOptions(cli, inputs, 1000);
  addJobRetrieverOptions(cli, retriever, {});
  cli.integer("--depth", "N", spec.assess.depth, 1, 10000,
              "grade each query's top N documents of the run (default 20: nDCG@20, the first "
              "measure of UMBRELA's comparison with NIST's assessors)");
  cli.flag("--all", spec.assess.all, "grade the pairs the qrels judge too");
  cli.integer("--repeats", "R", spec.assess.repeats, 1, eval::kMaxAssessRepeats,
              "calls per pair (default 1); the grade is the lower median, the spread shown");
  cli.path("--qrels", "FILE", qrels, "the people's qrels (default: the dataset's)").input();
  cli.path("--out", "FILE", out, "write the grades as TREC qrels (replaced atomically)").output();
  cli.flag("--merge-qrels", spec.assess.mergeQrels,
           "--out holds the people's qrels with the judge's grades of the other pairs (the "
           "people's grades win)");
  cli.path("--labels", "PROJECT", labels,
           "a project file (its labels store) or a labels store: every grade as a relevance "
           "label of the judge")
      .input(labelsSourcePaths("--labels", core::PathUse::ReadAndWritten));
  cli.text("--labels-scope", "NAME", scope,
           "the dataset's name in the project (the labels' scope; default: the dataset's name)");
  cli.text("--annotator", "NAME", annotator, "the labels' annotator (default judge:<model>)");
  cli.flag("--json", asJson, "print the counts as JSON instead of the summary");
  addJobOptions(cli, jobOptions);
  if (auto exit = cli.parse(args)) return *exit;
  if (inputs.datasets.empty()) return cli.usageError("assess needs --dataset PATH");
  if (inputs.runPath.empty() == !retriever.retriever)
    return cli.usageError("assess needs either --run RUNFILE or --retriever R");
  if (cli.given("--k")) return cli.usageError("assess takes --depth N, not --k");
  if (spec.assess.mergeQrels && out.empty()) return cli.usageError("--merge-qrels goes with --out");
  if (labels.empty() && (!scope.empty() || !annotator.empty()))
    return cli.usageError("--labels-scope and --annotator go with --labels");
  inputs.k = spec.assess.depth;  // a retriever fetches the depth graded
  spec.run.type = eval::RunSource::Type::File;
  if (std::string error = setJobRetriever(retriever, cli, inputs.k, spec.run); !error.empty())
    return cli.usageError(error);
  spec.out = out;
  spec.assess.qrels = qrels;
  spec.assess.labels = labels;
  spec.assess.labelsScope = scope;
  spec.assess.annotator = annotator;
  return runJobFromCommandLine(spec, inputs, jobOptions, cli, asJson);
}

}  // namespace ragscope::cli
