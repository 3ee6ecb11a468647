// The retriever options of ragscope-cli (retrieveroptions.h): one declaration and one spec
// builder for `retrieve`, `erag`, `e2e` and `judge`.

#include "app/cli/retrieveroptions.h"

#include <algorithm>

#include "app/cli/joboptions.h"
#include "app/cli/pathroles.h"
#include "core/retrieval/esretriever.h"
#include "core/retrieval/requesttemplate.h"
#include "core/util/inputfile.h"

namespace ragscope::cli {

using namespace ragscope::core;

namespace {

// The width of ragscope-cli's help (options.cpp) and the column the kinds' texts start at.
constexpr std::size_t kHelpWidth = 100;
constexpr std::size_t kKindColumn = 16;
// --fuse-depth's bound on the job commands (retrieve's --k bound).
constexpr std::size_t kMaxFuseDepth = 100'000;

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

// The options on a retriever or on one member of a hybrid (each takes those of its kind).
void applyOptions(const RetrieverArgs& a, RetrieverSpec& s) {
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
}

// The checks and settings of a hybrid's own options (members, --index, the key, fusion); the
// usage error's message, or "".
std::string applyHybrid(const RetrieverArgs& a, const CommandLine& cli, RetrieverSpec& spec) {
  using Kind = RetrieverSpec::Kind;
  auto local = [](const RetrieverSpec& s) { return s.kind == Kind::Bm25 || s.kind == Kind::Dense; };
  auto remote = [](const RetrieverSpec& s) { return retrieverTrustEndpoint(s).has_value(); };
  for (auto& m : spec.members) applyOptions(a, m);
  // One folder cannot hold two indexes, and a key is sent only where it was meant to go: these
  // two go to the one member that can take them, or are refused.
  const auto takers = [&](auto&& pred) {
    return std::count_if(spec.members.begin(), spec.members.end(), pred);
  };
  if (a.index) {
    if (takers(local) != 1)
      return "--index: the hybrid has " + std::to_string(takers(local)) +
             " members with an index; leave it out (each goes to its default folder)";
    for (auto& m : spec.members)
      if (local(m)) m.indexDir = *a.index;
  }
  if (a.keyEnv) {
    if (takers(remote) != 1)
      return a.names.apiKeyEnv + ": the hybrid has " + std::to_string(takers(remote)) +
             " members calling an endpoint; give each its key in a saved retriever (project)";
    for (auto& m : spec.members)
      if (remote(m)) m.apiKeyEnv = *a.keyEnv;
  }
  spec.fusion.method = fusionMethodFromName(a.fuse.empty() ? "rrf" : a.fuse).value();
  if (!a.fuseNorm.empty()) spec.fusion.norm = scoreNormFromName(a.fuseNorm).value();
  spec.fusion.weights = a.fuseWeights;
  spec.fusion.rrfK = a.rrfK;
  spec.fusion.depth = a.fuseDepth;
  if (spec.fusion.method == FusionMethod::WeightedSum && !cli.given("--fuse-weights"))
    return "--fuse wsum needs --fuse-weights (one per member)";
  if (cli.given("--rrf-k") && spec.fusion.method != FusionMethod::Rrf)
    return "--rrf-k applies to --fuse rrf only";
  if (std::string p = fusionOptionsProblem(spec.fusion, spec.members.size()); !p.empty())
    return (cli.given("--fuse-weights") ? "--fuse-weights: " : "") + p;
  return {};
}

// The es kNN options against the spec and k; the usage error's message, or "".
std::string applyEsKnn(const RetrieverArgs& a, std::size_t k, RetrieverSpec& spec) {
  const RetrieverOptionNames& n = a.names;
  if (!a.esKnn) {
    if (a.embedder || a.embedKeyEnv || !a.esFlavour.empty() || a.numCandidates > 0)
      return n.embedder + ", --embed-key-env, --es-flavour and --num-candidates go with --es-knn";
    return {};
  }
  if (spec.kind != RetrieverSpec::Kind::Elasticsearch) return "--es-knn needs an es:URL retriever";
  if (a.esKnn->empty()) return "--es-knn: the vector field's name is empty";
  if (!a.embedder) return "--es-knn needs " + n.embedder + " URL (and --embed-model)";
  if (k > kEsMaxKnn)
    return "--es-knn: --k " + std::to_string(k) +
           " is more than the 10000 hits a kNN search returns";
  if (a.numCandidates > 0 && a.numCandidates < k)
    return "--num-candidates " + std::to_string(a.numCandidates) + " is less than --k " +
           std::to_string(k);
  spec.esKnnField = *a.esKnn;
  spec.embedUrl = *a.embedder;
  if (a.embedKeyEnv) spec.embedApiKeyEnv = *a.embedKeyEnv;
  spec.esFlavour = a.esFlavour;
  spec.numCandidates = a.numCandidates;
  return {};
}

// The spec's checks and settings after parsing; the usage error's message, or "".
std::string applyAll(const RetrieverArgs& a, const CommandLine& cli, std::size_t k,
                     RetrieverSpec& spec) {
  using Kind = RetrieverSpec::Kind;
  std::string error;
  if (a.requestTemplate && !checkRequestTemplate(*a.requestTemplate, &error))
    return "--request-template: " + error;
  if (spec.kind == Kind::Hybrid) {
    if (std::string p = applyHybrid(a, cli, spec); !p.empty()) return p;
  } else {
    applyOptions(a, spec);
    if (a.index) spec.indexDir = *a.index;
    if (a.keyEnv) spec.apiKeyEnv = *a.keyEnv;
    for (const char* o : {"--fuse", "--fuse-norm", "--fuse-weights", "--rrf-k", "--fuse-depth"})
      if (cli.given(o)) return std::string(o) + " goes with a hybrid: retriever";
  }
  if (!hasKind(spec, Kind::Dense)) {
    std::vector<std::string> denseOnly = {"--doc-prefix", "--embed-batch", "--ann"};
    // On the job commands --batch and --batch-poll are the LLM calls' (joboptions.h).
    if (a.names.batchApi) denseOnly.insert(denseOnly.end(), {"--batch", "--batch-poll"});
    for (const auto& o : denseOnly)
      if (cli.given(o)) return o + " goes with a dense: retriever (or a hybrid with one)";
  }
  if (!hasKind(spec, Kind::Dense) && !cli.given("--es-knn"))
    for (const char* o : {"--embed-model", "--query-prefix"})
      if (cli.given(o)) return std::string(o) + " goes with a dense: retriever or --es-knn";
  if (a.embedModel && a.embedModel->empty()) return "--embed-model: the model's name is empty";
  if (hasDenseWithoutModel(spec))
    return "dense:URL needs --embed-model NAME (the model the endpoint serves)";
  return applyEsKnn(a, k, spec);
}

}  // namespace

RetrieverOptionNames RetrieverOptionNames::forJobs() {
  RetrieverOptionNames n;
  n.apiKeyEnv = "--retriever-key-env";
  n.embedder = "--es-knn-embedder";
  n.timeoutMs = "--retriever-timeout-ms";
  n.batchApi = false;
  n.section = "Retriever options (with --retriever)";
  return n;
}

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

std::string retrieverKindsHelp(const RetrieverOptionNames& n) {
  const std::string dense =
      "dense retrieval: the corpus embedded once through the OpenAI-compatible embeddings "
      "endpoint at URL (http://host:8000/v1: vLLM, TEI, Ollama, llama.cpp, OpenAI; --embed-model "
      "NAME, --doc-prefix, --embed-batch inputs per request), kept in a FAISS index (--ann) in "
      "--index DIR, by default PATH.ragscope-index-dense-<hash of URL, model and document "
      "prefix> beside the first dataset path (or under ~/.cache/ragscope), reused while the "
      "corpus and those settings are unchanged; each query embedded (--query-prefix) and its "
      "nearest documents by inner product (cosine: vectors are unit length) returned. A second "
      "run embeds only the queries, and those come from the response cache." +
      std::string(n.batchApi ? ""
                             : " To embed a large corpus through the Batch API, build the index "
                               "with `ragscope-cli retrieve --batch` first: this command then "
                               "reuses it.");
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"bm25",
       "embedded BM25 (Xapian) over the dataset's corpus. The index is built on first use "
       "(English stemming, Lucene's English stopwords) in --index DIR, by default "
       "PATH.ragscope-index beside the first dataset path (or under ~/.cache/ragscope when that "
       "folder is not writable), and reused while the corpus is unchanged."},
      {"es:URL",
       "Elasticsearch/OpenSearch index, e.g. es:http://localhost:9200/msmarco (POST URL/_search "
       "with a match query on --field); with --es-knn FIELD, a kNN search instead: each query "
       "embedded by " +
           n.embedder +
           " URL (--embed-model NAME, --query-prefix) and sent as Elasticsearch 8.4+'s knn "
           "option (field, query_vector, k, num_candidates) or OpenSearch's k-NN query (vector, "
           "k), by the server's flavour (read from GET on its root, or --es-flavour)"},
      {"http:URL",
       "generic JSON service: POST URL {\"query\",\"k\"} -> [{\"id\",\"score\",\"text\"?}]\nURLs "
       "are http:// or https:// only (any other scheme is refused); a query string stays on the "
       "URL (es: POST /index/_search?routing=x); redirects are not followed; of a reply, only the "
       "first K hits are read."},
      {"dense:URL", dense},
      {"dense:offline",
       "the same with a deterministic hashed bag of words (256 dimensions), no server"},
      {"hybrid:A+B",
       "members A, B, ... (2 to 16 of the retrievers above) asked for each query, their rankings "
       "fused as `ragscope-cli fuse` does (--fuse, default rrf with k = 60), e.g. "
       "hybrid:bm25+dense:http://localhost:8000/v1. Every '+' separates members, so a member's "
       "URL cannot hold one (write it %2B). Options apply to every member they concern; --index "
       "and " +
           n.apiKeyEnv + " only where one member can take them."},
  };
  std::string out;
  for (const auto& [label, text] : kinds) {
    std::string line = "  " + label;
    line.resize(std::max(kKindColumn, line.size() + 1), ' ');
    out += line + wrapText(text, kHelpWidth, kKindColumn, line.size()) + "\n";
  }
  return out;
}

void addRetrieverOptions(CommandLine& cli, RetrieverArgs& a, std::size_t maxK,
                         RetrieverOptionNames names) {
  a.names = std::move(names);
  const RetrieverOptionNames& n = a.names;
  if (!n.section.empty()) cli.section(n.section);
  // Each option's name is kept in `declared`, for givenRetrieverOption.
  auto named = [&a](const std::string& name) {
    a.declared.push_back(name);
    return name;
  };
  cli.path(named("--index"), "DIR", a.index,
           "bm25, dense: index folder (a hybrid takes it when one member has an index)")
      .output();
  cli.flag(named("--rebuild"), a.rebuild,
           "bm25, dense: rebuild the index even when it matches the corpus (dense: the "
           "embeddings already in the folder are kept and not asked again)");
  cli.flag(named("--no-stemming"), a.stemming,
           "bm25: index and match words as written (default: English stemming); the default index "
           "folder then ends in -nostem, and an index built the other way is rebuilt, never reused",
           false);
  cli.number(named("--bm25-k1"), "X", a.bm25.k1, NumberBounds::atLeast(0),
             "bm25: k1 (default 1.0, Xapian's; Anserini's MS MARCO setting is 0.9)");
  cli.number(named("--bm25-b"), "X", a.bm25.b, NumberBounds::between(0, 1),
             "bm25: b (default 0.5, Xapian's; Anserini's MS MARCO setting is 0.4)");
  cli.texts(named("--field"), "F", a.fields,
            "es: text field to match, repeatable for multi_match (default \"text\")");
  cli.text(named("--id-field"), "F", a.idField,
           "es: _source field holding the document id (default: the hit's _id)");
  cli.text(named("--text-field"), "F", a.textField,
           "es: _source field returned as the document's text (default: the first --field)");
  cli.custom(
         named("--request-template"), "T",
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
  cli.text(named("--results-path"), "P", a.resultsPath,
           "http: dot path to the array of results in the reply (default: the reply itself, or "
           "its \"results\"), e.g. data.hits");
  cli.text(named("--id-path"), "P", a.idPath,
           "http: dot path to the id within a result (default id), "
           "e.g. doc.pid");
  cli.text(named("--score-path"), "P", a.scorePath, "http: ... to the score (default score)");
  cli.text(named("--text-path"), "P", a.textPath, "http: ... to the text (default text)");
  cli.text(named("--es-knn"), "FIELD", a.esKnn,
           "es: kNN search on this dense_vector (Elasticsearch) or knn_vector (OpenSearch) "
           "field, each query embedded by " +
               n.embedder + " first; K at most 10000");
  cli.text(named(n.embedder), "URL", a.embedder,
           "es --es-knn: base URL of the OpenAI-compatible embeddings endpoint that embeds each "
           "query (http://host:8000/v1), with --embed-model and --query-prefix");
  cli.text(named("--embed-key-env"), "VAR", a.embedKeyEnv,
           "es --es-knn: environment variable holding the embedder's key (never printed)");
  cli.choice(named("--es-flavour"), {"elasticsearch", "opensearch"}, a.esFlavour,
             "es --es-knn: the server's engine (default: read once from GET on the server's root; "
             "an engine it does not name is refused)");
  cli.integer(named("--num-candidates"), "N", a.numCandidates, 1, kEsMaxKnn,
              "es --es-knn, Elasticsearch: candidates per shard (default max(100, 2K) up to "
              "10000; at least K)");
  cli.text(named("--embed-model"), "NAME", a.embedModel,
           "dense (required but for dense:offline), es --es-knn: the embedding model the "
           "endpoint serves");
  cli.text(named("--query-prefix"), "TEXT", a.queryPrefix,
           "dense, es --es-knn: prepended to each query before embedding (e5: 'query: '; bge: "
           "its instruction)");
  cli.text(named("--doc-prefix"), "TEXT", a.docPrefix,
           "dense: prepended to each document before embedding (e5: 'passage: ')");
  cli.integer(named("--embed-batch"), "N", a.embedBatch, 1, 4096,
              "dense: documents per embeddings request (default 64)");
  cli.choice(named("--ann"), {"flat", "hnsw", "ivfpq"}, a.ann,
             "dense: FAISS index: flat (exact inner product), hnsw (graph), ivfpq (compressed, "
             "for corpora too big for float32); default flat up to 1,000,000 documents, hnsw "
             "above");
  if (n.batchApi) {
    named("--batch");
    named("--batch-poll");
    addBatchApiOptions(cli, a.batch, a.batchPollSeconds,
                       "dense: embed the corpus through the endpoint's Batch API (upload, create, "
                       "poll, download, import into the index folder's embeddings.db) instead of "
                       "live calls; a stopped or killed run polls the same batch when run again");
  }
  cli.choice(named("--fuse"), {"rrf", "combsum", "combmnz", "wsum"}, a.fuse,
             "hybrid: fusion method, as `ragscope-cli fuse --method` (default rrf)");
  cli.choice(named("--fuse-norm"), {"none", "min-max", "max", "sum", "zmuv"}, a.fuseNorm,
             "hybrid: score normalisation before combsum, combmnz and wsum (default min-max)");
  cli.custom(
      named("--fuse-weights"), "W,W,...",
      [&a](const std::string& v) { return parseWeightList(v, a.fuseWeights); },
      "hybrid --fuse wsum: one weight per member, in member order (required for wsum)");
  cli.number(named("--rrf-k"), "K", a.rrfK, NumberBounds::atLeast(0),
             "hybrid, rrf: k (default 60)");
  cli.integer(named("--fuse-depth"), "N", a.fuseDepth, 1, maxK,
              "hybrid: documents each member retrieves for the fusion (default: --k)");
  cli.text(named(n.apiKeyEnv), "VAR", a.keyEnv,
           n.batchApi ? "es/http/dense: environment variable holding the key or token (never "
                        "printed)"
                      : "es/http/dense: environment variable holding the retriever's key or "
                        "token (never printed; --api-key-env is the LLM endpoints')");
  cli.integer(named(n.timeoutMs), "N", a.timeoutMs, 1, 3'600'000,
              n.batchApi ? "es/http/dense: per-request timeout (default 30000)"
                         : "es/http/dense: the retriever's per-request timeout in milliseconds "
                           "(default 30000; --timeout is the LLM calls')");
  if (!n.section.empty()) cli.section("Options");
}

std::string givenRetrieverOption(const CommandLine& cli, const RetrieverArgs& a) {
  for (const auto& name : a.declared)
    if (cli.given(name)) return name;
  return {};
}

std::optional<RetrieverSpec> buildRetrieverSpec(const RetrieverArgs& a, const CommandLine& cli,
                                                std::size_t k, std::string* error) {
  if (!a.retriever) {
    *error = std::string("no retriever given (--retriever ") + kRetrieverKinds + ")";
    return std::nullopt;
  }
  auto spec = parseRetrieverArg(*a.retriever, error);
  if (!spec) return std::nullopt;
  if (std::string p = applyAll(a, cli, k, *spec); !p.empty()) {
    *error = std::move(p);
    return std::nullopt;
  }
  return spec;
}

void addJobRetrieverOptions(CommandLine& cli, RetrieverArgs& args, const std::string& epilogue) {
  const RetrieverOptionNames names = RetrieverOptionNames::forJobs();
  cli.text("--retriever", "R", args.retriever,
           std::string("retrieve each query's top k first with R: ") + kRetrieverKinds +
               " (below; options in \"" + names.section +
               "\"); the run is named R's kind and k (bm25-top5, dense-top5, hybrid-top5) and "
               "kept in the store's record. Instead of --run");
  addRetrieverOptions(cli, args, kMaxFuseDepth, names);
  cli.epilogue("Retrievers (--retriever R):\n" + retrieverKindsHelp(names) +
               (epilogue.empty() ? "" : "\n" + wrapText(epilogue, kHelpWidth, 0)));
}

std::string setJobRetriever(const RetrieverArgs& args, const CommandLine& cli, std::size_t k,
                            eval::RunSource& run) {
  if (!args.retriever) {
    if (const std::string option = givenRetrieverOption(cli, args); !option.empty())
      return option + " goes with --retriever R";
    return {};
  }
  std::string error;
  auto spec = buildRetrieverSpec(args, cli, k, &error);
  if (!spec) return error;
  run.type = eval::RunSource::Type::Retriever;
  run.retriever = std::move(*spec);
  return {};
}

}  // namespace ragscope::cli
