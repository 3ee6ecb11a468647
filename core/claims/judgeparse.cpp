#include "core/claims/judgeparse.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/util/textescape.h"

namespace ragscope::core::claims {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// A list marker at the start of a trimmed line: "- ", "* ", "• ", "1. ", "1) ". Returns the rest
// and the item number (0 for bullets), or nullopt when the line has no marker.
struct Marked {
  std::string_view rest;
  int number = 0;
};
std::optional<Marked> stripMarker(std::string_view line) {
  for (std::string_view bullet : {"- ", "* ", "\xE2\x80\xA2 "})
    if (line.substr(0, bullet.size()) == bullet) return Marked{trim(line.substr(bullet.size())), 0};
  std::size_t i = 0;
  int n = 0;
  while (i < line.size() && i < 4 && std::isdigit(static_cast<unsigned char>(line[i])))
    n = n * 10 + (line[i++] - '0');
  if (i > 0 && i < line.size() && (line[i] == '.' || line[i] == ')') &&
      (i + 1 == line.size() || line[i + 1] == ' '))
    return Marked{trim(line.substr(i + 1)), n};
  return std::nullopt;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool wordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The verdict a line ends with (its last one), and the line without it.
struct LineVerdict {
  std::optional<Label> label;
  std::string_view text;
};
LineVerdict findVerdict(std::string_view line) {
  const std::string low = lower(line);
  // Binary: SUPPORTED = 0|1 (spaces allowed around "=").
  std::size_t best = std::string::npos, bestEnd = 0;
  std::optional<Label> label;
  for (std::size_t at = low.find("supported"); at != std::string::npos;
       at = low.find("supported", at + 1)) {
    std::size_t i = at + 9;
    while (i < low.size() && low[i] == ' ') ++i;
    if (i >= low.size() || low[i] != '=') continue;
    ++i;
    while (i < low.size() && low[i] == ' ') ++i;
    if (i < low.size() && (low[i] == '0' || low[i] == '1') &&
        (i + 1 == low.size() || !wordChar(low[i + 1]))) {
      best = at;
      bestEnd = i + 1;
      label = low[i] == '1' ? Label::Supported : Label::Unsupported;
    }
  }
  if (!label) {
    // Three-way: the last whole word entailment / neutral / contradiction, any case.
    for (auto [word, l] : {std::pair{std::string_view("entailment"), Label::Entailment},
                           std::pair{std::string_view("neutral"), Label::Neutral},
                           std::pair{std::string_view("contradiction"), Label::Contradiction}}) {
      for (std::size_t at = low.find(word); at != std::string::npos; at = low.find(word, at + 1)) {
        const std::size_t end = at + word.size();
        if ((at > 0 && wordChar(low[at - 1])) || (end < low.size() && wordChar(low[end]))) continue;
        if (best == std::string::npos || at > best) {
          best = at;
          bestEnd = end;
          label = l;
        }
      }
    }
  }
  if (!label) return {std::nullopt, line};
  // What follows the verdict may only be punctuation; the claim is what precedes it.
  for (std::size_t i = bestEnd; i < line.size(); ++i)
    if (wordChar(line[i])) return {std::nullopt, line};
  std::string_view text = line.substr(0, best);
  auto separator = [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) ||
           std::string_view(":-|,;([*").find(c) != std::string_view::npos;
  };
  while (!text.empty() && separator(text.back())) text.remove_suffix(1);
  // "Label:" / "Verdict:" left before the verdict is not part of the claim.
  for (std::string_view word : {"verdict", "label"}) {
    const std::string tail =
        lower(text.substr(text.size() >= word.size() ? text.size() - word.size() : 0));
    if (tail == word) {
      text.remove_suffix(word.size());
      while (!text.empty() && separator(text.back())) text.remove_suffix(1);
    }
  }
  return {label, trim(text)};
}

}  // namespace

std::string normalizeClaimText(std::string_view text) {
  std::string out;
  bool gap = false;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) {
      if (gap && !out.empty()) out += ' ';
      gap = false;
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      gap = true;
    }
  }
  return out;
}

ClaimListParse parseClaimList(std::string_view reply) {
  ClaimListParse out;
  bool anyText = false;
  for (std::string_view raw : lines(reply)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    anyText = true;
    if (auto m = stripMarker(line)) {
      if (!m->rest.empty()) out.claims.emplace_back(m->rest);
    } else if (line == "-") {
      continue;
    }
  }
  if (out.claims.empty() && anyText) {
    const std::string n = normalizeClaimText(reply);
    if (n != "none" && n != "no claims" && n != "" && n != "there are no claims")
      out.problem = "the reply has no \"- \" claim lines";
  }
  return out;
}

std::string claimsOverCapProblem(std::size_t n) {
  if (n <= kMaxClaimsPerAnswer) return {};
  const std::string cap = std::to_string(kMaxClaimsPerAnswer);
  const std::string first = std::to_string(kMaxClaimsPerAnswer + 1);
  const std::string range =
      n == kMaxClaimsPerAnswer + 1 ? "claim " + first : "claims " + first + "-" + std::to_string(n);
  return range + ": not judged (at most " + cap + " claims of an answer are)";
}

std::size_t VerdictParse::unparsed() const {
  return static_cast<std::size_t>(std::count(labels.begin(), labels.end(), Label::Unparsed));
}

VerdictParse parseVerdicts(std::string_view reply, const std::vector<std::string>& claims) {
  VerdictParse out;
  const std::size_t n = claims.size();
  out.labels.assign(n, Label::Unparsed);
  if (n == 0) return out;

  // Claims by their normalized text; equal texts take their lines in turn.
  std::unordered_map<std::string, std::vector<std::size_t>> byText;
  std::vector<const std::string*> normOf(n);  // claim i's key in byText
  for (std::size_t i = 0; i < n; ++i) {
    const auto it = byText.try_emplace(normalizeClaimText(claims[i])).first;
    it->second.push_back(i);
    normOf[i] = &it->first;
  }
  std::unordered_map<std::string, std::size_t> usedOfText;
  auto claimOf = [&](const std::string& norm) -> std::optional<std::size_t> {
    const auto it = byText.find(norm);
    if (it == byText.end()) return std::nullopt;
    std::size_t& used = usedOfText[norm];
    const std::size_t i = it->second[std::min(used, it->second.size() - 1)];
    ++used;
    return i;
  };

  struct VerdictLine {
    std::size_t position;
    Label label;
    std::string norm;
    int number;
  };
  std::vector<VerdictLine> verdictLines;
  std::vector<std::vector<std::size_t>> linesOf(
      n);  // line positions carrying claim i with a verdict
  // Texts of claims seen on a line without a verdict: marked once per text, not once per claim of
  // that text, so that n equal claims on n such lines cost n steps, not n^2.
  std::unordered_set<std::string> labellessTexts;
  std::vector<std::string> strays;
  std::size_t position = 0;
  for (std::string_view raw : lines(reply)) {
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    int number = 0;
    if (auto m = stripMarker(line)) {
      line = m->rest;
      number = m->number;
    }
    const LineVerdict v = findVerdict(line);
    const std::string norm = normalizeClaimText(v.text);
    if (!v.label) {
      if (byText.count(norm)) labellessTexts.insert(norm);
      continue;  // chatter, or a claim without its verdict
    }
    verdictLines.push_back({position++, *v.label, norm, number});
  }
  // Lines that repeat a claim's text are matched by text; lines with a verdict alone by their
  // number, or by position when no line has claim text.
  const bool allBare = std::all_of(verdictLines.begin(), verdictLines.end(),
                                   [](const auto& l) { return l.norm.empty(); });
  for (std::size_t li = 0; li < verdictLines.size(); ++li) {
    const auto& l = verdictLines[li];
    std::optional<std::size_t> claim;
    if (!l.norm.empty()) {
      claim = claimOf(l.norm);
      if (!claim) strays.push_back(escapeControlChars(l.norm.substr(0, 60)));
    } else if (l.number >= 1 && static_cast<std::size_t>(l.number) <= n) {
      claim = static_cast<std::size_t>(l.number - 1);
    } else if (allBare && li < n) {
      claim = li;
    } else {
      strays.push_back("(a verdict with no claim)");
    }
    if (claim) linesOf[*claim].push_back(li);
  }

  std::vector<std::optional<std::size_t>> at(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = "claim " + std::to_string(i + 1);
    if (linesOf[i].empty()) {
      const bool labelless = labellessTexts.count(*normOf[i]) > 0;
      out.problems.push_back(name + (labelless ? ": its line has no verdict" : ": no line"));
    } else if (linesOf[i].size() > 1) {
      out.problems.push_back(name + ": on " + std::to_string(linesOf[i].size()) + " lines");
    } else {
      at[i] = linesOf[i].front();
    }
  }
  // Claim i is in order when every placed claim before it is on an earlier line and every one
  // after it on a later line: its line is above the prefix maximum and below the suffix minimum,
  // so one pass each way decides all claims (linear: a reply may list 10^6 claims).
  std::vector<std::size_t> laterMin(n + 1, std::numeric_limits<std::size_t>::max());
  for (std::size_t i = n; i-- > 0;)
    laterMin[i] = at[i] ? std::min(laterMin[i + 1], *at[i]) : laterMin[i + 1];
  std::optional<std::size_t> earlierMax;
  for (std::size_t i = 0; i < n; ++i) {
    if (!at[i]) continue;
    const bool inOrder = (!earlierMax || *earlierMax < *at[i]) && *at[i] < laterMin[i + 1];
    earlierMax = std::max(earlierMax.value_or(0), *at[i]);
    if (!inOrder) {
      out.problems.push_back("claim " + std::to_string(i + 1) + ": out of order");
      continue;
    }
    out.labels[i] = verdictLines[*at[i]].label;
  }
  for (const auto& s : strays) out.problems.push_back("a line names no claim: \"" + s + "\"");
  return out;
}

std::string repairInstruction(const std::vector<std::string>& problems) {
  std::string s = "Your reply could not be read:";
  for (std::size_t i = 0; i < problems.size() && i < 10; ++i) s += (i ? "; " : " ") + problems[i];
  if (problems.size() > 10) s += "; and " + std::to_string(problems.size() - 10) + " more";
  s += ".\nReply again: copy every claim exactly as given, one per line, in the same order, each "
       "starting with \"- \" and ending with its verdict, and write nothing else.";
  return s;
}

}  // namespace ragscope::core::claims
