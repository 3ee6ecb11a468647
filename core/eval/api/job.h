#pragma once
// The evaluation-job API every front end calls (core/eval/api/README.md: one job API, one versioned
// run record): a JobSpec (jobspec.h) is planned against a loaded dataset (the BM25 retrieval step
// included), estimated, then run on the run engine stage by stage (eRAG then its end-to-end run is
// one job), each stage's store created with the one run record, its calls committed as they arrive,
// and its scores computed and stored; the typed results are read back from the stores. A stopped
// job is continued from its store alone (openStoredJob + resumeJob). No Qt; progress and
// cancellation come in through JobCallbacks, on the calling thread or the engine's.
//
//   JobPlan plan = planJob(spec, dataset, callbacks);
//   if (!plan.ok()) fail(plan.error);
//   for (const auto& e : estimatePlan(plan, spec, nullptr)) show(e);
//   JobResult result = runJob(plan, spec, {}, callbacks);
//   result.evaluation.erag->aggregate ...   // read back from the stores
//
// The CLI (app/cli/eragcommand.cpp, jobcommands.cpp) and the GUI (ui/jobs/runjob.*) only gather
// a JobSpec, call these on their own thread, and show what comes back.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/eval/api/jobspec.h"
#include "core/eval/engine/batchrun.h"
#include "core/eval/engine/runengine.h"
#include "core/eval/jobs/correlationanalysis.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragjob.h"
#include "core/eval/jobs/judgejob.h"
#include "core/llm/httpprovider.h"
#include "core/llm/responsecache.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

// A run the retrieval step made, for the front end to show or keep (the GUI adds it to the
// dataset).
struct RetrievedRun {
  Run run;                 // tag "<retriever name>-top<k>" ("bm25-top5")
  IndexBuildResult index;  // bm25 (a hybrid's first bm25 member): where, whether it was reused
  DenseIndexResult dense;  // dense (a hybrid's first dense member): as above, and what was
                           // embedded; its `index` is not kept (the search is over)
  std::size_t queriesFailed = 0;
  double seconds = 0.0;
};

struct JobCallbacks {
  ProgressListener* listener = nullptr;  // engine progress of the stage running (engine thread)
  std::function<void(JobKind kind, const std::filesystem::path& store)> stageStarted;
  // The retrieval step (RunSource::Type::Retriever), as RetrieveJobOptions has them.
  ProgressFn indexProgress;     // bm25: documents indexed; dense: vectors added / total
  ProgressFn embedProgress;     // dense: the corpus's embedding calls done / total
  ProgressFn retrieveProgress;  // queries retrieved / total
  // The retriever's key in memory (the GUI's keychain lookup); empty: the spec's variable at each
  // request. Never recorded.
  std::function<std::string()> retrieverApiKey;
  std::function<void(const RetrievedRun&)> retrieved;
  std::stop_token stop;
};

// One store of a job: its kind, record and calls.
struct StagePlan {
  JobKind kind = JobKind::Erag;
  std::filesystem::path store;
  store::RunRecord record;
  std::vector<store::NewItem> items;
  std::vector<std::pair<std::string, std::string>> data;  // RunStore::putData after creating it
};

struct JobPlan {
  std::string error;  // non-empty: refused (bad measures, unreadable template or run, no gold, ...)
  LoadReport report;  // diagnostics of the run file read for the job
  bool cancelled = false;             // the BM25 step was cancelled
  std::vector<std::string> warnings;  // the first few problems, for people
  std::string templateText;
  std::string system;                     // the run's name
  std::optional<RetrievedRun> retrieved;  // the BM25 step's run
  std::size_t queries = 0;                // queries planned
  std::size_t documents = 0;              // documents over all top-k lists
  std::size_t missingDocuments = 0;       // run entries not in the corpus (skipped)
  std::size_t queriesWithoutGold = 0;     // eRAG / end-to-end: left out
  std::vector<StagePlan> stages;          // eRAG then end-to-end when chained
  bool ok() const { return error.empty() && !cancelled; }
};

// Reads the template, resolves the run (reads a run file, or retrieves with BM25: the slow step,
// reported through the callbacks and cancellable), plans every stage and names its store.
JobPlan planJob(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& callbacks = {});

struct StageEstimate {
  JobKind kind = JobKind::Erag;
  Estimate estimate;
};
// Calls, tokens and cost of each stage (cached answers counted through `cache`, which may be null).
std::vector<StageEstimate> estimatePlan(const JobPlan& plan, const JobSpec& spec,
                                        llm::ResponseCache* cache);

// A dry run of a job that needs no retrieval step (a run file or a dataset run): the plan's counts
// and each stage's estimate, with cached answers counted through the user's response cache.
struct JobEstimate {
  std::string error;
  std::size_t queries = 0;
  std::size_t queriesWithoutGold = 0;
  std::size_t missingDocuments = 0;
  std::vector<StageEstimate> stages;
  bool heuristic = false;  // the offline heuristic provider answers: no cost
};
JobEstimate estimateJob(const JobSpec& spec, const Dataset& dataset);

// How a job talks to its endpoint; none of it is recorded.
struct ExecutionOptions {
  // With an apiKey callback (the GUI's keychain lookup) the key comes from it, not from the
  // endpoint's environment variable.
  llm::TransportOptions transport;
  bool retryErrors = false;  // resume: redo items whose call failed
  // Batch files or the Batch API instead of live calls (core/eval/engine/batchrun.h). A store whose
  // calls went to the Batch API (or that has a batch open) continues there even when Live.
  BatchOptions batch;
  // Test hook: the provider to use instead of the one the endpoint describes.
  std::function<std::unique_ptr<llm::Provider>(const llm::EndpointConfig&)> makeProvider;
};

// How results are read back from the stores.
struct ResultOptions {
  std::vector<MeasureRequest> measures;  // eRAG: empty = the run's own
  stats::BootstrapOptions bootstrap;     // CIs of the means (resamples 0: none)
  const Qrels* qrels = nullptr;          // correlation's "qrels" method; null: not shown
  std::size_t correlationResamples = 1000;
  unsigned threads = 0;             // 0: all cores
  bool prompts = false;             // keep every eRAG prompt (the GUI's drill-down)
  bool persist = false;             // write labels and scores into the stores (after a run)
  std::filesystem::path labelsOut;  // eRAG: the labels as JSON
};

// eRAG and end-to-end results of one system, read back from its stores.
struct EvaluationResults {
  std::string error;  // non-empty: a store could not be read or scored
  std::filesystem::path eragStore;
  std::filesystem::path e2eStore;
  std::string system;
  std::vector<MeasureRequest> measures;
  std::optional<EragReport> erag;
  std::vector<std::vector<std::string>> prompts;  // [query][rank] (ResultOptions::prompts)
  std::optional<E2eReport> e2e;
  std::optional<CorrelationAnalysis> correlation;  // with both stores
};
// Either store may be empty. Only reads unless options.persist.
EvaluationResults readEvaluation(const std::filesystem::path& eragStore,
                                 const std::filesystem::path& e2eStore,
                                 const ResultOptions& options);

struct StageResult {
  JobKind kind = JobKind::Erag;
  std::string kindName;  // the stored kind (resumes of kinds this build does not define too)
  std::filesystem::path store;
  RunSummary summary;
  store::RunCounts counts;
  std::string status;  // stored run status afterwards
  // Batch modes: the files written, the batches submitted or imported, notes for people.
  std::vector<BatchFilePart> batchFiles;
  std::vector<BatchRef> batches;
  std::string batchNote;
};

struct JobResult {
  std::string error;      // the job could not run or finish (store, provider, scoring)
  std::string cacheNote;  // "response cache not used: ..."
  std::string trustNote;  // "could not record the endpoint as trusted: ..." (resume then asks)
  std::vector<StageResult> stages;
  EvaluationResults evaluation;        // eRAG / end-to-end stages
  std::filesystem::path answers;       // generate: the answers file written
  std::filesystem::path labels;        // eRAG: the labels file written
  std::optional<JudgeReport> judge;    // judging: the metrics, read back from the store
  std::filesystem::path claimsOut;     // judging: the RAGChecker checking-output file written
  std::optional<AssessReport> assess;  // assessment: the grades, read back from the store
  std::filesystem::path qrels;         // assessment: the qrels file written
  // assessment with --merge-qrels: the merge's counts and conflicts (its text not kept)
  std::optional<trecrag::MergedQrels> mergedQrels;
  // assessment with labels: how many were added, where, on which scope and by whom
  std::optional<AssessLabelsResult> assessLabels;
  std::filesystem::path assessLabelsPath;
  std::string assessLabelsScope, assessAnnotator;
  bool started() const { return !stages.empty(); }
  // The last stage's engine outcome (Failed when nothing ran).
  RunOutcome outcome() const;
};

// Runs a plan's stages in order; a stage that does not complete (cancelled, paused, failed) ends
// the job, and a later run continues it with resumeJob. The job's endpoint, chosen by the user
// who starts it, is recorded as trusted on this machine first (llm::TrustedEndpoints), so its
// resume needs no confirmation.
JobResult runJob(const JobPlan& plan, const JobSpec& spec, const ExecutionOptions& execution,
                 const ResultOptions& results, const JobCallbacks& callbacks = {});

// A stored run, opened to be continued.
struct StoredJob {
  std::shared_ptr<store::RunStore> store;
  store::RunRecord record;
  ResumeSettings settings;
  // The store names where its calls go and which key they carry; they go out only when this
  // machine's user configured, used or confirmed that endpoint with that key source (offline
  // endpoints always may). False: resumeJob refuses before any request, and the front end asks
  // (CLI: --trust-endpoint; GUI: a question naming the URL), then opens it again with
  // ResumeOverrides::trustEndpoint.
  bool endpointTrusted = false;
  // A judging run's other endpoint (generator, embedder, reranker) when it is the one not
  // trusted (the message names it).
  std::optional<llm::EndpointConfig> untrustedRoute;
  std::string trustNote;  // why the trust could not be read or recorded (the registry file)
};
// Refuses (nullopt, *error naming the store and the field) a store that is damaged, lacks its run
// record or has a record whose settings or endpoint are not what its kind needs.
std::optional<StoredJob> openStoredJob(const std::filesystem::path& path,
                                       const ResumeOverrides& overrides, std::string* error);
// For people, when !job.endpointTrusted: "RUN.db sends its calls to URL with the key from $VAR,
// an endpoint not configured, used or confirmed on this machine".
std::string untrustedEndpointMessage(const StoredJob& job);

Estimate estimateStoredJob(StoredJob& job, bool retryErrors, llm::ResponseCache* cache);

// Continues a stored run: items with a result are skipped; then its scores as after a run.
JobResult resumeJob(StoredJob& job, const ExecutionOptions& execution, const ResultOptions& results,
                    const JobCallbacks& callbacks = {});

// The response cache a job uses (null for offline endpoints, when disabled, or when it cannot be
// opened: then `note` says why).
std::unique_ptr<llm::ResponseCache> openJobCache(const llm::EndpointConfig& endpoint,
                                                 const JobLimits& limits, std::string* note);

}  // namespace ragscope::core::eval
