// Assessor replies (core/trecrag/assessgrade.cpp, readGrade), read strictly whatever a server
// sends back, and assessment prompts as the offline assessor reads them (core/llm/offline.cpp,
// readAssessmentPrompt, lexicalGrade): a resumed run store hands its stored prompts to it. Checked:
// a reply gives a grade on 0..3 or an unparsed state with its reason, never both or neither; the
// offline grade lies on 0..3 and its own reply reads back as that grade.
// max_len: 16384
// seed: tests/fuzz/seeds/assess_grade

#include <cstdlib>
#include <string>

#include "core/llm/offline.h"
#include "core/trecrag/assessgrade.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::bytes(data, size);
  const auto r = trecrag::readGrade(text);
  if (r.grade.has_value() == !r.problem.empty()) std::abort();
  if (r.grade && (*r.grade < 0 || *r.grade > trecrag::kMaxGrade)) std::abort();
  std::string query, passage;
  if (llm::readAssessmentPrompt(text, &query, &passage)) {
    const int g = llm::lexicalGrade(query, passage);
    if (g < 0 || g > 3) std::abort();
    const auto back = trecrag::readGrade(llm::offlineAnswer(llm::OfflineRole::Auto, text));
    if (!back.grade || *back.grade != g) std::abort();
  }
  return 0;
}
