// Schema-bound judge replies (core/claims/structuredreply.cpp): a reply read as the claim-list
// JSON and as the verdict-list JSON of both scales, strictly, whatever a server sends back.
// Checked: one label per claim; every undecided claim has its problem stated (what the repair
// call sends back); a reply that is not schema JSON decides no claim; a claim list with a problem
// has no claims, and no claim is empty or holds a line break.
// And the strict JSON readers under them (core/util/jsonstrict.h, jsonkeep.h), against
// nlohmann::json::parse: parseJsonStrict gives its document or its very error, and refuses
// otherwise only a repeated member name or deep nesting; parseJsonKeeping keeping everything
// agrees with it (the same document, the same refusals, found by the hash check at object close);
// a reply with a repeated member decides no claim.
// max_len: 16384
// dict: json
// seed: tests/fuzz/seeds/structured_reply

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/claims/structuredreply.h"
#include "core/util/jsonkeep.h"
#include "core/util/jsonstrict.h"
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

// A repeat's message names the member ("member \"NAME\" appears twice in one object") and its
// path ends with that name (a member named "" at the top level has the empty path).
bool namesItsMember(const core::JsonStrictError& e) {
  const std::string head = "member \"", tail = "\" appears twice in one object";
  if (e.problem.size() < head.size() + tail.size() || e.problem.rfind(head, 0) != 0 ||
      e.problem.compare(e.problem.size() - tail.size(), tail.size(), tail) != 0)
    return false;
  const std::string name =
      e.problem.substr(head.size(), e.problem.size() - head.size() - tail.size());
  return e.field.size() >= name.size() &&
         e.field.compare(e.field.size() - name.size(), name.size(), name) == 0;
}

// Returns whether the reply holds a repeated member (as both strict readers say).
bool checkStrictReaders(std::string_view text) {
  using nlohmann::json;
  json expected;
  std::string what;
  try {
    expected = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    what = e.what();
  }
  json strict;
  core::JsonStrictError why;
  const bool ok = core::parseJsonStrict(text, strict, &why);
  if (ok) {
    if (!what.empty() || strict != expected) std::abort();  // only what json::parse reads
  } else {
    if (!strict.is_null()) std::abort();
    if (why.repeated) {
      if (!namesItsMember(why) || why.byte == 0 || why.byte > text.size()) std::abort();
    } else if (!why.tooDeep && why.problem != what) {
      std::abort();  // a syntax error is json::parse's own
    }
  }
  core::JsonKeep all;
  all.everything = true;
  json kept;
  core::JsonStrictError keptWhy;
  const bool keptOk = core::parseJsonKeeping(text, all, &kept, &keptWhy);
  if (what.empty()) {  // valid JSON: both strict readers decide alike
    if (keptOk != ok || keptWhy.repeated != why.repeated || keptWhy.tooDeep != why.tooDeep)
      std::abort();
    if (ok && kept != strict) std::abort();
    if (keptWhy.repeated && !namesItsMember(keptWhy)) std::abort();
  } else if (keptOk) {
    std::abort();
  }
  return !ok && why.repeated && what.empty();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto reply = fuzz::bytes(data, size);
  if (checkStrictReaders(reply)) {
    // A repeated member decides nothing.
    if (!parseClaimListJson(reply).claims.empty()) std::abort();
    if (parseVerdictsJson(reply, 3, VerdictScale::Binary).unparsed() != 3) std::abort();
  }
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
