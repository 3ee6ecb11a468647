#pragma once
// Embedded BM25 through Xapian over any loaded corpus. The index lives in a folder of its own
// (by default beside the dataset: `<dataset>.ragscope-index/`) holding the Xapian database and a
// manifest.json with a fingerprint of the corpus and the analysis settings; opening it again with
// an unchanged corpus reuses it, anything else rebuilds it.
//
//   IndexBuildOptions o; o.progress = ...;
//   IndexBuildResult built = openOrBuildIndex(dataset.corpus, "/data/dl19.ragscope-index", o);
//   if (!built.ok) fail(built.error);
//   auto bm25 = XapianRetriever::open(built.dir, Bm25Params{}, &error);
//   Loaded<Run> run = retrieveAll(*bm25, dataset.queries, {});

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/retrieval/retriever.h"

namespace ragscope::core::eval {
struct BatchOptions;
}

namespace ragscope::core {

// Xapian::BM25Weight's parameters, defaulting to Xapian's own defaults (k1=1, k2=0, k3=1, b=0.5,
// min_normlen=0.5). Classic Robertson: k1=1.2, b=0.75. Anserini's MS MARCO setting: k1=0.9, b=0.4.
struct Bm25Params {
  double k1 = 1.0;
  double k2 = 0.0;
  double k3 = 1.0;
  double b = 0.5;
  double minNormLen = 0.5;
};

struct IndexBuildOptions {
  // Reports documents indexed / documents total, from the calling thread, at every 500 documents
  // indexed over all workers; return false to cancel (the folder is left as it was: a build
  // writes to a temporary folder renamed into place at the end).
  ProgressFn progress;
  // Dense retrievers (retrieverspec.h): embedding requests done / total, about ten times a
  // second from the embedding's thread; return false to cancel. `progress` then reports the
  // vectors added to the FAISS index.
  ProgressFn embedProgress;
  // Dense retrievers: the corpus's embedding calls through the Batch API
  // (core/eval/engine/batchrun.h, DenseIndexOptions::batch) instead of live calls; null: live.
  std::shared_ptr<const eval::BatchOptions> embedBatch;
  std::stop_token stop;
  bool forceRebuild = false;
  // Only open: when `dir` holds no index matching the corpus (or forceRebuild), fail (error and
  // rebuildReason say why) without creating or writing anything (a folder a file names:
  // RetrieverSpec::indexDirFromFile).
  bool readOnly = false;
  // English Porter2 stemming of documents and queries (Xapian's STEM_SOME); off: words as written.
  // Part of the index's analysis settings: an index built the other way is rebuilt, never reused.
  bool stemming = true;
  // Worker threads indexing at once; 0 = one per core (std::thread::hardware_concurrency()).
  // They index contiguous ranges of the corpus (shards of about 100,000 documents) into databases
  // of their own, merged in corpus order at the end, so docids, rankings and scores are the same
  // for any number of threads.
  unsigned threads = 0;
};

struct IndexBuildResult {
  bool ok = false;
  bool reused = false;  // the manifest matched: nothing was built
  bool cancelled = false;
  std::string error;  // when !ok and !cancelled
  std::filesystem::path dir;
  std::size_t documents = 0;
  std::uint64_t bytes = 0;  // size of the folder on disk
  double buildSeconds = 0;  // this build's wall time (0 when reused)
  std::string fingerprint;
  std::string rebuildReason;  // why an existing folder was not reused ("corpus changed", ...)
};

// "<count>-<64-bit hash hex>" over every document's id, title and text (length-prefixed, so
// moving bytes between fields changes it). Cheap next to indexing: one pass over the bytes.
std::string corpusFingerprint(const Corpus& corpus);

// `<first part>.ragscope-index` beside a dataset's first file or folder (trailing slashes ignored).
std::filesystem::path defaultIndexDir(const std::filesystem::path& datasetPath);

// Opens the index in `dir` when its manifest names this corpus and our analysis settings, else
// builds it (English Porter2 stemming, a small English stopword list, no positions).
IndexBuildResult openOrBuildIndex(const Corpus& corpus, const std::filesystem::path& dir,
                                  const IndexBuildOptions& options = {});

// True when `dir` holds an index whose manifest matches `corpus` (no building).
bool indexMatches(const Corpus& corpus, const std::filesystem::path& dir,
                  std::string* why = nullptr, bool stemming = true);

// BM25 over an index built by openOrBuildIndex. Queries go through Xapian's QueryParser (OR of the
// terms, stemming as indexed, stopwords dropped, no query syntax: punctuation in questions is
// text, not operators). Thread-safe: each concurrent search borrows its own database handle.
class XapianRetriever : public Retriever {
 public:
  static std::unique_ptr<XapianRetriever> open(const std::filesystem::path& dir,
                                               const Bm25Params& params, std::string* error,
                                               const Corpus* corpus = nullptr);
  ~XapianRetriever() override;

  std::string name() const override { return "bm25"; }
  std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) override;

  std::size_t documentCount() const { return m_documents; }
  bool stemming() const { return m_stemming; }
  const Bm25Params& params() const { return m_params; }

  struct Handle;

 private:
  XapianRetriever() = default;
  std::unique_ptr<Handle> borrow(std::string* error);
  void giveBack(std::unique_ptr<Handle> h);

  std::filesystem::path m_dbDir;
  Bm25Params m_params;
  bool m_stemming = true;  // as the index was built (its manifest)
  const Corpus* m_corpus = nullptr;
  std::size_t m_documents = 0;
  std::mutex m_mutex;
  std::vector<std::unique_ptr<Handle>> m_pool;
};

// The stopwords used for indexing and queries (lower case).
const std::vector<std::string>& englishStopwords();

}  // namespace ragscope::core
