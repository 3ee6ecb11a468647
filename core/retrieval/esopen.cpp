#include "core/retrieval/esopen.h"

#include "core/llm/providerfactory.h"
#include "core/llm/responsecache.h"
#include "core/retrieval/corpusembedding.h"
#include "core/retrieval/esretriever.h"
#include "core/retrieval/retrieverspec.h"
#include "core/util/httpsafety.h"

namespace ragscope::core {

namespace {

// The embedder of each query, from the spec's embed* fields.
EmbedderSettings embedderSettings(const RetrieverSpec& spec) {
  EmbedderSettings s;
  s.endpoint.name = (spec.name.empty() ? std::string("es") : spec.name) + " query embedder";
  s.endpoint.kind = llm::EndpointKind::Embeddings;
  s.endpoint.baseUrl = spec.embedUrl;
  s.endpoint.model = spec.embedModel;
  s.endpoint.apiKeyEnv = spec.embedApiKeyEnv;
  s.endpoint.timeoutSeconds = static_cast<double>(spec.timeoutMs) / 1000.0;
  s.queryPrefix = spec.queryPrefix;
  return s;
}

}  // namespace

std::unique_ptr<Retriever> openEsRetriever(const RetrieverSpec& spec,
                                           std::function<std::string()> apiKey,
                                           std::string* error) {
  auto fail = [&](const std::string& why) -> std::unique_ptr<Retriever> {
    if (error) *error = "es retriever: " + why;
    return nullptr;
  };
  EsOptions o;
  o.url = spec.url;
  o.fields = spec.fields;
  o.idField = spec.idField;
  o.textField = spec.textField;
  o.apiKeyEnv = spec.apiKeyEnv;
  o.timeoutMs = spec.timeoutMs;
  o.queryTemplate = spec.requestTemplate;
  o.apiKey = std::move(apiKey);
  if (spec.esKnnField.empty()) return std::make_unique<EsRetriever>(std::move(o));

  if (!spec.requestTemplate.empty())
    return fail("a request template cannot be combined with a kNN search (its {{query}} is text)");
  EsKnnOptions knn;
  knn.field = spec.esKnnField;
  if (!spec.esFlavour.empty()) {
    knn.flavour = esFlavourFromName(spec.esFlavour);
    if (!knn.flavour)
      return fail("flavour '" + spec.esFlavour + "' is not elasticsearch or opensearch");
  }
  if (spec.numCandidates > kEsMaxKnn)
    return fail("num_candidates " + std::to_string(spec.numCandidates) + " is more than " +
                std::to_string(kEsMaxKnn) + ", Elasticsearch's limit");
  knn.numCandidates = spec.numCandidates;
  // The query vectors come from an embeddings endpoint, reached as the search server is: over
  // http or https only (core/util/httpsafety.h), or the offline hashed bag of words.
  const EmbedderSettings settings = embedderSettings(spec);
  if (spec.embedUrl.empty())
    return fail("a kNN search needs an embeddings endpoint for its queries (--embedder URL)");
  if (!llm::isOfflineEndpoint(settings.endpoint)) {
    if (const auto problem = httpUrlProblem(spec.embedUrl)) return fail("embedder: " + *problem);
    if (spec.embedModel.empty())
      return fail("a kNN search needs the embedding model's name (--embed-model NAME)");
  }
  // The query vectors are kept in the response cache, as the dense retriever's are: a second run
  // of the same queries embeds nothing. Declared before the embedder, which uses it, so that it
  // goes last.
  struct Embedder {
    std::shared_ptr<llm::ResponseCache> cache;
    std::unique_ptr<QueryEmbedder> embedder;
  };
  auto e = std::make_shared<Embedder>();
  if (!llm::isOfflineEndpoint(settings.endpoint)) {
    e->cache = std::make_shared<llm::ResponseCache>();
    if (std::string why; !e->cache->open(llm::ResponseCache::defaultPath(), &why))
      e->cache.reset();  // no cache: every query is embedded
  }
  e->embedder = std::make_unique<QueryEmbedder>(settings, llm::TransportOptions{}, e->cache.get());
  // Dimensions 0: the index's are the search server's business; the retriever keeps every query
  // at the first one's size.
  knn.embed = [e](const std::string& text, std::vector<float>* vector, std::string* why) {
    return e->embedder->embed(text, 0, vector, why);
  };
  o.knn = std::move(knn);
  auto es = std::make_unique<EsRetriever>(std::move(o));
  EsFlavour flavour = EsFlavour::Elasticsearch;
  if (!es->detectFlavour(&flavour, error)) return nullptr;
  return es;
}

}  // namespace ragscope::core
