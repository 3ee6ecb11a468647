#include "core/retrieval/corpusembedding.h"

#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <system_error>

#include "core/eval/engine/runengine.h"
#include "core/export/json.h"
#include "core/llm/cachingprovider.h"
#include "core/llm/forwardingprovider.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/providerfactory.h"
#include "core/llm/responsecache.h"
#include "core/llm/trustedendpoints.h"
#include "core/retrieval/storedvectors.h"
#include "core/retrieval/xapianindex.h"
#include "core/store/runstore.h"
#include "core/util/textescape.h"
#include "core/util/urlredact.h"

namespace ragscope::core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kEmbedRunKind = kEmbeddingStoreKind;
constexpr const char* kStoreFile = "embeddings.db";
constexpr const char* kVectorsFolder = "vectors";
constexpr const char* kKeyPrefix = "docs:";
constexpr std::size_t kAddRows = 8192;
constexpr std::size_t kPlanChunk = 256;

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// What a setting calls: always an embeddings endpoint; offline is the hashed bag of words, whose
// model is its own whatever the setting names.
llm::EndpointConfig embeddingEndpoint(const EmbedderSettings& settings) {
  llm::EndpointConfig e = settings.endpoint;
  e.kind = llm::EndpointKind::Embeddings;
  if (llm::isOfflineEndpoint(e)) {
    e.baseUrl = "offline";
    e.model = llm::kOfflineEmbeddingModel;
  }
  return e;
}

// The endpoint as manifests and stores name it: never with its URL's credentials.
std::string embedderIdentity(const llm::EndpointConfig& e) {
  if (llm::isOfflineEndpoint(e)) return "offline";
  return redactUrl(llm::normalizeBaseUrl(e.baseUrl));
}

std::string shownEndpoint(const llm::EndpointConfig& e) {
  return llm::isOfflineEndpoint(e) ? std::string("offline embeddings")
                                   : "embeddings endpoint " + shownUrl(e.baseUrl);
}

// "docs:<first>-<last>" (0-based corpus positions, inclusive).
std::string batchKey(std::size_t first, std::size_t count) {
  return kKeyPrefix + std::to_string(first) + "-" + std::to_string(first + count - 1);
}

std::optional<std::pair<std::size_t, std::size_t>> parseBatchKey(std::string_view key) {
  if (key.substr(0, 5) != kKeyPrefix) return std::nullopt;
  key.remove_prefix(5);
  const auto dash = key.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view s) -> std::optional<std::size_t> {
    std::size_t v = 0;
    if (s.empty() || s.size() > 18) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
  };
  const auto first = number(key.substr(0, dash));
  const auto last = number(key.substr(dash + 1));
  if (!first || !last || *last < *first) return std::nullopt;
  return std::pair{*first, *last - *first + 1};
}

// What every batch of one corpus (or every query of one embedder) must agree on: the size of
// the first good reply's vectors and the model it named.
struct ReplyReference {
  std::mutex mutex;
  std::size_t dimensions = 0;  // 0: no good reply yet
  std::string model;           // empty: no reply named one yet
};

// Why `vectors` (a reply to `texts` inputs, naming `model`, possibly empty) cannot be used, or ""
// (then the reference learns from it). The caller holds ref.mutex.
std::string vectorsProblem(const std::vector<std::vector<float>>& vectors, std::size_t texts,
                           const std::string& model, ReplyReference& ref) {
  if (vectors.size() != texts)
    return std::to_string(vectors.size()) + " vectors for " + std::to_string(texts) + " texts";
  const std::size_t dims = ref.dimensions    ? ref.dimensions
                           : vectors.empty() ? 0
                                             : vectors[0].size();
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    const std::string field = "embeddings[" + std::to_string(i) + "]";
    if (vectors[i].empty()) return field + " is empty";
    if (vectors[i].size() != dims)
      return field + " has " + std::to_string(vectors[i].size()) + " components, " +
             (ref.dimensions ? "the first batch's vectors " : "the first vector ") +
             std::to_string(dims);
    for (std::size_t d = 0; d < vectors[i].size(); ++d)
      if (!std::isfinite(vectors[i][d]))
        return field + "[" + std::to_string(d) + "] is not a finite number (NaN or infinite)";
  }
  if (!model.empty() && !ref.model.empty() && model != ref.model)
    return "the reply names model \"" + escapeControlChars(model.substr(0, 200)) +
           "\", the first batch's \"" + escapeControlChars(ref.model.substr(0, 200)) + "\"";
  if (!ref.dimensions) ref.dimensions = dims;
  if (ref.model.empty()) ref.model = model;
  return {};
}

// Checks every live reply before the response cache keeps it or the engine stores it: a reply
// of the wrong shape becomes a failed call ("bad embeddings reply: ..."), which the store records
// as the batch's error and the next build asks again.
class CheckedEmbeddings final : public llm::ForwardingProvider {
 public:
  CheckedEmbeddings(std::unique_ptr<llm::Provider> inner, std::shared_ptr<ReplyReference> ref)
      : ForwardingProvider(std::move(inner)), m_ref(std::move(ref)) {}
  void submit(llm::LlmRequest request, llm::ResponseCallback done) override {
    const std::size_t texts = request.inputs.size();
    inner().submit(std::move(request),
                   [texts, ref = m_ref, done = std::move(done)](llm::LlmResponse r) {
                     if (r.status == llm::CallStatus::Ok) {
                       std::string problem;
                       {
                         std::lock_guard lock(ref->mutex);
                         problem = vectorsProblem(r.embeddings, texts, r.model, *ref);
                       }
                       if (!problem.empty()) {
                         r.status = llm::CallStatus::Error;
                         r.error = "bad embeddings reply: " + problem;
                         r.embeddings.clear();
                       }
                     }
                     done(std::move(r));
                   });
  }

 private:
  std::shared_ptr<ReplyReference> m_ref;
};

// A good reply in the form the store keeps (storedvectors.h): the vectors packed into the answer
// text, bit for bit; the response cache keeps the reply as it came.
void keepPacked(llm::LlmResponse& r) {
  if (r.status != llm::CallStatus::Ok) return;
  if (auto packed = packVectors(r.embeddings, r.model)) {
    r.text = std::move(*packed);
  } else {
    // Only an answer no check saw (the response cache's, in a batch pass) can get here; the
    // index's read-back checks every stored batch again anyway.
    r.status = llm::CallStatus::Error;
    r.error = "bad embeddings reply: no vectors, or vectors of different sizes";
  }
  r.embeddings.clear();
  r.embeddings.shrink_to_fit();
}

// Outermost, so that both the answers the engine takes from the response cache (knownAnswers)
// and the calls' replies reach the store packed.
class PackedEmbeddings final : public llm::ForwardingProvider {
 public:
  using ForwardingProvider::ForwardingProvider;
  void submit(llm::LlmRequest request, llm::ResponseCallback done) override {
    inner().submit(std::move(request), [done = std::move(done)](llm::LlmResponse r) {
      keepPacked(r);
      done(std::move(r));
    });
  }
  std::vector<std::optional<llm::LlmResponse>> knownAnswers(
      const std::vector<const llm::LlmRequest*>& requests) override {
    auto answers = ForwardingProvider::knownAnswers(requests);
    for (auto& a : answers)
      if (a) keepPacked(*a);
    return answers;
  }
};

// provider (or the test hook's) -> reply checks -> response cache (HTTP endpoints only).
std::unique_ptr<llm::Provider> embeddingProvider(
    const llm::EndpointConfig& endpoint, const llm::TransportOptions& transport,
    llm::ResponseCache* cache,
    const std::function<std::unique_ptr<llm::Provider>(const llm::EndpointConfig&)>& hook,
    std::shared_ptr<ReplyReference> ref) {
  std::unique_ptr<llm::Provider> inner;
  if (hook) {
    inner = hook(endpoint);
  } else if (llm::isOfflineEndpoint(endpoint)) {
    inner = llm::makeOfflineProvider(llm::OfflineRole::Auto, endpoint);
  } else {
    llm::EndpointConfig call = endpoint;
    // The front end's key callback (the GUI's keychain secret) wins over the variable.
    if (transport.apiKey) call.apiKeyEnv.clear();
    inner = llm::makeHttpProvider(call, transport);
  }
  auto checked = std::make_unique<CheckedEmbeddings>(std::move(inner), std::move(ref));
  if (cache && !checked->isHeuristic())
    return std::make_unique<llm::CachingProvider>(std::move(checked), *cache);
  return checked;
}

// The embeddings store's settings: what the stored vectors depend on (not the index kind or the
// query prefix, so changing those rebuilds the index from the stored vectors).
json storeSettings(const llm::EndpointConfig& endpoint, const EmbedderSettings& settings,
                   const std::string& stamp, std::size_t documents) {
  // Format 2: vectors stored packed (storedvectors.h); a store of format 1 (decimal JSON arrays)
  // counts as made with other settings, so it is embedded again (from the response cache when it
  // holds the replies), never read in a form this code does not write.
  return {{"format", 2},
          {"embedder", embedderIdentity(endpoint)},
          {"model", endpoint.model},
          {"doc_prefix", settings.docPrefix},
          {"batch", settings.batch},
          {"corpus", stamp},
          {"documents", documents}};
}

// The store at `path`, continued when it was made by these settings, else replaced (`reason`
// says why). Null with *error when it cannot be created.
std::unique_ptr<store::RunStore> openEmbeddingStore(const fs::path& path,
                                                    const store::RunRecord& record,
                                                    std::string* reason, std::string* error) {
  auto st = std::make_unique<store::RunStore>();
  std::error_code ec;
  if (fs::exists(fs::symlink_status(path, ec))) {
    std::string why;
    if (st->open(path, &why)) {
      const store::RunRecord old = st->run();
      if (old.kind == kEmbedRunKind && old.settings == record.settings) return st;
      std::string fields;
      if (old.kind != kEmbedRunKind) {
        fields = "kind";
      } else {
        for (const auto& [name, value] : record.settings.items()) {
          const auto it = old.settings.find(name);
          if (it == old.settings.end() || *it != value)
            fields += (fields.empty() ? "" : ", ") + name;
        }
        if (fields.empty()) fields = "fields";
      }
      *reason = path.string() + " was made with other settings (" + fields + "): embedded again";
    } else {
      *reason = path.string() + " is not usable (" + why + "): embedded again";
    }
    st = std::make_unique<store::RunStore>();  // closes it
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      fs::remove(fs::path(path.string() + suffix), ec);
  }
  if (!st->create(path, record, error)) return nullptr;
  return st;
}

// The vectors of a stored result: its answer text in the packed form (storedvectors.h), or why
// not.
std::string readStoredVectors(const store::ItemResult& result,
                              std::vector<std::vector<float>>* vectors, std::string* model) {
  return unpackVectors(result.text, vectors, model);
}

// Walks the stored vectors in corpus order: each batch checked (a stored result, of the right
// count, size, finite, the first batch's model) and handed to `visit` (first position, count,
// vectors); false with *error naming the store, the batch and the field, and *refused set to the
// item and why when a stored result's vectors were the problem.
using BatchVisitor =
    std::function<bool(std::size_t, std::size_t, std::vector<std::vector<float>>&, std::string*)>;
bool readBatches(store::RunStore& st, std::size_t documents, std::size_t batch,
                 const BatchVisitor& visit, std::string* error,
                 std::optional<std::pair<std::int64_t, std::string>>* refused) {
  ReplyReference ref;
  std::size_t next = 0;
  std::string err;
  std::vector<std::vector<float>> vectors;
  std::string model;
  const std::string where = st.path().string() + ": ";
  st.forEachResult([&](store::StoredResult&& s) {
    const auto range = parseBatchKey(s.key);
    if (!range) {
      err = where + "item " + std::to_string(s.result.itemId) + " is not a batch of documents";
      return false;
    }
    const std::string name = where + "batch " + batchKey(range->first, range->second) + ": ";
    if (range->first != next) {
      err = name + "expected the batch starting at document " + std::to_string(next);
      return false;
    }
    if (range->first + range->second > documents) {
      err = name + "the corpus has " + std::to_string(documents) + " documents";
      return false;
    }
    if (s.result.status != store::ItemStatus::Done) {
      err = name + (s.result.error.empty() ? std::string("the call failed") : s.result.error);
      return false;
    }
    std::string problem = readStoredVectors(s.result, &vectors, &model);
    if (problem.empty()) problem = vectorsProblem(vectors, range->second, model, ref);
    if (!problem.empty()) {
      err = name + problem;
      refused->emplace(s.result.itemId, "stored vectors refused: " + problem);
      return false;
    }
    if (!visit(range->first, range->second, vectors, &err)) return false;
    next += range->second;
    return true;
  });
  if (err.empty() && next < documents)
    err = where + "batch " + batchKey(next, std::min(batch, documents - next)) + ": no result";
  if (!err.empty()) {
    *error = std::move(err);
    return false;
  }
  return true;
}

// The dimensions an index folder's manifest names (0 when it has none readable), so that the
// expected manifest can be checked in every other field by VectorIndex::open.
int manifestDimensions(const fs::path& dir) {
  std::string ignored;
  const auto m = readVectorIndexManifest(dir, &ignored);
  return m ? m->dimensions : 0;
}

}  // namespace

std::string documentEmbeddingText(const EmbedderSettings& settings, const Document& doc) {
  std::string out = settings.docPrefix;
  if (!doc.title.empty()) {
    out += doc.title;
    out += '\n';
  }
  out += doc.fullText();
  return out;
}

DenseIndexResult buildDenseIndex(const Corpus& corpus, const EmbedderSettings& settings,
                                 const DenseIndexOptions& options) {
  DenseIndexResult r;
  r.documents = corpus.size();
  if (options.indexDir.empty()) {
    r.error = "no index folder";
    return r;
  }
  r.dir = options.indexDir / kVectorsFolder;
  r.store = options.indexDir / kStoreFile;
  if (corpus.empty()) {
    r.error = "the corpus has no documents to embed";
    return r;
  }
  if (settings.batch == 0) {
    r.error = "the embedding batch must hold at least one text";
    return r;
  }
  const llm::EndpointConfig endpoint = embeddingEndpoint(settings);
  // The user chose this endpoint for an index of their own: later runs need not ask again.
  if (std::string err; !options.readOnly && !llm::TrustedEndpoints().add(endpoint, "run", &err))
    r.trustNote = "could not record " + shownUrl(llm::normalizeBaseUrl(endpoint.baseUrl)) +
                  " as trusted (resuming will ask to confirm it): " + err;

  const std::string stamp = corpusFingerprint(corpus);
  VectorIndexManifest expected;
  expected.embedder = embedderIdentity(endpoint);
  expected.model = endpoint.model;
  expected.docPrefix = settings.docPrefix;
  expected.queryPrefix = settings.queryPrefix;
  expected.normalized = true;
  expected.corpusStamp = stamp;
  expected.documents = corpus.size();
  expected.ann = options.ann.value_or(defaultAnnKind(corpus.size()));
  expected.params = options.params;

  if (options.rebuild) {
    r.rebuildReason = "a rebuild was asked for";
  } else {
    VectorIndexManifest m = expected;
    m.dimensions = manifestDimensions(r.dir);
    std::string why;
    if (auto index = VectorIndex::open(r.dir, m, &why)) {
      r.ok = true;
      r.reused = true;
      r.dimensions = index->dimensions();
      r.index = std::move(index);
      return r;
    }
    r.rebuildReason = why;
  }
  if (options.readOnly) {
    r.error = options.indexDir.string() + ": not opened read-only (" + r.rebuildReason + ")";
    return r;
  }

  // Embedding: what the store lacks, through the run engine.
  std::error_code ec;
  fs::create_directories(options.indexDir, ec);
  store::RunRecord record;
  record.kind = kEmbedRunKind;
  record.settings = storeSettings(endpoint, settings, stamp, corpus.size());
  record.endpoint = llm::recordedEndpointJson(endpoint);  // key names, no credentials
  std::string storeReason;
  auto st = openEmbeddingStore(r.store, record, &storeReason, &r.error);
  if (!st) return r;
  if (!storeReason.empty()) r.rebuildReason += (r.rebuildReason.empty() ? "" : "; ") + storeReason;
  const std::size_t batches = (corpus.size() + settings.batch - 1) / settings.batch;
  // A store continued holds the plan already (its settings fix corpus and batch, so its keys):
  // the texts are only read and turned into requests for a new one.
  if (st->counts().total != batches) {
    // Added kPlanChunk items at a time, so the plan's texts are never all in memory at once (a
    // kill in between leaves a partial plan, completed here next time: keys present are kept).
    std::vector<store::NewItem> items;
    items.reserve(std::min(batches, kPlanChunk));
    for (std::size_t first = 0; first < corpus.size(); first += settings.batch) {
      const std::size_t count = std::min(settings.batch, corpus.size() - first);
      llm::LlmRequest request;
      request.kind = llm::EndpointKind::Embeddings;
      request.inputs.reserve(count);
      for (std::size_t i = first; i < first + count; ++i)
        request.inputs.push_back(documentEmbeddingText(settings, corpus.at(i)));
      items.push_back(
          {batchKey(first, count), kEmbedRunKind, exporting::jsonText(llm::toJson(request))});
      if (items.size() == kPlanChunk || first + count == corpus.size()) {
        if (!st->addItems(items, &r.error)) return r;
        items.clear();
      }
    }
  }
  const auto embedStart = Clock::now();
  {
    // The Batch API when asked for, or when this store's calls went there before (its batch is
    // polled again, never paid twice); the offline embedding is computed here either way.
    const auto batchRoute = llm::isOfflineEndpoint(endpoint)
                                ? std::nullopt
                                : eval::continuedBatchOptions(*st, options.batch);
    eval::RunSummary summary;
    std::string openBatch;  // a batch left running at the server by a stop
    if (batchRoute) {
      eval::BatchOptions b = *batchRoute;
      useEmbeddingAnswers(b);
      const eval::CallRoutes routes{kEmbedRunKind, endpoint, {}};
      // A batch whose call failed is asked again: the index needs every vector.
      eval::BatchPassResult pass =
          eval::runBatchPass(*st, routes, options.cache, b, true, options.budgetUsd,
                             options.transport, options.listener, options.stop);
      summary = std::move(pass.summary);
      for (const auto& ref : eval::readBatchState(*st).batches)
        if (!ref.imported && !ref.givenUp && !ref.id.empty()) openBatch = ref.id;
      r.batches = std::move(pass.batches);
      r.batchFiles = std::move(pass.files);
      r.batchNote = std::move(pass.note);
    } else {
      auto provider = std::make_unique<PackedEmbeddings>(
          embeddingProvider(endpoint, options.transport, options.cache, options.makeProvider,
                            std::make_shared<ReplyReference>()));
      eval::EngineOptions engine;
      engine.concurrency = static_cast<std::size_t>(std::max(1, endpoint.concurrency));
      engine.budgetUsd = options.budgetUsd;
      // A batch whose call failed is asked again: the index needs every vector.
      engine.retryErrors = true;
      summary = eval::executeRun(*st, *provider, engine, options.listener, options.stop);
      provider.reset();  // every callback has run before the store is read
    }
    r.embedSeconds = secondsSince(embedStart);
    // The plan's requests and the transfers' buffers are freed by now, but glibc keeps the
    // pages, and SQLite keeps up to 64 MiB of the store's: the vectors are read back once, in
    // order, so a small cache does; give the memory back before the index, the biggest
    // allocation, is built.
    (void)st->limitPageCache(2048);
    ::malloc_trim(0);
    r.fromCache = summary.progress.fromCache;
    r.calls = summary.progress.callsThisSession - summary.progress.fromCache;
    switch (summary.outcome) {
      case eval::RunOutcome::Cancelled:
        // A batch that expired or was cancelled at the server is no stop of ours: an error.
        r.cancelled = !batchRoute || options.stop.stop_requested();
        if (!openBatch.empty())
          r.error = "cancelled: batch " + openBatch + " keeps running at the server and " +
                    r.store.string() + " names it: the next build polls it again";
        else if (batchRoute && !options.stop.stop_requested())
          r.error = "the batch ended before every call was answered (" +
                    std::to_string(st->counts().pending + st->counts().cancelled) +
                    " batches of documents left): " + r.store.string() +
                    " keeps what it answered, the next build asks for the rest";
        else
          r.error = "cancelled: " + r.store.string() + " keeps every batch embedded";
        return r;
      case eval::RunOutcome::PausedBudget:
        r.paused = true;
        r.error =
            "paused: the budget is spent; " + r.store.string() + " keeps every batch embedded";
        if (batchRoute && !r.batchNote.empty())
          r.error += " (" + r.batchNote.substr(0, r.batchNote.find_last_not_of('\n') + 1) + ")";
        return r;
      case eval::RunOutcome::PausedBatch: {
        r.paused = true;
        std::string files;
        for (const auto& f : r.batchFiles) files += (files.empty() ? "" : ", ") + f.path.string();
        r.error = "paused: the calls " + r.store.string() + " lacks are in " +
                  (files.empty() ? std::string("batch files") : files) +
                  "; `ragscope-cli batch import " + r.store.string() +
                  " OUTPUT.jsonl` reads their answers, then the next build makes the index";
        return r;
      }
      case eval::RunOutcome::Failed:
        r.error = r.store.string() + ": " + summary.error;
        return r;
      case eval::RunOutcome::Done:
      case eval::RunOutcome::DoneWithErrors:
        break;
    }
  }

  // The index, from the stored vectors in corpus order.
  const auto indexStart = Clock::now();
  const store::RunCounts counts = st->counts();
  std::string err;
  // Stored vectors that fail the checks (written by an earlier session or another program) become
  // that batch's error, so the next build asks for it again instead of failing on it for good.
  std::optional<std::pair<std::int64_t, std::string>> refused;
  auto fail = [&](std::string why) {
    if (refused) {
      store::ItemResult bad;
      bad.itemId = refused->first;
      bad.status = store::ItemStatus::Error;
      bad.error = refused->second;
      bad.attempts = 0;
      std::string ignored;
      if (st->commitResults({bad}, &ignored)) why += " (asked again on the next build)";
    }
    if (counts.errors > 1)
      why = std::to_string(counts.errors) + " of " + std::to_string(counts.total) +
            " batches failed; the first: " + why;
    r.error = shownEndpoint(endpoint) + ": " + why;
    r.indexSeconds = secondsSince(indexStart);
    return r;
  };
  std::unique_ptr<VectorIndex> index;
  int dims = 0;
  std::size_t added = 0;
  auto create = [&](std::size_t d, std::string* error) {
    dims = static_cast<int>(d);
    VectorIndexManifest m = expected;
    m.dimensions = dims;
    index = VectorIndex::create(m, error);
    return index != nullptr;
  };
  bool stopped = false;
  // Batches are handed to FAISS kAddRows vectors at a time: each add() has a fixed cost (a
  // parallel region, HNSW's level assignment), worth paying for more than one request's worth.
  std::vector<float> rows;
  std::size_t pending = 0;
  auto flush = [&](std::string* error) {
    if (pending == 0) return true;
    if (!index->add(rows.data(), pending, error)) return false;
    added += pending;
    pending = 0;
    rows.clear();
    return true;
  };
  auto addBatch = [&](std::size_t, std::size_t count, std::vector<std::vector<float>>& vectors,
                      std::string* error) {
    if (!index && !create(vectors[0].size(), error)) return false;
    for (const auto& v : vectors) rows.insert(rows.end(), v.begin(), v.end());
    pending += count;
    if (pending < kAddRows) return true;
    if (!flush(error)) return false;
    if (options.stop.stop_requested() ||
        (options.indexProgress && !options.indexProgress(added, corpus.size()))) {
      stopped = true;
      *error = "cancelled";
      return false;
    }
    return true;
  };
  if (expected.ann == AnnKind::IvfPq) {
    // Training first, on an evenly spaced sample (ivfTrainingVectorsFor: kIvfTrainingBytes); the
    // second pass adds every vector.
    std::vector<float> sample;
    std::size_t sampled = 0, stride = 1;
    auto collect = [&](std::size_t first, std::size_t count,
                       std::vector<std::vector<float>>& vectors, std::string*) {
      if (dims == 0) {
        dims = static_cast<int>(vectors[0].size());
        VectorIndexManifest shape = expected;
        shape.dimensions = dims;
        const std::size_t cap = std::max<std::size_t>(1, ivfTrainingVectorsFor(shape));
        stride = (corpus.size() + cap - 1) / cap;
      }
      for (std::size_t i = 0; i < count; ++i)
        if ((first + i) % stride == 0) {
          sample.insert(sample.end(), vectors[i].begin(), vectors[i].end());
          ++sampled;
        }
      return !options.stop.stop_requested();
    };
    if (!readBatches(*st, corpus.size(), settings.batch, collect, &err, &refused)) {
      if (options.stop.stop_requested()) {
        r.cancelled = true;
        r.error = "cancelled";
        return r;
      }
      return fail(err);
    }
    normalizeRows(sample.data(), sampled, dims);  // the index trains on what it will hold
    if (!create(static_cast<std::size_t>(dims), &err) ||
        !index->train(sample.data(), sampled, &err))
      return fail("training the IVF-PQ index on " + std::to_string(sampled) + " vectors: " + err);
  }
  if (!readBatches(*st, corpus.size(), settings.batch, addBatch, &err, &refused)) {
    if (stopped) {
      r.cancelled = true;
      r.error = "cancelled while building the index (the embeddings are kept)";
      r.indexSeconds = secondsSince(indexStart);
      return r;
    }
    return fail(err);
  }
  if (!flush(&err)) return fail(err);
  if (options.indexProgress) options.indexProgress(added, corpus.size());
  if (!index->save(r.dir, &err)) return fail("saving the index: " + err);
  r.indexSeconds = secondsSince(indexStart);
  r.dimensions = dims;
  r.index = std::move(index);
  r.ok = true;
  return r;
}

namespace {

// The checks every live reply passes (CheckedEmbeddings), for every imported answer: one that
// fails them is stored as failed, never cached, and asked again by the next build.
std::function<std::string(const llm::LlmRequest&, const llm::LlmResponse&)> embeddingCheck() {
  return [ref = std::make_shared<ReplyReference>()](const llm::LlmRequest& request,
                                                    const llm::LlmResponse& reply) {
    std::lock_guard lock(ref->mutex);
    const std::string problem =
        vectorsProblem(reply.embeddings, request.inputs.size(), reply.model, *ref);
    return problem.empty() ? problem : "bad embeddings reply: " + problem;
  };
}

}  // namespace

void useEmbeddingAnswers(eval::BatchOptions& options) {
  options.checkAnswer = embeddingCheck();
  options.storedForm = keepPacked;
}

void useEmbeddingAnswers(eval::BatchImportOptions& options) {
  options.checkAnswer = embeddingCheck();
  options.storedForm = keepPacked;
}

struct QueryEmbedder::Impl {
  EmbedderSettings settings;
  llm::EndpointConfig endpoint;
  std::unique_ptr<llm::Provider> provider;
};

QueryEmbedder::QueryEmbedder(EmbedderSettings settings, llm::TransportOptions transport,
                             llm::ResponseCache* cache)
    : m_impl(std::make_unique<Impl>()) {
  m_impl->endpoint = embeddingEndpoint(settings);
  m_impl->settings = std::move(settings);
  m_impl->provider =
      embeddingProvider(m_impl->endpoint, transport, cache, {}, std::make_shared<ReplyReference>());
}

QueryEmbedder::~QueryEmbedder() = default;

bool QueryEmbedder::embed(const std::string& text, int dimensions, std::vector<float>* vector,
                          std::string* error) {
  llm::LlmRequest request;
  request.kind = llm::EndpointKind::Embeddings;
  request.inputs.push_back(m_impl->settings.queryPrefix + text);
  auto promise = std::make_shared<std::promise<llm::LlmResponse>>();
  auto answer = promise->get_future();
  m_impl->provider->submit(std::move(request),
                           [promise](llm::LlmResponse r) { promise->set_value(std::move(r)); });
  llm::LlmResponse r = answer.get();
  auto fail = [&](const std::string& why) {
    if (error) *error = shownEndpoint(m_impl->endpoint) + ": " + why;
    return false;
  };
  if (r.status != llm::CallStatus::Ok) return fail(r.error.empty() ? "the call failed" : r.error);
  // The reply checks made it one finite, non-empty vector.
  if (r.embeddings.size() != 1)
    return fail(std::to_string(r.embeddings.size()) + " vectors for 1 text");
  std::vector<float>& v = r.embeddings[0];
  if (dimensions > 0 && v.size() != static_cast<std::size_t>(dimensions))
    return fail("the query vector has " + std::to_string(v.size()) + " components, the index's " +
                std::to_string(dimensions));
  for (float x : v)
    if (!std::isfinite(x)) return fail("the query vector has a NaN or infinite component");
  normalizeRows(v.data(), 1, static_cast<int>(v.size()));
  *vector = std::move(v);
  return true;
}

}  // namespace ragscope::core
