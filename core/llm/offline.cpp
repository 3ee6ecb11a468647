#include "core/llm/offline.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/export/json.h"
#include "core/llm/llmjson.h"
#include "core/llm/workerprovider.h"

namespace ragscope::core::llm {

namespace {

bool isAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view trimView(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool startsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (lower(s[i]) != lower(prefix[i])) return false;
  }
  return true;
}

// Crude stemming so that "founded"/"founding"/"founds" meet; both sides get the same treatment.
std::string stem(std::string w) {
  auto ends = [&](std::string_view suf) {
    return w.size() > suf.size() + 2 && w.compare(w.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (ends("ing")) {
    w.resize(w.size() - 3);
  } else if (ends("ies")) {
    w.resize(w.size() - 3);
    w += 'y';
  } else if (ends("ed")) {
    w.resize(w.size() - 2);
  } else if (ends("es") && (w[w.size() - 3] == 's' || w[w.size() - 3] == 'x')) {
    w.resize(w.size() - 2);
  } else if (ends("s") && w[w.size() - 2] != 's') {
    w.resize(w.size() - 1);
  }
  return w;
}

bool hasDigit(std::string_view w) {
  return std::any_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Content tokens: no stopwords, no one-letter words (numbers of any length stay).
std::vector<std::string> contentTokens(std::string_view text) {
  std::vector<std::string> out;
  for (auto& t : lexicalTokens(text)) {
    if (hasDigit(t) || (t.size() > 1 && !isStopword(t))) out.push_back(std::move(t));
  }
  return out;
}

std::string joinWords(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace

std::string_view offlineRoleName(OfflineRole role) {
  switch (role) {
    case OfflineRole::Reader:
      return "reader";
    case OfflineRole::ClaimSplitter:
      return "claims";
    case OfflineRole::Judge:
      return "judge";
    case OfflineRole::Auto:
      return "auto";
  }
  return "auto";
}

bool isStopword(std::string_view word) {
  static const std::unordered_set<std::string_view> kStop = {
      "a",      "an",    "the",   "and",   "or",    "but",  "if",    "of",    "to",    "in",
      "on",     "at",    "by",    "for",   "with",  "from", "as",    "is",    "are",   "was",
      "were",   "be",    "been",  "being", "it",    "its",  "this",  "that",  "these", "those",
      "what",   "which", "who",   "whom",  "whose", "when", "where", "why",   "how",   "do",
      "doe",    "did",   "does",  "has",   "have",  "had",  "can",   "could", "will",  "would",
      "should", "may",   "might", "must",  "shall", "not",  "no",    "than",  "then",  "there",
      "their",  "they",  "them",  "he",    "she",   "his",  "her",   "we",    "our",   "you",
      "your",   "i",     "me",    "my",    "so",    "such", "into",  "about", "over",  "also",
      "any",    "all",   "some",  "each",  "other", "more", "most",  "very",  "much",  "many",
      "tell",   "name",  "wa",    "ha",    "thi",   "doe",  "us",    "up",    "out",   "only"};
  return kStop.count(word) > 0;
}

std::vector<std::string> lexicalTokens(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!isAsciiAlnum(text[i])) {
      ++i;
      continue;
    }
    std::string word;
    bool numeric = text[i] >= '0' && text[i] <= '9';
    while (i < text.size()) {
      const char c = text[i];
      if (isAsciiAlnum(c)) {
        word += lower(c);
        ++i;
      } else if (numeric && (c == ',' || c == '.') && i + 1 < text.size() && text[i + 1] >= '0' &&
                 text[i + 1] <= '9') {
        // Thousands separators vanish; a decimal point stays.
        if (c == '.') word += '.';
        ++i;
      } else {
        break;
      }
    }
    if (numeric && word.find('.') != std::string::npos) {
      // "12.50" and "12.5" are the same number.
      while (word.back() == '0') word.pop_back();
      if (word.back() == '.') word.pop_back();
    }
    out.push_back(hasDigit(word) ? word : stem(std::move(word)));
  }
  return out;
}

std::vector<std::string> splitSentences(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    const auto t = trimView(current);
    if (!t.empty()) out.emplace_back(t);
    current.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' && i + 1 < text.size() && text[i + 1] == '\n') {
      flush();
      continue;
    }
    current += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    if (c == '.' || c == '!' || c == '?') {
      // A boundary needs whitespace after it and no digit before a '.', so "3.5" and "e.g."
      // mid-sentence mostly survive.
      const bool atEnd = i + 1 >= text.size();
      const bool spaceNext = !atEnd && std::isspace(static_cast<unsigned char>(text[i + 1]));
      bool abbreviation = false;
      if (c == '.' && spaceNext) {
        std::size_t j = current.size() - 1;
        std::size_t letters = 0;
        while (j > 0 && std::isalpha(static_cast<unsigned char>(current[j - 1]))) {
          --j;
          ++letters;
        }
        const std::string_view word(current.data() + j, letters);
        abbreviation = word == "e.g" || word == "i.e" || word == "Mr" || word == "Mrs" ||
                       word == "Dr" || word == "vs" || word == "Inc" || word == "Co" ||
                       (letters == 1 && std::isupper(static_cast<unsigned char>(word[0])));
      }
      if ((atEnd || spaceNext) && !abbreviation) flush();
    }
  }
  flush();
  return out;
}

PromptSections parsePromptSections(std::string_view prompt) {
  enum class Sec { None, Question, Documents, Claims, Text, Other };
  PromptSections out;
  Sec sec = Sec::None;
  bool inPassage = false;
  std::string paragraph;  // documents without "Passage N:" markers: blank-line paragraphs
  auto flushParagraph = [&] {
    const auto t = trimView(paragraph);
    if (!t.empty() && t != "(no passages)") out.passages.emplace_back(t);
    paragraph.clear();
  };
  struct Header {
    std::string_view label;
    Sec sec;
  };
  static constexpr Header kHeaders[] = {
      {"question:", Sec::Question},  {"documents:", Sec::Documents}, {"context:", Sec::Documents},
      {"passages:", Sec::Documents}, {"claims:", Sec::Claims},       {"text:", Sec::Text},
      {"response:", Sec::Text},      {"answer:", Sec::Other},        {"verdicts:", Sec::Other}};
  std::size_t pos = 0;
  while (pos <= prompt.size()) {
    auto end = prompt.find('\n', pos);
    if (end == std::string_view::npos) end = prompt.size();
    std::string_view line = prompt.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end + 1;

    const std::string_view lead = trimView(line);
    bool header = false;
    for (const auto& h : kHeaders) {
      if (startsWithNoCase(lead, h.label)) {
        if (sec == Sec::Documents && !inPassage) flushParagraph();
        if (sec == Sec::Documents && inPassage) flushParagraph();
        inPassage = false;
        sec = h.sec;
        line = trimView(lead.substr(h.label.size()));
        header = true;
        break;
      }
    }
    // "Passage 3: text" starts a passage wherever it appears.
    if (startsWithNoCase(lead, "passage ")) {
      std::size_t k = 8;
      while (k < lead.size() && lead[k] >= '0' && lead[k] <= '9') ++k;
      if (k > 8 && k < lead.size() && lead[k] == ':') {
        flushParagraph();
        sec = Sec::Documents;
        inPassage = true;
        paragraph = std::string(trimView(lead.substr(k + 1)));
        continue;
      }
    }
    switch (sec) {
      case Sec::Question:
        if (!trimView(line).empty()) {
          if (!out.question.empty()) out.question += ' ';
          out.question += trimView(line);
        }
        break;
      case Sec::Documents:
        if (trimView(line).empty()) {
          if (!inPassage)
            flushParagraph();
          else
            paragraph += '\n';
        } else {
          if (!paragraph.empty()) paragraph += '\n';
          paragraph += line;
        }
        break;
      case Sec::Claims: {
        const auto t = trimView(line);
        if (t.size() > 2 && (t[0] == '-' || t[0] == '*') && t[1] == ' ') {
          out.claims.emplace_back(trimView(t.substr(2)));
        }
        break;
      }
      case Sec::Text:
        out.hasText = true;
        if (!header || !line.empty()) {
          if (!out.text.empty()) out.text += '\n';
          out.text += line;
        }
        break;
      case Sec::None:
      case Sec::Other:
        break;
    }
    if (end == prompt.size()) break;
  }
  if (sec == Sec::Documents) flushParagraph();
  out.text = std::string(trimView(out.text));
  return out;
}

std::string lexicalRead(std::string_view question, const std::vector<std::string>& passages) {
  const auto qTokens = contentTokens(question);
  const std::set<std::string> qSet(qTokens.begin(), qTokens.end());
  std::vector<std::string> sentences;
  for (const auto& p : passages) {
    for (auto& s : splitSentences(p)) sentences.push_back(std::move(s));
  }
  if (sentences.empty() || qSet.empty()) return "I do not know.";
  // Rare question words say more than common ones: weight matches by IDF over the sentences.
  std::vector<std::set<std::string>> sentenceTokens;
  std::unordered_map<std::string, int> df;
  for (const auto& s : sentences) {
    const auto toks = contentTokens(s);
    sentenceTokens.emplace_back(toks.begin(), toks.end());
    for (const auto& t : sentenceTokens.back()) {
      if (qSet.count(t)) ++df[t];
    }
  }
  const double n = static_cast<double>(sentences.size());
  double bestScore = 0.0;
  std::size_t best = 0;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    double score = 0.0;
    for (const auto& t : qSet) {
      if (sentenceTokens[i].count(t)) score += std::log(1.0 + n / df[t]);
    }
    // Among equal overlaps prefer the more focused (shorter) sentence.
    score /= 1.0 + 0.01 * static_cast<double>(sentenceTokens[i].size());
    if (score > bestScore + 1e-12) {
      bestScore = score;
      best = i;
    }
  }
  if (bestScore <= 0.0) return "I do not know.";
  return sentences[best];
}

std::vector<std::string> lexicalSplitClaims(std::string_view text) {
  std::vector<std::string> claims;
  auto wordCount = [](std::string_view s) { return lexicalTokens(s).size(); };
  auto add = [&](std::string_view piece) {
    auto t = trimView(piece);
    while (!t.empty() && (t.back() == '.' || t.back() == ';' || t.back() == ',' ||
                          t.back() == '!' || t.back() == '?')) {
      t.remove_suffix(1);
    }
    t = trimView(t);
    // Bullets in the text are list items: drop their markers.
    if (t.size() > 2 && (t[0] == '-' || t[0] == '*') && t[1] == ' ') t = trimView(t.substr(2));
    if (!t.empty() && !lexicalTokens(t).empty()) claims.emplace_back(t);
  };
  for (const auto& sentence : splitSentences(text)) {
    // Clauses: split at "; " and at ", and " / ", but " / ", while " when both halves are long
    // enough to stand alone (at least four words).
    std::vector<std::string> pieces{sentence};
    for (const std::string_view sep : {std::string_view("; "), std::string_view(", and "),
                                       std::string_view(", but "), std::string_view(", while ")}) {
      std::vector<std::string> next;
      for (const auto& p : pieces) {
        std::string rest = p;
        for (;;) {
          const auto at = rest.find(sep);
          if (at == std::string::npos) break;
          const std::string left = rest.substr(0, at);
          const std::string right = rest.substr(at + sep.size());
          if (wordCount(left) >= 4 && wordCount(right) >= 4) {
            next.push_back(left);
            rest = right;
          } else {
            break;
          }
        }
        next.push_back(rest);
      }
      pieces = std::move(next);
    }
    for (const auto& p : pieces) add(p);
  }
  return claims;
}

bool lexicalSupports(std::string_view claim, std::string_view context) {
  const auto claimTokens = contentTokens(claim);
  if (claimTokens.empty()) return false;
  const auto ctx = lexicalTokens(context);
  const std::unordered_set<std::string> ctxSet(ctx.begin(), ctx.end());
  std::size_t words = 0;
  std::size_t wordsFound = 0;
  for (const auto& t : std::set<std::string>(claimTokens.begin(), claimTokens.end())) {
    if (hasDigit(t)) {
      // Every number must be there: a wrong year or amount is the classic unsupported claim.
      if (!ctxSet.count(t)) return false;
    } else {
      ++words;
      if (ctxSet.count(t)) ++wordsFound;
    }
  }
  if (words == 0) return true;
  return static_cast<double>(wordsFound) >= 0.7 * static_cast<double>(words);
}

std::string lexicalJudge(const std::vector<std::string>& claims,
                         const std::vector<std::string>& passages) {
  const std::string context = joinWords(passages, "\n");
  std::string out;
  for (const auto& c : claims) {
    if (!out.empty()) out += '\n';
    out += "- " + c + (lexicalSupports(c, context) ? " SUPPORTED=1" : " SUPPORTED=0");
  }
  return out;
}

int lexicalGrade(std::string_view query, std::string_view passage) {
  std::set<std::string> words;
  for (auto& t : lexicalTokens(query))
    if (!isStopword(t)) words.insert(std::move(t));
  if (words.empty()) return 0;
  const auto tokens = lexicalTokens(passage);
  const std::set<std::string> inPassage(tokens.begin(), tokens.end());
  std::size_t found = 0;
  for (const auto& w : words) found += inPassage.count(w);
  // found / n against the thresholds 1/2 and 3/4, in integers.
  const std::size_t n = words.size();
  if (found == 0) return 0;
  if (2 * found < n) return 1;
  if (4 * found < 3 * n) return 2;
  return 3;
}

bool readAssessmentPrompt(std::string_view prompt, std::string* query, std::string* passage) {
  const auto asks =
      std::search(prompt.begin(), prompt.end(), std::begin("##final score"),
                  std::end("##final score") - 1, [](char a, char b) { return lower(a) == b; });
  if (asks == prompt.end()) return false;
  std::size_t pos = 0, queryLine = std::string_view::npos, passageAt = std::string_view::npos;
  std::string q;
  while (pos < prompt.size()) {
    auto end = prompt.find('\n', pos);
    if (end == std::string_view::npos) end = prompt.size();
    const std::string_view line = prompt.substr(pos, end - pos);
    if (queryLine == std::string_view::npos) {
      if (startsWithNoCase(line, "query:")) {
        queryLine = pos;
        q = std::string(trimView(line.substr(6)));
      }
    } else if (startsWithNoCase(line, "passage:")) {
      passageAt = pos + 8;
      break;
    } else if (!trimView(line).empty()) {
      if (!q.empty()) q += ' ';
      q += trimView(line);
    }
    pos = end + 1;
  }
  if (passageAt == std::string_view::npos) return false;
  if (query) *query = std::move(q);
  if (passage) *passage = std::string(trimView(prompt.substr(passageAt)));
  return true;
}

std::string offlineAnswer(OfflineRole role, std::string_view prompt) {
  if (std::string query, passage; readAssessmentPrompt(prompt, &query, &passage))
    return "Offline assessor: the grade follows the share of the query's words in the "
           "passage.\n##final score: " +
           std::to_string(lexicalGrade(query, passage));
  const auto sections = parsePromptSections(prompt);
  if (role == OfflineRole::Auto) {
    role = !sections.claims.empty() ? OfflineRole::Judge
           : sections.hasText       ? OfflineRole::ClaimSplitter
                                    : OfflineRole::Reader;
  }
  switch (role) {
    case OfflineRole::Judge:
      return lexicalJudge(sections.claims, sections.passages);
    case OfflineRole::ClaimSplitter: {
      std::string out;
      for (const auto& c : lexicalSplitClaims(sections.hasText ? sections.text : prompt)) {
        if (!out.empty()) out += '\n';
        out += "- " + c;
      }
      return out;
    }
    case OfflineRole::Reader:
    case OfflineRole::Auto:
      break;
  }
  return lexicalRead(sections.question, sections.passages);
}

std::vector<float> offlineEmbedding(std::string_view text, int dims) {
  if (dims <= 0) return {};
  std::vector<double> sums(static_cast<std::size_t>(dims), 0.0);
  auto tokenByte = [](unsigned char c) { return c >= 0x80 || isAsciiAlnum(static_cast<char>(c)); };
  std::size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    if (!tokenByte(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
    while (i < text.size() && tokenByte(static_cast<unsigned char>(text[i]))) {
      h ^= static_cast<unsigned char>(lower(text[i]));
      h *= 1099511628211ull;  // FNV-1a 64 prime
      ++i;
    }
    sums[h % static_cast<std::uint64_t>(dims)] += (h >> 63) ? -1.0 : 1.0;
    any = true;
  }
  std::vector<float> out(static_cast<std::size_t>(dims), 0.0f);
  if (!any) return out;
  double norm = 0.0;
  for (double s : sums) norm += s * s;
  // Every token adds +-1, so a text with tokens has a non-zero bucket unless the signs cancel
  // within a bucket everywhere: then it stays the zero vector.
  if (norm == 0.0) return out;
  norm = std::sqrt(norm);
  for (std::size_t d = 0; d < sums.size(); ++d) out[d] = static_cast<float>(sums[d] / norm);
  return out;
}

namespace {

class OfflineProvider final : public WorkerProvider {
 public:
  OfflineProvider(OfflineRole role, EndpointConfig config)
      : m_role(role), m_config(std::move(config)) {
    m_config.baseUrl = "offline";
    const bool embeddings = m_config.kind == EndpointKind::Embeddings;
    if (m_config.model.empty())
      m_config.model =
          embeddings ? kOfflineEmbeddingModel : "heuristic-" + std::string(offlineRoleName(role));
    if (m_config.name.empty())
      m_config.name =
          embeddings ? "offline embeddings" : "offline " + std::string(offlineRoleName(role));
    start();
  }

  ~OfflineProvider() override { stop(); }

  std::string cacheIdentity() const override {
    return "offline/" + std::string(offlineRoleName(m_role)) + "/v1";
  }
  std::string requestBody(const LlmRequest& request) const override {
    return exporting::jsonText(toJson(request));
  }

  bool isHeuristic() const override { return true; }
  const EndpointConfig& config() const override { return m_config; }

 private:
  LlmResponse cancelledResponse() const override {
    LlmResponse r;
    r.status = CallStatus::Cancelled;
    r.heuristic = true;
    r.error = "cancelled";
    return r;
  }

  LlmResponse answer(const LlmRequest& request) override {
    const auto start = std::chrono::steady_clock::now();
    LlmResponse r;
    r.heuristic = true;
    r.attempts = 1;
    if (request.kind == EndpointKind::Embeddings) {
      std::size_t bytes = 0;
      r.embeddings.reserve(request.inputs.size());
      for (const auto& input : request.inputs) {
        r.embeddings.push_back(offlineEmbedding(input));
        bytes += input.size();
      }
      r.model = kOfflineEmbeddingModel;
      r.status = CallStatus::Ok;
      r.usage.promptTokens = static_cast<std::int64_t>((bytes + 3) / 4);
      r.latencyMs =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      return r;
    }
    if (request.kind != EndpointKind::Chat) {
      r.status = CallStatus::Error;
      r.error = "offline providers answer chat and embeddings requests only";
      return r;
    }
    // The last user message holds the task; system messages only set the tone.
    std::string prompt;
    for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
      if (it->role == "user") {
        prompt = it->content;
        break;
      }
    }
    r.text = offlineAnswer(m_role, prompt);
    r.status = CallStatus::Ok;
    std::size_t bytes = 0;
    for (const auto& m : request.messages) bytes += m.content.size();
    r.usage.promptTokens = static_cast<std::int64_t>((bytes + 3) / 4);
    r.usage.completionTokens = static_cast<std::int64_t>((r.text.size() + 3) / 4);
    r.latencyMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

  OfflineRole m_role;
  EndpointConfig m_config;
};

}  // namespace

std::unique_ptr<Provider> makeOfflineProvider(OfflineRole role, EndpointConfig config) {
  return std::make_unique<OfflineProvider>(role, std::move(config));
}

}  // namespace ragscope::core::llm
