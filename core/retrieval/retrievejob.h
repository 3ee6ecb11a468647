#pragma once
// A retriever over a dataset's queries, as one job: open the retriever (building or reusing the
// BM25 index), retrieve the top k for every query, and write the run as a TREC file. The one code
// path behind `ragscope-cli retrieve`, the workbench's retrieval jobs, and the retrieval step of
// eRAG, end-to-end and claim jobs, so every front end turns the same settings into the same run.
//
// Retrievers that call an endpoint (es, http, dense other than offline, a hybrid with one of
// those) are resumable: the answers go to a checkpoint beside the run (`<out>.partial`) as they
// arrive, and a job started again with the same settings (and, for those searching a local
// index, the same corpus) asks only for the queries not yet answered
// (core/retrieval/retrievecheckpoint.h).
//
//   RetrieveJobOptions o; o.k = 100; o.out = "runs/bm25.trec";
//   RetrieveJobResult r = runRetrieveJob(spec, dataset, datasetPaths.front(), o);
//   if (!r.ok) fail(r.error);            // r.run.report: the queries that failed

#include <cstddef>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>

#include "core/data/dataset.h"
#include "core/retrieval/retrieverspec.h"

namespace ragscope::core {

struct RetrieveJobOptions {
  std::size_t k = 100;
  unsigned threads = 4;  // queries in flight at once
  std::string tag;       // run tag; empty: the spec's name, else its kind ("bm25", "es", "http")
  std::filesystem::path out;  // where the TREC run is written; empty: not written
  bool resume = true;         // es/http with `out`: keep answers in `<out>.partial`, reuse them
  std::function<std::string()>
      apiKey;                   // es/http: the key in memory (keychain), else the spec's variable
  ProgressFn indexProgress;     // bm25: documents indexed / total; dense: vectors added / total
                                // (neither called when the index is reused)
  ProgressFn embedProgress;     // dense: embedding requests done / total (IndexBuildOptions)
  ProgressFn retrieveProgress;  // queries done / total (resumed ones count as done)
  std::stop_token stop;
  // dense: the corpus's embedding calls through the Batch API (DenseIndexOptions::batch); null:
  // live calls.
  std::shared_ptr<const eval::BatchOptions> embedBatch;
};

struct RetrieveJobResult {
  bool ok = false;  // a run was made (some queries may have failed: run.report)
  bool cancelled = false;
  std::string
      error;  // when !ok and !cancelled: the retriever could not be opened, or the run not written
  IndexBuildResult index;   // bm25 (hybrid: its first bm25 member's)
  DenseIndexResult dense;   // dense (hybrid: its first dense member's)
  Loaded<Run> run;          // the report holds every failed query (an error each) and warnings
  std::size_t resumed = 0;  // queries answered from an earlier, interrupted job
  std::filesystem::path checkpoint;  // kept (and named here) while queries remain to be asked
  std::vector<std::string> notes;    // index folder, resume and checkpoint notes, for the log
  double seconds = 0.0;
  nlohmann::json setting;  // for run records: the spec (no secrets), k, tag, index and fingerprint
};

// One query through a retriever, for a "test" button: the hits, how long the search took, or why
// it failed. Opening the retriever is part of it (a BM25 index may be built first: `index`).
struct RetrieverProbe {
  bool ok = false;
  bool cancelled = false;
  std::string error;
  std::vector<ScoredDoc> hits;
  double searchMs = 0.0;  // the search alone, not the index build
  IndexBuildResult index;
  std::vector<std::string> notes;  // OpenedRetriever::notes
};
RetrieverProbe probeRetriever(const RetrieverSpec& spec, const Dataset& dataset,
                              const std::filesystem::path& firstPath, const std::string& queryText,
                              std::size_t k, const IndexBuildOptions& indexOptions = {},
                              std::function<std::string()> apiKey = {});

// The checkpoint's name for a run written to `out`.
std::filesystem::path retrieveCheckpointPath(const std::filesystem::path& out);

RetrieveJobResult runRetrieveJob(const RetrieverSpec& spec, const Dataset& dataset,
                                 const std::filesystem::path& firstPath,
                                 const RetrieveJobOptions& options);

}  // namespace ragscope::core
