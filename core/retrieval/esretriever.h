#pragma once
// Elasticsearch / OpenSearch `_search` as a retriever:
//   POST <url>/_search  {"size":k,"query":{"match":{"<field>":{"query":"..."}}},"_source":[...]}
// (multi_match over several fields). Hits give _id (or a source field), _score and the text.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/retrieval/httppost.h"
#include "core/retrieval/retriever.h"

namespace ragscope::core {

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
};

// The _search URL of an index URL: "/_search" appended to the path (trailing slashes dropped)
// unless it ends so already, the query string kept after it and a fragment dropped:
// "http://h:9200/idx/?routing=x#top" -> "http://h:9200/idx/_search?routing=x".
std::string esSearchUrl(std::string_view indexUrl);

class EsRetriever : public Retriever {
 public:
  explicit EsRetriever(EsOptions options);
  std::string name() const override { return "es"; }
  std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) override;

  // The request body for a query (exposed for tests); empty + *error when the template fails.
  std::string requestBody(const Query& query, std::size_t k, std::string* error = nullptr) const;
  const std::string& searchUrl() const { return m_searchUrl; }

  // Reads the hits of a _search reply: the first k of hits.hits, each with its id (_id, or the
  // _source field `idField` when set), _score and the _source field `textField` as text. false +
  // *problem (without the URL) when the reply does not fit; memory is O(k) whatever its size.
  static bool parseHits(const std::string& body, std::size_t k, const std::string& idField,
                        const std::string& textField, std::vector<ScoredDoc>* out,
                        std::string* problem);

 private:
  EsOptions m_options;
  std::string m_searchUrl;
};

}  // namespace ragscope::core
