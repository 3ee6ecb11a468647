#pragma once
// Default prompt templates (our own text) and template rendering. A template is plain text with
// {question}, {documents}, {claims}, {text} placeholders; everything else is kept as written, so
// users can edit templates freely. Runs record the exact template text and its SHA-256.
//
// The defaults lay prompts out in labelled sections ("Question:", "Documents:" with "Passage N:"
// entries, "Claims:" with "- claim" bullets, "Text:") so the offline heuristic providers can find
// their inputs again (see offline.h); a user template that keeps these labels works offline too.
//
//   std::string prompt = renderTemplate(defaultRagTemplate(),
//       {{"question", q.text}, {"documents", formatPassages(texts)}});

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core::llm {

// Answer a question from numbered passages (end-to-end and eRAG generation).
const std::string& defaultRagTemplate();
// Turn a text into atomic claims, one "- claim" bullet each (core/claims/README.md).
const std::string& defaultClaimExtractionTemplate();
// Check claims against documents: each claim back with SUPPORTED=1 or SUPPORTED=0, as the
// notebook's judge answers (core/claims/README.md, "Notebook metrics").
const std::string& defaultClaimJudgeTemplate();

// The same with RAGChecker's three-way verdicts: Entailment, Neutral or Contradiction per claim.
const std::string& defaultClaimJudgeThreeWayTemplate();

// Generate the question an answer answers, with RAGAS's noncommittal flag, as one JSON object
// {"question": "...", "noncommittal": 0|1} ({text}: the answer). ragas.answer_relevancy.
const std::string& defaultQuestionGenerationTemplate();
// Copy the sentences of the documents that help answer the question, or reply "Insufficient
// Information." ({question}, {documents}). ragas.context_relevance_paper.
const std::string& defaultContextRelevanceTemplate();

// Hex SHA-256 of a template's text.
std::string templateHash(std::string_view templateText);

// Replaces {name} for each name in `values`; unknown {words} are left untouched.
std::string renderTemplate(std::string_view templateText,
                           const std::map<std::string, std::string>& values);

// "Passage 1: text\n\nPassage 2: text" (newlines inside a passage are kept).
std::string formatPassages(const std::vector<std::string>& passages);
// "- claim" lines.
std::string formatClaims(const std::vector<std::string>& claims);

}  // namespace ragscope::core::llm
