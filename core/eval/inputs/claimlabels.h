#pragma once
// Where a judging run's claims meet human claim labels (core/eval/inputs/README.md, "Human labels
// and PPI"; core/labels/README.md, "Claim premises"): the judge's verdict of a claim against the
// premise a label names, and the labelling queue's claim candidates for one premise. A label
// judged against the retrieved chunks is compared with the judge's verdict against the chunks
// only, never with its verdict against the gold answer.
//
//   auto v = claimVerdict(query, false, 2, labels::ClaimPremise::GoldAnswer);  // correctness
//   auto items = claimCandidates(report, "runs/claims.db", labels::ClaimPremise::Chunks);

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims/labels.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/label.h"
#include "core/labels/labelqueue.h"

namespace ragscope::core::eval {

// The judge's verdict (the majority over repeats) of response claim i, or gold claim i with
// `gold`, against `premise`: responseClaimVsChunks, responseClaimVsGold, goldClaimVsResponse,
// goldClaimVsChunks (core/eval/jobs/claimverdicts.h). nullopt when not judged against it (or the
// premise is no question about that claim).
std::optional<claims::Label> claimVerdict(const JudgedQuery& q, bool gold, std::size_t claim,
                                          labels::ClaimPremise premise);
// The judging run's name of that premise ("faith", "correct", "cover", "recall"), as
// JudgedQuery::find and claimVotes take it; empty when it is no question about that side.
std::string_view judgePremiseKey(bool gold, labels::ClaimPremise premise);

// The labelling queue's candidates: the claims of every answer asked against `premise` (the
// chunks or the gold answer: response claims "response:<i>"; the response: gold claims
// "gold:<i>"), each target carrying the premise, with the judge's verdict against that premise
// and the flip of its repeats, in report order.
std::vector<labels::QueueItem> claimCandidates(
    const JudgeReport& report, const std::string& scope,
    labels::ClaimPremise premise = labels::ClaimPremise::Chunks);

}  // namespace ragscope::core::eval
