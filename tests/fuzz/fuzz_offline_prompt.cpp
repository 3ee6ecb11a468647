// Prompt parsing of the offline heuristic providers (core/llm/offline.cpp: parsePromptSections,
// offlineAnswer). A resumed run store hands its stored prompts to them, so they read text from a
// file like any loader. (Judge replies are read by core/claims/judgeparse: fuzz_judge_reply.)
// max_len: 16384
// seed: tests/fuzz/seeds/offline_prompt

#include "core/llm/offline.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::llm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto prompt = fuzz::bytes(data, size);
  for (OfflineRole role :
       {OfflineRole::Reader, OfflineRole::ClaimSplitter, OfflineRole::Judge, OfflineRole::Auto})
    fuzz::touch(offlineAnswer(role, prompt));
  return 0;
}
