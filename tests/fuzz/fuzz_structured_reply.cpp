// Schema-bound judge replies (core/claims/structuredreply.cpp): a reply read as the claim-list
// JSON and as the verdict-list JSON of both scales, strictly, whatever a server sends back.
// Checked: one label per claim; every undecided claim has its problem stated (what the repair
// call sends back); a reply that is not schema JSON decides no claim; a claim list with a problem
// has no claims, and no claim is empty or holds a line break.
// max_len: 16384
// dict: json
// seed: tests/fuzz/seeds/structured_reply

#include <cstdlib>

#include "core/claims/structuredreply.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::claims;

namespace {

void checkVerdicts(std::string_view reply, std::size_t claims, VerdictScale scale) {
  const auto parsed = parseVerdictsJson(reply, claims, scale);
  if (parsed.labels.size() != claims) std::abort();
  if (parsed.unparsed() > 0 && parsed.problems.empty()) std::abort();
  for (Label l : parsed.labels) {
    if (l == Label::Error) std::abort();
    const bool binary = l == Label::Supported || l == Label::Unsupported;
    if (isResolved(l) && binary != (scale == VerdictScale::Binary)) std::abort();
  }
  fuzz::touch(structuredRepairInstruction(parsed.problems));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto reply = fuzz::bytes(data, size);
  const auto list = parseClaimListJson(reply);
  if (!list.problem.empty() && !list.claims.empty()) std::abort();
  if (list.claims.size() > kMaxJsonClaims) std::abort();
  for (const auto& c : list.claims)
    if (c.empty() || c.find('\n') != std::string::npos || c.front() == ' ') std::abort();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{200}}) {
    checkVerdicts(reply, n, VerdictScale::Binary);
    checkVerdicts(reply, n, VerdictScale::ThreeWay);
  }
  return 0;
}
