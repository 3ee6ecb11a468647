#pragma once
// A run file as a retriever: the ranking stored for the query's id, in trec_eval's order. Lets a
// precomputed run (BM25 from Anserini, a dense retriever's output) feed every job that takes a
// retriever.

#include <memory>

#include "core/retrieval/retriever.h"

namespace ragscope::core {

class RunFileRetriever : public Retriever {
 public:
  // `corpus` (optional, must outlive the retriever) fills ScoredDoc::text.
  explicit RunFileRetriever(std::shared_ptr<const Run> run, const Corpus* corpus = nullptr);

  std::string name() const override;
  // A query absent from the run returns nothing (not an error: the run retrieved nothing).
  std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) override;

 private:
  std::shared_ptr<const Run> m_run;
  const Corpus* m_corpus = nullptr;
};

}  // namespace ragscope::core
