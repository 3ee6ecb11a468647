#include "core/retrieval/bm25run.h"

#include "core/retrieval/retrieverspec.h"

namespace ragscope::core {

Bm25RunResult retrieveWithBm25(const Dataset& dataset, const Bm25RunOptions& options) {
  Bm25RunResult result;
  RetrieverSpec spec;
  spec.bm25 = options.params;
  spec.indexDir = options.indexDir;
  IndexBuildOptions build;
  build.progress = options.indexProgress;
  build.stop = options.stop;
  OpenedRetriever opened = openRetriever(spec, dataset, options.indexDir, build);
  result.index = opened.index;
  if (!opened.retriever) {
    result.cancelled = opened.cancelled;
    result.error = opened.error;
    return result;
  }
  Retriever* bm25 = opened.retriever.get();
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
