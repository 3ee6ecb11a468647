#pragma once
// The dense retriever (core/retrieval/README.md, "Dense retrieval"): each query embedded through
// the index's embeddings endpoint (QueryEmbedder, corpusembedding.h), its nearest document
// vectors found in the FAISS index (vectorindex.h) and their positions turned into the corpus's
// ids. openRetriever (retrieverspec.h) builds or reuses the index and makes one:
//
//   DenseIndexResult built = buildDenseIndex(corpus, settings, options);
//   DenseRetriever dense(built.index, std::make_unique<QueryEmbedder>(settings, {}, cache),
//                        corpus);
//   auto hits = dense.search(query, 10, &error);   // ScoredDoc{id, inner product}

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/data/model.h"
#include "core/retrieval/corpusembedding.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/vectorindex.h"

namespace ragscope::core::llm {
class ResponseCache;
}

namespace ragscope::core {

class DenseRetriever : public Retriever {
 public:
  // `index` holds `corpus`'s vectors (labels = its positions); `corpus` must outlive the
  // retriever. `cache` (may be null) is the response cache `embedder` answers from, kept alive
  // here as long as the embedder may use it.
  DenseRetriever(std::shared_ptr<const VectorIndex> index, std::unique_ptr<QueryEmbedder> embedder,
                 const Corpus& corpus, std::shared_ptr<llm::ResponseCache> cache = {});
  ~DenseRetriever() override;

  std::string name() const override { return "dense"; }
  // The k documents whose vectors have the largest inner product with the query's (cosine: both
  // are unit length), best first, score = that inner product. Thread-safe: the embedder and the
  // index may be used from several threads at once.
  std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) override;

  const VectorIndex& index() const { return *m_index; }

 private:
  std::shared_ptr<llm::ResponseCache> m_cache;  // declared first: outlives the embedder
  std::shared_ptr<const VectorIndex> m_index;
  std::unique_ptr<QueryEmbedder> m_embedder;
  const Corpus& m_corpus;
};

}  // namespace ragscope::core
