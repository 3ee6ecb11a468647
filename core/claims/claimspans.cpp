#include "core/claims/claimspans.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace ragscope::core::claims {

namespace {

bool isWordByte(unsigned char c) { return std::isalnum(c) || c >= 0x80; }

// Words too common to tell sentences apart.
bool isStopWord(const std::string& w) {
  static const std::set<std::string> stop = {"the",  "and",  "was",  "were", "for", "with",
                                             "that", "this", "from", "are",  "has", "have",
                                             "its",  "had",  "but",  "not"};
  return stop.count(w) > 0;
}

// Lower-cased words of at least three bytes, common ones left out (they say little about a match).
std::set<std::string> contentWords(std::string_view s) {
  std::set<std::string> words;
  std::string w;
  auto flush = [&] {
    if (w.size() >= 3 && !isStopWord(w)) words.insert(w);
    w.clear();
  };
  for (unsigned char c : s) {
    if (isWordByte(c))
      w += static_cast<char>(std::tolower(c));
    else
      flush();
  }
  flush();
  return words;
}

// Numbers (years, amounts) tell statements apart better than words: they count double.
std::size_t weight(const std::string& w) {
  return std::any_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; }) ? 2 : 1;
}

// The text folded for a verbatim search: lower case, runs of white space as one space, with a map
// from each folded byte back to its offset in the text.
struct Folded {
  std::string text;
  std::vector<std::size_t> at;
};

Folded fold(std::string_view s) {
  Folded f;
  bool space = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) {
      space = !f.text.empty();
      continue;
    }
    if (space) {
      f.text += ' ';
      f.at.push_back(i);
      space = false;
    }
    f.text += static_cast<char>(std::tolower(c));
    f.at.push_back(i);
  }
  return f;
}

// Sentences as [begin, end) byte ranges: ends at . ! ? or a line break followed by white space.
std::vector<std::pair<std::size_t, std::size_t>> sentences(std::string_view s) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t begin = 0;
  auto push = [&](std::size_t end) {
    while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
    std::size_t e = end;
    while (e > begin && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    if (e > begin) out.emplace_back(begin, e);
    begin = end;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool atEnd = i + 1 == s.size() || std::isspace(static_cast<unsigned char>(s[i + 1]));
    if (c == '\n' || ((c == '.' || c == '!' || c == '?') && atEnd)) push(i + 1);
  }
  push(s.size());
  return out;
}

std::optional<ClaimSpan> verbatim(const Folded& text, std::string_view claim) {
  std::string_view c = claim;
  while (!c.empty() && (c.back() == '.' || std::isspace(static_cast<unsigned char>(c.back()))))
    c.remove_suffix(1);
  const Folded needle = fold(c);
  if (needle.text.size() < 3) return std::nullopt;
  const auto at = text.text.find(needle.text);
  if (at == std::string::npos) return std::nullopt;
  return ClaimSpan{text.at[at], text.at[at + needle.text.size() - 1] + 1, true};
}

}  // namespace

std::vector<std::optional<ClaimSpan>> locateClaims(std::string_view text,
                                                   const std::vector<std::string>& claims) {
  std::vector<std::optional<ClaimSpan>> out(claims.size());
  const Folded folded = fold(text);
  const auto ranges = sentences(text);
  std::vector<std::set<std::string>> sentenceWords;
  for (const auto& [b, e] : ranges) sentenceWords.push_back(contentWords(text.substr(b, e - b)));
  for (std::size_t i = 0; i < claims.size(); ++i) out[i] = verbatim(folded, claims[i]);
  // A sentence that another claim's own words already cover is not a reworded claim's home.
  auto taken = [&](std::size_t s) {
    for (const auto& span : out)
      if (span && span->exact && span->begin <= ranges[s].first &&
          span->end + 1 >= ranges[s].second)
        return true;
    return false;
  };
  for (std::size_t i = 0; i < claims.size(); ++i) {
    if (out[i]) continue;
    const auto words = contentWords(claims[i]);
    if (words.empty()) continue;
    std::size_t best = ranges.size(), bestScore = 0, bestShared = 0;
    for (std::size_t s = 0; s < ranges.size(); ++s) {
      if (taken(s)) continue;
      std::size_t shared = 0, score = 0;
      for (const auto& w : words)
        if (sentenceWords[s].count(w)) {
          ++shared;
          score += weight(w);
        }
      if (score > bestScore) {
        bestScore = score;
        bestShared = shared;
        best = s;
      }
    }
    if (best < ranges.size() && 2 * bestShared >= words.size())
      out[i] = ClaimSpan{ranges[best].first, ranges[best].second, false};
  }
  return out;
}

std::optional<std::size_t> closestPassage(std::string_view claim,
                                          const std::vector<std::string>& passages) {
  const auto words = contentWords(claim);
  std::optional<std::size_t> best;
  std::size_t bestShared = 0;
  for (std::size_t i = 0; i < passages.size(); ++i) {
    const auto in = contentWords(passages[i]);
    const auto shared = static_cast<std::size_t>(std::count_if(
        words.begin(), words.end(), [&](const std::string& w) { return in.count(w) > 0; }));
    if (shared > bestShared) {
      bestShared = shared;
      best = i;
    }
  }
  return best;
}

}  // namespace ragscope::core::claims
