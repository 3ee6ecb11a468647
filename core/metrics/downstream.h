#pragma once
// Downstream metrics: one generated output scored against the gold answers
// (core/metrics/README.md, "Downstream metrics"). Each per-pair function scores one gold; score()
// takes the max over all golds (0 when there are none, where the Python references would raise on
// max([])).
//
//   exactMatch      SQuAD/KILT: normalizeAnswer(output) == normalizeAnswer(gold) (two texts that
//                   normalise to "" are equal, as in Python).
//   tokenF1         SQuAD v1.1/KILT: harmonic mean of precision and recall of the common token
//                   multiset of the normalised texts; 0 when nothing is shared (also both empty).
//   accuracy        FEVER-style label accuracy: normalised equality (so "SUPPORTS" and
//                   "supports." agree). strictAccuracy is KILT's own accuracy: the stripped texts
//                   are identical (kiltdownstream.h uses it, to reproduce KILT's numbers).
//   rougeL          "ROUGE-L (rouge_score, stemmed)": what the eRAG README computes with
//                   rouge_score.RougeScorer(['rougeL'], use_stemmer=True).score(gold, output)
//                   .fmeasure. Tokens: Python lower(), every run of characters outside [a-z0-9]
//                   becomes a separator, tokens longer than 3 characters are Porter-stemmed as
//                   NLTK does (stemmer.h); F = 2PR/(P+R) of the token LCS; 0 if either side has
//                   no token. The eRAG default.
//   rougeLKilt      "ROUGE-L (KILT)": KILT's _rougel_score, i.e. the `rouge` PyPI package
//                   (Rouge().get_scores(output, gold, avg=True)["rouge-l"]["f"]), case-sensitive,
//                   no stemming, no normalisation: texts are split into sentences at every '.',
//                   each sentence is whitespace-collapsed and split at single spaces; summary-level
//                   union LCS where LCS hits and lengths count DISTINCT words (the package's
//                   `exclusive=True` sets), F = 2PR/(P+R+1e-8). An output with no sentence
//                   (empty or only dots) scores 0, as KILT catches the package's ValueError.
//                   Reproduces KILT's fixtures (0.7222222178240741, 0.44705881864636676).
//                   Needs an |ref sentence| x |hyp sentence| LCS table (2 bytes a cell below
//                   65535 words), like the package; rougeL itself keeps two rows only.
//   containsAnswer  The eRAG paper's "Answers" baseline: 1 if the normalised gold occurs in the
//                   normalised output on token boundaries (" gold " in " output "), so "1" is not
//                   found in "1984"; an empty normalised gold is never contained.
//
// LLM-judged scores (claim coverage/correctness, core/claims/README.md) plug in as other
// DownstreamScorer implementations.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

enum class DownstreamMetric { ExactMatch, TokenF1, Accuracy, RougeL, RougeLKilt, ContainsAnswer };

// Every metric, in display order.
const std::vector<DownstreamMetric>& allDownstreamMetrics();
// "em", "f1", "accuracy", "rouge-l", "rouge-l-kilt", "contains".
std::string downstreamMetricKey(DownstreamMetric metric);
// "EM", "Token F1", "Accuracy", "ROUGE-L (rouge_score, stemmed)", "ROUGE-L (KILT)", "Contains
// answer".
std::string downstreamMetricName(DownstreamMetric metric);
// Keys above (case-insensitive) plus aliases: exact_match/exact-match, token-f1, acc, rougel/
// rouge_l/rouge-l-stemmed, kilt-rougel/rougel-kilt, contains-answer/answers/has_answer.
std::optional<DownstreamMetric> parseDownstreamMetric(std::string_view text);
// EM, accuracy and contains only produce 0 or 1 (eRAG's binary-label aggregation).
bool isBinaryDownstreamMetric(DownstreamMetric metric);

double exactMatch(std::string_view output, std::string_view gold);
double tokenF1(std::string_view output, std::string_view gold);
double accuracy(std::string_view output, std::string_view gold);
double strictAccuracy(std::string_view output, std::string_view gold);
double rougeL(std::string_view output, std::string_view gold);
double rougeLKilt(std::string_view output, std::string_view gold);
double containsAnswer(std::string_view output, std::string_view gold);

// rouge_score's tokenizer with use_stemmer=True (exposed for tests and for showing tokens).
std::vector<std::string> rougeScoreTokens(std::string_view text);

// One metric on one pair.
double scorePair(DownstreamMetric metric, std::string_view output, std::string_view gold);
// Max over golds (0 when golds is empty).
double score(DownstreamMetric metric, std::string_view output,
             const std::vector<std::string>& golds);

// A downstream evaluator E(output, golds) in [0, 1]. Implementations must be callable from
// several threads at once. nullopt = no score (the judge failed, the output could not be
// parsed ...), with the reason in *problem; callers must show that, never count it as 0.
class DownstreamScorer {
 public:
  virtual ~DownstreamScorer() = default;
  virtual std::string key() const = 0;   // stable id for files and the CLI ("em", "llm-claims" ...)
  virtual std::string name() const = 0;  // label for reports and the GUI
  virtual bool binary() const = 0;       // only ever returns 0 or 1
  virtual std::optional<double> score(std::string_view output,
                                      const std::vector<std::string>& golds,
                                      std::string* problem) const = 0;
};

// The lexical metrics above as scorers (never fail; empty golds give 0).
class LexicalScorer final : public DownstreamScorer {
 public:
  explicit LexicalScorer(DownstreamMetric metric) : m_metric(metric) {}
  DownstreamMetric metric() const { return m_metric; }
  std::string key() const override { return downstreamMetricKey(m_metric); }
  std::string name() const override { return downstreamMetricName(m_metric); }
  bool binary() const override { return isBinaryDownstreamMetric(m_metric); }
  std::optional<double> score(std::string_view output, const std::vector<std::string>& golds,
                              std::string* problem) const override;

 private:
  DownstreamMetric m_metric;
};

std::unique_ptr<DownstreamScorer> makeDownstreamScorer(DownstreamMetric metric);

}  // namespace ragscope::core
