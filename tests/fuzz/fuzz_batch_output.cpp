// Batch API output and error lines (core/llm/batchformat.h: parseBatchOutputLine), and the reply
// bodies they carry read as live replies are (core/llm/openaiformat.h). A file of them comes from
// a server or from a colleague: every field of every type is tried.
// max_len: 16384
// dict: json
// seed: tests/fuzz/seeds/batch_output

#include "core/llm/batchformat.h"
#include "core/llm/openaiformat.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::llm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::bytes(data, size);
  std::string error;
  const auto line = parseBatchOutputLine(text, &error);
  fuzz::check(line.has_value() || !error.empty(), "a refused output line says nothing about why");
  if (!line) return 0;
  fuzz::check(!line->customId.empty(), "an output line without custom_id accepted");
  fuzz::check(line->customId.size() <= kBatchMaxCustomIdBytes, "an over-long custom_id accepted");
  fuzz::check(line->hasResponse || line->hasError, "a line with neither response nor error");
  if (line->hasResponse)
    fuzz::check(line->statusCode >= 100 && line->statusCode <= 599, "a status out of range");
  // The model a reply names decides whether it may enter the cache (core/eval/engine/batchrun.h).
  if (!line->model.empty()) {
    fuzz::check(replyModelMatches(line->model, line->model), "a model that is not itself");
    fuzz::check(replyModelMatches(line->model + "-2024-07-18", line->model),
                "a dated snapshot not taken for its model");
    fuzz::check(!replyModelMatches(line->model + "-mini", line->model),
                "another model taken for a snapshot");
  }
  fuzz::check(!replyModelMatches("", line->customId), "an unnamed model matched");
  if (line->succeeded()) {
    const auto chat = parseChatReply(line->body);
    fuzz::check(chat.ok || !chat.error.empty(), "a rejected reply says nothing about why");
    EndpointConfig config;
    if (chat.ok) fuzz::touch(responseFromReply(config, chat, 10).text);
    const auto embeddings = parseEmbeddingsReply(line->body, 2);
    if (embeddings.ok) fuzz::check(embeddings.embeddings.size() == 2, "wrong count accepted");
  }
  // An input line made of the id and a body round-trips its custom_id.
  const std::string input = batchInputLine(line->customId, "/v1/chat/completions", "{}");
  const auto back = parseBatchOutputLine(input + "", &error);
  fuzz::check(!back.has_value(), "an input line (no response, no error) read as an output line");
  return 0;
}
