#pragma once
// The run stores and datasets human labels are checked and compared against
// (core/labels/labelcatalog.h LabelSources), read from run stores and projects. Lives in
// core/eval because it reads runs (judging reports, eRAG and end-to-end results, stored scores):
// core/labels holds what labels are and never includes core/eval (checked by core/CMakeLists.txt).
//
//   labels::LabelSources sources;
//   if (!readProjectFileLabelSources("demo.ragscope.json", false, sources, &err)) ...
//   labels::RunSource run;
//   readLabelRunSource("/tmp/x/claims.db", labels::scopeOfStore(sources.folder, path), run, &err);

#include <filesystem>
#include <string>

#include "core/eval/jobs/judgejob.h"
#include "core/labels/labelcatalog.h"

namespace ragscope::core {
struct Project;
}

namespace ragscope::core::eval {

// A judging run's report as a source: its answers, their claims with the judge's verdict of
// each against each premise it was judged against (core/eval/inputs/claimlabels.h claimVerdict),
// and its per-query metrics. `path`: the store the report was read from (empty: none).
labels::RunSource labelSourceOfReport(std::string scope, std::filesystem::path path,
                                      const JudgeReport& report);

// Reads a run store (read-only) as a source: judging, eRAG and end-to-end runs. `scope`: how
// labels name the store (labels::scopeOfStore); empty = its absolute path. false with `error`
// for a store that cannot be read.
bool readLabelRunSource(const std::filesystem::path& path, std::string scope,
                        labels::RunSource& out, std::string* error);

// The project's run stores (each under its path as the project lists it), `out.folder` the
// project's folder, and, with `withDatasets`, its datasets loaded (for relevance labels: big
// corpora take a while). A store or dataset that cannot be read is an error naming it.
bool readProjectLabelSources(const Project& project, bool withDatasets, labels::LabelSources& out,
                             std::string* error);
// The same from a project file (read first; an unreadable project is an error naming it).
bool readProjectFileLabelSources(const std::filesystem::path& projectFile, bool withDatasets,
                                 labels::LabelSources& out, std::string* error);

}  // namespace ragscope::core::eval
