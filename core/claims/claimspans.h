#pragma once
// Where each claim stands in the text it was extracted from, so that a view can highlight the
// span of every claim in the answer. A judge rewrites claims in its own words ("Apple's total net
// sales experienced a decline" for "Apple's total net sales have declined"), so a claim is found
// verbatim when it can be (case and white space aside), else as the sentence of the text that
// shares the most of its words (at least half of the claim's content words), else not at all:
// a claim with no span is listed but not highlighted, never pinned on a guess.
//
//   auto spans = locateClaims(response, claims);   // spans[i]: byte offsets into `response`
//   if (spans[i]) highlight(spans[i]->begin, spans[i]->end);

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core::claims {

struct ClaimSpan {
  std::size_t begin = 0;  // byte offsets into the text, [begin, end)
  std::size_t end = 0;
  bool exact = false;  // the claim's own words; false: the sentence that shares most of them
};

// One entry per claim, in claim order. Several claims may share a sentence.
std::vector<std::optional<ClaimSpan>> locateClaims(std::string_view text,
                                                   const std::vector<std::string>& claims);

// The passage that shares the most content words with `claim` (ties: the earlier, i.e. higher
// ranked, one); nullopt when none shares a word. Shown as the "best chunk" of a claim.
std::optional<std::size_t> closestPassage(std::string_view claim,
                                          const std::vector<std::string>& passages);

}  // namespace ragscope::core::claims
