// ragscope-cli: the headless front door. Parses the subcommand and hands over to cli/*.cpp.

#include <cstring>
#include <iostream>
#include <string_view>

#include "app/cli/commands.h"
#include "app/cli/terminaltext.h"

namespace {

constexpr const char* kUsage = R"(usage: ragscope-cli <command> [options]

Commands:
  dataset info PATH... [--format F] [--json] [--skip-bad]
                      load a dataset (one or more files or folders) and print its counts
  dataset doc PATH... ID [--paragraphs A-B] [--json]
                      print one document's title and text (or a KILT paragraph range)
                      and diagnostics; exits 2 on input errors
  eval [-q] [-c] [-l LEVEL] [-M DEPTH] [-m MEASURE]... QRELS RUN... [--format trec|csv|json]
       [--doc-level] [--B N]
                      trec_eval-exact retrieval evaluation; csv/json add each mean's 95% CI
                      and n; --doc-level scores chunks as their documents
  bootstrap FILE [--measure M] [--B N] [--size S] [--seed S] [--level L] [--bca] [--json]
                      bootstrap mean, variance and CI of a measure's per-query values
  compare A B [C...] [--measure M]... [--seed S] [--permutations N] [--json]
                      paired comparison (A minus B): bootstrap CI, randomization test, t-test
  correlate X Y --measure M [--measure-y M2] [--json]
                      Kendall's tau-b and Spearman's rho of per-query values, with p and CIs
                      (bootstrap, compare, correlate read trec_eval -q files, TREC runs with
                      --qrels, or eRAG/e2e run stores)
  retrieve --dataset PATH... --retriever R --out RUN [--k K] [--index DIR]
                      run a retriever over a dataset's queries and write a TREC run file
                      (R: bm25, es:URL, http:URL, dense:URL, dense:offline, hybrid:R+R)
  fuse RUN RUN... --method rrf|combsum|combmnz|wsum [--norm N] [--weights W,W,...] --out RUN
                      fuse runs into one (ranx's RRF, CombSUM, CombMNZ, weighted sum)
  generate --dataset PATH [--run RUNFILE --k K] [LLM job options] [--out answers.jsonl]
                      one RAG answer per query (offline heuristic reader or an LLM endpoint),
                      stored in a resumable run store
  resume RUN.db [--retry-errors] [--api-key-env VAR] [--budget USD]
                      continue a stored run; finished calls are never repeated
  runs [DIR] [--json] list run stores with their status and item counts
  erag --dataset PATH (--run RUNFILE | --retriever R) --k K --metric M --measures LIST
                      eRAG: one generator call per (query, document), labels from the gold
                      answers, aggregated per query [--labels-out FILE] [--with-e2e]
                      [--json] [job options]; --with-e2e runs end-to-end after it and
                      correlates the two
  e2e --dataset PATH (--run RUNFILE | --retriever R) --k K --metric M
                      end-to-end: one generator call per query with all top-k documents
  erag-correlate --erag RUN.db --e2e RUN.db [...] [--qrels Q] [--measures LIST] [--json]
                      Kendall/Spearman of qrels, provenance, contains-answer and eRAG scores
                      with end-to-end scores (the eRAG paper's Table 1)
  judge --dataset PATH [--answers FILE | --run RUNFILE | --retriever R] [--k K]
        [--metrics LIST] [--mode ragscope|ragchecker|ragas] [--repeats R] [--judge URL]
        [--claims-out FILE] [--json] [job options]
                      claim-level judging: claims extracted from each answer, each labelled
                      against the chunks, the gold answer or the answer; notebook, RAGChecker
                      and RAGAS metrics with parse states, repeats and flip rates
  ragchecker FILE [--mode ragchecker|ragscope] [--json]
                      RAGChecker's eleven metrics recomputed from the labels of a checking-
                      output file (no LLM call); RAGChecker's figures or ragscope's states
  agreement --human FILE --judge FILE [--name NAME] [--resamples N] [--seed S] [--json]
                      judge vs human agreement: Pearson, Spearman, Kendall tau-b, Cohen's
                      kappa with bootstrap CIs and the annotator-vs-annotator ceiling
                      (RAGChecker's meta-evaluation files or qid,label CSVs)
  agreement --labels PROJECT_OR_LABELS_STORE [--store RUN.db]... [--qrels FILE] [--json]
                      judge vs human from the project's labels, per annotator: kappa,
                      confusion matrix, accuracy; Cohen's kappa / Krippendorff's alpha
                      between annotators
  labels export --labels P --format qrels|csv|jsonl [--kind K] [--annotator A]
         [--merge-qrels QRELS] --out FILE
  labels import --labels P --format qrels|csv|jsonl FILE [--annotator A] [--scope S] [--kind K]
  labels list|summary --labels P [--json]
                      the project's human labels (PROJECT.labels.db): exported, imported
                      all or nothing, listed, counted per kind and annotator
  kilt-eval GOLD GUESS [--ks 1,5] [--rank-keys wikipedia_id[,section]] [--json] [--B N] [-q]
                      KILT's own evaluation of a predictions file: downstream, retrieval
                      and kilt groups as the KILT leaderboard scores them
  ppi (--predictions FILE --labels FILE | --store RUN.db --labels PROJECT_OR_LABELS_STORE
      --metric M) [--level 0.95] [--lambda auto|X] [--json]
                      prediction-powered inference: a judge's mean corrected by human labels
                      on a sample (PPI++ or classical PPI), beside the judge-only and
                      human-only means, each with its interval
  report (--project P | --store RUN.db...) --out FILE.pdf|FILE.json|FILE.csv [--grain G]
                      a project's or run stores' results: a PDF report, one JSON document
                      with everything, or CSV at one grain (summary, query, document, claim)
  qrels-agreement --qrels A --qrels B [--run RUN]... [--measure M] [-l LEVEL] [--json]
                      two qrels on the pairs both judge: Cohen's kappa on the grades 0..3 and
                      at a level, confusion matrices; with runs, each run's mean under A and
                      B, Kendall's tau-b and Spearman's rho of the two system orderings
  nuggets score FILE [-q] [--json]
                      the AutoNuggetizer's four nugget scores (strict_vital, strict_all, vital,
                      all) of a nuggetizer JSONL file of assigned nuggets, per query and means
  assess --dataset PATH (--run RUNFILE | --retriever R) [--depth N] [--all] [--out QRELS]
                      LLM relevance grades 0..3 (UMBRELA's procedure) for the run's top-N
                      pairs the qrels do not judge, as TREC qrels (--merge-qrels: with the
                      people's, theirs winning); --repeats R, --labels PROJECT

  batch export RUN.db --out calls.jsonl | batch import RUN.db OUT.jsonl [ERR.jsonl]
  batch submit|status|cancel RUN.db
                      a run's calls as Batch API files (OpenAI, vLLM's run_batch) and their
                      results read back; or sent as batches (also --batch-file FILE and
                      --batch on generate, erag, e2e, judge and resume)

Every option takes its value as `--opt value` or `--opt=value`. Run 'ragscope-cli <command>
--help' for a command's options.
Exit codes: 0 ok, 1 evaluation problems, 2 usage or input errors.
)";

// The commands by name; each parses its own arguments (app/cli/options.h).
struct Command {
  std::string_view name;
  int (*run)(const ragscope::cli::Args&);
};

constexpr Command kCommands[] = {
    {"dataset", ragscope::cli::datasetCommand},
    {"eval", ragscope::cli::evalCommand},
    {"bootstrap", ragscope::cli::bootstrapCommand},
    {"compare", ragscope::cli::compareCommand},
    {"correlate", ragscope::cli::correlateCommand},
    {"retrieve", ragscope::cli::retrieveCommand},
    {"fuse", ragscope::cli::fuseCommand},
    {"generate", ragscope::cli::generateCommand},
    {"resume", ragscope::cli::resumeCommand},
    {"runs", ragscope::cli::runsCommand},
    {"erag", ragscope::cli::eragCommand},
    {"e2e", ragscope::cli::e2eCommand},
    {"erag-correlate", ragscope::cli::eragCorrelateCommand},
    {"judge", ragscope::cli::judgeCommand},
    {"ragchecker", ragscope::cli::ragcheckerCommand},
    {"agreement", ragscope::cli::agreementCommand},
    {"labels", ragscope::cli::labelsCommand},
    {"ppi", ragscope::cli::ppiCommand},
    {"report", ragscope::cli::reportCommand},
    {"batch", ragscope::cli::batchCommand},
    {"kilt-eval", ragscope::cli::kiltEvalCommand},
    {"qrels-agreement", ragscope::cli::qrelsAgreementCommand},
    {"nuggets", ragscope::cli::nuggetsCommand},
    {"assess", ragscope::cli::assessCommand},
};

}  // namespace

int main(int argc, char** argv) {
  // Every message quoting a server or a file reaches the terminal with its controls escaped.
  const ragscope::cli::TerminalText terminal;
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::cout << "ragscope-cli " << RAGSCOPE_VERSION << "\n";
    return 0;
  }
  const ragscope::cli::Args args(argv + 1, argv + argc);
  const std::string_view command = argv[1];
  for (const Command& c : kCommands)
    if (c.name == command) return c.run(args);
  std::cerr << "ragscope-cli: unknown command '" << command << "'\n\n" << kUsage;
  return 2;
}
