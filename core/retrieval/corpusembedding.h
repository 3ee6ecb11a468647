#pragma once
// Embedding a corpus and its queries through an OpenAI-compatible /v1/embeddings endpoint (or the
// offline hashed bag of words), for the dense retriever (core/retrieval/README.md, "Dense
// retrieval"). The corpus goes through the run engine (core/eval/engine/runengine.h) like every
// other call a job makes: one work item per batch of `batch` documents in a run store kept in the
// index folder, so concurrency, retries, rate limits, the budget, the response cache, progress,
// cancel and kill -9 + resume are the engine's (a resumed embedding sends only the batches without
// a stored result). The vectors are the stored results: written as they arrive, read back in corpus
// order into the FAISS index (vectorindex.h) once every batch has one.
//
//   EmbedderSettings s;  s.endpoint.baseUrl = "http://127.0.0.1:8000/v1"; s.endpoint.model = "e5";
//   s.docPrefix = "passage: ";  s.queryPrefix = "query: ";
//   DenseIndexResult r = buildDenseIndex(corpus, s, {.indexDir = dir, .ann = AnnKind::Flat});
//   QueryEmbedder q(s, cache);  q.embed("what is ...", &vector, &error);
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/eval/engine/batchrun.h"
#include "core/llm/httpprovider.h"
#include "core/llm/provider.h"
#include "core/retrieval/vectorindex.h"

namespace ragscope::core::llm {
class ResponseCache;
}
namespace ragscope::core::eval {
class ProgressListener;
}

namespace ragscope::core {

inline constexpr std::size_t kDefaultEmbedBatch = 64;
// The kind an index's embeddings store records (store::RunRecord::kind).
inline constexpr const char* kEmbeddingStoreKind = "embed";

// How texts become vectors. Part of the index manifest (all but the key source and limits), so an
// index made by other settings is never reused.
struct EmbedderSettings {
  // kind Embeddings; baseUrl "offline": the deterministic hashed bag of words
  // (llm::offlineEmbedding), no server.
  llm::EndpointConfig endpoint;
  std::string docPrefix;    // prepended to each document's text ("passage: " for e5)
  std::string queryPrefix;  // prepended to each query ("query: "; bge: an instruction)
  std::size_t batch = kDefaultEmbedBatch;  // inputs per request
};

// The text embedded for a document: prefix + title + "\n" + text (title and newline only when
// the document has a title).
std::string documentEmbeddingText(const EmbedderSettings& settings, const Document& doc);

struct DenseIndexOptions {
  // Where the index (vectors/) and its embeddings store (embeddings.db, a run store keyed
  // "docs:<first>-<last>") live.
  std::filesystem::path indexDir;
  std::optional<AnnKind> ann;  // unset: defaultAnnKind(corpus size)
  AnnParams params;
  bool rebuild = false;  // ignore an index already there (its store is kept)
  // Only open: an index in indexDir that does not match (or rebuild) fails (error,
  // rebuildReason) with nothing created or written, the trust registry included (a folder a file
  // names: RetrieverSpec::indexDirFromFile).
  bool readOnly = false;
  llm::TransportOptions transport;      // key callback, log
  llm::ResponseCache* cache = nullptr;  // answers of earlier identical requests (may be null)
  std::optional<double> budgetUsd;
  eval::ProgressListener* listener = nullptr;  // the engine's progress (embedding calls)
  ProgressFn indexProgress;                    // vectors added / total while building the index
  std::stop_token stop;
  // BatchMode::Api: the batches the store lacks go through the endpoint's Batch API (issue 28's
  // route, core/eval/engine/batchrun.h: upload, create, poll, download, import into the store;
  // priced at the endpoint's batch prices, the budget checked before a batch is submitted) instead
  // of live calls. The batch is recorded in the store, so a stopped or killed build's rerun polls
  // it again (a store whose calls went there continues there even when Live). BatchMode::File
  // writes the calls the store lacks as batch input files and stops (DenseIndexResult::paused,
  // batchFiles); `ragscope-cli batch import <indexDir>/embeddings.db OUTPUT.jsonl`
  // (eval::importBatchFiles) reads the answers and the next build makes the index. Imported vectors
  // pass the same checks as live replies (useEmbeddingAnswers). Not used for the offline embedding,
  // computed here.
  eval::BatchOptions batch;
  // Test hook: the provider to use instead of the one the endpoint describes.
  std::function<std::unique_ptr<llm::Provider>(const llm::EndpointConfig&)> makeProvider;
};

struct DenseIndexResult {
  bool ok = false;
  // The index, open and ready to search (ok only): the one reused or the one just built.
  std::shared_ptr<VectorIndex> index;
  bool reused = false;     // the index in indexDir matched: nothing embedded or built
  bool cancelled = false;  // stopped: the store keeps every batch finished, a rerun continues
  bool paused = false;     // the budget stopped it, or the calls went to batch files
  // Names the store, batch and field ("...embeddings.db: batch docs:0-63: 63 vectors for 64
  // texts").
  std::string error;
  std::string rebuildReason;  // why the index (or the embeddings store) in the folder was not used
  std::string trustNote;      // the endpoint could not be recorded as trusted (why)
  std::filesystem::path dir;  // the index's own folder: <indexDir>/vectors
  std::filesystem::path store;  // the embeddings run store: <indexDir>/embeddings.db
  std::size_t documents = 0;
  std::size_t calls = 0;      // embedding requests sent in this session (Batch API: answered)
  std::size_t fromCache = 0;  // batches answered by the response cache
  double embedSeconds = 0.0;  // the engine's part
  double indexSeconds = 0.0;  // reading the vectors and building the FAISS index
  int dimensions = 0;
  // Batch API: the batches submitted or polled in this session, and notes for people (a batch
  // left running at the server, answers not cached).
  std::vector<eval::BatchRef> batches;
  std::vector<eval::BatchFilePart> batchFiles;  // BatchMode::File: the files written
  std::string batchNote;
};

// Opens the index in options.indexDir when its manifest matches these settings and this corpus,
// else embeds what the folder's embeddings store lacks and builds the index. Refused (error, no
// index): a reply with another number of vectors than texts, vectors of another size than the
// first reply's, a NaN or infinite component, a reply naming another model than the first. Such
// a batch is stored as failed (the good ones are kept) and asked again by the next build.
DenseIndexResult buildDenseIndex(const Corpus& corpus, const EmbedderSettings& settings,
                                 const DenseIndexOptions& options);

// What a batch pass or a batch file import into an embeddings store does with each answer, as
// live embedding does: the reply checks of buildDenseIndex (count, size, finite, one model; the
// pass's first good answer is the reference), and the packed stored form (storedvectors.h) in
// which the index reads its vectors back. buildDenseIndex and the batch commands over
// `<indexDir>/embeddings.db` (core/eval/api/batchjob.h, core/eval/api/job.h) use them.
void useEmbeddingAnswers(eval::BatchOptions& options);
void useEmbeddingAnswers(eval::BatchImportOptions& options);

// Embeds queries one at a time (each a single-input request through the response cache, so a
// second run on the same queries sends nothing). Thread-safe: the retriever's workers share it.
class QueryEmbedder {
 public:
  QueryEmbedder(EmbedderSettings settings, llm::TransportOptions transport,
                llm::ResponseCache* cache);
  ~QueryEmbedder();
  // The unit-length vector of settings.queryPrefix + text; false + *error (naming the endpoint)
  // on a failed call, a reply of the wrong shape or size (`dimensions` > 0: the index's).
  bool embed(const std::string& text, int dimensions, std::vector<float>* vector,
             std::string* error);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace ragscope::core
