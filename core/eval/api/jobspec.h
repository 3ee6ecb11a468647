#pragma once
// What an LLM evaluation job is (generate, eRAG, end-to-end; judging next), said once for every
// front end: the specification a CLI command or a GUI page fills in, and the run record a store
// keeps of it. The record is one schema with a version (kRunRecordVersion), written the same way
// whichever front end started the job, so a run made anywhere is found, shown and resumed
// everywhere; records of earlier versions are still read (see recordedDatasets()).
//
//   JobSpec spec;
//   spec.kind = JobKind::Erag;
//   spec.run.type = RunSource::Type::Retriever;   // spec.run.retriever: BM25 by default
//   spec.endpoint = offlineReaderEndpoint();
//   JobPlan plan = planJob(spec, dataset, callbacks);   // core/eval/api/job.h

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/dataset.h"
#include "core/eval/jobs/assessjob.h"
#include "core/eval/jobs/judgejob.h"
#include "core/llm/offline.h"
#include "core/llm/provider.h"
#include "core/metrics/downstream.h"
#include "core/retrieval/retrieverspec.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

// Version of the run record's settings layout. 1 (no "record_version" key): the CLI's records with
// a "datasets" list, and the GUI's with a "dataset" display name; 2: this header's layout.
inline constexpr int kRunRecordVersion = 2;

enum class JobKind { Generate, Erag, E2e, Judge, Assess };
// "generate", "erag", "e2e", "judge", "assess"
std::string_view jobKindName(JobKind kind);
std::optional<JobKind> jobKindFromName(std::string_view name);

// Where a job's ranked lists come from.
struct RunSource {
  enum class Type {
    None,        // no documents (generate only: closed book)
    File,        // a TREC run file
    DatasetRun,  // one of the dataset's runs (by index)
    Retriever,   // a configured retriever (embedded BM25, es, http) over the dataset's queries,
                 // run as the job's first step (core/retrieval/retrievejob.h)
  };
  Type type = Type::None;
  std::filesystem::path file;  // File
  std::size_t datasetRun = 0;  // DatasetRun
  RetrieverSpec retriever;     // Retriever (default: BM25; its index folder empty = chooseIndexDir)
};

// Limits the engine honours; recorded so that a resumed run keeps them.
struct JobLimits {
  std::size_t concurrency = 8;
  std::optional<double> budgetUsd;
  bool useCache = true;             // HTTP endpoints: the shared response cache
  std::filesystem::path cachePath;  // empty: ResponseCache::defaultPath()
};

// Claim judging (core/eval/jobs/judgejob.h): the answers come from `inputs` when given, else from
// an answers file of `generate` (chunks: the run's top k when a run is given), else are generated
// from the run's top k with the job's endpoint, else are the dataset's own (responses of
// rag-jsonl / RAGChecker / llama-index records, with their contexts).
struct JudgeJobOptions {
  std::string metrics = "notebook";  // parseJudgeMetrics
  std::string mode = "ragscope";     // ragscope | ragchecker | ragas
  std::size_t repeats = 1;
  llm::EndpointConfig judge;  // the judge (offline: the heuristic splitter and judge)
  std::optional<llm::EndpointConfig> embedder;  // ragas.answer_relevancy (kind Embeddings)
  std::optional<llm::EndpointConfig> reranker;  // vera.consolidated (kind Rerank)
  std::filesystem::path answers;                // generate's JSONL {"qid","answer"}
  std::filesystem::path extractTemplate;        // empty: the built-in extraction prompt
  std::filesystem::path judgeTemplate;          // empty: the built-in SUPPORTED=1/0 prompt
  std::filesystem::path questionTemplate;       // empty: the built-in question generation prompt
  std::filesystem::path relevanceTemplate;      // empty: the built-in context relevance prompt
  std::filesystem::path claimsOut;  // RAGChecker checking-output file of every claim and verdict
  bool matrices = false;  // judge every chunk alone (claim x chunk matrix); implied by claimsOut
  std::vector<JudgeInput> inputs;  // answers given directly (tests, GUI)
};

struct JobSpec {
  JobKind kind = JobKind::Erag;
  bool withEndToEnd = false;  // eRAG: the end-to-end run over the same top-k lists follows
  RunSource run;
  std::size_t k = 5;
  DownstreamMetric metric = DownstreamMetric::RougeL;
  std::string measures;                // eRAG: comma-separated; empty: P_k,success_k
  std::filesystem::path templatePath;  // empty: the built-in RAG prompt
  llm::EndpointConfig endpoint;        // the key by name only
  JobLimits limits;
  std::filesystem::path store;        // the (first) run store; empty: a fresh name in storeFolder
  std::filesystem::path e2eStore;     // withEndToEnd: the second store; empty: a fresh name
  std::filesystem::path storeFolder;  // where fresh names go; empty: the current folder
  std::filesystem::path out;          // generate: answers JSONL; eRAG: labels JSON
  std::string frontEnd;               // "cli", "gui": who started it (recorded)
  JudgeJobOptions judge;              // kind Judge
  AssessJobOptions assess;            // kind Assess (core/eval/jobs/assessjob.h)
};

// The offline judge (heuristic claim splitter and lexical judge), for jobs with no server.
llm::EndpointConfig offlineJudgeEndpoint();

// The heuristic lexical reader standing in for a generator when there is no server; one
// definition, so runs of the CLI and the GUI record the same endpoint.
llm::EndpointConfig offlineReaderEndpoint();

// The offline provider role a job kind's calls need (the reader for RAG prompts).
llm::OfflineRole offlineRoleFor(std::string_view kind);

// The measures an eRAG job aggregates with: `text`, or P_k,success_k when empty.
std::string eragMeasuresOrDefault(const std::string& text, std::size_t k);

// "ragscope-<kind>-YYYYMMDD-HHMMSS[-n].db" in `folder`, a name no file has yet.
std::filesystem::path freshStorePath(const std::filesystem::path& folder, std::string_view kind);

// The record's entry of an input file: absolute path, format name (if any) and content hash.
nlohmann::json inputFileEntry(const std::filesystem::path& path, std::string_view format);

// The run record's settings for `kind` of `spec` over `dataset` (its loaded parts, hashed), with
// `run` (how the ranked lists were made: inputFileEntry of a file, the BM25 retrieval's
// settings, ...) and the system name. The planner adds the plan and its counts.
nlohmann::json recordSettings(const JobSpec& spec, JobKind kind, const Dataset& dataset,
                              const nlohmann::json& run, const std::string& system);

// The dataset files a record names, from either layout: version 2 and the CLI's version 1 list
// "datasets" [{"path", ...}]; the GUI's version 1 named only the dataset ("dataset": its display
// name), returned as `legacyName` with no files.
struct RecordedDatasets {
  std::vector<std::filesystem::path> files;
  std::string legacyName;
};
RecordedDatasets recordedDatasets(const nlohmann::json& settings);

// Empty when a stored run record can be used: its endpoint's fields have their types, and its
// settings hold what its kind needs (erag: "plan", "metric", "measures"; e2e: "plan", "metric")
// with the fields read elsewhere of the right type. Else the first problem, naming the field
// ("run.settings: \"metric\" is missing"); callers prefix the store's path. Records of version 1
// (the CLI's and the GUI's first layouts, the demo stores) pass: they wrote these fields too.
std::string runRecordProblem(const store::RunRecord& record);

// What a resume may change for its session; the rest comes from the store.
struct ResumeOverrides {
  bool retryErrors = false;
  // The user confirmed the stored endpoint (CLI --trust-endpoint, a yes to the GUI's question):
  // openStoredJob records it as trusted (core/llm/trustedendpoints.h) and the resume may call it.
  bool trustEndpoint = false;
  std::optional<std::string> apiKeyEnv;
  std::optional<std::size_t> concurrency;
  std::optional<double> requestsPerMinute;
  std::optional<double> timeoutSeconds;
  std::optional<int> maxTokens;
  std::optional<double> pricePer1kInput;
  std::optional<double> pricePer1kOutput;
  std::optional<double> budgetUsd;
  std::optional<bool> useCache;
  std::optional<std::filesystem::path> cachePath;
  // Where the resume writes its files. Only the user names them (CLI --out / --claims-out, the
  // GUI's save dialog): a store is data from elsewhere and never chooses a path ragscope writes.
  std::optional<std::filesystem::path> out;
  std::optional<std::filesystem::path> claimsOut;
  // An assessment: the labels store its grades go to once complete (AssessJobOptions::labels),
  // with its scope and annotator (empty: the defaults).
  std::optional<std::filesystem::path> labels;
  std::string labelsScope;
  std::string annotator;
};

// A path the store's settings name for a file the run writes; a resume reports it and writes
// there only when the user names it again.
struct SuggestedOutput {
  std::string option;  // "--out", "--claims-out", "--cache"
  std::string what;    // "the answers file", "the claims file", "the response cache"
  std::filesystem::path path;
};

// The output files a store's settings name (`out`, `claims_out`): read from the settings alone,
// no file touched, so a front end may ask about them on any thread.
std::vector<SuggestedOutput> storedOutputs(const nlohmann::json& settings);

// A stored run's endpoint and limits as the record says, with `overrides` applied; its output
// files only as the overrides name them.
struct ResumeSettings {
  llm::EndpointConfig endpoint;
  JobLimits limits;
  std::filesystem::path out;        // empty: no answers / labels file is written
  std::filesystem::path claimsOut;  // empty: no claims file is written
  AssessJobOptions assessLabels;    // an assessment's labels (only `labels*`, `annotator` used)
  // What the store names and this resume does not use (not named on the command line).
  std::vector<SuggestedOutput> suggested;
};
ResumeSettings resumeSettings(const nlohmann::json& endpoint, const nlohmann::json& settings,
                              const ResumeOverrides& overrides);

}  // namespace ragscope::core::eval
