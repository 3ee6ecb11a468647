#pragma once
// The relevance assessment prompt of `ragscope-cli assess` (core/trecrag/README.md,
// "Assessment"): UMBRELA's procedure (Upadhyay et al. 2024; after Thomas et al. 2023) in our own
// words. The assessor reads the query's likely intent, weighs how well the passage matches it (M)
// and how trustworthy it is (T), and ends with one line "##final score: N", N in 0..3 on TREC
// DL's four-point scale. The template is plain text with {query} and {passage} placeholders,
// editable like the other templates (`assess --template FILE`); a template that keeps the
// closing "Query:" / "Passage:" sections and the final-score line is graded by the offline judge
// too (core/llm/offline.h, lexicalGrade).
//
//   std::string prompt = renderAssessPrompt(defaultAssessTemplate(), q.text, passageText(doc));

#include <string>
#include <string_view>

namespace ragscope::core::trecrag {

const std::string& defaultAssessTemplate();

// {query} and {passage} replaced; other {words} are kept as written.
std::string renderAssessPrompt(std::string_view templateText, std::string_view query,
                               std::string_view passage);

}  // namespace ragscope::core::trecrag
