#pragma once
// The batch commands over a stored run (core/eval/engine/README.md, "Batch runs"): the results of a
// batch file read into it, and its batches asked about or cancelled. Exporting its calls and
// sending them as batches are resumeJob with ExecutionOptions::batch (core/eval/api/job.h). Both
// front ends call these; no Qt.
//
//   auto job = openStoredJob("run.db", {}, &error);
//   BatchImportSummary s = importBatchFiles(*job, {"results.jsonl", "errors.jsonl"});

#include <filesystem>
#include <string>
#include <vector>

#include "core/eval/api/job.h"
#include "core/eval/engine/batchrun.h"

namespace ragscope::core::eval {

// Where a stored run's calls go: its endpoint and its judging routes.
CallRoutes storedCallRoutes(const StoredJob& job);

// Reads the output (and error) files of a batch into the run, and into the response cache when
// the run's endpoint is trusted here (job.endpointTrusted, as for resumeJob) and its calls were
// sealed here (importBatchOutput); an untrusted store's answers enter the store only, with the
// summary's cacheNote naming the endpoint. `cacheNote` says why the cache could not be opened.
BatchImportSummary importBatchFiles(StoredJob& job, const std::vector<std::filesystem::path>& files,
                                    std::string* cacheNote = nullptr);

// The run's batches as the server reports them now (or after a cancel request). Needs a trusted
// endpoint, as every request does (the caller checks job.endpointTrusted).
std::vector<BatchRef> storedBatches(StoredJob& job, const llm::TransportOptions& transport,
                                    bool cancel, std::string* error);

}  // namespace ragscope::core::eval
