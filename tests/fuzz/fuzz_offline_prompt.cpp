// Prompt parsing of the offline heuristic providers (core/llm/offline.cpp: parsePromptSections,
// offlineAnswer). A resumed run store hands its stored prompts to them, so they read text from a
// file like any loader. (There is no judge-reply parser in core yet: the claim judge's
// "SUPPORTED=1/0" lines are only written, by the offline judge, not read back.)
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
