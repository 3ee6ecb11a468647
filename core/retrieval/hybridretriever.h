#pragma once
// A hybrid retriever (core/retrieval/README.md, "Hybrid retrieval"): several retrievers (BM25 and
// a dense one, say) asked for each query, their rankings fused with ranx's definitions
// (fusion.h), so a hybrid run is exactly `ragscope-cli fuse` of its members' runs:
//
//   std::vector<HybridMember> members;
//   members.push_back({"bm25", std::move(bm25)});
//   members.push_back({"dense", std::move(dense)});
//   HybridRetriever hybrid(std::move(members), FusionOptions{});   // RRF, k = 60
//   auto hits = hybrid.search(query, 100, &error);

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/retrieval/fusion.h"
#include "core/retrieval/retriever.h"

namespace ragscope::core {

struct HybridMember {
  std::string name;  // in errors and fusion diagnostics ("dense", a saved retriever's name)
  std::unique_ptr<Retriever> retriever;
};

class HybridRetriever : public Retriever {
 public:
  // `fusion` must suit members.size() runs (fusionOptionsProblem() empty); its depth is how many
  // documents each member retrieves at least, its tag is ignored.
  HybridRetriever(std::vector<HybridMember> members, FusionOptions fusion);
  ~HybridRetriever() override;

  std::string name() const override { return "hybrid"; }
  // Each member's top max(k, fusion.depth) for `query`, as retrieveAll would keep them (scores
  // rounded to float, a document returned twice kept once, trec_eval's order), fused, cut at k.
  // A member's error fails the query, naming the member. Thread-safe when the members are.
  std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) override;

  std::size_t memberCount() const { return m_members.size(); }
  const FusionOptions& fusion() const { return m_fusion; }

 private:
  std::vector<HybridMember> m_members;
  FusionOptions m_fusion;
};

}  // namespace ragscope::core
