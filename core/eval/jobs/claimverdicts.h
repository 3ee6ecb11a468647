#pragma once
// What a judged answer's verdicts say about each claim, read the same way by every view and
// export: a response claim against the retrieved chunks (the "faith" premise, else the chunks
// judged one by one: supported when any chunk supports it), against the gold answer ("correct");
// a gold-answer claim against the response ("cover") and the chunks ("recall"); one claim against
// one chunk (the claim x chunk matrix); whether a chunk is relevant (it supports a gold claim, as
// RAGChecker defines it); and the unsupported claims of a whole report, each with the chunk
// closest to it, for the "where does my RAG hallucinate" list.
//
//   auto v = responseClaimVsChunks(query, 2);   // nullopt: not judged against the chunks
//   if (v && !claims::isResolved(*v)) ...        // unparsed / error: shown as such, never as 0

#include <cstddef>
#include <optional>
#include <vector>

#include "core/claims/labels.h"
#include "core/eval/jobs/judgejob.h"

namespace ragscope::core::eval {

std::optional<claims::Label> responseClaimVsChunks(const JudgedQuery& q, std::size_t claim);
std::optional<claims::Label> responseClaimVsGold(const JudgedQuery& q, std::size_t claim);
std::optional<claims::Label> goldClaimVsResponse(const JudgedQuery& q, std::size_t claim);
std::optional<claims::Label> goldClaimVsChunks(const JudgedQuery& q, std::size_t claim);
// A claim of the response (or, with `gold`, of the gold answer) against chunk `chunk` alone.
std::optional<claims::Label> claimVsChunk(const JudgedQuery& q, std::size_t claim,
                                          std::size_t chunk, bool gold = false);
// True when chunks were judged one by one for this answer (the matrix exists).
bool hasClaimChunkMatrix(const JudgedQuery& q);
// Chunk `chunk` supports at least one gold claim; nullopt when that was not judged.
std::optional<bool> chunkRelevant(const JudgedQuery& q, std::size_t chunk);
// The majority votes of a claim over the repeats against a premise: [repeat] labels (empty when
// the premise was asked once) and whether they differ (a flip).
struct ClaimVotes {
  std::vector<claims::Label> votes;
  bool flipped = false;
};
ClaimVotes claimVotes(const JudgedQuery& q, std::string_view premise, std::size_t claim);

// A response claim the judge did not find supported by the retrieved chunks.
struct UnsupportedClaim {
  std::size_t query = 0;                             // index into JudgeReport::queries
  std::size_t claim = 0;                             // index into its response claims
  claims::Label label = claims::Label::Unsupported;  // Unsupported, Neutral or Contradiction
  std::optional<std::size_t> closestChunk;           // the chunk sharing most of the claim's words
};
std::vector<UnsupportedClaim> unsupportedClaims(const JudgeReport& report);

}  // namespace ragscope::core::eval
