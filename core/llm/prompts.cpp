#include "core/llm/prompts.h"

#include "core/util/sha256.h"

namespace ragscope::core::llm {

const std::string& defaultRagTemplate() {
  static const std::string text =
      "Answer the question using only the passages below. Reply with the answer alone, in one or "
      "two sentences. If the passages do not contain the answer, say that you do not know.\n"
      "\n"
      "Documents:\n"
      "{documents}\n"
      "\n"
      "Question: {question}\n"
      "\n"
      "Answer:";
  return text;
}

const std::string& defaultClaimExtractionTemplate() {
  static const std::string text =
      "Break the text below into short, self-contained factual claims. Each claim states one "
      "fact that can be checked on its own, keeps its numbers and names exactly, and does not "
      "depend on the other claims. Write one claim per line, each starting with \"- \". Write "
      "nothing else.\n"
      "\n"
      "Text:\n"
      "{text}\n"
      "\n"
      "Claims:";
  return text;
}

const std::string& defaultClaimJudgeTemplate() {
  static const std::string text =
      "For each claim below, decide whether the documents support it. Copy every claim on its "
      "own line, in the same order, starting with \"- \", and end the line with SUPPORTED=1 if the "
      "documents state or directly imply it, or SUPPORTED=0 otherwise. Write nothing else.\n"
      "\n"
      "Documents:\n"
      "{documents}\n"
      "\n"
      "Claims:\n"
      "{claims}\n"
      "\n"
      "Verdicts:";
  return text;
}

const std::string& defaultClaimJudgeThreeWayTemplate() {
  static const std::string text =
      "For each claim below, decide what the documents say about it. Copy every claim on its own "
      "line, in the same order, starting with \"- \", and end the line with Entailment if the "
      "documents state or directly imply it, Contradiction if they state its opposite, or Neutral "
      "otherwise. Write nothing else.\n"
      "\n"
      "Documents:\n"
      "{documents}\n"
      "\n"
      "Claims:\n"
      "{claims}\n"
      "\n"
      "Verdicts:";
  return text;
}

const std::string& defaultQuestionGenerationTemplate() {
  static const std::string text =
      "Write the question that the answer below answers. Also say whether the answer is "
      "noncommittal: 1 if it is evasive or vague or says it does not know, 0 if it commits to an "
      "answer. Reply with one JSON object and nothing else: {\"question\": \"...\", "
      "\"noncommittal\": 0}\n"
      "\n"
      "Answer:\n"
      "{text}";
  return text;
}

const std::string& defaultContextRelevanceTemplate() {
  static const std::string text =
      "Copy from the documents below every sentence that helps answer the question, unchanged, "
      "one per line. Do not change or add anything. If no sentence helps, reply exactly: "
      "Insufficient Information.\n"
      "\n"
      "Documents:\n"
      "{documents}\n"
      "\n"
      "Question: {question}";
  return text;
}

std::string templateHash(std::string_view templateText) { return sha256Hex(templateText); }

std::string renderTemplate(std::string_view templateText,
                           const std::map<std::string, std::string>& values) {
  std::string out;
  out.reserve(templateText.size() + 256);
  std::size_t i = 0;
  while (i < templateText.size()) {
    const char c = templateText[i];
    if (c == '{') {
      const auto close = templateText.find('}', i + 1);
      if (close != std::string_view::npos) {
        const std::string name(templateText.substr(i + 1, close - i - 1));
        if (const auto it = values.find(name); it != values.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += c;
    ++i;
  }
  return out;
}

std::string formatPassages(const std::vector<std::string>& passages) {
  std::string out;
  for (std::size_t i = 0; i < passages.size(); ++i) {
    if (i > 0) out += "\n\n";
    out += "Passage " + std::to_string(i + 1) + ": " + passages[i];
  }
  if (passages.empty()) out = "(no passages)";
  return out;
}

std::string formatClaims(const std::vector<std::string>& claims) {
  std::string out;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    if (i > 0) out += '\n';
    out += "- " + claims[i];
  }
  return out;
}

}  // namespace ragscope::core::llm
