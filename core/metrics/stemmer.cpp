#include "core/metrics/stemmer.h"

#include <libstemmer.h>

#include <array>
#include <map>
#include <utility>

namespace ragscope::core {

// ---- Snowball ----------------------------------------------------------------------------------

SnowballStemmer::SnowballStemmer(const std::string& algorithm)
    : m_algorithm(algorithm), m_stemmer(sb_stemmer_new(algorithm.c_str(), nullptr)) {}

SnowballStemmer::~SnowballStemmer() {
  if (m_stemmer) sb_stemmer_delete(m_stemmer);
}

SnowballStemmer::SnowballStemmer(SnowballStemmer&& other) noexcept
    : m_algorithm(std::move(other.m_algorithm)),
      m_stemmer(std::exchange(other.m_stemmer, nullptr)) {}

SnowballStemmer& SnowballStemmer::operator=(SnowballStemmer&& other) noexcept {
  if (this != &other) {
    if (m_stemmer) sb_stemmer_delete(m_stemmer);
    m_algorithm = std::move(other.m_algorithm);
    m_stemmer = std::exchange(other.m_stemmer, nullptr);
  }
  return *this;
}

std::string SnowballStemmer::stem(std::string_view word) {
  if (!m_stemmer || word.empty()) return std::string(word);
  const auto* out = sb_stemmer_stem(m_stemmer, reinterpret_cast<const sb_symbol*>(word.data()),
                                    static_cast<int>(word.size()));
  if (!out) return std::string(word);  // out of memory inside libstemmer: leave the word alone
  return std::string(reinterpret_cast<const char*>(out),
                     static_cast<std::size_t>(sb_stemmer_length(m_stemmer)));
}

std::string snowballStem(std::string_view word, const std::string& algorithm) {
  // sb_stemmer keeps per-call state, so each thread needs its own instance.
  thread_local std::map<std::string, SnowballStemmer, std::less<>> stemmers;
  auto it = stemmers.find(algorithm);
  if (it == stemmers.end()) it = stemmers.emplace(algorithm, SnowballStemmer(algorithm)).first;
  return it->second.stem(word);
}

// ---- Porter (NLTK mode / original)
// ----------------------------------------------------------------

namespace {

bool endsWith(const std::string& w, std::string_view suffix) {
  return w.size() >= suffix.size() &&
         std::string_view(w).substr(w.size() - suffix.size()) == suffix;
}

class Porter {
 public:
  explicit Porter(bool nltk) : m_nltk(nltk) {}

  std::string stem(std::string w) const {
    if (m_nltk) {
      static const std::map<std::string, std::string, std::less<>> kIrregular = {
          {"sky", "sky"},        {"skies", "sky"},        {"dying", "die"},
          {"lying", "lie"},      {"tying", "tie"},        {"news", "news"},
          {"innings", "inning"}, {"inning", "inning"},    {"outings", "outing"},
          {"outing", "outing"},  {"cannings", "canning"}, {"canning", "canning"},
          {"howe", "howe"},      {"proceed", "proceed"},  {"exceed", "exceed"},
          {"succeed", "succeed"}};
      if (auto it = kIrregular.find(w); it != kIrregular.end()) return it->second;
      if (w.size() <= 2) return w;
    }
    if (w.empty()) return w;
    w = step1a(std::move(w));
    w = step1b(std::move(w));
    w = step1c(std::move(w));
    w = step2(std::move(w));
    w = step3(std::move(w));
    w = step4(std::move(w));
    w = step5a(std::move(w));
    w = step5b(std::move(w));
    return w;
  }

 private:
  // Porter's consonant: not a/e/i/o/u, and 'y' only when at the start or after a vowel.
  static bool isConsonant(const std::string& w, std::size_t i) {
    switch (w[i]) {
      case 'a':
      case 'e':
      case 'i':
      case 'o':
      case 'u':
        return false;
      case 'y':
        return i == 0 ? true : !isConsonant(w, i - 1);
      default:
        return true;
    }
  }
  // m: the number of vowel->consonant transitions ([C](VC)^m[V]).
  static int measure(const std::string& s) {
    int m = 0;
    bool prevVowel = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const bool cons = isConsonant(s, i);
      if (cons && prevVowel) ++m;
      prevVowel = !cons;
    }
    return m;
  }
  static bool containsVowel(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i)
      if (!isConsonant(s, i)) return true;
    return false;
  }
  static bool endsDoubleConsonant(const std::string& w) {
    return w.size() >= 2 && w[w.size() - 1] == w[w.size() - 2] && isConsonant(w, w.size() - 1);
  }
  bool endsCvc(const std::string& w) const {
    const std::size_t n = w.size();
    if (n >= 3 && isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) &&
        w[n - 1] != 'w' && w[n - 1] != 'x' && w[n - 1] != 'y')
      return true;
    return m_nltk && n == 2 && !isConsonant(w, 0) && isConsonant(w, 1);
  }

  using Condition = bool (*)(const std::string& stem);
  struct Rule {
    std::string_view suffix;
    std::string_view replacement;
    Condition condition;  // nullptr: always
  };
  static bool positive(const std::string& s) { return measure(s) > 0; }
  static bool gtOne(const std::string& s) { return measure(s) > 1; }

  // The first rule whose suffix matches decides: it applies if its condition holds, and
  // otherwise the word is returned unchanged (later rules are not tried).
  template <std::size_t N>
  static std::string applyRules(std::string w, const std::array<Rule, N>& rules) {
    for (const auto& r : rules) {
      if (!endsWith(w, r.suffix)) continue;
      std::string stem = w.substr(0, w.size() - r.suffix.size());
      if (r.condition && !r.condition(stem)) return w;
      return stem + std::string(r.replacement);
    }
    return w;
  }

  std::string step1a(std::string w) const {
    if (m_nltk && w.size() == 4 && endsWith(w, "ies")) return w.substr(0, 3);  // ties -> tie
    static constexpr std::array<Rule, 4> kRules{{{"sses", "ss", nullptr},
                                                 {"ies", "i", nullptr},
                                                 {"ss", "ss", nullptr},
                                                 {"s", "", nullptr}}};
    return applyRules(std::move(w), kRules);
  }

  std::string step1b(std::string w) const {
    if (m_nltk && endsWith(w, "ied"))
      return w.size() == 4 ? w.substr(0, 3) : w.substr(0, w.size() - 2);
    if (endsWith(w, "eed")) {
      const std::string stem = w.substr(0, w.size() - 3);
      return measure(stem) > 0 ? stem + "ee" : w;
    }
    std::string stem;
    bool trimmed = false;
    for (std::string_view suffix : {std::string_view("ed"), std::string_view("ing")}) {
      if (!endsWith(w, suffix)) continue;
      stem = w.substr(0, w.size() - suffix.size());
      if (containsVowel(stem)) {
        trimmed = true;
        break;
      }
    }
    if (!trimmed) return w;
    if (endsWith(stem, "at") || endsWith(stem, "bl") || endsWith(stem, "iz")) return stem + "e";
    if (endsDoubleConsonant(stem)) {
      const char last = stem.back();
      return (last == 'l' || last == 's' || last == 'z') ? stem : stem.substr(0, stem.size() - 1);
    }
    if (measure(stem) == 1 && endsCvc(stem)) return stem + "e";
    return stem;
  }

  std::string step1c(std::string w) const {
    if (!endsWith(w, "y")) return w;
    const std::string stem = w.substr(0, w.size() - 1);
    const bool apply =
        m_nltk ? (stem.size() > 1 && isConsonant(stem, stem.size() - 1)) : containsVowel(stem);
    return apply ? stem + "i" : w;
  }

  std::string step2(std::string w) const {
    if (m_nltk && endsWith(w, "alli") && positive(w.substr(0, w.size() - 4)))
      return step2(w.substr(0, w.size() - 2));  // -alli -> -al, then step 2 again
    static constexpr std::array<Rule, 20> kCommon{{
        {"ational", "ate", positive}, {"tional", "tion", positive},
        {"enci", "ence", positive},   {"anci", "ance", positive},
        {"izer", "ize", positive},    {"", "", nullptr},  // slot 5: (a)bli
        {"alli", "al", positive},     {"entli", "ent", positive},
        {"eli", "e", positive},       {"ousli", "ous", positive},
        {"ization", "ize", positive}, {"ation", "ate", positive},
        {"ator", "ate", positive},    {"alism", "al", positive},
        {"iveness", "ive", positive}, {"fulness", "ful", positive},
        {"ousness", "ous", positive}, {"aliti", "al", positive},
        {"iviti", "ive", positive},   {"biliti", "ble", positive},
    }};
    // NLTK appends fulli and logi after the common rules; logi's condition keeps the 'l' in the
    // stem.
    std::array<Rule, 22> rules{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < kCommon.size(); ++i) {
      if (i == 5)
        rules[n++] = m_nltk ? Rule{"bli", "ble", positive} : Rule{"abli", "able", positive};
      else
        rules[n++] = kCommon[i];
    }
    if (m_nltk) {
      rules[n++] = {"fulli", "ful", positive};
      rules[n++] = {"logi", "log", nullptr};
    }
    for (std::size_t i = 0; i < n; ++i) {
      const auto& r = rules[i];
      if (!endsWith(w, r.suffix)) continue;
      const std::string stem = w.substr(0, w.size() - r.suffix.size());
      const bool ok = r.suffix == "logi" ? positive(w.substr(0, w.size() - 3)) : r.condition(stem);
      return ok ? stem + std::string(r.replacement) : w;
    }
    return w;
  }

  static std::string step3(std::string w) {
    static constexpr std::array<Rule, 7> kRules{{{"icate", "ic", positive},
                                                 {"ative", "", positive},
                                                 {"alize", "al", positive},
                                                 {"iciti", "ic", positive},
                                                 {"ical", "ic", positive},
                                                 {"ful", "", positive},
                                                 {"ness", "", positive}}};
    return applyRules(std::move(w), kRules);
  }

  static bool ionCondition(const std::string& s) {
    return measure(s) > 1 && !s.empty() && (s.back() == 's' || s.back() == 't');
  }

  static std::string step4(std::string w) {
    static constexpr std::array<Rule, 19> kRules{{
        {"al", "", gtOne},    {"ance", "", gtOne}, {"ence", "", gtOne}, {"er", "", gtOne},
        {"ic", "", gtOne},    {"able", "", gtOne}, {"ible", "", gtOne}, {"ant", "", gtOne},
        {"ement", "", gtOne}, {"ment", "", gtOne}, {"ent", "", gtOne},  {"ion", "", ionCondition},
        {"ou", "", gtOne},    {"ism", "", gtOne},  {"ate", "", gtOne},  {"iti", "", gtOne},
        {"ous", "", gtOne},   {"ive", "", gtOne},  {"ize", "", gtOne},
    }};
    return applyRules(std::move(w), kRules);
  }

  std::string step5a(std::string w) const {
    if (!endsWith(w, "e")) return w;
    std::string stem = w.substr(0, w.size() - 1);
    const int m = measure(stem);
    if (m > 1 || (m == 1 && !endsCvc(stem))) return stem;
    return w;
  }

  static std::string step5b(std::string w) {
    if (endsWith(w, "ll") && measure(w.substr(0, w.size() - 1)) > 1) w.pop_back();
    return w;
  }

  bool m_nltk;
};

}  // namespace

std::string nltkPorterStem(std::string_view word) { return Porter(true).stem(std::string(word)); }

std::string originalPorterStem(std::string_view word) {
  return Porter(false).stem(std::string(word));
}

}  // namespace ragscope::core
