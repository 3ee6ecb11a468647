// A batch output file imported into a run store (core/eval/engine/batchrun.h: importBatchOutput),
// as `batch import` and the Batch API route do: the file streamed a line at a time into one
// transaction, refused whole on the first bad line, then the answers that may enter the response
// cache put there. The input is the output file itself; the store (four chat calls, one of them
// answered already and one failed already, all sealed with a fixed secret) is made once and
// copied afresh for each input. Lines are capped at 4 KiB here so the cap is exercised.
// max_len: 32768
// dict: json
// seed: tests/fuzz/seeds/batch_import

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/eval/engine/batchrun.h"
#include "core/llm/llmjson.h"
#include "core/llm/openaiformat.h"
#include "core/llm/requestseal.h"
#include "core/llm/responsecache.h"
#include "core/store/runstore.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core;
namespace fs = std::filesystem;

namespace {

constexpr std::array<std::uint8_t, 32> kSecret = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                                  23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

llm::EndpointConfig endpoint() {
  llm::EndpointConfig e;
  e.baseUrl = "http://127.0.0.1:9/v1";
  e.model = "m";
  return e;
}

struct Fixture {
  fs::path pristine;
  fs::path sealPath;
  store::RunCounts before;
};

// The store every input starts from, and this "machine's" seal secret.
const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture out;
    out.pristine = fuzz::scratchDir() / "pristine.db";
    out.sealPath = fuzz::writeScratch("seal.key", [] {
      std::string hex;
      for (auto b : kSecret) {
        static constexpr char d[] = "0123456789abcdef";
        hex += d[b >> 4];
        hex += d[b & 15];
      }
      return hex + "\n";
    }());
    store::RunStore st;
    store::RunRecord record;
    record.kind = "generate";
    record.settings = nlohmann::json::object();
    record.endpoint = llm::toJson(endpoint());
    std::string err;
    fuzz::check(st.create(out.pristine, record, &err), "cannot create the fixture store");
    std::vector<store::NewItem> items;
    const llm::RequestSeal seal(kSecret);
    nlohmann::json seals = nlohmann::json::object();
    for (int q = 1; q <= 4; ++q) {
      llm::LlmRequest request;
      request.messages.push_back({"user", "question " + std::to_string(q)});
      const std::string key = "gen:q" + std::to_string(q);
      items.push_back({key, "generate", llm::toJson(request).dump()});
      seals[key] = seal.seal(llm::ResponseCache::key(llm::httpCacheIdentity(endpoint()),
                                                     llm::buildRequestBody(endpoint(), request)));
    }
    fuzz::check(st.addItems(items, &err), "cannot add the fixture's items");
    fuzz::check(st.putData(eval::kBatchRequestsData,
                           nlohmann::json{{"version", 1}, {"seals", seals}}.dump(), &err),
                "cannot seal the fixture's calls");
    const auto stored = st.items();
    store::ItemResult done;
    done.itemId = stored[2].id;
    done.text = "answered before";
    store::ItemResult failed;
    failed.itemId = stored[3].id;
    failed.status = store::ItemStatus::Error;
    failed.error = "failed before";
    fuzz::check(st.commitResults({done, failed}, &err), "cannot answer the fixture's call");
    out.before = st.counts();
    return out;
  }();
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Fixture& f = fixture();
  const fs::path work = fuzz::scratchDir() / "work.db";
  for (const char* side : {"", "-wal", "-shm"}) fs::remove(work.string() + side);
  fs::copy_file(f.pristine, work);
  const fs::path output = fuzz::writeScratch("output.jsonl", fuzz::bytes(data, size));
  // One cache for the process (its four keys are replaced, never more): what an input stored is
  // what its count of stores grew by.
  static llm::ResponseCache cache;
  std::string err;
  if (!cache.isOpen())
    fuzz::check(cache.open(fuzz::scratchDir() / "cache.sqlite", &err), "cannot open the cache");
  const std::uint64_t storesBefore = cache.stores();

  store::RunStore st;
  fuzz::check(st.open(work, &err), "cannot open the copied store");
  eval::CallRoutes routes{"generate", endpoint(), {}};
  eval::BatchImportOptions options;
  options.endpointTrusted = (fuzz::inputHash(fuzz::bytes(data, size)) & 1) == 0;
  options.untrustedNote = "not trusted";
  options.sealPath = f.sealPath;
  options.maxLineBytes = 4096;
  const auto s = eval::importBatchOutput(st, routes, &cache, {{"output.jsonl", output}}, options);
  const auto after = st.counts();
  if (!s.ok()) {
    // All or nothing: a refused import leaves the store as it was, and says so.
    fuzz::check(s.error.find("nothing was imported") != std::string::npos,
                "a refused import does not say that nothing was imported");
    fuzz::check(s.error.find("output.jsonl") != std::string::npos,
                "a refused import does not name the file");
    fuzz::check(after.done == f.before.done && after.errors == f.before.errors &&
                    after.pending == f.before.pending,
                "a refused import changed the store");
    fuzz::check(cache.stores() == storesBefore, "a refused import wrote into the cache");
    return 0;
  }
  fuzz::check(s.answered + s.failed + s.alreadyAnswered + s.unchanged <= s.lines,
              "more calls counted than lines read");
  fuzz::check(s.alreadyAnswered <= 1, "a call answered before counted twice");
  fuzz::check(after.done == f.before.done + s.answered, "answers counted and stored differ");
  fuzz::check(after.total == f.before.total, "an import added or removed calls");
  fuzz::check(s.cached + s.notCached == s.answered, "cached and not cached do not add up");
  fuzz::check(cache.stores() - storesBefore == s.cached,
              "the cache took other than what was counted");
  fuzz::check(cache.entryCount() <= 4, "the cache holds answers for calls the run does not have");
  if (!options.endpointTrusted) fuzz::check(s.cached == 0, "an untrusted store wrote the cache");
  if (s.notCached > 0)
    fuzz::check(!s.cacheNote.empty(), "answers left out of the cache unexplained");
  return 0;
}
