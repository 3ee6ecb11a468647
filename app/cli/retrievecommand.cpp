// ragscope-cli retrieve: run a retriever over a dataset's queries and write a TREC run file.

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "core/data/dataset.h"
#include "core/data/inputfile.h"
#include "core/retrieval/requesttemplate.h"
#include "core/retrieval/retrievejob.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
namespace fs = std::filesystem;

constexpr const char* kHelp =
    R"(usage: ragscope-cli retrieve --dataset PATH... --retriever R --out RUN.trec [options]

Retrieve the top K documents for every query of a dataset and write a TREC run file
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

Options:
  --dataset PATH...   files or folders loaded as one dataset (as 'dataset info'); paths may
                      also be given without the option
  --format F          format of every dataset PATH (default: detected)
  --k K               documents per query (default 100, at most 100000)
  --out FILE          run file to write (required)
  --tag T             run tag (default: the retriever's name)
  --threads N         queries in flight at once (default: 4, at most 256)
  --index DIR         bm25: index folder
  --rebuild           bm25: rebuild the index even when it matches the corpus
  --no-stemming       bm25: index and match words as written (default: English stemming); the
                      default index folder then ends in -nostem, and an index built the other
                      way is rebuilt, never reused
  --bm25-k1 X         bm25: k1 (default 1.0, Xapian's; Anserini's MS MARCO setting is 0.9)
  --bm25-b X          bm25: b (default 0.5, Xapian's; Anserini's MS MARCO setting is 0.4)
  --field F           es: text field to match, repeatable for multi_match (default "text")
  --id-field F        es: _source field holding the document id (default: the hit's _id)
  --text-field F      es: _source field returned as the document's text (default: the first --field)
  --request-template T  es: the whole _search body; http: the request body. JSON with placeholders
                      {{query}} (the query as a JSON string, quotes included), {{query_id}} and
                      {{k}}; @FILE reads it from FILE. Example: '{"q": {{query}}, "top_k": {{k}}}'
  --results-path P    http: dot path to the array of results in the reply (default: the reply
                      itself, or its "results"), e.g. data.hits
  --id-path P         http: dot path to the id within a result (default id), e.g. doc.pid
  --score-path P      http: ... to the score (default score); --text-path P: to the text (default text)
  --api-key-env VAR   es/http: environment variable holding the key or token (never printed)
  --timeout-ms N      es/http: per-request timeout (default 30000, at most 3600000)
  --no-resume         es/http: ask every query again, even when RUN.partial holds the answers
                      of an earlier run with the same settings that failed or was interrupted
  --skip-bad          skip bad dataset records instead of stopping at the first
  -h, --help          this help

es and http answers are kept in RUN.partial as they arrive: when a run is interrupted (killed,
network down) or some queries fail, the same command again asks only for the queries not yet
answered. The file goes once the run is complete.

Exit codes: 0 ok, 1 some queries failed (the run was written without them), 2 usage or input
errors.
)";

int usageError(const std::string& message) {
  std::cerr << "ragscope-cli retrieve: " << message << "\n"
            << "Run 'ragscope-cli retrieve --help' for usage.\n";
  return 2;
}

bool parseDouble(const std::string& s, double* out) {
  try {
    std::size_t used = 0;
    *out = std::stod(s, &used);
    return used == s.size();
  } catch (...) {
    return false;
  }
}

// A whole decimal integer in [min, max].
bool parseCount(const std::string& s, long long min, long long max, long long* out) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(s, &used);
    if (used != s.size() || v < min || v > max) return false;
    *out = v;
    return true;
  } catch (...) {
    return false;
  }
}

// Bounds of the count options: beyond them a run is not a retrieval run but a way to exhaust
// memory (a ranking of 4e9 documents per query) or threads.
constexpr long long kMaxK = 100'000;
constexpr long long kMaxThreads = 256;
constexpr long long kMaxTimeoutMs = 3'600'000;

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
  // args[0] == "retrieve"
  std::vector<std::string> paths;
  std::optional<std::string> formatArg, retrieverArg, outArg, tagArg, indexArg, idField, textField, keyEnv, requestTemplate;
  std::optional<std::string> resultsPath, idPath, scorePath, textPath;
  std::vector<std::string> fields;
  long long k = 100, threads = 4, timeoutMs = 30000;
  Bm25Params bm25;
  bool rebuild = false, skipBad = false, resume = true, stemming = true;

  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    } else if (a == "--dataset") {
      // Every following argument up to the next option is a path.
      bool any = false;
      while (i + 1 < args.size() && !(args[i + 1].size() > 1 && args[i + 1][0] == '-')) {
        paths.push_back(args[++i]);
        any = true;
      }
      if (!any) return usageError("--dataset needs at least one PATH");
    } else if (a == "--format") {
      if (!value(&v)) return usageError("--format needs a value");
      formatArg = v;
    } else if (a == "--retriever") {
      if (!value(&v)) return usageError("--retriever needs bm25, es:URL or http:URL");
      retrieverArg = v;
    } else if (a == "--out" || a == "-o") {
      if (!value(&v)) return usageError("--out needs a file name");
      outArg = v;
    } else if (a == "--tag") {
      if (!value(&v)) return usageError("--tag needs a value");
      tagArg = v;
    } else if (a == "--index") {
      if (!value(&v)) return usageError("--index needs a folder");
      indexArg = v;
    } else if (a == "--field") {
      if (!value(&v)) return usageError("--field needs a field name");
      fields.push_back(v);
    } else if (a == "--id-field") {
      if (!value(&v)) return usageError("--id-field needs a field name");
      idField = v;
    } else if (a == "--text-field") {
      if (!value(&v)) return usageError("--text-field needs a field name");
      textField = v;
    } else if (a == "--request-template") {
      if (!value(&v)) return usageError("--request-template needs a JSON text or @FILE");
      if (!v.empty() && v[0] == '@') {
        std::string why;
        auto text = core::readBoundedFile(v.substr(1), core::kMaxTemplateBytes, "a request template", why);
        if (!text) return usageError("--request-template: " + v.substr(1) + ": " + why);
        v = std::move(*text);
      }
      requestTemplate = v;
    } else if (a == "--results-path" || a == "--id-path" || a == "--score-path" || a == "--text-path") {
      if (!value(&v)) return usageError(a + " needs a dot path");
      (a == "--results-path" ? resultsPath : a == "--id-path" ? idPath : a == "--score-path" ? scorePath : textPath) = v;
    } else if (a == "--api-key-env") {
      if (!value(&v)) return usageError("--api-key-env needs a variable name");
      keyEnv = v;
    } else if (a == "--k") {
      if (!value(&v)) return usageError("--k needs a number of documents");
      if (!parseCount(v, 1, kMaxK, &k)) return usageError(countRangeError(a, 1, kMaxK, v));
    } else if (a == "--threads") {
      if (!value(&v)) return usageError("--threads needs a number");
      if (!parseCount(v, 1, kMaxThreads, &threads))
        return usageError(countRangeError(a, 1, kMaxThreads, v));
    } else if (a == "--timeout-ms") {
      if (!value(&v)) return usageError("--timeout-ms needs a number of milliseconds");
      if (!parseCount(v, 1, kMaxTimeoutMs, &timeoutMs))
        return usageError(countRangeError(a, 1, kMaxTimeoutMs, v));
    } else if (a == "--bm25-k1") {
      if (!value(&v) || !parseDouble(v, &bm25.k1) || bm25.k1 < 0)
        return usageError("--bm25-k1 needs a number >= 0");
    } else if (a == "--bm25-b") {
      if (!value(&v) || !parseDouble(v, &bm25.b) || bm25.b < 0 || bm25.b > 1)
        return usageError("--bm25-b needs a number in [0, 1]");
    } else if (a == "--rebuild") {
      rebuild = true;
    } else if (a == "--no-stemming") {
      stemming = false;
    } else if (a == "--no-resume") {
      resume = false;
    } else if (a == "--skip-bad") {
      skipBad = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "'");
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) return usageError("no dataset given (--dataset PATH...)");
  if (!retrieverArg) return usageError("no retriever given (--retriever bm25|es:URL|http:URL)");
  if (!outArg) return usageError("no output file given (--out RUN.trec)");

  std::string error;
  auto spec = parseRetrieverArg(*retrieverArg, &error);
  if (!spec) return usageError(error);
  spec->bm25 = bm25;
  if (indexArg) spec->indexDir = *indexArg;
  spec->rebuild = rebuild;
  spec->stemming = stemming;
  if (!fields.empty()) spec->fields = fields;
  if (idField) spec->idField = *idField;
  if (keyEnv) spec->apiKeyEnv = *keyEnv;
  if (textField) spec->textField = *textField;
  if (requestTemplate) {
    if (!checkRequestTemplate(*requestTemplate, &error)) return usageError("--request-template: " + error);
    spec->requestTemplate = *requestTemplate;
  }
  if (resultsPath) spec->reply.results = *resultsPath;
  if (idPath) spec->reply.id = *idPath;
  if (scorePath) spec->reply.score = *scorePath;
  if (textPath) spec->reply.text = *textPath;
  spec->timeoutMs = static_cast<long>(timeoutMs);

  std::optional<Format> format;
  if (formatArg) {
    format = formatFromName(*formatArg);
    if (!format) return usageError("unknown format '" + *formatArg + "'");
  }
  std::vector<DatasetPart> parts;
  for (const auto& p : paths) {
    if (!fs::exists(p)) return usageError("no such file or folder: " + p);
    if (!format && fs::is_regular_file(p) && !detectFormat(p))
      return usageError("cannot tell the format of '" + p + "'; give it with --format");
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
  loadOptions.onError = skipBad ? OnError::Skip : OnError::Stop;
  loadOptions.progress = progressLine("loading");
  const auto loadStart = Clock::now();
  auto loaded = loadDataset(parts, loadOptions);
  clearLine();
  for (const auto& d : loaded.report.diagnostics)
    std::cerr << d.toString() << (d.severity == Severity::Warning ? " (warning)" : "") << "\n";
  if (loaded.report.hasErrors() && !skipBad) return 2;
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
  ro.k = static_cast<std::size_t>(k);
  ro.threads = static_cast<unsigned>(threads);
  if (tagArg) ro.tag = *tagArg;
  ro.out = *outArg;
  ro.resume = resume;
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
  if (job.resumed > 0) std::cout << ", " << job.resumed << " answered by an earlier interrupted run";
  std::cout << "\n";
  std::cout << "wrote: " << *outArg << " (tag " << sanitizeRunTag(run.value.tag) << ")\n";
  if (!job.checkpoint.empty())
    std::cout << "kept: " << job.checkpoint.string()
              << " (the answers so far; the same command asks again only for the failed queries)\n";
  return failed > 0 ? 1 : 0;
}

}  // namespace ragscope::cli
