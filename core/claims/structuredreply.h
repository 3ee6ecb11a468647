#pragma once
// Judge replies as schema-bound JSON (core/claims/README.md, "Structured replies"): the fixed
// JSON schema of each call kind, sent as response_format when the judge endpoint honours it
// (core/llm/README.md, "Structured outputs"), and the strict readers of the replies. They give
// the same results as the text readers of judgeparse.h, so the judging job treats both paths
// alike:
//
//   {"claims": ["Apple's sales fell.", "Net sales were $81,797 million."]}
//   {"verdicts": [{"claim": 1, "label": "SUPPORTED=1"}, {"claim": 2, "label": "SUPPORTED=0"}]}
//
//   auto claims = parseClaimListJson(reply);                        // .claims, .problem
//   auto verdicts = parseVerdictsJson(reply, 2, VerdictScale::Binary);
//   verdicts.labels[i];   // Supported / Unsupported / ... or Unparsed
//
// A reply that is not JSON, or is JSON of another shape than the schema (a missing member, a
// member of the wrong type, a label outside the schema's enum), leaves every claim Unparsed:
// never 0 or 1. So does a member name given twice in one object, at any depth, read or not
// ({"verdicts": [...], "verdicts": [...]}: json::parse would keep the last list), and nesting
// deeper than 256 levels (core/util/jsonstrict.h). Within a well-formed verdict list, a claim with
// no entry or with two entries is Unparsed, and an entry numbering no claim is a problem, as a
// stray line is in text. Members the schema does not name are skipped unread. Both readers keep
// only what they look at (core/util/jsonkeep.h), so a 64 MiB reply costs what the claims and
// verdicts cost.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims/judgeparse.h"

namespace ragscope::core::claims {

// The labels a verdict list may carry: the notebook's SUPPORTED=1 / SUPPORTED=0, or RAGChecker's
// Entailment / Neutral / Contradiction.
enum class VerdictScale { Binary, ThreeWay };

// Schema names, as response_format's json_schema.name.
inline constexpr const char* kClaimListSchemaName = "claim_list";
inline constexpr const char* kBinaryVerdictsSchemaName = "claim_verdicts_binary";
inline constexpr const char* kThreeWayVerdictsSchemaName = "claim_verdicts_three_way";

// A claim list longer than this is a runaway reply: it is Unparsed rather than kept whole.
inline constexpr std::size_t kMaxJsonClaims = 10000;

// The schemas, as JSON text (documented in core/claims/README.md, "Structured replies").
const std::string& claimListSchema();
const std::string& verdictListSchema(VerdictScale scale);
const char* verdictSchemaName(VerdictScale scale);

// {"claims": [string, ...]}: each string a claim (line breaks and tabs become spaces, spaces
// trimmed; empty strings skipped, as an empty "- " line is). An empty list has no claims.
ClaimListParse parseClaimListJson(std::string_view reply);

// {"verdicts": [{"claim": k, "label": L}, ...]}: k the claim's number, 1 for the first claim
// listed in the prompt, in any order; L one of the scale's labels, spelt exactly.
VerdictParse parseVerdictsJson(std::string_view reply, std::size_t claimCount, VerdictScale scale);

// The follow-up turn of the one repair retry on the structured path.
std::string structuredRepairInstruction(const std::vector<std::string>& problems);

}  // namespace ragscope::core::claims
