// ragscope-cli erag / e2e (SPEC §6): eRAG document labels from the RAG's own generator, and
// end-to-end generation with all top-k documents. The command only turns its arguments into a
// core job specification; planning (BM25 retrieval included), the run store, the engine and the
// scores are core's (core/eval/job.h), the same path the GUI's eRAG page takes. A killed run
// continues with `ragscope-cli resume RUN.db`.

#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/joboptions.h"
#include "app/cli/jobreport.h"
#include "core/eval/job.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kEragHelp =
    R"(usage: ragscope-cli erag --dataset PATH [--dataset PATH]... [--format F]
                         (--run RUNFILE | --retriever bm25 [--index DIR])
                         [--k K] [--metric M] [--measures LIST] [--template FILE]
                         [--labels-out FILE] [--with-e2e [--e2e-store RUN.db]] [--json]
                         [--quiet] [LLM job options]

eRAG (Salemi & Zamani, SIGIR 2024): for every query and each of its top-k documents, one
generator call with the RAG prompt holding only that document; the output scored against the
query's gold answers (--metric) is the document's label. Labels are aggregated per query:
  - binary labels (every label of the run 0 or 1): any trec_eval measure, with the labels as the
    query's qrels (relevance level 1) and the list order as the ranking;
  - continuous labels (e.g. rouge-l, f1): only P_k (mean of the first k labels, a shorter list
    padded with 0) and success_k (max of the first k labels); other measures are refused.
Costs N x k calls (end-to-end: N). Every prompt and output is kept in the run store (--store),
with the labels and per-query scores; a killed run continues with `ragscope-cli resume RUN.db`.
The store is an input of `ragscope-cli bootstrap / compare / correlate` (--measure P_5, ...).

  --run RUNFILE       the retrieval run (TREC format) whose top-k lists are evaluated
  --retriever bm25    retrieve the top-k with the embedded BM25 index over the dataset corpus
                      (the run is named bm25-top<k>)
  --index DIR         bm25 index folder (default beside the dataset, as `retrieve`)
  --k K               documents per query (default 5)
  --metric M          em | f1 | accuracy | rouge-l (default; rouge_score, stemmed) |
                      rouge-l-kilt | contains
  --measures LIST     comma-separated, pytrec_eval or trec_eval names (default P_K,success_K):
                      P_5, success_1, recall_10, map, recip_rank, ndcg_cut_10, ...
  --labels-out FILE   write the per-document labels as JSON {qid: [label at rank 1, ...]}
  --with-e2e          then the end-to-end run over the same top-k lists (a second store,
                      --e2e-store, default ragscope-e2e-<time>.db), and the correlation of the
                      evaluation methods with it (as erag-correlate); --json then prints
                      {"erag": ..., "e2e": ..., "correlation": ...}
  --json              print per-query and mean values as JSON instead of the summary
  --template FILE     the RAG prompt ({question}, {documents}); default: the built-in one

)";

constexpr const char* kE2eHelp =
    R"(usage: ragscope-cli e2e --dataset PATH [--dataset PATH]... [--format F]
                        (--run RUNFILE | --retriever bm25 [--index DIR])
                        [--k K] [--metric M] [--template FILE] [--json] [--quiet]
                        [LLM job options]

End-to-end RAG evaluation: one generator call per query with all of its top-k documents in the
prompt, the output scored against the gold answers with --metric (default rouge-l). The same
inputs as `erag`; the per-query scores are what `ragscope-cli erag-correlate` compares eRAG and
the other retrieval evaluations with.
In `ragscope-cli bootstrap / compare / correlate` the store's one measure is named by the
metric (e.g. `correlate erag.db e2e.db --measure P_5 --measure-y rouge-l`).

)";

// Shared by erag and e2e: arguments into a job specification, then the core job.
int runEvaluationJob(const Args& args, eval::JobKind kind) {
  const bool erag = kind == eval::JobKind::Erag;
  const char* help = erag ? kEragHelp : kE2eHelp;
  const std::string job(eval::jobKindName(kind));
  JobOptions jobOptions;
  JobInputArgs inputs;
  eval::JobSpec spec;
  spec.kind = kind;
  std::string retriever, value, metricText = "rouge-l";
  bool asJson = false;
  const auto ended = parseJobArgs(args, jobOptions, inputs, 1000, help, [&](std::size_t& i) -> std::optional<int> {
    const std::string& a = args[i];
    auto take = [&](const char* what) -> bool { return nextValue(args, i, value) || (usageError(a + " needs " + what, help), false); };
    if (a == "--retriever") {
      if (!take("a name (bm25)")) return 2;
      retriever = value;
      if (retriever != "bm25")
        return usageError("--retriever: only bm25 is supported here; for es:/http: retrievers write a run "
                          "with `ragscope-cli retrieve` and pass --run", help);
    } else if (a == "--index") {
      if (!take("a folder")) return 2;
      spec.run.retriever.indexDir = value;
    } else if (a == "--metric") {
      if (!take("a name")) return 2;
      metricText = value;
    } else if (a == "--measures" && erag) {
      if (!take("a list")) return 2;
      spec.measures = value;
    } else if (a == "--labels-out" && erag) {
      if (!take("a path")) return 2;
      spec.out = value;
    } else if (a == "--with-e2e" && erag) {
      spec.withEndToEnd = true;
    } else if (a == "--e2e-store" && erag) {
      if (!take("a path")) return 2;
      spec.e2eStore = value;
    } else if (a == "--json") {
      asJson = true;
    } else {
      return usageError(job + ": unknown argument '" + a + "'", help);
    }
    return std::nullopt;
  });
  if (ended) return *ended;
  if (inputs.datasets.empty()) return usageError(job + " needs --dataset PATH", help);
  if (inputs.runPath.empty() == retriever.empty())
    return usageError(job + " needs either --run RUNFILE or --retriever bm25", help);
  const auto metric = parseDownstreamMetric(metricText);
  if (!metric)
    return usageError("unknown --metric '" + metricText + "' (em, f1, accuracy, rouge-l, rouge-l-kilt, contains)", help);
  if (!spec.e2eStore.empty() && !spec.withEndToEnd) return usageError("--e2e-store goes with --with-e2e", help);
  spec.metric = *metric;
  spec.k = inputs.k;
  spec.templatePath = inputs.templatePath;
  spec.run.type = retriever.empty() ? eval::RunSource::Type::File : eval::RunSource::Type::Retriever;
  spec.run.file = inputs.runPath;
  spec.endpoint = generatorEndpoint(jobOptions);
  spec.limits = jobLimits(jobOptions);
  spec.store = jobOptions.store;
  spec.frontEnd = "cli";

  const auto dataset = loadJobInputs(inputs, job, help);
  if (!dataset) return 2;
  ReportOptions report;
  report.json = asJson;
  report.budgetUsd = jobOptions.budget;
  return runJobCommand(spec, *dataset, jobOptions.estimate, inputs.quiet, report);
}

}  // namespace

int eragCommand(const Args& args) { return runEvaluationJob(args, eval::JobKind::Erag); }

int e2eCommand(const Args& args) { return runEvaluationJob(args, eval::JobKind::E2e); }

}  // namespace ragscope::cli
