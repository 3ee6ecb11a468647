#include "core/eval/inputs/claimlabels.h"

#include "core/eval/jobs/claimverdicts.h"

namespace ragscope::core::eval {

using labels::ClaimPremise;

std::optional<claims::Label> claimVerdict(const JudgedQuery& q, bool gold, std::size_t claim,
                                          ClaimPremise premise) {
  switch (premise) {
    case ClaimPremise::Chunks:
      return gold ? goldClaimVsChunks(q, claim) : responseClaimVsChunks(q, claim);
    case ClaimPremise::GoldAnswer:
      if (gold) return std::nullopt;
      return responseClaimVsGold(q, claim);
    case ClaimPremise::Response:
      if (!gold) return std::nullopt;
      return goldClaimVsResponse(q, claim);
  }
  return std::nullopt;
}

std::string_view judgePremiseKey(bool gold, ClaimPremise premise) {
  switch (premise) {
    case ClaimPremise::Chunks:
      return gold ? "recall" : "faith";
    case ClaimPremise::GoldAnswer:
      return gold ? "" : "correct";
    case ClaimPremise::Response:
      return gold ? "cover" : "";
  }
  return "";
}

std::vector<labels::QueueItem> claimCandidates(const JudgeReport& report, const std::string& scope,
                                               ClaimPremise premise) {
  // The side the premise asks about: the gold answer's claims against the response, the
  // response's against the chunks or the gold answer.
  const bool gold = premise == ClaimPremise::Response;
  const std::string prefix = gold ? "gold:" : "response:";
  std::vector<labels::QueueItem> out;
  for (const JudgedQuery& q : report.queries) {
    const auto& texts = gold ? q.goldClaims.claims : q.responseClaims.claims;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      labels::QueueItem item;
      item.target = {labels::TargetKind::Claim, scope, q.qid, prefix + std::to_string(i), premise};
      item.context = texts[i];
      if (const auto v = claimVerdict(q, gold, i, premise))
        item.judge = labels::judgeVerdict(*v).value_or("");
      item.flipped = claimVotes(q, judgePremiseKey(gold, premise), i).flipped;
      out.push_back(std::move(item));
    }
  }
  return out;
}

}  // namespace ragscope::core::eval
