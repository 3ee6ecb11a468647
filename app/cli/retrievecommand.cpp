// ragscope-cli retrieve: run a retriever over a dataset's queries and write a TREC run file.

#include <unistd.h>

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
#include "core/data/dataset.h"
#include "core/retrieval/esretriever.h"
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
                (POST URL/_search with a match query on --field); with --es-knn FIELD, a kNN
                search instead: each query embedded by --embedder URL (--embed-model NAME,
                --query-prefix) and sent as Elasticsearch 8.4+'s knn option (field,
                query_vector, k, num_candidates) or OpenSearch's k-NN query (vector, k), by
                the server's flavour (read from GET on its root, or --es-flavour)
  http:URL      generic JSON service: POST URL {"query","k"} -> [{"id","score","text"?}]
                URLs are http:// or https:// only (any other scheme is refused); a query
                string stays on the URL (es: POST /index/_search?routing=x); redirects are
                not followed; of a reply, only the first K hits are read.
  dense:URL     dense retrieval: the corpus embedded once through the OpenAI-compatible
                embeddings endpoint at URL (http://host:8000/v1: vLLM, TEI, Ollama, llama.cpp,
                OpenAI; --embed-model NAME, --doc-prefix, --embed-batch inputs per request),
                kept in a FAISS index (--ann) in --index DIR, by default
                PATH.ragscope-index-dense-<hash of URL, model and document prefix> beside the
                first dataset path (or under ~/.cache/ragscope), reused while the corpus and
                those settings are unchanged; each query embedded (--query-prefix) and its
                nearest documents by inner product (cosine: vectors are unit length) returned.
                A second run embeds only the queries, and those come from the response cache.
  dense:offline the same with a deterministic hashed bag of words (256 dimensions), no server
  hybrid:A+B    members A, B, ... (2 to 16 of the retrievers above) asked for each query, their
                rankings fused as `ragscope-cli fuse` does (--fuse, default rrf with k = 60),
                e.g. hybrid:bm25+dense:http://localhost:8000/v1. Every '+' separates members,
                so a member's URL cannot hold one (write it %2B). Options apply to every member
                they concern; --index and --api-key-env only where one member can take them.
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
constexpr std::uint64_t kMaxTimeoutMs = 3'600'000;

// What the command line of retrieve says.
struct RetrieveArgs {
  std::vector<std::string> paths;
  std::optional<std::string> kiltOut;
  std::optional<std::string> format, retriever, out, tag, index, idField, textField, keyEnv,
      requestTemplate;
  std::optional<std::string> resultsPath, idPath, scorePath, textPath;
  std::optional<std::string> esKnn, embedder, embedKeyEnv;        // es kNN
  std::optional<std::string> embedModel, queryPrefix, docPrefix;  // dense (and es kNN)
  std::string ann, fuse, fuseNorm;                                // dense, hybrid
  std::vector<double> fuseWeights;
  double rrfK = kDefaultRrfK;
  std::size_t embedBatch = kDefaultEmbedBatch, fuseDepth = 0;
  std::string esFlavour;
  std::size_t numCandidates = 0;
  std::vector<std::string> fields;
  std::size_t k = 100;
  unsigned threads = 4;
  long timeoutMs = 30000;
  Bm25Params bm25;
  bool rebuild = false, skipBad = false, resume = true, stemming = true;
  bool batch = false;              // dense: embed through the Batch API
  double batchPollSeconds = 10.0;  // first wait between polls
};

// "0.7,0.3" -> {0.7, 0.3}; the problem with the value, or "".
std::string parseWeightList(const std::string& text, std::vector<double>& out) {
  out.clear();
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    double w = 0;
    if (!parseFiniteDouble(text.substr(start, comma - start), w))
      return "expected finite numbers separated by commas, got '" + text + "'";
    out.push_back(w);
    if (comma == std::string::npos) return {};
    start = comma + 1;
  }
}

// Does `spec` (or a hybrid's member) have this kind?
bool hasKind(const RetrieverSpec& spec, RetrieverSpec::Kind kind) {
  if (spec.kind == kind) return true;
  for (const auto& m : spec.members)
    if (hasKind(m, kind)) return true;
  return false;
}

// A dense member calling an endpoint, with no model to ask it for.
bool hasDenseWithoutModel(const RetrieverSpec& spec) {
  if (spec.kind == RetrieverSpec::Kind::Dense && spec.url != "offline" && spec.embedModel.empty())
    return true;
  for (const auto& m : spec.members)
    if (hasDenseWithoutModel(m)) return true;
  return false;
}

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
  cli.text("--retriever", "R", a.retriever,
           "bm25, es:URL, http:URL, dense:URL, dense:offline or hybrid:R+R[+...] (above)");
  cli.integer("--k", "K", a.k, 1, kMaxK, "documents per query (default 100)");
  cli.path("-o, --out", "FILE", a.out, "run file to write (required)")
      .output(runAndCheckpointPaths("--out"));
  cli.path("--kilt-out", "FILE", a.kiltOut,
           "also write the run as a KILT predictions file (each query's top-k pages as "
           "provenance, no answer) for `ragscope-cli kilt-eval`")
      .output();
  cli.text("--tag", "T", a.tag, "run tag (default: the retriever's name)");
  cli.integer("--threads", "N", a.threads, 1, kMaxThreads, "queries in flight at once (default 4)");
  cli.path("--index", "DIR", a.index,
           "bm25, dense: index folder (a hybrid takes it when one member has an index)")
      .output();
  cli.flag("--rebuild", a.rebuild,
           "bm25, dense: rebuild the index even when it matches the corpus (dense: the "
           "embeddings already in the folder are kept and not asked again)");
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
  cli.text("--es-knn", "FIELD", a.esKnn,
           "es: kNN search on this dense_vector (Elasticsearch) or knn_vector (OpenSearch) "
           "field, each query embedded by --embedder first; K at most 10000");
  cli.text("--embedder", "URL", a.embedder,
           "es --es-knn: base URL of the OpenAI-compatible embeddings endpoint that embeds each "
           "query (http://host:8000/v1), with --embed-model and --query-prefix");
  cli.text("--embed-key-env", "VAR", a.embedKeyEnv,
           "es --es-knn: environment variable holding the embedder's key (never printed)");
  cli.choice("--es-flavour", {"elasticsearch", "opensearch"}, a.esFlavour,
             "es --es-knn: the server's engine (default: read once from GET on the server's root; "
             "an engine it does not name is refused)");
  cli.integer("--num-candidates", "N", a.numCandidates, 1, kEsMaxKnn,
              "es --es-knn, Elasticsearch: candidates per shard (default max(100, 2K) up to "
              "10000; at least K)");
  cli.text("--embed-model", "NAME", a.embedModel,
           "dense (required but for dense:offline), es --es-knn: the embedding model the "
           "endpoint serves");
  cli.text("--query-prefix", "TEXT", a.queryPrefix,
           "dense, es --es-knn: prepended to each query before embedding (e5: 'query: '; bge: "
           "its instruction)");
  cli.text("--doc-prefix", "TEXT", a.docPrefix,
           "dense: prepended to each document before embedding (e5: 'passage: ')");
  cli.integer("--embed-batch", "N", a.embedBatch, 1, 4096,
              "dense: documents per embeddings request (default 64)");
  cli.choice("--ann", {"flat", "hnsw", "ivfpq"}, a.ann,
             "dense: FAISS index: flat (exact inner product), hnsw (graph), ivfpq (compressed, "
             "for corpora too big for float32); default flat up to 1,000,000 documents, hnsw "
             "above");
  addBatchApiOptions(cli, a.batch, a.batchPollSeconds,
                     "dense: embed the corpus through the endpoint's Batch API (upload, create, "
                     "poll, download, import into the index folder's embeddings.db) instead of "
                     "live calls; a stopped or killed run polls the same batch when run again");
  cli.choice("--fuse", {"rrf", "combsum", "combmnz", "wsum"}, a.fuse,
             "hybrid: fusion method, as `ragscope-cli fuse --method` (default rrf)");
  cli.choice("--fuse-norm", {"none", "min-max", "max", "sum", "zmuv"}, a.fuseNorm,
             "hybrid: score normalisation before combsum, combmnz and wsum (default min-max)");
  cli.custom(
      "--fuse-weights", "W,W,...",
      [&a](const std::string& v) { return parseWeightList(v, a.fuseWeights); },
      "hybrid --fuse wsum: one weight per member, in member order (required for wsum)");
  cli.number("--rrf-k", "K", a.rrfK, NumberBounds::atLeast(0), "hybrid, rrf: k (default 60)");
  cli.integer("--fuse-depth", "N", a.fuseDepth, 1, kMaxK,
              "hybrid: documents each member retrieves for the fusion (default: --k)");
  cli.text("--api-key-env", "VAR", a.keyEnv,
           "es/http/dense: environment variable holding the key or token (never printed)");
  cli.integer("--timeout-ms", "N", a.timeoutMs, 1, kMaxTimeoutMs,
              "es/http/dense: per-request timeout (default 30000)");
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
  if (!a.retriever)
    return cli.usageError(
        "no retriever given (--retriever bm25|es:URL|http:URL|dense:URL|hybrid:A+B)");
  if (!a.out) return cli.usageError("no output file given (--out RUN.trec)");
  const std::vector<std::string>& paths = a.paths;

  std::string error;
  auto spec = parseRetrieverArg(*a.retriever, &error);
  if (!spec) return cli.usageError(error);
  // The options, on the retriever or on each member of a hybrid (each takes those of its kind).
  if (a.requestTemplate && !checkRequestTemplate(*a.requestTemplate, &error))
    return cli.usageError("--request-template: " + error);
  auto apply = [&a](RetrieverSpec& s) {
    s.bm25 = a.bm25;
    s.rebuild = a.rebuild;
    s.stemming = a.stemming;
    if (!a.fields.empty()) s.fields = a.fields;
    if (a.idField) s.idField = *a.idField;
    if (a.textField) s.textField = *a.textField;
    if (a.requestTemplate) s.requestTemplate = *a.requestTemplate;
    if (a.resultsPath) s.reply.results = *a.resultsPath;
    if (a.idPath) s.reply.id = *a.idPath;
    if (a.scorePath) s.reply.score = *a.scorePath;
    if (a.textPath) s.reply.text = *a.textPath;
    s.timeoutMs = a.timeoutMs;
    if (a.embedModel) s.embedModel = *a.embedModel;
    if (a.queryPrefix) s.queryPrefix = *a.queryPrefix;
    if (a.docPrefix) s.docPrefix = *a.docPrefix;
    s.embedBatch = a.embedBatch;
    if (!a.ann.empty()) s.ann = annKindFromName(a.ann);
  };
  using Kind = RetrieverSpec::Kind;
  auto local = [](const RetrieverSpec& s) { return s.kind == Kind::Bm25 || s.kind == Kind::Dense; };
  auto remote = [](const RetrieverSpec& s) { return retrieverTrustEndpoint(s).has_value(); };
  if (spec->kind == Kind::Hybrid) {
    for (auto& m : spec->members) apply(m);
    // One folder cannot hold two indexes, and a key is sent only where it was meant to go: these
    // two go to the one member that can take them, or are refused.
    const auto takers = [&](auto&& pred) {
      return std::count_if(spec->members.begin(), spec->members.end(), pred);
    };
    if (a.index) {
      if (takers(local) != 1)
        return cli.usageError(
            "--index: the hybrid has " + std::to_string(takers(local)) +
            " members with an index; leave it out (each goes to its default folder)");
      for (auto& m : spec->members)
        if (local(m)) m.indexDir = *a.index;
    }
    if (a.keyEnv) {
      if (takers(remote) != 1)
        return cli.usageError(
            "--api-key-env: the hybrid has " + std::to_string(takers(remote)) +
            " members calling an endpoint; give each its key in a saved retriever (project)");
      for (auto& m : spec->members)
        if (remote(m)) m.apiKeyEnv = *a.keyEnv;
    }
    spec->fusion.method = fusionMethodFromName(a.fuse.empty() ? "rrf" : a.fuse).value();
    if (!a.fuseNorm.empty()) spec->fusion.norm = scoreNormFromName(a.fuseNorm).value();
    spec->fusion.weights = a.fuseWeights;
    spec->fusion.rrfK = a.rrfK;
    spec->fusion.depth = a.fuseDepth;
    if (spec->fusion.method == FusionMethod::WeightedSum && !cli.given("--fuse-weights"))
      return cli.usageError("--fuse wsum needs --fuse-weights (one per member)");
    if (cli.given("--rrf-k") && spec->fusion.method != FusionMethod::Rrf)
      return cli.usageError("--rrf-k applies to --fuse rrf only");
    if (std::string p = fusionOptionsProblem(spec->fusion, spec->members.size()); !p.empty())
      return cli.usageError((cli.given("--fuse-weights") ? "--fuse-weights: " : "") + p);
  } else {
    apply(*spec);
    if (a.index) spec->indexDir = *a.index;
    if (a.keyEnv) spec->apiKeyEnv = *a.keyEnv;
    for (const char* o : {"--fuse", "--fuse-norm", "--fuse-weights", "--rrf-k", "--fuse-depth"})
      if (cli.given(o)) return cli.usageError(std::string(o) + " goes with a hybrid: retriever");
  }
  if (!hasKind(*spec, Kind::Dense))
    for (const char* o : {"--doc-prefix", "--embed-batch", "--ann", "--batch", "--batch-poll"})
      if (cli.given(o))
        return cli.usageError(std::string(o) +
                              " goes with a dense: retriever (or a hybrid with one)");
  if (!hasKind(*spec, Kind::Dense) && !cli.given("--es-knn"))
    for (const char* o : {"--embed-model", "--query-prefix"})
      if (cli.given(o))
        return cli.usageError(std::string(o) + " goes with a dense: retriever or --es-knn");
  if (a.embedModel && a.embedModel->empty())
    return cli.usageError("--embed-model: the model's name is empty");
  if (hasDenseWithoutModel(*spec))
    return cli.usageError("dense:URL needs --embed-model NAME (the model the endpoint serves)");
  if (!a.esKnn && (a.embedder || a.embedKeyEnv || !a.esFlavour.empty() || a.numCandidates > 0))
    return cli.usageError(
        "--embedder, --embed-key-env, --es-flavour and --num-candidates go with --es-knn");
  if (a.esKnn) {
    if (spec->kind != RetrieverSpec::Kind::Elasticsearch)
      return cli.usageError("--es-knn needs an es:URL retriever");
    if (a.esKnn->empty()) return cli.usageError("--es-knn: the vector field's name is empty");
    if (!a.embedder) return cli.usageError("--es-knn needs --embedder URL (and --embed-model)");
    if (a.k > kEsMaxKnn)
      return cli.usageError("--es-knn: --k " + std::to_string(a.k) +
                            " is more than the 10000 hits a kNN search returns");
    if (a.numCandidates > 0 && a.numCandidates < a.k)
      return cli.usageError("--num-candidates " + std::to_string(a.numCandidates) +
                            " is less than --k " + std::to_string(a.k));
    spec->esKnnField = *a.esKnn;
    spec->embedUrl = *a.embedder;
    if (a.embedKeyEnv) spec->embedApiKeyEnv = *a.embedKeyEnv;
    spec->esFlavour = a.esFlavour;
    spec->numCandidates = a.numCandidates;
  }

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
  ro.embedProgress = progressLine("embedding");
  if (a.batch)
    ro.embedBatch = std::make_shared<const eval::BatchOptions>(
        batchApiOptions(true, a.batchPollSeconds, false));
  ro.retrieveProgress = progressLine("retrieving");
  RetrieveJobResult job = runRetrieveJob(*spec, ds, paths.front(), ro);
  clearLine();
  for (const auto& note : job.notes) std::cerr << note << "\n";
  if (!job.ok) {
    std::cerr << "ragscope-cli retrieve: " << job.error << "\n";
    return 2;
  }
  if (job.dense.ok) {
    const DenseIndexResult& dense = job.dense;
    std::cout << "dense index: " << dense.dir.string() << ": ";
    if (dense.reused)
      std::cout << "reused (nothing embedded)";
    else
      std::cout << "built: " << dense.calls << " embedding requests sent, " << dense.fromCache
                << " answered by the response cache, " << dense.embedSeconds << " s embedding, "
                << dense.indexSeconds << " s indexing"
                << (dense.rebuildReason.empty() ? "" : " (" + dense.rebuildReason + ")");
    std::cout << ", " << dense.documents << " documents, " << dense.dimensions << " dimensions\n";
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
