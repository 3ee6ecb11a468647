#pragma once
// Stemming for the downstream metrics.
//
// Two stemmers live here, because the reference implementations disagree:
//
// * SnowballStemmer: an RAII wrapper over Snowball's libstemmer (any algorithm it lists:
//   "porter" = Porter's original 1980 algorithm, "english" = Porter2, other languages).
//   libstemmer instances are not thread-safe, so snowballStem() keeps one per thread and
//   algorithm (thread_local).
//
// * nltkPorterStem(): Porter as NLTK's PorterStemmer() computes it (its default mode,
//   NLTK_EXTENSIONS). Google's rouge_score (RougeScorer(use_stemmer=True), the eRAG README's
//   ROUGE-L) stems with exactly that, so ROUGE-L scores only match rouge_score with this one.
//   It is the original algorithm plus NLTK's departures:
//     - a table of irregular forms (sky/skies -> sky, dying -> die, lying -> lie, tying -> tie,
//       news, inning(s), outing(s), canning(s), howe, proceed, exceed, succeed),
//     - words of at most 2 letters are returned unchanged,
//     - 4-letter -ies/-ied become -ie ("dies", "died" -> "die"; Snowball porter gives "di"),
//     - step 1c turns y into i only after a consonant that is not the word's first letter
//       ("enjoy" stays, "cry" -> "cri"; Snowball porter: "enjoi", "cry"),
//     - step 2: "bli" -> "ble" instead of "abli" -> "able" ("possibly" -> "possibl"),
//       "alli" -> "al" is applied first and step 2 re-run ("internationally" -> "intern"),
//       "fulli" -> "ful" ("hopefully" -> "hope"), "logi" -> "log" ("technology" -> "technolog"),
//     - the cvc test of steps 1b/5a also accepts a 2-letter vowel-consonant stem.
//   Snowball's "english" (Porter2) differs from both in many more places (R1/R2 regions,
//   "-ly" and "-li" endings, exceptional words such as "generous" ...).
//   Written from the published algorithm and NLTK's documented extensions; the test suite
//   checks it against Snowball's "porter" on words where no extension applies.
//
// Input is expected lower-case; non-ASCII bytes are treated as consonants (the metric tokenizers
// only ever pass [a-z0-9]+ tokens).

#include <memory>
#include <string>
#include <string_view>

struct sb_stemmer;

namespace ragscope::core {

class SnowballStemmer {
 public:
  // algorithm: a libstemmer name ("porter", "english", "german", ...); encoding UTF-8.
  explicit SnowballStemmer(const std::string& algorithm);
  ~SnowballStemmer();
  SnowballStemmer(const SnowballStemmer&) = delete;
  SnowballStemmer& operator=(const SnowballStemmer&) = delete;
  SnowballStemmer(SnowballStemmer&&) noexcept;
  SnowballStemmer& operator=(SnowballStemmer&&) noexcept;

  // False when libstemmer does not know the algorithm (stem() then returns words unchanged).
  bool valid() const { return m_stemmer != nullptr; }
  const std::string& algorithm() const { return m_algorithm; }
  std::string stem(std::string_view word);

 private:
  std::string m_algorithm;
  sb_stemmer* m_stemmer = nullptr;
};

// Per-thread cached Snowball stemmer (one instance per thread and algorithm).
std::string snowballStem(std::string_view word, const std::string& algorithm = "porter");

// NLTK's PorterStemmer().stem(word) (NLTK_EXTENSIONS mode) for a lower-case word.
std::string nltkPorterStem(std::string_view word);

// The same algorithm without NLTK's departures (Porter 1980 as published); exposed so tests can
// compare it with Snowball's "porter".
std::string originalPorterStem(std::string_view word);

}  // namespace ragscope::core
