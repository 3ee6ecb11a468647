#include "core/eval/jobs/claimverdicts.h"

#include <string>

#include "core/claims/claimspans.h"

namespace ragscope::core::eval {

namespace {

using claims::Label;

std::optional<Label> labelOf(const JudgedQuery& q, std::string_view premise, std::size_t claim) {
  const PremiseVerdicts* v = q.find(premise);
  if (!v || claim >= v->labels.size()) return std::nullopt;
  return v->labels[claim];
}

// Each chunk alone, combined as RAGChecker does for faithfulness: supported when one chunk
// supports the claim; undecided when no chunk supports it and a verdict is missing; otherwise the
// strongest "no": a contradiction over neutral / unsupported.
std::optional<Label> combineChunks(const JudgedQuery& q, std::size_t claim, bool gold) {
  std::optional<Label> out;
  bool unresolved = false, error = false, contradiction = false, neutral = false;
  for (std::size_t k = 0; k < q.chunks.size(); ++k) {
    const auto l = claimVsChunk(q, claim, k, gold);
    if (!l) continue;
    if (claims::isSupported(*l)) return *l;
    out = *l;
    unresolved |= *l == Label::Unparsed;
    error |= *l == Label::Error;
    contradiction |= *l == Label::Contradiction;
    neutral |= *l == Label::Neutral;
  }
  if (!out) return std::nullopt;
  if (unresolved) return Label::Unparsed;
  if (error) return Label::Error;
  if (contradiction) return Label::Contradiction;
  if (neutral) return Label::Neutral;
  return Label::Unsupported;
}

}  // namespace

std::optional<Label> responseClaimVsChunks(const JudgedQuery& q, std::size_t claim) {
  if (auto l = labelOf(q, "faith", claim)) return l;
  return combineChunks(q, claim, false);
}

std::optional<Label> responseClaimVsGold(const JudgedQuery& q, std::size_t claim) {
  return labelOf(q, "correct", claim);
}
std::optional<Label> goldClaimVsResponse(const JudgedQuery& q, std::size_t claim) {
  return labelOf(q, "cover", claim);
}

std::optional<Label> goldClaimVsChunks(const JudgedQuery& q, std::size_t claim) {
  if (auto l = labelOf(q, "recall", claim)) return l;
  return combineChunks(q, claim, true);
}

std::optional<Label> claimVsChunk(const JudgedQuery& q, std::size_t claim, std::size_t chunk,
                                  bool gold) {
  return labelOf(q, (gold ? "goldchunk." : "respchunk.") + std::to_string(chunk), claim);
}

bool hasClaimChunkMatrix(const JudgedQuery& q) {
  return !q.chunks.empty() && q.find("respchunk.0") != nullptr;
}

std::optional<bool> chunkRelevant(const JudgedQuery& q, std::size_t chunk) {
  const PremiseVerdicts* v = q.find("goldchunk." + std::to_string(chunk));
  if (!v) return std::nullopt;
  for (const Label l : v->labels)
    if (claims::isSupported(l)) return true;
  return false;
}

ClaimVotes claimVotes(const JudgedQuery& q, std::string_view premise, std::size_t claim) {
  ClaimVotes out;
  const PremiseVerdicts* v = q.find(premise);
  if (!v || v->repeats.size() < 2) return out;
  for (const auto& repeat : v->repeats)
    if (claim < repeat.size()) out.votes.push_back(repeat[claim]);
  std::optional<Label> first;
  for (const Label l : out.votes) {
    if (!claims::isResolved(l)) continue;
    if (!first)
      first = l;
    else if (claims::isSupported(l) != claims::isSupported(*first) || l != *first)
      out.flipped = true;
  }
  return out;
}

std::vector<UnsupportedClaim> unsupportedClaims(const JudgeReport& report) {
  std::vector<UnsupportedClaim> out;
  for (std::size_t qi = 0; qi < report.queries.size(); ++qi) {
    const JudgedQuery& q = report.queries[qi];
    std::vector<std::string> passages;
    for (const auto& c : q.chunks) passages.push_back(c.text);
    for (std::size_t ci = 0; ci < q.responseClaims.claims.size(); ++ci) {
      const auto l = responseClaimVsChunks(q, ci);
      if (!l || !claims::isResolved(*l) || claims::isSupported(*l)) continue;
      out.push_back({qi, ci, *l, claims::closestPassage(q.responseClaims.claims[ci], passages)});
    }
  }
  return out;
}

}  // namespace ragscope::core::eval
