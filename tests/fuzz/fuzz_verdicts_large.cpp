// Judge replies at scale (core/claims/judgeparse.cpp, issue 24 item 6): the input is expanded into
// thousands of claims and reply lines, so the parsers run on the sizes a runaway judge sends (the
// reply cap is 64 MiB) and a super-linear step shows up as a libFuzzer timeout. The first two
// bytes choose how many times the rest is repeated (up to 4096); the rest, cut into lines, gives
// claim texts (letters and digits only, so no text can read as a verdict) and a reply pattern.
// Checked: one label per claim, every undecided claim has a problem, and a reply that lists the
// claims in order with their verdicts is read back exactly, whatever was mixed into its lines.
// max_len: 65536
// seed: tests/fuzz/seeds/judge_reply

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/claims/judgeparse.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::claims;

namespace {

constexpr std::size_t kMaxRepeats = 4096;
constexpr std::size_t kMaxClaims = 200000;
constexpr std::size_t kMaxClaimBytes = std::size_t{8} << 20;

// Letters and digits of `line`, one space between runs; "" when none. Words that name a verdict
// are dropped so the claim cannot carry one.
std::string claimWords(std::string_view line) {
  std::string out, word;
  auto flush = [&] {
    std::string low = word;
    for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool verdict = low.find("supported") != std::string::npos || low == "entailment" ||
                         low == "neutral" || low == "contradiction" || low == "verdict" ||
                         low == "label";
    if (!word.empty() && !verdict) out += (out.empty() ? "" : " ") + word;
    word.clear();
  };
  for (char c : line) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      word += c;
    else
      flush();
  }
  flush();
  return out;
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

void checkInvariants(std::string_view reply, const std::vector<std::string>& claims) {
  const auto parsed = parseVerdicts(reply, claims);
  fuzz::check(parsed.labels.size() == claims.size(), "one label per claim");
  fuzz::check(parsed.unparsed() == 0 || !parsed.problems.empty(),
              "an undecided claim has a problem");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t repeats = 1 + ((std::size_t{data[0]} << 8 | data[1]) % kMaxRepeats);
  const auto body = fuzz::bytes(data + 2, size - 2);
  const auto pattern = splitLines(body);

  // Claims: each pattern line's words and a last word of its own ("n<repeat>x<index>"), so every
  // claim text differs; at most kMaxClaims claims and kMaxClaimBytes bytes in all.
  std::vector<std::string> claims;
  std::vector<std::string> words;
  for (auto line : pattern) words.push_back(claimWords(line));
  std::size_t bytes = 0;
  for (std::size_t r = 0; r < repeats; ++r)
    for (const auto& w : words) {
      if (claims.size() >= kMaxClaims || bytes >= kMaxClaimBytes) break;
      const std::string own = "n" + std::to_string(r) + "x" + std::to_string(claims.size());
      claims.push_back(w.empty() ? own : w + " " + own);
      bytes += claims.back().size();
    }

  // A well-formed reply: every claim in order with its verdict (from the input's bytes), each
  // line decorated the way judges do (numbered, bulleted, "Verdict:").
  std::string reply;
  std::vector<Label> expected;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const unsigned char b = body.empty() ? 0 : static_cast<unsigned char>(body[i % body.size()]);
    const bool yes = (b >> (i % 8)) & 1;
    const char bit = yes ? '1' : '0';
    switch (i % 3) {
      case 0:
        reply += "- " + claims[i] + " SUPPORTED=" + bit + "\n";
        break;
      case 1:  // list numbers have at most four digits; a line with claim text is matched by it
        reply += std::to_string(i % 9999 + 1) + ". " + claims[i] + " | SUPPORTED = " + bit + "\n";
        break;
      default:
        reply += claims[i] + " Verdict: SUPPORTED=" + bit + "\n";
        break;
    }
    expected.push_back(yes ? Label::Supported : Label::Unsupported);
  }
  const auto exact = parseVerdicts(reply, claims);
  fuzz::check(exact.labels == expected, "an ordered, complete reply is read exactly");
  fuzz::check(exact.problems.empty(), "an ordered, complete reply has no problem");

  // The claim list of a reply made of the claims, and the raw input repeated as a reply.
  std::string list;
  for (const auto& c : claims) list += "- " + c + "\n";
  const auto listed = parseClaimList(list);
  fuzz::check(listed.claims == claims, "every bullet is a claim");
  std::string raw;
  for (std::size_t r = 0; r < repeats && raw.size() < kMaxClaimBytes; ++r)
    raw.append(body).push_back('\n');
  checkInvariants(raw, claims);
  const auto rawList = parseClaimList(raw);
  fuzz::check(rawList.problem.empty() || rawList.claims.empty(), "a problem only without claims");
  checkInvariants(raw, rawList.claims);
  fuzz::touch(repairInstruction(exact.problems));
  return 0;
}
