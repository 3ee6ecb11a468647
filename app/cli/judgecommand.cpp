// ragscope-cli judge (core/claims/README.md): claim-level judging of RAG answers. The command turns
// its arguments into a core job specification (kind judge); planning, the phases of calls, the run
// store, the parse states and the metrics are core's (core/eval/api/job.h,
// core/eval/jobs/judgejob.h).

#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/joboptions.h"
#include "app/cli/jobreport.h"
#include "app/cli/options.h"
#include "app/cli/retrieveroptions.h"
#include "core/eval/api/job.h"
#include "core/llm/provider.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kJudgeIntro =
    R"(Claim-level judging: the judge extracts the claims of each answer (and of its gold
answer), then labels each claim SUPPORTED=1/0 (or Entailment/Neutral/Contradiction) against a
premise: the retrieved chunks joined, each chunk alone, the gold answer or the answer. Replies
are read strictly: a claim with no line, two lines, a line out of order or no verdict is
"unparsed", a failed call "error", an answer without claims "empty"; one repair call restating
the problem is made and recorded. At most 200 claims of an answer are judged: the claims an
extraction lists past the 200th are kept and "unparsed" ("claims cap:" in the output). In
ragscope mode these never count as 0 or 1: each metric shows claims scored / total and the
queries in each state. With --structured-outputs the claim lists and verdicts are asked for as
JSON following a fixed schema (response_format; see core/claims/README.md, "Structured
replies") and read as JSON: a reply that is not the schema's JSON is "unparsed". The "parsing:"
lines count the unparsed replies per path (text, structured).

Answers, in this order: --answers FILE (generate's JSONL {"qid","answer"}; chunks from --run's
top k when a run is given), else generated first from the run's top k (--run or --retriever
R; the generator is --generator, default the offline reader), else the dataset's own
responses (rag-jsonl, RAGChecker inputs, llama-index records with responses and contexts).
)";

constexpr const char* kMetricsHelp = R"(comma-separated (default notebook):
  notebook = faithfulness, correctness, coverage (response claims vs the chunks joined; response claims vs the gold answer; gold-answer claims vs the response)
  ragchecker = all eleven ragchecker.* metrics (claim x chunk matrix)
  ragas.answer_relevancy (3 questions written from the answer by the judge, embedded with the question by --embedder: mean cosine, 0 when all are noncommittal; RAGAS v0.4 rules)
  ragas.context_relevance_paper (sentences of the chunks the judge copies as helpful, over all their sentences, at most 1)
  vera.consolidated (the --reranker score of the answer for the question)
  ragas.faithfulness (response claims vs the chunks joined, over the verdicts returned), ragas.context_recall (gold-answer claims vs the chunks joined), ragas.context_precision (the gold answer vs each chunk alone: RAGAS's rank-aware AP with its 1e-10))";

}  // namespace

int judgeCommand(const Args& args) {
  JobOptions jobOptions;
  JobInputArgs inputs;
  eval::JobSpec spec;
  spec.kind = eval::JobKind::Judge;
  RetrieverArgs retriever;
  std::string embedder, embedderModel, reranker, rerankerModel;
  bool asJson = false;
  eval::JudgeJobOptions& judge = spec.judge;
  CommandLine cli("judge");
  cli.synopsis(
      "--dataset PATH [--dataset PATH]... [--answers FILE] [--run RUNFILE | --retriever "
      "bm25|es:URL|http:URL|dense:URL|dense:offline|hybrid:A+B] [--metrics LIST] [--mode "
      "ragscope|ragchecker|ragas] [options] [retriever options] [LLM job options]");
  cli.intro(kJudgeIntro);
  addJobInputOptions(cli, inputs, 1000);
  cli.path("--answers", "FILE", judge.answers, "the answers to judge: generate's JSONL").input();
  cli.text("--metrics", "LIST", judge.metrics, kMetricsHelp);
  cli.choice("--mode", {"ragscope", "ragchecker", "ragas"}, judge.mode,
             "ragscope (default): unparsed/error never 0 or 1, empty has no value; ragchecker: "
             "RAGChecker's numbers (unresolved labels not entailed, empty cases 0.0 and "
             "averaged); ragas: RAGAS's (a failed row NaN, nanmean, the denominator is the "
             "verdicts returned)",
             "M");
  cli.integer("--repeats", "R", judge.repeats, 1, 100,
              "ask every assessment R times (seeds seed..seed+R-1, each cached on its own); the "
              "majority label scores, with per-claim flip rate and within- and across-answer "
              "variance (default 1)");
  cli.path("--claims-out", "FILE", judge.claimsOut,
           "every claim with its verdicts in RAGChecker's checking-output layout (also judges "
           "each chunk alone, for the claim x chunk matrix)")
      .output();
  cli.flag("--matrix", judge.matrices,
           "judge every claim against each chunk alone as well (the claim x chunk matrix of the "
           "GUI's Claims page; --claims-out implies it)");
  cli.path("--extract-template", "FILE", judge.extractTemplate,
           "the extraction prompt ({text}); default: the built-in one")
      .input();
  cli.path("--judge-template", "FILE", judge.judgeTemplate,
           "the assessment prompt ({documents}, {claims}); default: the built-in SUPPORTED=1/0 "
           "prompt (in ragchecker mode: Entailment/Neutral/Contradiction)")
      .input();
  cli.path("--question-template", "FILE", judge.questionTemplate,
           "ragas.answer_relevancy's question prompt ({text}: the answer; the reply must be "
           "{\"question\": ..., \"noncommittal\": 0|1})")
      .input();
  cli.path("--relevance-template", "FILE", judge.relevanceTemplate,
           "ragas.context_relevance_paper's prompt ({question}, {documents})")
      .input();
  cli.text("--embedder", "URL", embedder,
           "OpenAI-compatible embeddings endpoint (/embeddings), for ragas.answer_relevancy; it "
           "takes the judge's --api-key-env");
  cli.text("--embedder-model", "M", embedderModel, "the embedder's model");
  cli.text("--reranker", "URL", reranker,
           "rerank endpoint (/rerank, Cohere/Jina/TEI shape), for vera.consolidated; it takes "
           "the judge's --api-key-env");
  cli.text("--reranker-model", "M", rerankerModel, "the reranker's model");
  cli.flag("--json", asJson,
           "{\"n\",\"mode\",\"mean\",\"ci95\",\"states\",\"n_scored\",\"n_total\","
           "\"per_query\",...}");
  addJobRetrieverOptions(cli, retriever,
                         "--template FILE is the RAG prompt when answers are generated; every "
                         "prompt is recorded in the run store with its SHA-256. A killed run "
                         "continues with `ragscope-cli resume RUN.db`; no finished call is "
                         "repeated, and no retriever is asked again (the run is in the store).");
  addJobOptions(cli, jobOptions);
  if (auto exit = cli.parse(args)) return *exit;
  if (inputs.datasets.empty()) return cli.usageError("judge needs --dataset PATH");
  if (!inputs.runPath.empty() && retriever.retriever)
    return cli.usageError("judge takes --run or --retriever, not both");
  if (std::string err; !eval::parseJudgeMetrics(spec.judge.metrics, &err))
    return cli.usageError("--metrics: " + err);
  spec.run.type =
      !inputs.runPath.empty() ? eval::RunSource::Type::File : eval::RunSource::Type::None;
  if (std::string error = setJobRetriever(retriever, cli, inputs.k, spec.run); !error.empty())
    return cli.usageError(error);
  spec.judge.judge =
      jobOptions.judge == "offline" ? eval::offlineJudgeEndpoint() : judgeEndpoint(jobOptions);
  // The embeddings and rerank endpoints share the judge's key variable and limits.
  auto other = [&](const std::string& url, const std::string& model, llm::EndpointKind kind,
                   const char* name) {
    llm::EndpointConfig c = judgeEndpoint(jobOptions);
    c.name = name;
    c.kind = kind;
    c.baseUrl = url;
    c.model = model.empty() ? "default" : model;
    return c;
  };
  if (!embedder.empty())
    spec.judge.embedder = other(embedder, embedderModel, llm::EndpointKind::Embeddings, "embedder");
  if (!reranker.empty())
    spec.judge.reranker = other(reranker, rerankerModel, llm::EndpointKind::Rerank, "reranker");
  if (embedder.empty() && !embedderModel.empty())
    return cli.usageError("--embedder-model goes with --embedder URL");
  if (reranker.empty() && !rerankerModel.empty())
    return cli.usageError("--reranker-model goes with --reranker URL");
  return runJobFromCommandLine(spec, inputs, jobOptions, cli, asJson);
}

}  // namespace ragscope::cli
