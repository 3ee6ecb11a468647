// Judge replies (core/claims/judgeparse.cpp): an extraction reply read as a claim list, and an
// assessment reply read against claims, both strictly, whatever a server sends back. Checked:
// one label per claim, and every undecided claim has its problem stated (what the repair call
// sends back to the judge).
// max_len: 16384
// seed: tests/fuzz/seeds/judge_reply

#include <algorithm>
#include <cstdlib>

#include "core/claims/judgeparse.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::claims;

namespace {

void check(std::string_view reply, const std::vector<std::string>& claims) {
  const auto parsed = parseVerdicts(reply, claims);
  if (parsed.labels.size() != claims.size()) std::abort();
  if (parsed.unparsed() > 0 && parsed.problems.empty()) std::abort();
  fuzz::touch(repairInstruction(parsed.problems));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto reply = fuzz::bytes(data, size);
  const auto list = parseClaimList(reply);
  if (!list.problem.empty() && !list.claims.empty()) std::abort();
  for (const auto& c : list.claims) fuzz::touch(normalizeClaimText(c));
  // The reply against its own bullets (every line may match), and against fixed claims.
  check(reply, list.claims);
  check(reply, {"Claim a.", "Claim b.", "claim a", "The tunnel is 6.2 km long"});
  return 0;
}
