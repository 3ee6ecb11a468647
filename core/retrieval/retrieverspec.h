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
#include "core/retrieval/httpretriever.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/xapianindex.h"

namespace ragscope::core {

struct RetrieverSpec {
  enum class Kind { Bm25, Elasticsearch, Http };
  Kind kind = Kind::Bm25;
  std::string name;  // run tag and label; empty: the kind's ("bm25", "es", "http")

  // bm25: Xapian's BM25 over the dataset's corpus.
  Bm25Params bm25;
  bool stemming = true;            // English stemming (index and queries)
  std::filesystem::path indexDir;  // empty: chooseIndexDir() beside the dataset or in the cache
                                   // ("-nostem" appended to its name without stemming)
  bool rebuild = false;

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
};

// "bm25", "es", "http": the kind as written in project files and used as the default run tag.
const char* retrieverKindName(RetrieverSpec::Kind kind);

// "bm25", "es:URL", "http:URL" (and "http://..." as shorthand for http:http://...).
std::optional<RetrieverSpec> parseRetrieverArg(std::string_view arg, std::string* error);

// JSON for project files: {"kind":"es","url":...,"api_key_env":"ES_KEY",...}. Only the variable's
// name is written; a spec read back equals the one written.
nlohmann::json retrieverSpecToJson(const RetrieverSpec& spec);
std::optional<RetrieverSpec> retrieverSpecFromJson(const nlohmann::json& json, std::string* error);

// The retriever as the trust registry sees it (core/llm/trustedendpoints.h): its URL and where
// its key comes from (none when it names no variable or keychain entry). The dataset's queries
// are the user's data, as prompts are: an es or http retriever sends them, and its key when it
// has one, only to a URL this machine's user configured or confirmed, never to one a project file
// names by itself, key or not. nullopt for bm25, which is local and sends nothing.
std::optional<llm::EndpointConfig> retrieverTrustEndpoint(const RetrieverSpec& spec);

// One line for logs and run records, URLs with credentials redacted: "bm25 (k1=0.9 b=0.4)".
std::string describeRetriever(const RetrieverSpec& spec);

struct OpenedRetriever {
  std::unique_ptr<Retriever> retriever;  // null on failure or cancel
  IndexBuildResult index;                // bm25: the index opened or built
  bool cancelled = false;
  std::string error;
};

// A working retriever for `dataset` (whose first file is `firstPath`, where a default BM25
// index goes). BM25 needs the dataset's corpus; es and http need nothing from it.
// `apiKey`: the key handed over in memory (the GUI's keychain lookup), used instead of the
// spec's environment variable.
OpenedRetriever openRetriever(const RetrieverSpec& spec, const Dataset& dataset,
                              const std::filesystem::path& firstPath,
                              const IndexBuildOptions& indexOptions,
                              std::function<std::string()> apiKey = {});

}  // namespace ragscope::core
