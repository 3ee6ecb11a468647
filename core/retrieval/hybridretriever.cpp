#include "core/retrieval/hybridretriever.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core {

HybridRetriever::HybridRetriever(std::vector<HybridMember> members, FusionOptions fusion)
    : m_members(std::move(members)), m_fusion(std::move(fusion)) {
  m_fusion.tag.clear();
}

HybridRetriever::~HybridRetriever() = default;

std::vector<ScoredDoc> HybridRetriever::search(const Query& query, std::size_t k,
                                               std::string* error) {
  if (k == 0) return {};
  const std::size_t depth = std::max(k, m_fusion.depth);
  // Each member's ranking as a one-query run, the way retrieveAll makes a member's own run (so
  // the fused ranking equals `fuse` over the members' run files): scores rounded to float,
  // a document returned twice kept at its first entry, trec_eval's order. The entries point into
  // `hits`, which outlives the fusion.
  std::vector<std::vector<ScoredDoc>> hits(m_members.size());
  std::vector<Run> runs(m_members.size());
  for (std::size_t m = 0; m < m_members.size(); ++m) {
    const HybridMember& member = m_members[m];
    std::string why;
    hits[m] = member.retriever->search(query, depth, &why);
    if (!why.empty()) {
      if (error) *error = "member " + std::to_string(m + 1) + " (" + member.name + "): " + why;
      return {};
    }
    Run& run = runs[m];
    run.source = member.name;  // fusion diagnostics read "dense:3: ..."
    run.tag = member.name;
    if (hits[m].empty()) continue;
    Ranking ranking;
    ranking.queryId = query.id;
    std::unordered_set<std::string_view> seen;
    for (const ScoredDoc& d : hits[m]) {
      if (d.id.empty() || !seen.insert(d.id).second) continue;
      RunEntry e;
      e.doc = d.id.data();
      e.docLen = static_cast<std::uint32_t>(d.id.size());
      e.score = static_cast<double>(static_cast<float>(d.score));
      ranking.entries.push_back(e);
    }
    std::stable_sort(ranking.entries.begin(), ranking.entries.end(), trecRanksBefore);
    if (ranking.entries.size() > depth) ranking.entries.resize(depth);
    for (std::size_t r = 0; r < ranking.entries.size(); ++r)
      ranking.entries[r].line = static_cast<std::uint32_t>(r + 1);
    run.rankings.push_back(std::move(ranking));
  }

  std::vector<const Run*> inputs;
  inputs.reserve(runs.size());
  for (const Run& r : runs) inputs.push_back(&r);
  FusionOptions options = m_fusion;
  options.depth = k;
  const Loaded<Run> fused = fuseRuns(inputs, options);
  if (fused.report.hasErrors()) {
    if (error) {
      *error = "fusion: ";
      for (const auto& d : fused.report.diagnostics)
        if (d.severity == Severity::Error) {
          *error += d.toString();
          break;
        }
    }
    return {};
  }
  const Ranking* ranking = fused.value.find(query.id);
  if (!ranking) return {};

  // Texts, where a member returned them (es, http): the first member's that has one.
  std::unordered_map<std::string_view, const std::string*> texts;
  for (const auto& list : hits)
    for (const ScoredDoc& d : list)
      if (!d.text.empty()) texts.emplace(d.id, &d.text);
  std::vector<ScoredDoc> out;
  out.reserve(ranking->entries.size());
  for (const RunEntry& e : ranking->entries) {
    ScoredDoc d;
    d.id = std::string(e.docId());
    d.score = e.score;
    if (auto t = texts.find(e.docId()); t != texts.end()) d.text = *t->second;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ragscope::core
