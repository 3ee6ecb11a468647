#pragma once
// A run's calls through batch files and the Batch API (core/eval/engine/README.md, "Batch runs").
// The calls a run store still has to make are written as Batch API input lines (custom_id = the
// item's key, body = the exact bytes the live call sends); output lines are read back into the
// store and the response cache exactly as live answers are. Calls that need no endpoint (offline
// heuristics, answers the response cache holds) are answered here first, so a batch only holds
// what costs money.
//
//   File route:  runJob / resumeJob with BatchMode::File write the file and stop ("paused:
//                batch"); importBatchOutput reads the results; resumeJob then finishes.
//   Batch API:   BatchMode::Api uploads, creates, polls, downloads and imports, one batch per
//                phase (and per endpoint); the ids live in the store (run_data "batch"), so a
//                killed process polls the same batch again instead of paying twice.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "core/eval/engine/runengine.h"
#include "core/llm/batchformat.h"
#include "core/llm/httpprovider.h"
#include "core/llm/offline.h"
#include "core/llm/provider.h"
#include "core/llm/requestseal.h"
#include "core/store/runstore.h"

namespace ragscope::core::llm {
class ResponseCache;
}

namespace ragscope::core::eval {

enum class BatchMode { Live, File, Api };

// One poll of a batch, for people.
struct BatchStatusUpdate {
  std::string batchId;
  std::string status;
  llm::BatchRequestCounts counts;
  double nextPollSeconds = 0.0;
};

struct BatchOptions {
  BatchMode mode = BatchMode::Live;
  std::filesystem::path file;  // File: the (first) file written; more parts get -2, -3, ...
  std::size_t maxLines = llm::kBatchMaxLines;
  std::uint64_t maxBytes = llm::kBatchMaxFileBytes;
  bool submitOnly = false;          // Api: stop once the batches exist (`batch submit`)
  double pollInitialSeconds = 5.0;  // then x1.5 per poll, up to pollMaxSeconds
  double pollMaxSeconds = 300.0;
  // A batch's output or error file is streamed to a file beside the store (never held in memory)
  // and refused beyond this size.
  std::uint64_t maxDownloadBytes = std::uint64_t{2} << 30;
  std::function<void(const BatchStatusUpdate&)> onStatus;  // each poll, on the calling thread
  // A multi-phase job's planner (judging): adds the items the answers so far allow and returns
  // true when it added any; called after the local answers, so calls that became plannable go
  // in the same batch (one batch per phase). Non-empty *error stops the pass.
  std::function<bool(std::string* error)> planMore;
  // A stage's own checks of an answer (the dense index's embeddings: count, size, finite, model;
  // core/retrieval/corpusembedding.h): "" or the error the call is recorded with instead, as a
  // live reply failing the same check is. Such an answer never enters the response cache.
  std::function<std::string(const llm::LlmRequest&, const llm::LlmResponse&)> checkAnswer;
  // The form a stage keeps its answers in (the dense index's vectors, packed:
  // core/retrieval/storedvectors.h), applied to every answer the pass stores (imported after
  // checkAnswer, or found in the response cache) just before it is stored; it may turn the answer
  // into a failed call. The response cache keeps the reply as it came.
  std::function<void(llm::LlmResponse&)> storedForm;
};

// The batch options a stage runs with: `asked` when it names a batch mode, else the Batch API
// when the store's calls went there before or a batch of it is open (polled again, never sent
// twice), else none (live calls).
std::optional<BatchOptions> continuedBatchOptions(store::RunStore& store,
                                                  const BatchOptions& asked);

// Where a store's calls go: the job's endpoint and, for judging, its routes ("generator",
// "embedder", "reranker"), as llm::RoutingProvider sends them.
struct CallRoutes {
  std::string kind;  // the job kind's name (decides the offline role of the main endpoint)
  llm::EndpointConfig main;
  std::vector<std::pair<std::string, llm::EndpointConfig>> routes;
  const llm::EndpointConfig& endpointFor(const std::string& route) const;
  llm::OfflineRole offlineRoleFor(const std::string& route) const;
};
// A judging run's endpoints besides its judge, by route, from its record's settings.
std::vector<std::pair<std::string, llm::EndpointConfig>> recordedCallRoutes(
    const nlohmann::json& settings);

// A file of calls written for the file route.
struct BatchFilePart {
  std::filesystem::path path;
  std::string route;    // empty: the job's endpoint
  std::string url;      // "/v1/chat/completions", "/v1/embeddings"
  std::string baseUrl;  // the endpoint the calls were made for, credentials redacted
  std::string model;
  std::size_t lines = 0;
  std::uint64_t bytes = 0;
};

// A batch submitted to the Batch API, as the store keeps it.
struct BatchRef {
  std::string id;
  std::string inputFileId;
  std::string route;
  std::string url;
  std::string status;
  std::string outputFileId;
  std::string errorFileId;
  std::size_t lines = 0;
  llm::BatchRequestCounts counts;
  bool imported = false;
  // Completed, but its files hold no result for some of its calls (no output_file_id, a short
  // file): an error that names it at every resume, never a reason to send its calls again.
  bool resultsMissing = false;
  // The user gave such a batch up (`batch cancel`): its calls may go in a new batch.
  bool givenUp = false;
  std::string created;  // ISO 8601 UTC
};

// run_data "batch": {"mode": "file"|"api", "batches": [...], "files": [...]}.
struct BatchState {
  std::string mode;
  std::vector<BatchRef> batches;
  std::vector<BatchFilePart> files;
  bool hasOpenBatch() const;  // a batch submitted and neither imported nor given up
};
inline constexpr const char* kBatchStateData = "batch";
// The state a store holds (empty when none, or when what it holds is not a batch state: *error
// then says why).
BatchState readBatchState(store::RunStore& store, std::string* error = nullptr);
bool writeBatchState(store::RunStore& store, const BatchState& state, std::string* error);

// The seals of the calls a store's batches hold (core/llm/requestseal.h), by custom_id: run_data
// "batch_requests", {"version": 1, "seals": {"<custom_id>": "<seal>"}}.
inline constexpr const char* kBatchRequestsData = "batch_requests";

// Where output lines come from: a file, read a line at a time (each at most
// BatchImportOptions::maxLineBytes), never whole; downloads are streamed to a file first.
struct BatchOutputSource {
  std::string name;  // for messages (empty: the path)
  std::filesystem::path path;
};

// What an import may do besides filling the store.
struct BatchImportOptions {
  // The store's endpoints are ones this machine's user configured, used or confirmed, as a resume
  // requires (core/llm/trustedendpoints.h). Without it the answers enter the store only, never
  // the shared response cache; `untrustedNote` then says which endpoint (for the summary).
  bool endpointTrusted = false;
  std::string untrustedNote;
  // This machine's request seal secret (core/llm/requestseal.h).
  std::filesystem::path sealPath = llm::RequestSeal::defaultPath();
  std::size_t maxLineBytes = llm::kBatchMaxOutputLineBytes;
  // BatchOptions::checkAnswer: an answer it refuses is recorded as a failed call, its error
  // naming the file and line. BatchOptions::storedForm: as there.
  std::function<std::string(const llm::LlmRequest&, const llm::LlmResponse&)> checkAnswer;
  std::function<void(llm::LlmResponse&)> storedForm;
};

struct BatchImportSummary {
  std::string error;  // non-empty: nothing was changed
  std::size_t lines = 0;
  std::size_t answered = 0;         // calls answered by this import
  std::size_t failed = 0;           // calls recorded as failed by this import
  std::size_t alreadyAnswered = 0;  // lines for calls the store had answered: skipped
  std::size_t unchanged = 0;        // failed lines for calls already recorded as failed
  std::size_t stillPending = 0;     // calls of the store with no result afterwards
  std::size_t stillFailed = 0;
  // "FILE:LINE: why" of the first line this import recorded as a failed call (a failed line, a
  // malformed reply, an answer the stage's checks refused).
  std::string firstFailure;
  std::size_t cached = 0;     // answers that entered the response cache
  std::size_t notCached = 0;  // answers that entered this store only
  std::string cacheNote;      // why answers did not enter the cache (empty when all did)
  bool ok() const { return error.empty(); }
};

// Streams every line of every source into one transaction, a piece at a time (memory bounded by
// the line cap, whatever the file's size): a line that is not an output line, a custom_id that
// is not a call of this store (named), or one given twice rolls all of it back, so the import is
// all or nothing. Answers enter the store as live answers do (the reply parsed as a live reply,
// llm::responseFromReply; priced at the endpoint's batch prices); failed lines are recorded as
// errors with their message. Lines for calls the store has answered are skipped, so importing a
// file again changes nothing.
// Once committed, an answer also enters the response cache (a second read of the files) only
// when (1) the store's endpoint is trusted here (options.endpointTrusted), (2) the seal recorded
// for its call when it was exported or submitted matches the call the store holds now (so this
// machine's user asked exactly this request of this endpoint and model), and (3) the reply names
// the model asked (llm::replyModelMatches). Otherwise it enters the store only (counted in
// notCached, with cacheNote saying why): an output file never writes answers for requests
// nobody here asked into the cache that every run shares.
BatchImportSummary importBatchOutput(store::RunStore& store, const CallRoutes& routes,
                                     llm::ResponseCache* cache,
                                     const std::vector<BatchOutputSource>& sources,
                                     const BatchImportOptions& options);

// The endpoint with its batch prices as its prices (the ordinary ones where none is set).
llm::EndpointConfig batchPriced(const llm::EndpointConfig& endpoint);

struct BatchPassResult {
  RunSummary summary;
  std::size_t answeredLocally = 0;  // by offline heuristics and the response cache
  std::vector<BatchFilePart> files;
  std::vector<BatchRef> batches;  // submitted or polled in this pass
  std::string note;               // for people: what happened to the batches, what to do next
};

// What the engine does for a stage in a batch mode: answers what needs no endpoint, then
// (File) writes the rest as batch files and stops with PausedBatch, or (Api) first polls and
// imports every open batch the store names, then submits the rest (one batch per endpoint and
// file part), polls them with backoff and imports them. The calls of every file written or batch
// submitted are sealed first (kBatchRequestsData). A batch that expired or was cancelled is
// imported as far as it got and the rest is left pending (outcome Cancelled). A completed batch
// whose results are missing (no output file, a download that is not a 2xx, fewer lines than
// calls) fails the pass naming it, stays open and is never sent again on its own: the user
// gives it up with `batch cancel` (refreshBatches). A stop request leaves submitted batches
// running at the server: the next resume polls them again.
BatchPassResult runBatchPass(store::RunStore& store, const CallRoutes& routes,
                             llm::ResponseCache* cache, const BatchOptions& options,
                             bool retryErrors, std::optional<double> budgetUsd,
                             const llm::TransportOptions& transport, ProgressListener* listener,
                             std::stop_token stop);

// Every batch the store names, read again from the server (`batch status`), or cancelled
// (`batch cancel`: open batches are cancelled at the server; a completed one whose results are
// missing is given up here, so that a resume sends its calls again). *error says what could not
// be asked.
std::vector<BatchRef> refreshBatches(store::RunStore& store, const CallRoutes& routes,
                                     const llm::TransportOptions& transport, bool cancel,
                                     std::string* error);

}  // namespace ragscope::core::eval
