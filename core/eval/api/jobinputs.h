#pragma once
// What a job plan reads before it plans its stages (see core/eval/api/README.md): a prompt template
// (or the default), and the run the job's lists come from — a TREC run file, one of the dataset's
// runs, or a run a retriever makes now — with how it was made, as the store records it.
// Used by planJob (job.cpp) and the judging job's planning (judgeplan.cpp).

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/eval/api/job.h"
#include "core/llm/prompts.h"

namespace ragscope::core::eval {

// The template at `path`, or `fallback` when no path is given; nullopt (and *error) when the file
// cannot be read.
std::optional<std::string> readJobTemplate(const std::filesystem::path& path, std::string* error,
                                           const std::string& fallback = llm::defaultRagTemplate());

// The run a job's lists come from, with how it was made (the record's "run") and its name.
struct ResolvedRun {
  std::optional<Run> owned;
  const Run* run = nullptr;
  nlohmann::json setting;
  std::string system;
};

// Reads or makes the run the spec names; false with plan.error (or plan.cancelled) set when it
// cannot. A retriever's run is kept in plan.retrieved. No run is fine for generate and judge.
bool resolveRun(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& cb, JobPlan& plan,
                ResolvedRun& out);

}  // namespace ragscope::core::eval
