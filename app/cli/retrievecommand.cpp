// ragscope-cli retrieve: run a retriever over a dataset's queries and write a TREC run file.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/joboptions.h"
#include "app/cli/kiltoutputs.h"
#include "app/cli/options.h"
#include "app/cli/pathroles.h"
#include "app/cli/retrievalprogress.h"
#include "app/cli/retrieveroptions.h"
#include "core/data/dataset.h"
#include "core/retrieval/retrievejob.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
namespace fs = std::filesystem;

constexpr const char* kIntro =
    R"(Retrieve the top K documents for every query of a dataset and write a TREC run file
("qid Q0 docid rank score tag"), ranked in trec_eval's order, for 'ragscope-cli eval'.

Retrievers (--retriever):
)";

constexpr const char* kEpilogue =
    R"(es, http and dense answers (not dense:offline) are kept in RUN.partial as they arrive: when a run is interrupted (killed,
network down) or some queries fail, the same command again asks only for the queries not yet
answered. The file goes once the run is complete.

Exit codes: 0 ok, 1 some queries failed (the run was written without them), 2 usage or input
errors.
)";

// Bounds of the count options: beyond them a run is not a retrieval run but a way to exhaust
// memory (a ranking of 4e9 documents per query) or threads.
constexpr std::uint64_t kMaxK = 100'000;
constexpr std::uint64_t kMaxThreads = 256;

// What the command line of retrieve says: the retriever (retrieveroptions.h) and what to do with
// its run.
struct RetrieveArgs {
  std::vector<std::string> paths;
  std::optional<std::string> kiltOut;
  std::optional<std::string> format, out, tag;
  RetrieverArgs retriever;
  std::size_t k = 100;
  unsigned threads = 4;
  bool skipBad = false, resume = true;
};

void declare(CommandLine& cli, RetrieveArgs& a) {
  cli.synopsis("--dataset PATH... --retriever R --out RUN.trec [options]");
  cli.intro(kIntro + retrieverKindsHelp(RetrieverOptionNames{}));
  cli.epilogue(kEpilogue);
  // --dataset and bare paths go to one list, in the order given: the first names the index.
  cli.positionals("PATH...", a.paths);
  cli.positionalRoles({{PathRole::Input, "PATH"}});
  cli.paths("--dataset", "PATH", a.paths,
            "a file or folder of the dataset, repeatable, loaded as one dataset (as 'dataset "
            "info'); paths may also be given without the option")
      .input();
  cli.text("--format", "F", a.format, "format of every dataset PATH (default: detected)");
  cli.text("--retriever", "R", a.retriever.retriever, std::string(kRetrieverKinds) + " (above)");
  cli.integer("--k", "K", a.k, 1, kMaxK, "documents per query (default 100)");
  cli.path("-o, --out", "FILE", a.out, "run file to write (required)")
      .output(runAndCheckpointPaths("--out"));
  cli.path("--kilt-out", "FILE", a.kiltOut,
           "also write the run as a KILT predictions file (each query's top-k pages as "
           "provenance, no answer) for `ragscope-cli kilt-eval`")
      .output();
  cli.text("--tag", "T", a.tag, "run tag (default: the retriever's name)");
  cli.integer("--threads", "N", a.threads, 1, kMaxThreads, "queries in flight at once (default 4)");
  addRetrieverOptions(cli, a.retriever, kMaxK);
  cli.flag("--no-resume", a.resume,
           "es/http: ask every query again, even when RUN.partial holds the answers of an earlier "
           "run with the same settings that failed or was interrupted",
           false);
  cli.flag("--skip-bad", a.skipBad, "skip bad dataset records instead of stopping at the first");
}

std::string humanBytes(std::uint64_t b) {
  char buf[32];
  if (b >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
  return buf;
}

}  // namespace

int retrieveCommand(const Args& args) {
  RetrieveArgs a;
  CommandLine cli("retrieve");
  declare(cli, a);
  if (auto exit = cli.parse(args)) return *exit;
  if (a.paths.empty()) return cli.usageError("no dataset given (--dataset PATH...)");
  if (!a.retriever.retriever)
    return cli.usageError(
        "no retriever given (--retriever bm25|es:URL|http:URL|dense:URL|hybrid:A+B)");
  if (!a.out) return cli.usageError("no output file given (--out RUN.trec)");
  const std::vector<std::string>& paths = a.paths;

  std::string error;
  const auto spec = buildRetrieverSpec(a.retriever, cli, a.k, &error);
  if (!spec) return cli.usageError(error);

  std::optional<Format> format;
  if (a.format) {
    format = formatFromName(*a.format);
    if (!format) return cli.usageError("unknown format '" + *a.format + "'");
  }
  std::vector<DatasetPart> parts;
  for (const auto& p : paths) {
    if (!fs::exists(p)) return cli.usageError("no such file or folder: " + p);
    if (!format && fs::is_regular_file(p) && !detectFormat(p))
      return cli.usageError("cannot tell the format of '" + p + "'; give it with --format");
    parts.push_back({p, format});
  }

  TerminalProgress progress;  // on a terminal only

  using Clock = std::chrono::steady_clock;
  LoadOptions loadOptions;
  loadOptions.onError = a.skipBad ? OnError::Skip : OnError::Stop;
  loadOptions.progress = progress.line("loading");
  const auto loadStart = Clock::now();
  auto loaded = loadDataset(parts, loadOptions);
  progress.clear();
  for (const auto& d : loaded.report.diagnostics)
    std::cerr << d.toString() << (d.severity == Severity::Warning ? " (warning)" : "") << "\n";
  if (loaded.report.hasErrors() && !a.skipBad) return 2;
  if (!loaded.report.ok()) return 2;
  const Dataset& ds = loaded.value;
  std::cout << "dataset: " << ds.name << ": " << ds.queries.size() << " queries, "
            << ds.corpus.size() << " documents (loaded in "
            << std::chrono::duration<double>(Clock::now() - loadStart).count() << " s)\n";
  if (ds.queries.empty()) {
    std::cerr << "ragscope-cli retrieve: the dataset has no queries\n";
    return 2;
  }

  // The one retrieval job of every front end (core/retrieval/retrievejob.h).
  std::cout << "retriever: " << describeRetriever(*spec) << "\n";
  RetrieveJobOptions ro;
  ro.k = a.k;
  ro.threads = a.threads;
  if (a.tag) ro.tag = *a.tag;
  ro.out = *a.out;
  ro.resume = a.resume;
  ro.indexProgress = progress.line("indexing");
  ro.embedProgress = progress.line("embedding");
  if (a.retriever.batch)
    ro.embedBatch = std::make_shared<const eval::BatchOptions>(
        batchApiOptions(true, a.retriever.batchPollSeconds, false));
  ro.retrieveProgress = progress.line("retrieving");
  RetrieveJobResult job = runRetrieveJob(*spec, ds, paths.front(), ro);
  progress.clear();
  for (const auto& note : job.notes) std::cerr << note << "\n";
  if (!job.ok) {
    std::cerr << "ragscope-cli retrieve: " << job.error << "\n";
    return 2;
  }
  if (job.dense.ok) {
    const DenseIndexResult& dense = job.dense;
    std::cout << "dense index: " << describeDenseIndex(dense) << "\n";
    for (const auto& b : dense.batches)
      std::cout << "embedding batch: " << b.id << " " << b.status << ", " << b.lines
                << " requests, imported\n";
    if (!dense.batchNote.empty()) std::cerr << dense.batchNote;
    if (!dense.trustNote.empty()) std::cerr << "ragscope-cli retrieve: " << dense.trustNote << "\n";
  }
  if (job.index.ok) {
    const IndexBuildResult& built = job.index;
    std::cout << "index: " << built.dir.string() << ": ";
    if (built.reused)
      std::cout << "reused";
    else
      std::cout << "built in " << built.buildSeconds << " s"
                << (built.rebuildReason.empty() ? "" : " (" + built.rebuildReason + ")");
    std::cout << ", " << built.documents << " documents, " << humanBytes(built.bytes) << "\n";
  }
  const Loaded<Run>& run = job.run;
  for (const auto& d : run.report.diagnostics)
    std::cerr << d.toString() << (d.severity == Severity::Warning ? " (warning)" : "") << "\n";
  if (run.report.unstoredDiagnostics > 0)
    std::cerr << "... and " << run.report.unstoredDiagnostics << " more diagnostics\n";

  const std::size_t failed = run.report.skipped;
  const double seconds = job.seconds;
  std::cout << "retrieved: " << run.report.records << " of " << ds.queries.size()
            << " queries with results, " << failed << " failed, " << run.value.entryCount()
            << " entries in " << seconds << " s ("
            << (seconds > 0 ? static_cast<double>(ds.queries.size()) / seconds : 0.0)
            << " queries/s)";
  if (job.resumed > 0)
    std::cout << ", " << job.resumed << " answered by an earlier interrupted run";
  std::cout << "\n";
  std::cout << "wrote: " << *a.out << " (tag " << sanitizeRunTag(run.value.tag) << ")\n";
  if (!job.checkpoint.empty())
    std::cout << "kept: " << job.checkpoint.string()
              << " (the answers so far; the same command asks again only for the failed queries)\n";
  if (a.kiltOut && !writeRetrieveKiltPredictions(ds, run.value, a.k, *a.kiltOut)) return 2;
  return failed > 0 ? 1 : 0;
}

}  // namespace ragscope::cli
