#include "core/retrieval/denseretriever.h"

#include <algorithm>
#include <cstdint>

#include "core/llm/responsecache.h"

namespace ragscope::core {

DenseRetriever::DenseRetriever(std::shared_ptr<const VectorIndex> index,
                               std::unique_ptr<QueryEmbedder> embedder, const Corpus& corpus,
                               std::shared_ptr<llm::ResponseCache> cache)
    : m_cache(std::move(cache)),
      m_index(std::move(index)),
      m_embedder(std::move(embedder)),
      m_corpus(corpus) {}

DenseRetriever::~DenseRetriever() = default;

std::vector<ScoredDoc> DenseRetriever::search(const Query& query, std::size_t k,
                                              std::string* error) {
  std::string why;
  if (k == 0) return {};
  std::vector<float> vector;
  if (!m_embedder->embed(query.text, m_index->dimensions(), &vector, &why)) {
    if (error) *error = why;
    return {};
  }
  // The embedder checks the size; checked again here, because a short vector would make FAISS
  // read past it.
  if (vector.size() != static_cast<std::size_t>(m_index->dimensions())) {
    if (error)
      *error = "the query's vector has " + std::to_string(vector.size()) +
               " dimensions, the index " + std::to_string(m_index->dimensions());
    return {};
  }
  std::vector<float> scores;
  std::vector<std::int64_t> positions;
  if (!m_index->search(vector.data(), 1, k, &scores, &positions, &why)) {
    if (error) *error = "vector index: " + why;
    return {};
  }
  std::vector<ScoredDoc> out;
  out.reserve(std::min(k, positions.size()));
  for (std::size_t i = 0; i < positions.size() && i < k; ++i) {
    const std::int64_t p = positions[i];
    if (p < 0) break;  // fewer than k vectors: FAISS pads with -1
    if (static_cast<std::uint64_t>(p) >= m_corpus.size()) {
      // The index was opened against this corpus's manifest, so this is a damaged index, not a
      // query to answer with somebody else's document.
      if (error)
        *error = "vector index: position " + std::to_string(p) + " past the corpus's " +
                 std::to_string(m_corpus.size()) + " documents";
      return {};
    }
    ScoredDoc d;
    d.id = std::string(m_corpus.idAt(static_cast<std::size_t>(p)));
    d.score = static_cast<double>(scores[i]);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ragscope::core
