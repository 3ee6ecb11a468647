#include "app/cli/jobinputs.h"

#include <iostream>

#include "app/cli/jobreport.h"
#include "core/data/loaders.h"
#include "core/eval/api/job.h"

namespace ragscope::cli {

using namespace ragscope::core;

void addJobInputOptions(CommandLine& cli, JobInputArgs& inputs, std::size_t maxK) {
  cli.paths("--dataset", "PATH", inputs.datasets,
            "a dataset file or folder, repeatable: the parts load as one dataset (as `dataset "
            "info`)")
      .input();
  cli.text("--format", "F", inputs.format,
           "format of every --dataset PATH (default: detected; `dataset --help` lists them)");
  cli.path("--run", "RUNFILE", inputs.runPath,
           "the retrieval run (TREC format) whose top-k documents each query uses")
      .input();
  cli.path("--template", "FILE", inputs.templatePath,
           "the RAG prompt ({question}, {documents}); default: the built-in one")
      .input();
  cli.integer("--k", "K", inputs.k, 1, maxK,
              "documents per query (default 5, at most " + std::to_string(maxK) + ")");
  cli.flag("-q, --quiet", inputs.quiet, "no progress line or notes on stderr");
}

void printLoadDiagnostics(const LoadReport& report) {
  std::size_t shown = 0;
  for (const auto& d : report.diagnostics) {
    if (shown++ >= 20) break;
    std::cerr << d.toString() << "\n";
  }
}

std::optional<Dataset> loadJobInputs(const JobInputArgs& args, const std::string& job,
                                     const CommandLine& cli) {
  std::optional<Format> format;
  if (!args.format.empty()) {
    format = formatFromName(args.format);
    if (!format) {
      cli.usageError("unknown --format '" + args.format + "'");
      return std::nullopt;
    }
  }
  std::vector<DatasetPart> parts;
  for (const auto& p : args.datasets) parts.push_back({p, format});
  auto loaded = loadDataset(parts, LoadOptions{});
  if (!loaded.report.ok() || loaded.report.hasErrors()) {
    printLoadDiagnostics(loaded.report);
    std::cerr << "ragscope-cli: " << job << ": the dataset has errors\n";
    return std::nullopt;
  }
  if (loaded.value.queries.empty()) {
    std::cerr << "ragscope-cli: " << job << ": the dataset has no queries\n";
    return std::nullopt;
  }
  return std::move(loaded.value);
}

int runJobFromCommandLine(eval::JobSpec spec, const JobInputArgs& inputs,
                          const JobOptions& jobOptions, const CommandLine& cli, bool json) {
  const std::string job(eval::jobKindName(spec.kind));
  spec.k = inputs.k;
  spec.templatePath = inputs.templatePath;
  spec.run.file = inputs.runPath;
  // An assessment's calls go to the judge (--judge, offline by default).
  spec.endpoint = spec.kind != eval::JobKind::Assess ? generatorEndpoint(jobOptions)
                  : jobOptions.judge == "offline"    ? eval::offlineJudgeEndpoint()
                                                     : judgeEndpoint(jobOptions);
  spec.limits = jobLimits(jobOptions);
  spec.store = jobOptions.store;
  spec.frontEnd = "cli";
  if (!jobOptions.batchFile.empty() && jobOptions.batch)
    return cli.usageError(
        "--batch-file writes the calls to a file, --batch sends them: choose one");
  // The retrieval runs before the estimate: one that calls an endpoint would send the dataset's
  // queries (and a dense index its corpus) when nothing was to be called.
  if (jobOptions.estimate && spec.run.type == eval::RunSource::Type::Retriever &&
      !retrieverTrustEndpoints(spec.run.retriever).empty())
    return cli.usageError(
        "--estimate calls nothing, and this retriever calls its endpoint before the job is "
        "planned: write the run with `ragscope-cli retrieve` and estimate with --run RUNFILE");
  const auto dataset = loadJobInputs(inputs, job, cli);
  if (!dataset) return 2;
  ReportOptions report;
  report.json = json;
  report.budgetUsd = jobOptions.budget;
  eval::ExecutionOptions execution;
  execution.batch = jobBatchOptions(jobOptions, inputs.quiet);
  return runJobCommand(spec, *dataset, jobOptions.estimate, inputs.quiet, report, execution);
}

}  // namespace ragscope::cli
