// ragscope-cli erag / e2e (core/eval/jobs/README.md): eRAG document labels from the RAG's own
// generator, and end-to-end generation with all top-k documents. The command only turns its
// arguments into a core job specification; planning (retrieval included), the run store, the engine
// and the scores are core's (core/eval/api/job.h), the same path the GUI's eRAG page takes; the
// retriever options are retrieve's (retrieveroptions.h). A killed run continues with `ragscope-cli
// resume RUN.db`: the run retrieved is in the store, no retriever is asked again.

#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/joboptions.h"
#include "app/cli/jobreport.h"
#include "app/cli/options.h"
#include "app/cli/retrieveroptions.h"
#include "core/eval/api/job.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kEragIntro =
    R"(eRAG (Salemi & Zamani, SIGIR 2024): for every query and each of its top-k documents, one
generator call with the RAG prompt holding only that document; the output scored against the
query's gold answers (--metric) is the document's label. Labels are aggregated per query:
  - binary labels (every label of the run 0 or 1): any trec_eval measure, with the labels as the
    query's qrels (relevance level 1) and the list order as the ranking;
  - continuous labels (e.g. rouge-l, f1): only P_k (mean of the first k labels, a shorter list
    padded with 0) and success_k (max of the first k labels); other measures are refused.
Costs N x k calls (end-to-end: N). Every prompt and output is kept in the run store (--store),
with the labels and per-query scores; a killed run continues with `ragscope-cli resume RUN.db`.
The store is an input of `ragscope-cli bootstrap / compare / correlate` (--measure P_5, ...).
)";

constexpr const char* kE2eIntro =
    R"(End-to-end RAG evaluation: one generator call per query with all of its top-k documents in the
prompt, the output scored against the gold answers with --metric (default rouge-l). The same
inputs as `erag`; the per-query scores are what `ragscope-cli erag-correlate` compares eRAG and
the other retrieval evaluations with.
In `ragscope-cli bootstrap / compare / correlate` the store's one measure is named by the
metric (e.g. `correlate erag.db e2e.db --measure P_5 --measure-y rouge-l`).
)";

// Shared by erag and e2e: arguments into a job specification, then the core job.
int runEvaluationJob(const Args& args, eval::JobKind kind) {
  const bool erag = kind == eval::JobKind::Erag;
  const std::string job(eval::jobKindName(kind));
  JobOptions jobOptions;
  JobInputArgs inputs;
  eval::JobSpec spec;
  spec.kind = kind;
  RetrieverArgs retriever;
  std::string metricText = "rouge-l", labelsOut, e2eStore;
  bool asJson = false;
  CommandLine cli(job);
  cli.synopsis(
      "--dataset PATH [--dataset PATH]... (--run RUNFILE | --retriever "
      "bm25|es:URL|http:URL|dense:URL|dense:offline|hybrid:A+B) [--k K] [--metric M]" +
      std::string(erag ? " [--measures LIST] [--with-e2e]" : "") +
      " [options] [retriever options] [LLM job options]");
  cli.intro(erag ? kEragIntro : kE2eIntro);
  addJobInputOptions(cli, inputs, 1000);
  addJobRetrieverOptions(cli, retriever, {});
  cli.text(
      "--metric", "M", metricText,
      "em | f1 | accuracy | rouge-l (default; rouge_score, stemmed) | rouge-l-kilt | contains");
  if (erag) {
    cli.text("--measures", "LIST", spec.measures,
             "comma-separated, pytrec_eval or trec_eval names (default P_K,success_K): P_5, "
             "success_1, recall_10, map, recip_rank, ndcg_cut_10, ...");
    cli.path("--labels-out", "FILE", labelsOut,
             "write the per-document labels as JSON {qid: [label at rank 1, ...]}")
        .output();
    cli.flag("--with-e2e", spec.withEndToEnd,
             "then the end-to-end run over the same top-k lists (a second store, --e2e-store, "
             "default ragscope-e2e-<time>.db), and the correlation of the evaluation methods with "
             "it (as erag-correlate); --json then prints {\"erag\": ..., \"e2e\": ..., "
             "\"correlation\": ...}");
    cli.path("--e2e-store", "RUN.db", e2eStore, "the end-to-end run's store (with --with-e2e)")
        .output();
  }
  cli.flag("--json", asJson, "print per-query and mean values as JSON instead of the summary");
  addJobOptions(cli, jobOptions);
  if (auto exit = cli.parse(args)) return *exit;
  spec.out = labelsOut;
  spec.e2eStore = e2eStore;
  if (inputs.datasets.empty()) return cli.usageError(job + " needs --dataset PATH");
  if (inputs.runPath.empty() == !retriever.retriever)
    return cli.usageError(job + " needs either --run RUNFILE or --retriever R");
  spec.run.type = eval::RunSource::Type::File;
  if (std::string error = setJobRetriever(retriever, cli, inputs.k, spec.run); !error.empty())
    return cli.usageError(error);
  const auto metric = parseDownstreamMetric(metricText);
  if (!metric)
    return cli.usageError("unknown --metric '" + metricText +
                          "' (em, f1, accuracy, rouge-l, rouge-l-kilt, contains)");
  if (!spec.e2eStore.empty() && !spec.withEndToEnd)
    return cli.usageError("--e2e-store goes with --with-e2e");
  spec.metric = *metric;
  return runJobFromCommandLine(spec, inputs, jobOptions, cli, asJson);
}

}  // namespace

int eragCommand(const Args& args) { return runEvaluationJob(args, eval::JobKind::Erag); }

int e2eCommand(const Args& args) { return runEvaluationJob(args, eval::JobKind::E2e); }

}  // namespace ragscope::cli
