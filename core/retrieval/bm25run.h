#pragma once
// A dataset's queries through the embedded BM25 (Xapian) over its own corpus, as one step: open
// or build the index, then retrieve the top k for every query. Shared by ragscope-cli erag/e2e
// (--retriever bm25) and the GUI's eRAG page, so both turn the same dataset into the same run.
//
//   Bm25RunOptions o; o.indexDir = chooseIndexDir(dataset.parts.front().path, dataset.corpus);
//   o.k = 5;
//   Bm25RunResult r = retrieveWithBm25(dataset, o);
//   if (!r.ok) fail(r.error);   // r.run.value: the run, tag "bm25"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>

#include "core/data/dataset.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/xapianindex.h"

namespace ragscope::core {

struct Bm25RunOptions {
  std::filesystem::path indexDir;
  std::size_t k = 100;
  unsigned threads = 2;
  Bm25Params params;
  ProgressFn indexProgress;     // documents indexed / total (not called when the index is reused)
  ProgressFn retrieveProgress;  // queries done / total
  std::stop_token stop;
};

struct Bm25RunResult {
  bool ok = false;
  bool cancelled = false;
  std::string error;       // when !ok and !cancelled
  IndexBuildResult index;
  Loaded<Run> run;         // its report holds the queries that failed
  nlohmann::json setting;  // how the run was made, for run records: retriever, index, fingerprint, k1, b
};

Bm25RunResult retrieveWithBm25(const Dataset& dataset, const Bm25RunOptions& options);

}  // namespace ragscope::core
