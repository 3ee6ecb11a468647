#pragma once
// Elasticsearch / OpenSearch `_search` as a retriever:
//   POST <url>/_search  {"size":k,"query":{"match":{"<field>":{"query":"..."}}},"_source":[...]}
// (multi_match over several fields). Hits give _id (or a source field), _score and the text.
// With EsOptions::knn, a kNN search on a vector field instead (core/retrieval/README.md,
// "Elasticsearch and OpenSearch kNN"): each query is embedded first, then sent as
//   Elasticsearch 8.4+: {"knn":{"field":F,"query_vector":[...],"k":k,"num_candidates":N},
//                        "size":k,"_source":[...]}
//   OpenSearch k-NN:    {"size":k,"query":{"knn":{F:{"vector":[...],"k":k}}},"_source":[...]}
// by the server's flavour (given, or read once from GET on the server's root).

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/retrieval/httppost.h"
#include "core/retrieval/retriever.h"

namespace ragscope::core {

enum class EsFlavour { Elasticsearch, OpenSearch };
const char* esFlavourName(EsFlavour flavour);  // "elasticsearch", "opensearch"
std::optional<EsFlavour> esFlavourFromName(std::string_view name);

// Both engines' documented ceiling: Elasticsearch's num_candidates (and so k) and OpenSearch's k
// are at most 10,000.
inline constexpr std::size_t kEsMaxKnn = 10000;

// num_candidates for a kNN search of k hits: `requested` when non-zero, else max(100, 2k) capped
// at kEsMaxKnn. nullopt + *problem when k or `requested` breaks Elasticsearch's rules
// (k <= num_candidates <= 10,000).
std::optional<std::size_t> esNumCandidates(std::size_t k, std::size_t requested,
                                           std::string* problem);

struct EsKnnOptions {
  std::string field;  // the dense_vector (Elasticsearch) or knn_vector (OpenSearch) field
  std::optional<EsFlavour> flavour;  // unset: detectFlavour() (GET on the server's root)
  std::size_t numCandidates = 0;     // Elasticsearch: 0 = max(100, 2k); OpenSearch: unused
  // The query's vector (the embedder adds its query prefix); false + *error naming the
  // embeddings endpoint. Called from several threads at once.
  std::function<bool(const std::string& text, std::vector<float>* vector, std::string* error)>
      embed;
};

struct EsOptions {
  // Index URL, e.g. "http://localhost:9200/msmarco"; "/_search" is appended to its path unless
  // present (esSearchUrl).
  std::string url;
  std::vector<std::string> fields = {"text"};  // one field: match; several: multi_match
  std::string idField;    // _source field holding the document id; empty = the hit's _id
  std::string textField;  // _source field returned as text; empty = fields[0]
  // Name of an environment variable holding the API key ("ApiKey ..."/"Basic ..."/"Bearer ..." or
  // a bare key sent as "ApiKey <key>"). The value is read per request and never logged.
  std::string apiKeyEnv;
  // The key handed over in memory (the GUI's keychain lookup); used instead of apiKeyEnv.
  std::function<std::string()> apiKey;
  long timeoutMs = 30000;
  // The whole _search body with placeholders (requesttemplate.h: {{query}}, {{query_id}}, {{k}}),
  // for queries the field list cannot say (bool, boosts, filters); empty: the match query above.
  std::string queryTemplate;
  // Set: a kNN search on knn->field (queryTemplate and fields then unused, but textField's
  // default is still fields[0]).
  std::optional<EsKnnOptions> knn;
};

// The _search URL of an index URL: "/_search" appended to the path (trailing slashes dropped)
// unless it ends so already, the query string kept after it and a fragment dropped:
// "http://h:9200/idx/?routing=x#top" -> "http://h:9200/idx/_search?routing=x".
std::string esSearchUrl(std::string_view indexUrl);

// The server's root of an index URL, where GET tells the engine and version: the index URL
// without its query, fragment, "/_search" and last path segment, ending in "/":
// "http://h:9200/idx/_search?x=1" -> "http://h:9200/", "https://h/es/idx" -> "https://h/es/".
std::string esRootUrl(std::string_view indexUrl);

// The engine of a root reply, read strictly: OpenSearch when version.distribution is "opensearch";
// Elasticsearch 8.4 or later (the first with _search's knn option) when the tagline is "You Know,
// for Search" and there is no distribution. nullopt + *problem otherwise (another distribution,
// an older Elasticsearch, no version.number, not JSON). O(1) memory whatever the reply's size.
std::optional<EsFlavour> esFlavourFromRootReply(const std::string& body, std::string* problem);

class EsRetriever : public Retriever {
 public:
  explicit EsRetriever(EsOptions options);
  std::string name() const override { return "es"; }
  std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) override;

  // The request body for a query (exposed for tests); empty + *error when the template fails.
  std::string requestBody(const Query& query, std::size_t k, std::string* error = nullptr) const;
  // The kNN body for a query vector (exposed for tests); empty + *error when k or num_candidates
  // is out of the engine's range or the vector has a NaN or infinite component.
  std::string knnRequestBody(const std::vector<float>& vector, std::size_t k, EsFlavour flavour,
                             std::string* error = nullptr) const;
  const std::string& searchUrl() const { return m_searchUrl; }

  // kNN: the flavour given, else GET on the server's root once (a failure is not remembered, so
  // the next call asks again). false + *error ("GET <root>: ...") when neither tells.
  bool detectFlavour(EsFlavour* flavour, std::string* error);

  // Reads the hits of a _search reply: the first k of hits.hits, each with its id (_id, or the
  // _source field `idField` when set), _score and the _source field `textField` as text. false +
  // *problem (without the URL) when the reply does not fit; memory is O(k) whatever its size.
  static bool parseHits(const std::string& body, std::size_t k, const std::string& idField,
                        const std::string& textField, std::vector<ScoredDoc>* out,
                        std::string* problem);

 private:
  // Authorization from the configured key, for both the root and _search.
  bool httpOptions(HttpPostOptions* http, std::string* problem) const;

  EsOptions m_options;
  std::string m_searchUrl;
  std::mutex m_flavourMutex;
  std::optional<EsFlavour> m_flavour;        // kNN: given or detected
  std::atomic<std::size_t> m_dimensions{0};  // kNN: the first query vector's size
};

}  // namespace ragscope::core
