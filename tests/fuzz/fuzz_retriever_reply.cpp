// Replies of a generic HTTP retrieval service (core/retrieval/httpretriever.h:
// HttpRetriever::parseReply): `[{"id", "score", "text"}]` or `{"results": [...]}`.
// max_len: 16384
// dict: json
// seed: tests/fuzz/seeds/retriever_reply

#include "core/retrieval/httpretriever.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string body(fuzz::bytes(data, size));
  std::vector<core::ScoredDoc> docs;
  std::string problem;
  const bool ok = core::HttpRetriever::parseReply(body, 5, &docs, &problem);
  fuzz::check(ok || !problem.empty(), "a rejected reply says nothing about why");
  if (ok) fuzz::check(docs.size() <= 5, "more documents than asked for");
  return 0;
}
