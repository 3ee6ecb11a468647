#pragma once
// A retriever as the user configures it: on the command line (`--retriever es:URL --field body`),
// and, for the workbench, in a project file. What it is and how to reach it, never a secret: a
// key is named by the environment variable that holds it. openRetriever() turns a spec into a
// working Retriever (building or reusing the BM25 index), so every front end makes its runs
// the same way.
//
//   std::string error;
//   auto spec = parseRetrieverArg("es:http://localhost:9200/msmarco", &error);
//   spec->fields = {"body"};
//   project["retrievers"].push_back(retrieverSpecToJson(*spec));
//   OpenedRetriever r = openRetriever(*spec, dataset, datasetPath, {});

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/dataset.h"
#include "core/llm/provider.h"
#include "core/retrieval/corpusembedding.h"
#include "core/retrieval/fusion.h"
#include "core/retrieval/httpretriever.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/vectorindex.h"
#include "core/retrieval/xapianindex.h"

namespace ragscope::core {

struct RetrieverSpec {
  enum class Kind { Bm25, Elasticsearch, Http, Dense, Hybrid };
  Kind kind = Kind::Bm25;
  std::string name;  // run tag and label; empty: the kind's ("bm25", "es", "http")

  // bm25: Xapian's BM25 over the dataset's corpus.
  Bm25Params bm25;
  bool stemming = true;            // English stemming (index and queries)
  std::filesystem::path indexDir;  // empty: chooseIndexDir() beside the dataset or in the cache
                                   // ("-nostem" appended to its name without stemming)
  bool rebuild = false;
  // indexDir (bm25, dense) came from a file (retrieverSpecFromJson: a project), not from this
  // machine's user: only read, when it already holds a matching index; an index to be built goes
  // to the default folder instead (openRetriever, OpenedRetriever::notes). Never serialised; the
  // CLI and the workbench's editor, when the user types the folder, leave it false.
  bool indexDirFromFile = false;

  // es (Elasticsearch/OpenSearch index URL) and http (generic JSON service URL).
  std::string url;
  std::vector<std::string> fields = {"text"};  // es: fields matched
  std::string idField;                         // es: _source field with the id; empty: _id
  std::string textField;                       // es: _source field returned as text
  std::string apiKeyEnv;                       // environment variable holding the key
  std::string keychainEntry;                   // OS keychain entry holding it (the GUI reads it)
  long timeoutMs = 30000;
  // es: the _search body; http: the request body (requesttemplate.h). Empty: the built-in one.
  std::string requestTemplate;
  HttpReplyPaths reply;  // http: where the results and their id, score and text are
  // dense (core/retrieval/README.md, "Dense retrieval"): `url` is the embeddings endpoint's base
  // URL ("http://host:8000/v1"; "offline": the hashed bag of words), `apiKeyEnv` its key; the
  // vector index lives in `indexDir` (empty: beside the dataset or in the cache, as for bm25).
  // es with esKnnField: a kNN search whose query vector comes from embedUrl.
  std::string embedModel;
  std::string queryPrefix;
  std::string docPrefix;
  std::size_t embedBatch = 64;
  std::optional<AnnKind> ann;     // unset: flat up to kFlatDefaultLimit documents, hnsw above
  std::string esKnnField;         // es: the dense_vector / knn_vector field; empty: full text
  std::string embedUrl;           // es kNN: the embeddings endpoint that embeds each query
  std::string embedApiKeyEnv;     // es kNN: its key's environment variable
  std::string esFlavour;          // es kNN: "elasticsearch", "opensearch"; empty: from GET /
  std::size_t numCandidates = 0;  // es kNN: candidates per shard; 0: max(100, 2k)
  // hybrid: the member retrievers (each a whole spec, as saved) and how their runs are fused
  // (fusion.h). Members retrieve options.k each unless fusion.depth asks for more.
  std::vector<RetrieverSpec> members;
  FusionOptions fusion;
};

// "bm25", "es", "http", "dense", "hybrid": the kind as written in project files and used as the
// default run tag.
const char* retrieverKindName(RetrieverSpec::Kind kind);

// "bm25", "es:URL", "http:URL" (and "http://..." as shorthand for http:http://...), "dense:URL"
// ("dense:offline" for the hashed bag of words), "hybrid:SPEC+SPEC[+...]" (members fused by RRF,
// k = 60). In a hybrid argument every '+' separates two members, so a member's URL cannot hold
// one (write it %2B) and no argument reads two ways; members are single retrievers (hybrids nest
// in project files only), 2 to 16 of them.
std::optional<RetrieverSpec> parseRetrieverArg(std::string_view arg, std::string* error);

// JSON for project files: {"kind":"es","url":...,"api_key_env":"ES_KEY",...}. Only the variable's
// name is written; a spec read back equals the one written. Hybrid: {"kind":"hybrid","members":
// [spec, spec...],"fusion":{"method":"rrf","norm":"min-max","weights":[...],"rrf_k":60,
// "depth":0}}. Read strictly: a member of the wrong type or out of range is an error naming its
// path ("field 'members[1].embed_batch': ..."); hybrids nest at most 4 levels deep.
nlohmann::json retrieverSpecToJson(const RetrieverSpec& spec);
std::optional<RetrieverSpec> retrieverSpecFromJson(const nlohmann::json& json, std::string* error);

// The retriever as the trust registry sees it (core/llm/trustedendpoints.h): its URL and where
// its key comes from (none when it names no variable or keychain entry). The dataset's queries
// are the user's data, as prompts are: an es or http retriever sends them, and its key when it
// has one, only to a URL this machine's user configured or confirmed, never to one a project file
// names by itself, key or not. nullopt for bm25, which is local and sends nothing.
// Dense: its embeddings endpoint (none for "offline"). Hybrid: the first member endpoint that
// names a key source, else the first (the one whose key a front end resolves and hands to
// openRetriever). A spec may call several endpoints (hybrid members, es kNN's embedder): trust
// must be checked for each of retrieverTrustEndpoints().
std::optional<llm::EndpointConfig> retrieverTrustEndpoint(const RetrieverSpec& spec);
// Every endpoint the retriever calls: an es or http URL, a dense retriever's embeddings endpoint,
// an es kNN search's embedder, and all of a hybrid's members' (in member order). Empty: the
// retriever sends nothing anywhere (bm25, dense:offline, a hybrid of those).
std::vector<llm::EndpointConfig> retrieverTrustEndpoints(const RetrieverSpec& spec);

// One line for logs and run records, URLs with credentials redacted: "bm25 (k1=0.9 b=0.4)".
std::string describeRetriever(const RetrieverSpec& spec);

struct OpenedRetriever {
  std::unique_ptr<Retriever> retriever;  // null on failure or cancel
  IndexBuildResult index;                // bm25 (hybrid: its first bm25 member's): opened or built
  DenseIndexResult dense;                // dense (hybrid: its first dense member's)
  bool cancelled = false;
  std::string error;
  // For people: an index folder named by a file that was not written (index built elsewhere).
  std::vector<std::string> notes;
};

// A working retriever for `dataset` (whose first file is `firstPath`, where a default BM25
// index goes). BM25 needs the dataset's corpus; es and http need nothing from it. Dense embeds
// the corpus (or reuses the index that holds it: buildDenseIndex), in spec.indexDir or by
// default in `<first part>.ragscope-index-dense-<hash of endpoint, model, document prefix>`
// beside the dataset (else in the cache, as chooseIndexDir places the BM25 index);
// indexOptions.embedProgress reports embedding requests, indexOptions.progress vectors added,
// and either callback or indexOptions.stop cancels (the embeddings done stay for the next try).
// A spec whose indexDirFromFile is set only reads that folder: an index there whose manifest
// matches is used; anything else (missing, stale, a rebuild asked) is built in the default folder
// and a note says so. Nothing is created or written in a folder a file names.
// Hybrid opens each member so, in order; a member that fails fails it, named.
// `apiKey`: the key handed over in memory (the GUI's keychain lookup), used instead of the
// spec's environment variable (hybrid: for the members calling retrieverTrustEndpoint(spec)).
OpenedRetriever openRetriever(const RetrieverSpec& spec, const Dataset& dataset,
                              const std::filesystem::path& firstPath,
                              const IndexBuildOptions& indexOptions,
                              std::function<std::string()> apiKey = {});

}  // namespace ragscope::core
