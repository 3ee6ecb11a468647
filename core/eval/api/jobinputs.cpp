// What a job plan reads before its stages (see jobinputs.h and core/eval/api/README.md): prompt
// templates, and the run its lists come from.

#include "core/eval/api/jobinputs.h"

#include "core/data/loaders.h"
#include "core/eval/jobs/jobplanning.h"
#include "core/llm/prompts.h"
#include "core/retrieval/indexdir.h"
#include "core/retrieval/retrievejob.h"
#include "core/util/inputfile.h"

namespace ragscope::core::eval {

namespace fs = std::filesystem;

std::optional<std::string> readJobTemplate(const fs::path& path, std::string* error,
                                           const std::string& fallback) {
  if (path.empty()) return fallback;
  std::string why;
  auto text = readBoundedFile(path, kMaxTemplateBytes, "a prompt template", why);
  if (!text) *error = path.string() + ": cannot read the prompt template: " + why;
  return text;
}

namespace {

std::string runStemOf(const std::string& source) { return fs::path(source).stem().string(); }

}  // namespace

bool resolveRun(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& cb, JobPlan& plan,
                ResolvedRun& out) {
  using Type = RunSource::Type;
  switch (spec.run.type) {
    case Type::None:
      if (spec.kind != JobKind::Generate && spec.kind != JobKind::Judge) {
        plan.error = std::string(jobKindName(spec.kind)) + " needs a run or a retriever";
        return false;
      }
      return true;
    case Type::File: {
      auto loaded = readTrecRun(spec.run.file, LoadOptions{});
      plan.report = std::move(loaded.report);
      if (!plan.report.ok() || plan.report.hasErrors()) {
        plan.error = spec.run.file.string() + ": the run has errors";
        return false;
      }
      out.owned = std::move(loaded.value);
      out.run = &*out.owned;
      out.setting = inputFileEntry(spec.run.file, "trec-run");
      out.setting["source"] = "file";
      out.setting["tag"] = out.run->tag;
      out.system = out.run->tag.empty() ? spec.run.file.stem().string() : out.run->tag;
      return true;
    }
    case Type::DatasetRun: {
      if (spec.run.datasetRun >= dataset.runs.size()) {
        plan.error = "the dataset has no run number " + std::to_string(spec.run.datasetRun + 1);
        return false;
      }
      out.run = &dataset.runs[spec.run.datasetRun];
      std::error_code ec;
      // A run read from a file is recorded as that file, as if it had been named on its own.
      if (!out.run->source.empty() && fs::is_regular_file(out.run->source, ec)) {
        out.setting = inputFileEntry(out.run->source, "trec-run");
        out.setting["source"] = "file";
      } else {
        out.setting = {{"source", "dataset"}, {"description", out.run->source}};
      }
      out.setting["tag"] = out.run->tag;
      out.system = out.run->tag.empty() ? runStemOf(out.run->source) : out.run->tag;
      return true;
    }
    case Type::Retriever: {
      const RetrieverSpec& r = spec.run.retriever;
      RetrieveJobOptions ro;
      ro.k = spec.k;
      ro.tag = (r.name.empty() ? std::string(retrieverKindName(r.kind)) : r.name) + "-top" +
               std::to_string(spec.k);
      ro.indexProgress = cb.indexProgress;
      ro.embedProgress = cb.embedProgress;
      ro.retrieveProgress = cb.retrieveProgress;
      ro.apiKey = cb.retrieverApiKey;
      ro.stop = cb.stop;
      auto made = runRetrieveJob(
          r, dataset, dataset.parts.empty() ? fs::path(dataset.name) : dataset.parts.front().path,
          ro);
      if (made.cancelled) {
        plan.cancelled = true;
        return false;
      }
      if (!made.ok) {
        plan.error = std::string(retrieverKindName(r.kind)) + ": " + made.error;
        return false;
      }
      RetrievedRun retrieved;
      retrieved.run = std::move(made.run.value);
      retrieved.run.source = describeRetriever(r);  // no file: how it was made
      if (r.kind == RetrieverSpec::Kind::Bm25)
        retrieved.run.source += " index " + made.index.dir.string();
      retrieved.index = made.index;
      retrieved.dense = made.dense;
      retrieved.dense.index.reset();  // the searches are done: the front end keeps no index open
      retrieved.queriesFailed = made.run.report.skipped;
      for (const auto& d : made.run.report.diagnostics) addPlanWarning(plan.warnings, d.toString());
      for (const auto& note : made.notes) addPlanWarning(plan.warnings, note);
      retrieved.seconds = made.seconds;
      out.setting = std::move(made.setting);
      out.setting["source"] = retrieverKindName(r.kind);
      out.system = retrieved.run.tag;
      plan.retrieved = std::move(retrieved);
      out.run = &plan.retrieved->run;
      if (cb.retrieved) cb.retrieved(*plan.retrieved);
      return true;
    }
  }
  return false;
}

}  // namespace ragscope::core::eval
