#include "core/metrics/downstream.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

#include "core/metrics/normalize.h"
#include "core/metrics/stemmer.h"

namespace ragscope::core {

namespace {

// Full LCS table of two token lists; T is wide enough for min(|a|, |b|).
template <class T>
std::vector<T> lcsTable(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t w = b.size() + 1;
  std::vector<T> t((a.size() + 1) * w, 0);
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      t[i * w + j] = a[i - 1] == b[j - 1] ? static_cast<T>(t[(i - 1) * w + j - 1] + 1)
                                          : std::max(t[(i - 1) * w + j], t[i * w + j - 1]);
  return t;
}

// LCS length in two rows (rouge_score only needs the length).
std::size_t lcsLength(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The words of one LCS of x and y, reconstructed from the end as the `rouge` package does
// (on a tie between dropping x's or y's last word, y's goes).
template <class T>
std::vector<std::string> lcsWordsTyped(const std::vector<std::string>& x,
                                       const std::vector<std::string>& y) {
  const auto t = lcsTable<T>(x, y);
  const std::size_t w = y.size() + 1;
  std::vector<std::string> out;
  std::size_t i = x.size(), j = y.size();
  while (i > 0 && j > 0) {
    if (x[i - 1] == y[j - 1]) {
      out.push_back(x[i - 1]);
      --i, --j;
    } else if (t[(i - 1) * w + j] > t[i * w + j - 1]) {
      --i;
    } else {
      --j;
    }
  }
  return out;
}

std::vector<std::string> lcsWords(const std::vector<std::string>& x,
                                  const std::vector<std::string>& y) {
  if (x.size() < 0xFFFF && y.size() < 0xFFFF) return lcsWordsTyped<std::uint16_t>(x, y);
  return lcsWordsTyped<std::uint32_t>(x, y);
}

// `rouge` package: [" ".join(s.split()) for s in text.split(".") if len(s) > 0], each sentence then
// split(" ") (an all-blank sentence becomes the single word "").
std::vector<std::vector<std::string>> rougeSentences(std::string_view text) {
  std::vector<std::vector<std::string>> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t dot = text.find('.', start);
    if (dot == std::string_view::npos) dot = text.size();
    const auto piece = text.substr(start, dot - start);
    if (!piece.empty()) {
      auto words = splitPythonWhitespace(piece);
      if (words.empty()) words.emplace_back();
      out.push_back(std::move(words));
    }
    start = dot + 1;
  }
  return out;
}

std::string lowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 0x20);
  return out;
}

}  // namespace

// ---- names
// ---------------------------------------------------------------------------------------

const std::vector<DownstreamMetric>& allDownstreamMetrics() {
  static const std::vector<DownstreamMetric> kAll = {
      DownstreamMetric::ExactMatch, DownstreamMetric::TokenF1,    DownstreamMetric::Accuracy,
      DownstreamMetric::RougeL,     DownstreamMetric::RougeLKilt, DownstreamMetric::ContainsAnswer};
  return kAll;
}

std::string downstreamMetricKey(DownstreamMetric metric) {
  switch (metric) {
    case DownstreamMetric::ExactMatch:
      return "em";
    case DownstreamMetric::TokenF1:
      return "f1";
    case DownstreamMetric::Accuracy:
      return "accuracy";
    case DownstreamMetric::RougeL:
      return "rouge-l";
    case DownstreamMetric::RougeLKilt:
      return "rouge-l-kilt";
    case DownstreamMetric::ContainsAnswer:
      return "contains";
  }
  return {};
}

std::string downstreamMetricName(DownstreamMetric metric) {
  switch (metric) {
    case DownstreamMetric::ExactMatch:
      return "EM";
    case DownstreamMetric::TokenF1:
      return "Token F1";
    case DownstreamMetric::Accuracy:
      return "Accuracy";
    case DownstreamMetric::RougeL:
      return "ROUGE-L (rouge_score, stemmed)";
    case DownstreamMetric::RougeLKilt:
      return "ROUGE-L (KILT)";
    case DownstreamMetric::ContainsAnswer:
      return "Contains answer";
  }
  return {};
}

std::optional<DownstreamMetric> parseDownstreamMetric(std::string_view text) {
  static const std::map<std::string, DownstreamMetric, std::less<>> kNames = {
      {"em", DownstreamMetric::ExactMatch},
      {"exact_match", DownstreamMetric::ExactMatch},
      {"exact-match", DownstreamMetric::ExactMatch},
      {"exactmatch", DownstreamMetric::ExactMatch},
      {"f1", DownstreamMetric::TokenF1},
      {"token-f1", DownstreamMetric::TokenF1},
      {"token_f1", DownstreamMetric::TokenF1},
      {"accuracy", DownstreamMetric::Accuracy},
      {"acc", DownstreamMetric::Accuracy},
      {"rouge-l", DownstreamMetric::RougeL},
      {"rougel", DownstreamMetric::RougeL},
      {"rouge_l", DownstreamMetric::RougeL},
      {"rouge-l-stemmed", DownstreamMetric::RougeL},
      {"rouge-l-kilt", DownstreamMetric::RougeLKilt},
      {"kilt-rougel", DownstreamMetric::RougeLKilt},
      {"rougel-kilt", DownstreamMetric::RougeLKilt},
      {"kilt-rouge-l", DownstreamMetric::RougeLKilt},
      {"contains", DownstreamMetric::ContainsAnswer},
      {"contains-answer", DownstreamMetric::ContainsAnswer},
      {"contains_answer", DownstreamMetric::ContainsAnswer},
      {"answers", DownstreamMetric::ContainsAnswer},
      {"has_answer", DownstreamMetric::ContainsAnswer},
  };
  const auto it = kNames.find(lowerAscii(stripPythonWhitespace(text)));
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

bool isBinaryDownstreamMetric(DownstreamMetric metric) {
  return metric == DownstreamMetric::ExactMatch || metric == DownstreamMetric::Accuracy ||
         metric == DownstreamMetric::ContainsAnswer;
}

// ---- per-pair metrics
// ----------------------------------------------------------------------------

double exactMatch(std::string_view output, std::string_view gold) {
  return normalizeAnswer(output) == normalizeAnswer(gold) ? 1.0 : 0.0;
}

double tokenF1(std::string_view output, std::string_view gold) {
  const auto pred = normalizedTokens(output);
  const auto ref = normalizedTokens(gold);
  std::unordered_map<std::string, long> counts;
  for (const auto& t : ref) ++counts[t];
  long same = 0;
  for (const auto& t : pred) {
    auto it = counts.find(t);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++same;
    }
  }
  if (same == 0) return 0.0;
  const double precision = static_cast<double>(same) / static_cast<double>(pred.size());
  const double recall = static_cast<double>(same) / static_cast<double>(ref.size());
  return 2.0 * precision * recall / (precision + recall);
}

double accuracy(std::string_view output, std::string_view gold) { return exactMatch(output, gold); }

double strictAccuracy(std::string_view output, std::string_view gold) {
  return stripPythonWhitespace(output) == stripPythonWhitespace(gold) ? 1.0 : 0.0;
}

std::vector<std::string> rougeScoreTokens(std::string_view text) {
  const std::string lowered = lowerUtf8(text);
  std::vector<std::string> tokens;
  std::string cur;
  auto flush = [&] {
    if (cur.empty()) return;
    tokens.push_back(cur.size() > 3 ? nltkPorterStem(cur) : cur);
    cur.clear();
  };
  for (char c : lowered) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      cur += c;
    else
      flush();
  }
  flush();
  // rouge_score drops tokens that are not [a-z0-9]+ after stemming; the stemmer never makes one.
  std::erase_if(tokens, [](const std::string& t) { return t.empty(); });
  return tokens;
}

double rougeL(std::string_view output, std::string_view gold) {
  const auto target = rougeScoreTokens(gold);
  const auto prediction = rougeScoreTokens(output);
  if (target.empty() || prediction.empty()) return 0.0;
  const auto lcs = static_cast<double>(lcsLength(target, prediction));
  const double precision = lcs / static_cast<double>(prediction.size());
  const double recall = lcs / static_cast<double>(target.size());
  return precision + recall > 0.0 ? 2.0 * precision * recall / (precision + recall) : 0.0;
}

double rougeLKilt(std::string_view output, std::string_view gold) {
  const auto hyp = rougeSentences(output);
  const auto ref = rougeSentences(gold);
  if (hyp.empty() || ref.empty()) return 0.0;  // the package raises; KILT scores 0
  std::set<std::string> refWords, hypWords;
  for (const auto& s : ref) refWords.insert(s.begin(), s.end());
  for (const auto& s : hyp) hypWords.insert(s.begin(), s.end());
  // Union over hypothesis sentences of each reference sentence's LCS words, accumulated over the
  // reference sentences: a word counts once however many sentences share it.
  std::set<std::string> unionWords;
  for (const auto& r : ref)
    for (const auto& h : hyp)
      for (auto& word : lcsWords(r, h)) unionWords.insert(std::move(word));
  const auto llcs = static_cast<double>(unionWords.size());
  const double recall = llcs / static_cast<double>(refWords.size());
  const double precision = llcs / static_cast<double>(hypWords.size());
  return 2.0 * ((precision * recall) / (precision + recall + 1e-8));
}

double containsAnswer(std::string_view output, std::string_view gold) {
  const std::string g = normalizeAnswer(gold);
  if (g.empty()) return 0.0;
  const std::string o = " " + normalizeAnswer(output) + " ";
  return o.find(" " + g + " ") != std::string::npos ? 1.0 : 0.0;
}

double scorePair(DownstreamMetric metric, std::string_view output, std::string_view gold) {
  switch (metric) {
    case DownstreamMetric::ExactMatch:
      return exactMatch(output, gold);
    case DownstreamMetric::TokenF1:
      return tokenF1(output, gold);
    case DownstreamMetric::Accuracy:
      return accuracy(output, gold);
    case DownstreamMetric::RougeL:
      return rougeL(output, gold);
    case DownstreamMetric::RougeLKilt:
      return rougeLKilt(output, gold);
    case DownstreamMetric::ContainsAnswer:
      return containsAnswer(output, gold);
  }
  return 0.0;
}

double score(DownstreamMetric metric, std::string_view output,
             const std::vector<std::string>& golds) {
  double best = 0.0;
  for (const auto& g : golds) {
    best = std::max(best, scorePair(metric, output, g));
    if (best >= 1.0) break;  // no metric exceeds 1
  }
  return best;
}

std::optional<double> LexicalScorer::score(std::string_view output,
                                           const std::vector<std::string>& golds,
                                           std::string* /*problem*/) const {
  return ragscope::core::score(m_metric, output, golds);
}

std::unique_ptr<DownstreamScorer> makeDownstreamScorer(DownstreamMetric metric) {
  return std::make_unique<LexicalScorer>(metric);
}

}  // namespace ragscope::core
