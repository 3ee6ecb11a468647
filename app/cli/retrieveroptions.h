#pragma once
// The retriever options of ragscope-cli, declared and turned into a core::RetrieverSpec in one
// place: `--retriever R` of every kind (bm25, es:URL, http:URL, dense:URL, dense:offline,
// hybrid:A+B) with the options of each kind (--index, BM25's parameters, es/http fields and
// paths, es kNN, dense embedding, fusion), for `retrieve` and for the jobs that retrieve first
// (erag, e2e, judge), so every command takes the same retrievers with the same checks.
//
// The job commands also take the LLM job options (joboptions.h), whose --api-key-env, --batch and
// --timeout are the generator's and judge's; there the retriever's own options of those names are
// called differently (RetrieverOptionNames::forJobs): --retriever-key-env, --es-knn-embedder,
// --retriever-timeout-ms, and no Batch API for a dense index (build it with `retrieve --batch`
// first: the job reuses the index).
//
//   RetrieverArgs r;
//   cli.text("--retriever", "R", r.retriever, ...);
//   addRetrieverOptions(cli, r);
//   if (auto exit = cli.parse(args)) return *exit;
//   std::string error;
//   auto spec = buildRetrieverSpec(r, cli, k, &error);
//   if (!spec) return cli.usageError(error);

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/options.h"
#include "core/eval/api/jobspec.h"
#include "core/retrieval/retrieverspec.h"

namespace ragscope::cli {

// The kinds --retriever takes, for help texts and usage lines.
inline constexpr const char* kRetrieverKinds =
    "bm25, es:URL, http:URL, dense:URL, dense:offline or hybrid:R+R[+...]";

// The names of the options that a command's other options could clash with.
struct RetrieverOptionNames {
  std::string apiKeyEnv = "--api-key-env";  // es/http/dense: the key's variable
  std::string embedder = "--embedder";      // es --es-knn: the query embedder
  std::string timeoutMs = "--timeout-ms";   // es/http/dense: per-request timeout
  bool batchApi = true;  // --batch, --batch-poll: a dense index's embeddings via the Batch API
  std::string section;   // the help section of the options; empty: the current one
  // `retrieve`'s names (the defaults), and those of the LLM job commands.
  static RetrieverOptionNames forJobs();
};

// What the retriever options of a command line say.
struct RetrieverArgs {
  std::optional<std::string> retriever;  // --retriever, declared by the command
  RetrieverOptionNames names;            // as addRetrieverOptions declared them
  std::vector<std::string> declared;     // every option addRetrieverOptions declared
  std::optional<std::string> index, idField, textField, keyEnv, requestTemplate;
  std::optional<std::string> resultsPath, idPath, scorePath, textPath;
  std::optional<std::string> esKnn, embedder, embedKeyEnv;        // es kNN
  std::optional<std::string> embedModel, queryPrefix, docPrefix;  // dense (and es kNN)
  std::string ann, fuse, fuseNorm;                                // dense, hybrid
  std::vector<double> fuseWeights;
  double rrfK = core::kDefaultRrfK;
  std::size_t embedBatch = core::kDefaultEmbedBatch, fuseDepth = 0;
  std::string esFlavour;
  std::size_t numCandidates = 0;
  std::vector<std::string> fields;
  long timeoutMs = 30000;
  core::Bm25Params bm25;
  bool rebuild = false, stemming = true;
  bool batch = false;              // dense: embed through the Batch API (names.batchApi)
  double batchPollSeconds = 10.0;  // first wait between polls
};

// Declares the retriever options (not --retriever itself) on `cli` under `names`; `maxK` bounds
// --fuse-depth.
void addRetrieverOptions(CommandLine& cli, RetrieverArgs& args, std::size_t maxK,
                         RetrieverOptionNames names = {});

// The help paragraph naming each kind of --retriever and what it does, with `names`.
std::string retrieverKindsHelp(const RetrieverOptionNames& names);

// The first retriever option on the command line, or "": for commands where --retriever is
// optional, a retriever option without a retriever is a usage error.
std::string givenRetrieverOption(const CommandLine& cli, const RetrieverArgs& args);

// The spec args.retriever (set) and the options name, each option on the retriever or on each
// member of a hybrid that takes it, checked against each other and against `k` (the documents
// per query); nullopt with *error set to the usage error's message when they do not fit.
std::optional<core::RetrieverSpec> buildRetrieverSpec(const RetrieverArgs& args,
                                                      const CommandLine& cli, std::size_t k,
                                                      std::string* error);

// The job commands' (erag, e2e, judge) --retriever R and the retriever options under
// RetrieverOptionNames::forJobs(), with the kinds in the help's epilogue (`epilogue` after them).
void addJobRetrieverOptions(CommandLine& cli, RetrieverArgs& args, const std::string& epilogue);

// After parsing, for a job command: with --retriever, `run` becomes the retriever's (its spec
// built as buildRetrieverSpec does, for k documents per query); without, a retriever option is
// refused. The usage error's message, or "".
std::string setJobRetriever(const RetrieverArgs& args, const CommandLine& cli, std::size_t k,
                            core::eval::RunSource& run);

// "0.7,0.3" -> {0.7, 0.3} (--fuse-weights, fuse --weights); the problem with the value, or "".
std::string parseWeightList(const std::string& text, std::vector<double>& out);

}  // namespace ragscope::cli
