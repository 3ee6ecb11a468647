#include "core/trecrag/assessprompt.h"

#include "core/llm/prompts.h"

namespace ragscope::core::trecrag {

const std::string& defaultAssessTemplate() {
  // The query and passage come last, each in its labelled section, so the offline judge finds
  // them without reading the instructions as part of the passage.
  static const std::string text =
      "You judge search results. Given a search query and a passage, decide how useful the "
      "passage is to the person who typed the query, on this scale:\n"
      "3 = the passage is about the query and holds the answer itself.\n"
      "2 = the passage holds part of the answer, or the answer is there but vague or buried "
      "among unrelated material.\n"
      "1 = the passage concerns the query's topic but does not answer it.\n"
      "0 = the passage has nothing to do with the query.\n"
      "\n"
      "Before you grade, work it out in short steps:\n"
      "1. Say what the searcher most probably wants to know: the intent behind the query.\n"
      "2. Rate how well the passage's content meets that intent (M).\n"
      "3. Rate how far the passage can be trusted as a source for it (T).\n"
      "4. Weigh M and T against the scale and choose one grade. Sharing words with the query "
      "without serving its intent earns at most 1.\n"
      "\n"
      "Keep the reasoning brief. The last line of your reply must read exactly as below, with "
      "N replaced by 0, 1, 2 or 3, and no other line may start with ##final score:\n"
      "##final score: N\n"
      "\n"
      "Query: {query}\n"
      "\n"
      "Passage: {passage}\n";
  return text;
}

std::string renderAssessPrompt(std::string_view templateText, std::string_view query,
                               std::string_view passage) {
  return llm::renderTemplate(templateText,
                             {{"query", std::string(query)}, {"passage", std::string(passage)}});
}

}  // namespace ragscope::core::trecrag
