#pragma once
// The run engine: executes a run's plan of work items (one provider call each, stored in a
// RunStore) with a bounded number of calls in flight, committing every result to the store
// before it counts as done. A call's slot is only freed once its result is committed, so a
// killed process loses at most `concurrency` calls; a resumed run skips every stored result.
// Answers from the response cache hold no slot (nothing is in flight for them, and a kill loses
// nothing the cache does not give back), so a cached re-run commits up to maxBatch per transaction.
//
//   RunStore store; store.open("run.db", &err);
//   auto summary = executeRun(store, provider, {.concurrency = 8}, &listener, stopToken);
//
// Progress, cancellation (std::stop_token -> provider.cancelAll()), an optional budget cap
// (status "paused: budget" once the accumulated cost would exceed it) and a dry-run estimate.

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/llm/provider.h"
#include "core/store/runstore.h"

namespace ragscope::core::llm {
class ResponseCache;
}

namespace ragscope::core::eval {

struct Progress {
  std::size_t total = 0;      // items in the plan
  std::size_t done = 0;       // items with a committed result (ok or error), any session
  std::size_t errors = 0;     // of which errors
  std::size_t fromCache = 0;  // answered from the response cache in this session
  std::size_t inFlight = 0;
  std::size_t callsThisSession = 0;  // results committed in this session
  double elapsedSeconds = 0.0;
  double callsPerSecond = 0.0;
  std::int64_t promptTokens = 0;      // whole run
  std::int64_t completionTokens = 0;  // whole run
  double costUsd = 0.0;               // whole run
  double etaSeconds = -1.0;           // < 0: unknown
};

class ProgressListener {
 public:
  virtual ~ProgressListener() = default;
  // Every `progressIntervalSeconds` and once at the end, on the engine's thread.
  virtual void onProgress(const Progress& progress) { (void)progress; }
  // After `result` is committed (cancelled calls included), on the engine's thread.
  virtual void onResult(const store::WorkItem& item, const store::ItemResult& result) {
    (void)item;
    (void)result;
  }
};

struct EngineOptions {
  std::size_t concurrency = 8;  // calls submitted and not yet committed, at most
  std::optional<double> budgetUsd;
  bool retryErrors = false;     // redo items whose earlier call failed
  std::size_t maxBatch = 4096;  // results per store transaction, at most
  double progressIntervalSeconds = 0.1;
};

// PausedBatch: the calls left are in a batch file or a submitted batch
// (core/eval/engine/batchrun.h).
enum class RunOutcome { Done, DoneWithErrors, Cancelled, PausedBudget, Failed, PausedBatch };
// The run status stored for an outcome: "done", "done with errors", "cancelled",
// "paused: budget", "failed", "paused: batch".
std::string_view outcomeStatus(RunOutcome outcome);

struct RunSummary {
  RunOutcome outcome = RunOutcome::Done;
  Progress progress;
  std::size_t skipped = 0;  // items already finished before this session
  std::string error;        // Failed: why
};

RunSummary executeRun(store::RunStore& store, llm::Provider& provider, const EngineOptions& options,
                      ProgressListener* listener, std::stop_token stop);

// The stored result of a call's answer, the one conversion every answer goes through (live,
// cached, heuristic, or read from a batch output file): status, text, embeddings and rerank
// scores as `extra`, usage, and the cost at `config`'s prices when the answer names none.
store::ItemResult storedResultOf(std::int64_t itemId, const llm::LlmResponse& response,
                                 const llm::EndpointConfig& config);

struct Estimate {
  std::size_t calls = 0;              // calls still to make
  std::size_t alreadyDone = 0;        // items with a stored result
  std::size_t cached = 0;             // of `calls`, answered by the cache (when one is given)
  std::int64_t promptTokens = 0;      // prompt bytes / 4
  std::int64_t completionTokens = 0;  // max tokens per call: an upper bound
  double costUsd = 0.0;               // from the endpoint's prices, cached calls free
};

// Tokens of one request as the estimate counts them (content bytes / 4, rounded up).
std::int64_t estimatePromptTokens(const llm::LlmRequest& request);
Estimate estimateRun(store::RunStore& store, const llm::Provider& provider, bool retryErrors,
                     llm::ResponseCache* cache = nullptr);
// The same for a plan not yet stored (items' request JSON).
Estimate estimateItems(const std::vector<store::NewItem>& items, const llm::Provider& provider,
                       llm::ResponseCache* cache = nullptr);

}  // namespace ragscope::core::eval
