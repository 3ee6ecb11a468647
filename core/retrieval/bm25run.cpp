#include "core/retrieval/bm25run.h"

namespace ragscope::core {

Bm25RunResult retrieveWithBm25(const Dataset& dataset, const Bm25RunOptions& options) {
  Bm25RunResult result;
  if (dataset.corpus.empty()) {
    result.error = "bm25 needs a corpus, and the dataset has no documents";
    return result;
  }
  IndexBuildOptions build;
  build.progress = options.indexProgress;
  build.stop = options.stop;
  result.index = openOrBuildIndex(dataset.corpus, options.indexDir, build);
  if (!result.index.ok) {
    result.cancelled = result.index.cancelled;
    result.error = result.index.error;
    return result;
  }
  std::string error;
  auto bm25 = XapianRetriever::open(result.index.dir, options.params, &error);
  if (!bm25) {
    result.error = error;
    return result;
  }
  RetrieveOptions ro;
  ro.k = options.k;
  ro.threads = options.threads;
  bool declined = false;  // the progress callback asked to stop
  if (options.retrieveProgress)
    ro.progress = [&](std::uint64_t done, std::uint64_t total) {
      declined = !options.retrieveProgress(done, total);
      return !declined;
    };
  ro.stop = options.stop;
  result.run = retrieveAll(*bm25, dataset.queries, ro);
  if (declined || options.stop.stop_requested()) {
    result.cancelled = true;
    return result;
  }
  result.setting = {{"retriever", "bm25"},
                    {"index", result.index.dir.string()},
                    {"fingerprint", result.index.fingerprint},
                    {"k1", options.params.k1},
                    {"b", options.params.b}};
  result.ok = true;
  return result;
}

}  // namespace ragscope::core
