// OpenAI-compatible replies (core/llm/openaiformat.h): chat completions, embeddings, rerank
// (Cohere/Jina and TEI shapes), model lists and error bodies. Every parser sees every input.
// max_len: 16384
// dict: json
// seed: tests/fuzz/seeds/openai_reply

#include "core/llm/openaiformat.h"
#include "core/util/textescape.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::llm;

namespace {

void checkReply(const ParsedReply& r) {
  fuzz::check(r.ok || !r.error.empty(), "a rejected reply says nothing about why");
  fuzz::touch(r.text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto body = fuzz::bytes(data, size);
  checkReply(parseChatReply(body));
  checkReply(parseEmbeddingsReply(body));
  const auto embeddings = parseEmbeddingsReply(body, 3);
  checkReply(embeddings);
  if (embeddings.ok)
    fuzz::check(embeddings.embeddings.size() == 3, "embeddings: wrong count accepted");
  checkReply(parseRerankReply(body));
  const auto rerank = parseRerankReply(body, 4);
  checkReply(rerank);
  if (rerank.ok)
    for (const auto& [index, score] : rerank.rerank)
      fuzz::check(index < 4, "rerank: index out of range accepted");
  std::string error;
  for (const auto& model : parseModelList(body, &error)) fuzz::touch(model);
  const std::string excerpt = errorExcerpt(body, {"sk-secret"});
  fuzz::check(excerpt.find("sk-secret") == std::string::npos, "errorExcerpt leaked a secret");
  // Issue 24 item 11: an excerpt is printed on terminals, so it carries no control character.
  fuzz::check(core::isPrintableText(excerpt), "errorExcerpt let a control character through");
  return 0;
}
