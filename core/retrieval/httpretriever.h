#pragma once
// A generic JSON retrieval service as a retriever:
//   POST <url>  {"query": "...", "k": 10}
//   -> [{"id": "d1", "score": 12.5, "text": "..."}, ...]     (or {"results": [...]})
// `id` may be a string or an integer; `text` is optional; `score` is optional only when no entry
// has one (the list order is then the ranking: scores k, k-1, ... are assigned).
// Other services are described by a request template and reply paths (requesttemplate.h), e.g.
//   {"q": {{query}}, "top_k": {{k}}}  ->  {"data": {"hits": [{"doc": {"pid": 7},
//   "relevance": 2.5}]}}
// with results path "data.hits", id path "doc.pid", score path "relevance".

#include <functional>
#include <string>

#include "core/retrieval/httppost.h"
#include "core/retrieval/retriever.h"

namespace ragscope::core {

// Where a reply's results and their fields are (dot paths, requesttemplate.h).
struct HttpReplyPaths {
  std::string results;  // the array of results; empty: the reply itself, or its "results"
  std::string id = "id";
  std::string score = "score";
  std::string text = "text";
};

struct HttpRetrieverOptions {
  std::string url;
  // Environment variable holding a token, sent as "Authorization: Bearer <token>" (or as is when
  // it names its scheme). Never logged.
  std::string apiKeyEnv;
  // The key handed over in memory (the GUI's keychain lookup); used instead of apiKeyEnv.
  std::function<std::string()> apiKey;
  long timeoutMs = 30000;
  std::string requestTemplate;  // empty: {"query": {{query}}, "k": {{k}}}
  HttpReplyPaths reply;
};

class HttpRetriever : public Retriever {
 public:
  explicit HttpRetriever(HttpRetrieverOptions options) : m_options(std::move(options)) {}
  std::string name() const override { return "http"; }
  std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) override;

  // Parses a reply body: its first k results in list order. false + *problem (without the URL)
  // when it does not fit the contract. Only those k results are built (core/util/jsonkeep.h), so
  // memory is O(k) however many results the reply holds.
  static bool parseReply(const std::string& body, std::size_t k, std::vector<ScoredDoc>* out,
                         std::string* problem, const HttpReplyPaths& paths = {});

 private:
  HttpRetrieverOptions m_options;
};

}  // namespace ragscope::core
