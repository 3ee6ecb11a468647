// ragscope-cli batch export|import|submit|status|cancel: a stored run's calls through batch files
// and the Batch API, over the core job API (core/eval/api/batchjob.h, core/eval/api/job.h). The job
// commands' --batch-file and --batch do the same for a new run (app/cli/joboptions.cpp).
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/joboptions.h"
#include "app/cli/jobreport.h"
#include "app/cli/options.h"
#include "core/eval/api/batchjob.h"
#include "core/eval/api/job.h"
#include "core/retrieval/corpusembedding.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kBatchIntro =
    R"(A stored run's calls through batch files and the Batch API (OpenAI's, or vLLM's run_batch
runner, which reads and writes the same JSONL).

  batch export RUN.db --out calls.jsonl   the calls still to make (pending, and failed ones with
                                          --retry-errors) as Batch API input lines: custom_id =
                                          the call's key in the store, body = the exact JSON the
                                          live call sends. Answers offline heuristics or the
                                          response cache hold are filled in first. Files split at
                                          50,000 lines or 200 MB (calls-2.jsonl, ...). Judging:
                                          the calls of the phase that can be planned now; export
                                          again after importing for the next phase.
  batch import RUN.db OUT.jsonl [ERR.jsonl]
                                          reads Batch API output (and error) lines in any order,
                                          a line at a time: answers enter the store as live
                                          answers do, failed lines are recorded as errors. A line
                                          whose custom_id is not a call of this run refuses the
                                          whole import; importing a file again changes nothing.
                                          Answers also enter the shared response cache only when
                                          the run's endpoint is confirmed on this machine, its
                                          calls were exported or submitted here, and each reply
                                          names the model asked; otherwise the store only.
  batch submit RUN.db                     uploads the calls and creates the batches; `resume`
                                          later polls, imports and finishes.
  batch status RUN.db                     the run's batches as the server reports them now.
  batch cancel RUN.db                     cancels its open batches; `resume` imports what they
                                          hold and leaves the rest pending. A completed batch
                                          whose results are missing is given up instead (no
                                          resume sends its calls again before that).

After an import, `ragscope-cli resume RUN.db` finishes the run (scores, answers file) with no
network call when every call is answered; `resume --retry-errors` asks the failed ones again.
Requests go only to an endpoint this machine's user confirmed (see `resume --help`).
)";

struct BatchArgs {
  std::vector<std::string> positional;
  std::string out;
  bool retryErrors = false;
  bool trustEndpoint = false;
  bool quiet = false;
  std::string apiKeyEnv;
  std::size_t maxLines = llm::kBatchMaxLines;
};

void declareBatch(CommandLine& cli, BatchArgs& a, const std::string& sub) {
  cli.synopsis(sub == "import"   ? "RUN.db OUTPUT.jsonl [ERRORS.jsonl] [--trust-endpoint]"
               : sub == "export" ? "RUN.db --out calls.jsonl [--retry-errors]"
                                 : "RUN.db [--trust-endpoint] [--api-key-env VAR]");
  cli.intro(kBatchIntro);
  cli.positionals(sub == "import" ? "FILE" : "RUN.db", a.positional, sub == "import" ? 3 : 1);
  // Every subcommand may write the store (answers filled in, batch state); import reads the rest.
  cli.positionalRoles({{PathRole::InputAndOutput, "RUN.db"}, {PathRole::Input, "the output file"}});
  if (sub == "export") {
    cli.path("--out", "FILE", a.out, "where the calls go (more parts: FILE-2, FILE-3, ...)")
        .output();
    cli.integer("--max-lines", "N", a.maxLines, 1, llm::kBatchMaxLines,
                "calls per file at most (default 50,000, the Batch API's limit)");
  }
  if (sub == "export" || sub == "submit")
    cli.flag("--retry-errors", a.retryErrors, "also the calls whose earlier call failed");
  if (sub == "import")
    cli.flag("--trust-endpoint", a.trustEndpoint,
             "confirm the store's endpoint (as `resume --trust-endpoint` does), so that answers "
             "to calls exported or submitted here may enter the response cache");
  if (sub == "submit" || sub == "status" || sub == "cancel") {
    cli.flag("--trust-endpoint", a.trustEndpoint,
             "confirm the store's endpoint (and where its key comes from) after checking its URL");
    cli.text("--api-key-env", "VAR", a.apiKeyEnv,
             "environment variable holding the API key (default: the one the store names)");
  }
  cli.flag("-q, --quiet", a.quiet, "no progress or notes on stderr");
}

std::optional<eval::StoredJob> openBatchStore(const BatchArgs& a, const CommandLine& cli,
                                              std::string& err) {
  eval::ResumeOverrides overrides;
  overrides.retryErrors = a.retryErrors;
  overrides.trustEndpoint = a.trustEndpoint;
  if (cli.given("--api-key-env")) overrides.apiKeyEnv = a.apiKeyEnv;
  return eval::openStoredJob(a.positional.front(), overrides, &err);
}

int refuseUntrusted(const eval::StoredJob& job) {
  std::cerr << "ragscope-cli: batch: " << eval::untrustedEndpointMessage(job)
            << ".\nNothing was sent. If you know this endpoint, run again with --trust-endpoint.\n";
  return 2;
}

void printBatches(const std::vector<eval::BatchRef>& batches) {
  if (batches.empty()) std::cout << "no batches submitted for this run\n";
  for (const auto& b : batches)
    std::cout << b.id << "  " << b.status << "  " << b.lines << " calls, " << b.counts.completed
              << " done, " << b.counts.failed << " failed"
              << (b.route.empty() ? "" : ", route " + b.route) << (b.imported ? ", imported" : "")
              << (b.givenUp          ? ", results missing, given up"
                  : b.resultsMissing ? ", results missing (`batch cancel` gives it up)"
                                     : "")
              << "\n";
}

int exportOrSubmit(const BatchArgs& a, const CommandLine& cli, bool submit) {
  std::string err;
  auto job = openBatchStore(a, cli, err);
  if (!job) {
    std::cerr << "ragscope-cli: " << err << "\n";
    return 2;
  }
  eval::ExecutionOptions execution;
  execution.retryErrors = a.retryErrors;
  JobOptions defaults;
  execution.batch = jobBatchOptions(defaults, a.quiet);
  if (submit) {
    if (!job->endpointTrusted) return refuseUntrusted(*job);
    execution.batch.mode = eval::BatchMode::Api;
    execution.batch.submitOnly = true;
  } else {
    execution.batch.mode = eval::BatchMode::File;
    execution.batch.file = a.out;
    execution.batch.maxLines = a.maxLines;
    // Writing a file sends nothing: answers come only from offline heuristics and the cache.
    job->endpointTrusted = true;
  }
  const auto result = runInterruptible(a.quiet, [&](const eval::JobCallbacks& callbacks) {
    return eval::resumeJob(*job, execution, cliResultOptions(), callbacks);
  });
  if (!submit && result.error.empty() && !result.stages.empty() &&
      result.stages.back().batchFiles.empty() &&
      result.stages.back().summary.outcome != eval::RunOutcome::Failed)
    std::cout << "nothing to export: every call of the run is answered"
              << (result.stages.back().counts.errors > 0
                      ? " or failed (--retry-errors exports the failed ones)"
                      : "")
              << "\n";
  ReportOptions report;
  return reportJob(result, report);
}

int importCommand(const BatchArgs& a) {
  std::string err;
  eval::ResumeOverrides overrides;
  overrides.trustEndpoint = a.trustEndpoint;
  auto job = eval::openStoredJob(a.positional.front(), overrides, &err);
  if (!job) {
    std::cerr << "ragscope-cli: " << err << "\n";
    return 2;
  }
  std::vector<std::filesystem::path> files(a.positional.begin() + 1, a.positional.end());
  std::string cacheNote;
  const auto s = eval::importBatchFiles(*job, files, &cacheNote);
  if (!s.ok()) {
    std::cerr << "ragscope-cli: batch import: " << s.error << "\n";
    return 2;
  }
  if (!cacheNote.empty() && !a.quiet) std::cerr << "ragscope-cli: warning: " << cacheNote << "\n";
  if (!s.cacheNote.empty() && !a.quiet) std::cerr << "ragscope-cli: note: " << s.cacheNote << "\n";
  const std::string path = job->store->path().string();
  std::cout << "imported:   " << s.lines << " lines: " << s.answered << " answers, " << s.failed
            << " failed calls recorded as errors";
  if (s.alreadyAnswered + s.unchanged > 0)
    std::cout << "; " << s.alreadyAnswered + s.unchanged
              << " lines for calls already recorded (unchanged)";
  std::cout << "\nrun:        " << path << ": " << s.stillPending << " calls pending, "
            << s.stillFailed << " failed\n";
  if (!s.firstFailure.empty()) std::cout << "first:      " << s.firstFailure << "\n";
  if (job->record.kind == core::kEmbeddingStoreKind)
    // A dense index's embeddings store: the index is built by the command that made the store.
    std::cout << "next:       run the retrieve command that built the index again (the same "
                 "--retriever dense:URL, --index and embedding options): it "
              << (s.stillPending == 0 && s.stillFailed == 0
                      ? "builds the index from the stored vectors with no network call\n"
                      : "embeds the calls still missing, then builds the index\n");
  else if (s.stillPending == 0 && s.stillFailed == 0)
    std::cout << "next:       ragscope-cli resume " << path
              << (job->record.kind == "judge" ? " (or `batch export` for the next judging phase)\n"
                                              : " (finishes the run with no network call)\n");
  else if (s.stillFailed > 0)
    std::cout << "next:       ragscope-cli resume " << path
              << " --retry-errors (asks the failed and pending calls again)\n";
  else
    std::cout << "next:       ragscope-cli resume " << path << " (sends the pending calls)\n";
  return 0;
}

int statusOrCancel(const BatchArgs& a, const CommandLine& cli, bool cancel) {
  std::string err;
  auto job = openBatchStore(a, cli, err);
  if (!job) {
    std::cerr << "ragscope-cli: " << err << "\n";
    return 2;
  }
  if (!job->endpointTrusted) return refuseUntrusted(*job);
  const auto batches = eval::storedBatches(*job, {}, cancel, &err);
  printBatches(batches);
  const auto c = job->store->counts();
  std::cout << "run:        " << job->store->path().string() << ": " << c.done << "/" << c.total
            << " done, " << c.errors << " failed, " << c.pending + c.cancelled << " pending\n";
  if (!err.empty()) {
    std::cerr << "ragscope-cli: batch: " << err << "\n";
    return 2;
  }
  return 0;
}

}  // namespace

int batchCommand(const Args& args) {
  auto usageError = [](const std::string& message) {
    std::cerr << "ragscope-cli batch: " << message << "\n"
              << "Run 'ragscope-cli batch --help' for usage.\n";
    return 2;
  };
  const char* kSubs = "'export', 'import', 'submit', 'status' or 'cancel'";
  if (args.size() < 2)
    return usageError(std::string("missing subcommand (expected ") + kSubs + ")");
  const std::string sub = args[1];
  if (sub == "--help" || sub == "-h") {
    std::cout << "usage: ragscope-cli batch export|import|submit|status|cancel RUN.db [options]\n\n"
              << kBatchIntro
              << "\nRun 'ragscope-cli batch SUBCOMMAND --help' for each one's options.\n";
    return 0;
  }
  if (sub != "export" && sub != "import" && sub != "submit" && sub != "status" && sub != "cancel")
    return usageError("unknown subcommand '" + sub + "' (expected " + kSubs + ")");
  BatchArgs a;
  CommandLine cli("batch " + sub);
  declareBatch(cli, a, sub);
  if (auto exit = cli.parse(args, 2)) return *exit;
  if (a.positional.empty()) return cli.usageError("batch " + sub + " needs RUN.db");
  if (sub == "export") {
    if (a.out.empty()) return cli.usageError("batch export needs --out FILE");
    return exportOrSubmit(a, cli, false);
  }
  if (sub == "submit") return exportOrSubmit(a, cli, true);
  if (sub == "import") {
    if (a.positional.size() < 2)
      return cli.usageError("batch import needs RUN.db and the output file (and the error file)");
    return importCommand(a);
  }
  return statusOrCancel(a, cli, sub == "cancel");
}

}  // namespace ragscope::cli
