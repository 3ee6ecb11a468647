#pragma once
// Strict reading of a judge's replies (core/claims/README.md, "Parse states"): the claims of an
// extraction reply, and the verdict of each claim in an assessment reply, matched to its claim by
// order and text, never counted.
//
//   auto claims = parseClaimList("- Apple's sales fell.\n- Net sales were $81,797 million.");
//   auto verdicts = parseVerdicts(reply, claims.claims);
//   verdicts.labels[i];            // Supported / Unsupported / Entailment / ... or Unparsed
//   if (!verdicts.problems.empty()) ask again with repairInstruction(verdicts.problems);
//
// Verdict lines: a claim ("- " bullet, "1." / "1)" number or none) followed by SUPPORTED=1 or
// SUPPORTED=0 (binary, the notebook's), or by one of Entailment / Neutral / Contradiction in any
// case (three-way, RAGChecker's). A claim is Unparsed when no line carries it, when two lines
// do, when its line is out of order with the others, or when its line has no verdict. Lines
// naming no claim and carrying no verdict are chatter and ignored; a line with a verdict and no
// claim text is matched by its number, else by its position when every line is of that kind.
// Both parsers take time linear in the reply (and the claims): a reply may be up to the 64 MiB
// reply cap, a million lines.
//
// At most kMaxClaimsPerAnswer claims of one text are judged: the judging job
// (core/eval/jobs/judgejob.h) keeps every claim an extraction lists, asks the judge about the first
// kMaxClaimsPerAnswer only, and labels the rest Unparsed with a problem saying so
// (core/claims/README.md, "Claims cap").

#include <string>
#include <string_view>
#include <vector>

#include "core/claims/labels.h"

namespace ragscope::core::claims {

// Claims of one answer (or gold answer) sent to the judge; answers are a few sentences, typically
// 5 to 30 claims, so an extraction listing more than this is a runaway reply, not an answer.
inline constexpr std::size_t kMaxClaimsPerAnswer = 200;

// "claims 201-5000: not judged (at most 200 claims of an answer are)", or "" when n fits the cap.
std::string claimsOverCapProblem(std::size_t n);

struct ClaimListParse {
  std::vector<std::string> claims;
  // Non-empty: the reply could not be read as a claim list (it has text but no bullet line).
  std::string problem;
  bool noClaims() const { return claims.empty() && problem.empty(); }
};

// "- claim", "* claim", "• claim", "1. claim" and "1) claim" lines; other lines are ignored
// when there is at least one such line. A reply that is empty or says there are none ("none",
// "no claims", "-") has no claims; any other text without a bullet is a problem.
ClaimListParse parseClaimList(std::string_view reply);

struct VerdictParse {
  std::vector<Label> labels;  // one per claim, Unparsed where undecided
  std::vector<std::string>
      problems;  // "claim 2: no line", ... (empty when every claim has its verdict)
  std::size_t unparsed() const;
};

VerdictParse parseVerdicts(std::string_view reply, const std::vector<std::string>& claims);

// The follow-up turn of the one repair retry: what could not be read, and how to answer.
std::string repairInstruction(const std::vector<std::string>& problems);

// Lower-cased letters and digits of `text`, every other run of characters one space: how a
// claim's line is compared with the claim.
std::string normalizeClaimText(std::string_view text);

}  // namespace ragscope::core::claims
