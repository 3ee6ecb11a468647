#pragma once
// An es retriever from its spec (retrieverspec.h): full-text `_search`, or, with esKnnField, a
// kNN search whose query vectors come from an embeddings endpoint (core/retrieval/README.md,
// "Elasticsearch and OpenSearch kNN"). openRetriever's es branch; kept apart so that the kNN
// settings are checked in one place.
//
//   std::string error;
//   std::unique_ptr<Retriever> es = openEsRetriever(spec, {}, &error);   // null + error

#include <functional>
#include <memory>
#include <string>

#include "core/retrieval/retriever.h"

namespace ragscope::core {

struct RetrieverSpec;

// Null + *error when the spec cannot work: with esKnnField, no embeddings endpoint or model, an
// endpoint that is not http(s) (or "offline"), an unknown flavour, num_candidates above 10,000, a
// request template (whose {{query}} is text, not a vector), or a server whose flavour GET on its
// root does not tell (asked here, once, so that it fails before any query). `apiKey`: the search
// server's key in memory (the GUI's keychain), used instead of spec.apiKeyEnv; the embeddings
// endpoint's key comes from spec.embedApiKeyEnv.
std::unique_ptr<Retriever> openEsRetriever(const RetrieverSpec& spec,
                                           std::function<std::string()> apiKey, std::string* error);

}  // namespace ragscope::core
