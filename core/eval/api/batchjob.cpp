#include "core/eval/api/batchjob.h"

#include "core/llm/responsecache.h"
#include "core/retrieval/corpusembedding.h"

namespace ragscope::core::eval {

CallRoutes storedCallRoutes(const StoredJob& job) {
  return {job.record.kind, job.settings.endpoint, recordedCallRoutes(job.record.settings)};
}

BatchImportSummary importBatchFiles(StoredJob& job, const std::vector<std::filesystem::path>& files,
                                    std::string* cacheNote) {
  const CallRoutes routes = storedCallRoutes(job);
  // The cache a resume of this run would use: the job's endpoint's, else a route's.
  std::string note;
  auto cache = openJobCache(job.settings.endpoint, job.settings.limits, &note);
  for (const auto& [route, endpoint] : routes.routes)
    if (!cache) cache = openJobCache(endpoint, job.settings.limits, &note);
  if (cacheNote) *cacheNote = note;
  std::vector<BatchOutputSource> sources;
  for (const auto& f : files) sources.push_back({f.string(), f});
  // Answers enter the shared cache only for a store whose endpoints this user chose or confirmed
  // (as a resume needs), and only for calls sealed here (importBatchOutput).
  BatchImportOptions options;
  options.endpointTrusted = job.endpointTrusted;
  if (!job.endpointTrusted)
    options.untrustedNote = untrustedEndpointMessage(job) +
                            " (`batch import --trust-endpoint` confirms it, when you know it)";
  // A dense index's embeddings store: each answer checked and stored as live ones are.
  if (job.record.kind == kEmbeddingStoreKind) useEmbeddingAnswers(options);
  return importBatchOutput(*job.store, routes, cache.get(), sources, options);
}

std::vector<BatchRef> storedBatches(StoredJob& job, const llm::TransportOptions& transport,
                                    bool cancel, std::string* error) {
  if (!job.endpointTrusted) {
    if (error) *error = untrustedEndpointMessage(job);
    return readBatchState(*job.store).batches;
  }
  return refreshBatches(*job.store, storedCallRoutes(job), transport, cancel, error);
}

}  // namespace ragscope::core::eval
