// Batch API objects and file objects (core/llm/batchformat.h: parseBatchObject, parseFileId), as
// a server replies to POST /v1/batches, GET /v1/batches/ID and POST /v1/files. Their ids go into
// request paths, so an accepted id must be a plain one.
// max_len: 8192
// dict: json
// seed: tests/fuzz/seeds/batch_object

#include "core/llm/batchformat.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::llm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::bytes(data, size);
  std::string error;
  const auto batch = parseBatchObject(text, &error);
  fuzz::check(batch.has_value() || !error.empty(), "a refused batch object says nothing about why");
  if (batch) {
    fuzz::check(isSafeBatchId(batch->id), "a batch id that could steer a request path accepted");
    fuzz::check(isKnownBatchStatus(batch->status), "an unknown status accepted");
    for (const auto* id : {&batch->outputFileId, &batch->errorFileId})
      fuzz::check(id->empty() || isSafeBatchId(*id), "a file id that could steer a path accepted");
    fuzz::check(
        batch->counts.total >= 0 && batch->counts.completed >= 0 && batch->counts.failed >= 0,
        "a negative request count accepted");
    fuzz::check(batch->errors.size() <= 20, "an unbounded error list kept");
    for (const auto& e : batch->errors) fuzz::touch(e);
  }
  error.clear();
  const auto file = parseFileId(text, &error);
  fuzz::check(file.has_value() || !error.empty(), "a refused file object says nothing about why");
  if (file) fuzz::check(isSafeBatchId(*file), "a file id that could steer a request path accepted");
  return 0;
}
