// ragscope-cli retrieve: run a retriever over a dataset's queries and write a TREC run file.

#include <unistd.h>

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
#include "app/cli/kiltoutputs.h"
#include "app/cli/options.h"
#include "app/cli/pathroles.h"
#include "core/data/dataset.h"
#include "core/retrieval/requesttemplate.h"
#include "core/retrieval/retrievejob.h"
#include "core/util/inputfile.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
namespace fs = std::filesystem;

constexpr const char* kIntro =
    R"(Retrieve the top K documents for every query of a dataset and write a TREC run file
("qid Q0 docid rank score tag"), ranked in trec_eval's order, for 'ragscope-cli eval'.

Retrievers (--retriever):
  bm25          embedded BM25 (Xapian) over the dataset's corpus. The index is built on first use
                (English stemming, Lucene's English stopwords) in --index DIR, by default
                PATH.ragscope-index beside the first dataset path (or under ~/.cache/ragscope
                when that folder is not writable), and reused while the corpus is unchanged.
  es:URL        Elasticsearch/OpenSearch index, e.g. es:http://localhost:9200/msmarco
                (POST URL/_search with a match query on --field)
  http:URL      generic JSON service: POST URL {"query","k"} -> [{"id","score","text"?}]
                URLs are http:// or https:// only (any other scheme is refused); a query
                string stays on the URL (es: POST /index/_search?routing=x); redirects are
                not followed; of a reply, only the first K hits are read.
)";

constexpr const char* kEpilogue =
    R"(es and http answers are kept in RUN.partial as they arrive: when a run is interrupted (killed,
network down) or some queries fail, the same command again asks only for the queries not yet
answered. The file goes once the run is complete.

Exit codes: 0 ok, 1 some queries failed (the run was written without them), 2 usage or input
errors.
)";

// Bounds of the count options: beyond them a run is not a retrieval run but a way to exhaust
// memory (a ranking of 4e9 documents per query) or threads.
constexpr std::uint64_t kMaxK = 100'000;
constexpr std::uint64_t kMaxThreads = 256;
constexpr std::uint64_t kMaxTimeoutMs = 3'600'000;

// What the command line of retrieve says.
struct RetrieveArgs {
  std::vector<std::string> paths;
  std::optional<std::string> kiltOut;
  std::optional<std::string> format, retriever, out, tag, index, idField, textField, keyEnv,
      requestTemplate;
  std::optional<std::string> resultsPath, idPath, scorePath, textPath;
  std::vector<std::string> fields;
  std::size_t k = 100;
  unsigned threads = 4;
  long timeoutMs = 30000;
  Bm25Params bm25;
  bool rebuild = false, skipBad = false, resume = true, stemming = true;
};

void declare(CommandLine& cli, RetrieveArgs& a) {
  cli.synopsis("--dataset PATH... --retriever R --out RUN.trec [options]");
  cli.intro(kIntro);
  cli.epilogue(kEpilogue);
  // --dataset and bare paths go to one list, in the order given: the first names the index.
  cli.positionals("PATH...", a.paths);
  cli.positionalRoles({{PathRole::Input, "PATH"}});
  cli.paths("--dataset", "PATH", a.paths,
            "a file or folder of the dataset, repeatable, loaded as one dataset (as 'dataset "
            "info'); paths may also be given without the option")
      .input();
  cli.text("--format", "F", a.format, "format of every dataset PATH (default: detected)");
  cli.text("--retriever", "R", a.retriever, "bm25, es:URL or http:URL (above)");
  cli.integer("--k", "K", a.k, 1, kMaxK, "documents per query (default 100)");
  cli.path("-o, --out", "FILE", a.out, "run file to write (required)")
      .output(runAndCheckpointPaths("--out"));
  cli.path("--kilt-out", "FILE", a.kiltOut,
           "also write the run as a KILT predictions file (each query's top-k pages as "
           "provenance, no answer) for `ragscope-cli kilt-eval`")
      .output();
  cli.text("--tag", "T", a.tag, "run tag (default: the retriever's name)");
  cli.integer("--threads", "N", a.threads, 1, kMaxThreads, "queries in flight at once (default 4)");
  cli.path("--index", "DIR", a.index, "bm25: index folder").output();
  cli.flag("--rebuild", a.rebuild, "bm25: rebuild the index even when it matches the corpus");
  cli.flag("--no-stemming", a.stemming,
           "bm25: index and match words as written (default: English stemming); the default index "
           "folder then ends in -nostem, and an index built the other way is rebuilt, never reused",
           false);
  cli.number("--bm25-k1", "X", a.bm25.k1, NumberBounds::atLeast(0),
             "bm25: k1 (default 1.0, Xapian's; Anserini's MS MARCO setting is 0.9)");
  cli.number("--bm25-b", "X", a.bm25.b, NumberBounds::between(0, 1),
             "bm25: b (default 0.5, Xapian's; Anserini's MS MARCO setting is 0.4)");
  cli.texts("--field", "F", a.fields,
            "es: text field to match, repeatable for multi_match (default \"text\")");
  cli.text("--id-field", "F", a.idField,
           "es: _source field holding the document id (default: the hit's _id)");
  cli.text("--text-field", "F", a.textField,
           "es: _source field returned as the document's text (default: the first --field)");
  cli.custom(
         "--request-template", "T",
         [&a](const std::string& v) -> std::string {
           if (v.empty() || v[0] != '@') {
             a.requestTemplate = v;
             return {};
           }
           std::string why;
           auto text = readBoundedFile(v.substr(1), kMaxTemplateBytes, "a request template", why);
           if (!text) return v.substr(1) + ": " + why;
           a.requestTemplate = std::move(*text);
           return {};
         },
         "es: the whole _search body; http: the request body. JSON with placeholders {{query}} "
         "(the "
         "query as a JSON string, quotes included), {{query_id}} and {{k}}; @FILE reads it from "
         "FILE. Example: '{\"q\": {{query}}, \"top_k\": {{k}}}'")
      .input(atFilePath("--request-template"));
  cli.text("--results-path", "P", a.resultsPath,
           "http: dot path to the array of results in the reply (default: the reply itself, or "
           "its \"results\"), e.g. data.hits");
  cli.text("--id-path", "P", a.idPath,
           "http: dot path to the id within a result (default id), "
           "e.g. doc.pid");
  cli.text("--score-path", "P", a.scorePath, "http: ... to the score (default score)");
  cli.text("--text-path", "P", a.textPath, "http: ... to the text (default text)");
  cli.text("--api-key-env", "VAR", a.keyEnv,
           "es/http: environment variable holding the key or token (never printed)");
  cli.integer("--timeout-ms", "N", a.timeoutMs, 1, kMaxTimeoutMs,
              "es/http: per-request timeout (default 30000)");
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
  if (!a.retriever) return cli.usageError("no retriever given (--retriever bm25|es:URL|http:URL)");
  if (!a.out) return cli.usageError("no output file given (--out RUN.trec)");
  const std::vector<std::string>& paths = a.paths;

  std::string error;
  auto spec = parseRetrieverArg(*a.retriever, &error);
  if (!spec) return cli.usageError(error);
  spec->bm25 = a.bm25;
  if (a.index) spec->indexDir = *a.index;
  spec->rebuild = a.rebuild;
  spec->stemming = a.stemming;
  if (!a.fields.empty()) spec->fields = a.fields;
  if (a.idField) spec->idField = *a.idField;
  if (a.keyEnv) spec->apiKeyEnv = *a.keyEnv;
  if (a.textField) spec->textField = *a.textField;
  if (a.requestTemplate) {
    if (!checkRequestTemplate(*a.requestTemplate, &error))
      return cli.usageError("--request-template: " + error);
    spec->requestTemplate = *a.requestTemplate;
  }
  if (a.resultsPath) spec->reply.results = *a.resultsPath;
  if (a.idPath) spec->reply.id = *a.idPath;
  if (a.scorePath) spec->reply.score = *a.scorePath;
  if (a.textPath) spec->reply.text = *a.textPath;
  spec->timeoutMs = a.timeoutMs;

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

  const bool tty = isatty(STDERR_FILENO) != 0;
  int shown = -1;
  auto progressLine = [&](const char* what) {
    return [&shown, tty, what](std::uint64_t done, std::uint64_t total) {
      if (!tty) return true;
      const int pct = total > 0 ? static_cast<int>(100 * done / total) : 0;
      if (pct != shown) {
        shown = pct;
        std::cerr << "\r" << what << "... " << pct << "%   " << std::flush;
      }
      return true;
    };
  };
  auto clearLine = [&] {
    if (tty && shown >= 0) std::cerr << "\r                              \r" << std::flush;
    shown = -1;
  };

  using Clock = std::chrono::steady_clock;
  LoadOptions loadOptions;
  loadOptions.onError = a.skipBad ? OnError::Skip : OnError::Stop;
  loadOptions.progress = progressLine("loading");
  const auto loadStart = Clock::now();
  auto loaded = loadDataset(parts, loadOptions);
  clearLine();
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
  ro.indexProgress = progressLine("indexing");
  ro.retrieveProgress = progressLine("retrieving");
  RetrieveJobResult job = runRetrieveJob(*spec, ds, paths.front(), ro);
  clearLine();
  for (const auto& note : job.notes) std::cerr << note << "\n";
  if (!job.ok) {
    std::cerr << "ragscope-cli retrieve: " << job.error << "\n";
    return 2;
  }
  if (spec->kind == RetrieverSpec::Kind::Bm25) {
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
