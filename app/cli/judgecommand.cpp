// ragscope-cli judge (core/claims/README.md): claim-level judging of RAG answers. The command turns its
// arguments into a core job specification (kind judge); planning, the phases of calls, the run
// store, the parse states and the metrics are core's (core/eval/job.h, core/eval/judgejob.h).

#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/joboptions.h"
#include "app/cli/jobreport.h"
#include "core/eval/job.h"
#include "core/llm/provider.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kJudgeHelp =
    R"(usage: ragscope-cli judge --dataset PATH [--dataset PATH]... [--format F]
                          [--answers FILE] [--run RUNFILE | --retriever bm25 [--index DIR]]
                          [--k K] [--metrics LIST] [--mode ragscope|ragchecker|ragas]
                          [--repeats R] [--judge URL|offline] [--claims-out FILE] [--matrix]
                          [--embedder URL [--embedder-model M]] [--reranker URL [--reranker-model M]]
                          [--extract-template FILE] [--judge-template FILE] [--template FILE]
                          [--question-template FILE] [--relevance-template FILE]
                          [--json] [--quiet] [LLM job options]

Claim-level judging: the judge extracts the claims of each answer (and of its gold
answer), then labels each claim SUPPORTED=1/0 (or Entailment/Neutral/Contradiction) against a
premise: the retrieved chunks joined, each chunk alone, the gold answer or the answer. Replies
are read strictly: a claim with no line, two lines, a line out of order or no verdict is
"unparsed", a failed call "error", an answer without claims "empty"; one repair call restating
the problem is made and recorded. At most 200 claims of an answer are judged: the claims an
extraction lists past the 200th are kept and "unparsed" ("claims cap:" in the output). In
ragscope mode these never count as 0 or 1: each metric shows claims scored / total and the
queries in each state.

Answers, in this order: --answers FILE (generate's JSONL {"qid","answer"}; chunks from --run's
top k when a run is given), else generated first from the run's top k (--run or --retriever
bm25; the generator is --generator, default the offline reader), else the dataset's own
responses (rag-jsonl, RAGChecker inputs, llama-index records with responses and contexts).

  --metrics LIST      comma-separated (default notebook):
                        notebook = faithfulness, correctness, coverage (response claims vs
                        the chunks joined; response claims vs the gold answer; gold-answer
                        claims vs the response)
                        ragchecker = all eleven ragchecker.* metrics (claim x chunk matrix)
                        ragas.answer_relevancy (3 questions written from the answer by the
                        judge, embedded with the question by --embedder: mean cosine, 0 when
                        all are noncommittal; RAGAS v0.4 rules)
                        ragas.context_relevance_paper (sentences of the chunks the judge
                        copies as helpful, over all their sentences, at most 1)
                        vera.consolidated (the --reranker score of the answer for the
                        question)
                        ragas.faithfulness (response claims vs the chunks joined, over
                        the verdicts returned), ragas.context_recall (gold-answer claims vs
                        the chunks joined), ragas.context_precision (the gold answer vs each
                        chunk alone: RAGAS's rank-aware AP with its 1e-10)
  --mode M            ragscope (default): unparsed/error never 0 or 1, empty has no value;
                      ragchecker: RAGChecker's numbers (unresolved labels not entailed, empty
                      cases 0.0 and averaged); ragas: RAGAS's (a failed row NaN, nanmean, the
                      denominator is the verdicts returned)
  --repeats R         ask every assessment R times (seeds seed..seed+R-1, each cached on its
                      own); the majority label scores, with per-claim flip rate and within- and
                      across-answer variance (default 1, at most 100)
  --judge URL         the judge endpoint (default offline: the heuristic claim splitter and
                      lexical judge, labelled heuristic); --judge-model NAME its model
  --claims-out FILE   every claim with its verdicts in RAGChecker's checking-output layout
                      (also judges each chunk alone, for the claim x chunk matrix)
  --matrix            judge every claim against each chunk alone as well (the claim x chunk
                      matrix of the GUI's Claims page; --claims-out implies it)
  --extract-template FILE   the extraction prompt ({text}); default: the built-in one
  --judge-template FILE     the assessment prompt ({documents}, {claims}); default: the built-in
                      SUPPORTED=1/0 prompt (in ragchecker mode: Entailment/Neutral/Contradiction)
  --question-template FILE  ragas.answer_relevancy's question prompt ({text}: the answer; the
                      reply must be {"question": ..., "noncommittal": 0|1})
  --relevance-template FILE ragas.context_relevance_paper's prompt ({question}, {documents})
  --template FILE     the RAG prompt when answers are generated
                      (every prompt is recorded in the run store with its SHA-256)
  --json              {"n","mode","mean","ci95","states","n_scored","n_total","per_query",...}

A killed run continues with `ragscope-cli resume RUN.db`; no finished call is repeated.
  --embedder URL      OpenAI-compatible embeddings endpoint (/embeddings), for
                      ragas.answer_relevancy; --embedder-model its model
  --reranker URL      rerank endpoint (/rerank, Cohere/Jina/TEI shape), for vera.consolidated;
                      --reranker-model its model. Both take the judge's --api-key-env.

)";

}  // namespace

int judgeCommand(const Args& args) {
  JobOptions jobOptions;
  JobInputArgs inputs;
  eval::JobSpec spec;
  spec.kind = eval::JobKind::Judge;
  std::string retriever, value, repeatsText, embedder, embedderModel, reranker, rerankerModel;
  bool asJson = false;
  const auto ended = parseJobArgs(args, jobOptions, inputs, 1000, kJudgeHelp, [&](std::size_t& i) -> std::optional<int> {
    const std::string& a = args[i];
    auto take = [&](const char* what) -> bool {
      return nextValue(args, i, value) || (usageError(a + " needs " + what, kJudgeHelp), false);
    };
    if (a == "--retriever") {
      if (!take("a name (bm25)")) return 2;
      retriever = value;
      if (retriever != "bm25") return usageError("--retriever: only bm25 is supported here", kJudgeHelp);
    } else if (a == "--index") {
      if (!take("a folder")) return 2;
      spec.run.retriever.indexDir = value;
    } else if (a == "--answers") {
      if (!take("a file")) return 2;
      spec.judge.answers = value;
    } else if (a == "--metrics") {
      if (!take("a list")) return 2;
      spec.judge.metrics = value;
    } else if (a == "--mode") {
      if (!take("ragscope, ragchecker or ragas")) return 2;
      spec.judge.mode = value;
    } else if (a == "--repeats") {
      if (!take("a count")) return 2;
      if (!parseCount(value, 1, 100, spec.judge.repeats))
        return usageError("--repeats must be a whole number from 1 to 100", kJudgeHelp);
    } else if (a == "--claims-out") {
      if (!take("a path")) return 2;
      spec.judge.claimsOut = value;
    } else if (a == "--extract-template") {
      if (!take("a file")) return 2;
      spec.judge.extractTemplate = value;
    } else if (a == "--judge-template") {
      if (!take("a file")) return 2;
      spec.judge.judgeTemplate = value;
    } else if (a == "--question-template") {
      if (!take("a file")) return 2;
      spec.judge.questionTemplate = value;
    } else if (a == "--relevance-template") {
      if (!take("a file")) return 2;
      spec.judge.relevanceTemplate = value;
    } else if (a == "--embedder" || a == "--embedder-model" || a == "--reranker" || a == "--reranker-model") {
      if (!take(a.ends_with("model") ? "a model name" : "a base URL")) return 2;
      (a == "--embedder" ? embedder : a == "--embedder-model" ? embedderModel : a == "--reranker" ? reranker : rerankerModel) = value;
    } else if (a == "--matrix") {
      spec.judge.matrices = true;
    } else if (a == "--json") {
      asJson = true;
    } else {
      return usageError("judge: unknown argument '" + a + "'", kJudgeHelp);
    }
    return std::nullopt;
  });
  if (ended) return *ended;
  if (inputs.datasets.empty()) return usageError("judge needs --dataset PATH", kJudgeHelp);
  if (!inputs.runPath.empty() && !retriever.empty())
    return usageError("judge takes --run or --retriever, not both", kJudgeHelp);
  if (std::string err; !eval::parseJudgeMetrics(spec.judge.metrics, &err)) return usageError("--metrics: " + err, kJudgeHelp);
  if (!eval::judgeModeFromName(spec.judge.mode))
    return usageError("--mode must be ragscope, ragchecker or ragas", kJudgeHelp);
  spec.k = inputs.k;
  spec.templatePath = inputs.templatePath;
  spec.run.type = !retriever.empty()           ? eval::RunSource::Type::Retriever
                  : !inputs.runPath.empty()    ? eval::RunSource::Type::File
                                               : eval::RunSource::Type::None;
  spec.run.file = inputs.runPath;
  spec.endpoint = generatorEndpoint(jobOptions);
  spec.judge.judge = jobOptions.judge == "offline" ? eval::offlineJudgeEndpoint() : judgeEndpoint(jobOptions);
  // The embeddings and rerank endpoints share the judge's key variable and limits.
  auto other = [&](const std::string& url, const std::string& model, llm::EndpointKind kind, const char* name) {
    llm::EndpointConfig c = judgeEndpoint(jobOptions);
    c.name = name;
    c.kind = kind;
    c.baseUrl = url;
    c.model = model.empty() ? "default" : model;
    return c;
  };
  if (!embedder.empty()) spec.judge.embedder = other(embedder, embedderModel, llm::EndpointKind::Embeddings, "embedder");
  if (!reranker.empty()) spec.judge.reranker = other(reranker, rerankerModel, llm::EndpointKind::Rerank, "reranker");
  if (embedder.empty() != embedderModel.empty() && embedder.empty())
    return usageError("--embedder-model goes with --embedder URL", kJudgeHelp);
  if (reranker.empty() != rerankerModel.empty() && reranker.empty())
    return usageError("--reranker-model goes with --reranker URL", kJudgeHelp);
  spec.limits = jobLimits(jobOptions);
  spec.store = jobOptions.store;
  spec.frontEnd = "cli";

  const auto dataset = loadJobInputs(inputs, "judge", kJudgeHelp);
  if (!dataset) return 2;
  ReportOptions report;
  report.json = asJson;
  report.budgetUsd = jobOptions.budget;
  return runJobCommand(spec, *dataset, jobOptions.estimate, inputs.quiet, report);
}

}  // namespace ragscope::cli
