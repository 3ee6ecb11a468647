#pragma once
// What can be labelled, and what the judge said about it (core/labels/README.md, "Catalog"):
// the run stores and datasets a label's scope names, read once. The catalog made from them
// refuses a label whose target does not exist (a query not in the run, a claim index past the
// answer's claims, a document the eRAG run did not label); the agreement reads the judge's side
// from the same sources.
//
//   auto sources = std::make_shared<LabelSources>();
//   sources->runs.push_back(judgeRunSource("claims.db", report));
//   sources->datasets.push_back({"demo", dataset});
//   LabelCatalog catalog = makeLabelCatalog(sources);
//   store.add(labels, &err, catalog);   // "claim \"response:9\" ...: the answer has 4 response
//                                       //  claims"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims/metaeval.h"
#include "core/data/dataset.h"
#include "core/eval/judgejob.h"
#include "core/labels/labelstore.h"
#include "core/stats/queryvalues.h"

namespace ragscope::core {
struct Project;
}

namespace ragscope::core::labels {

// One run store: its answers (qids), claims (judging runs), eRAG document labels (eRAG runs) and
// per-query scores (the judge's side of answer labels).
struct RunSource {
  std::string scope;  // as labels name it: the path as the project lists it, or the file name
  std::filesystem::path path;
  std::string kind;                                // "judge", "erag", "e2e", ...
  std::shared_ptr<const eval::JudgeReport> judge;  // judging runs
  std::set<std::string> qids;                      // queries with an answer or a plan
  std::map<std::string, std::map<std::string, std::optional<double>>> eragDocs;  // qid->doc->label
  claims::PointwiseTable scores;  // per-query scores: a column per metric, NaN where none
};

struct DatasetSource {
  std::string name;  // the dataset's name in the project: the scope of relevance labels
  std::shared_ptr<const Dataset> dataset;
};

struct LabelSources {
  std::vector<RunSource> runs;
  std::vector<DatasetSource> datasets;
  // By scope: the exact scope first, else the one whose path has the scope's file name (a label
  // made on "runs/claims.db" matches a store opened as "/tmp/x/claims.db" and the reverse).
  const RunSource* findRun(std::string_view scope) const;
  const DatasetSource* findDataset(std::string_view scope) const;
};

// A judging run's report as a source (answers, claims, per-query metrics).
RunSource judgeRunSource(std::string scope, std::shared_ptr<const eval::JudgeReport> report);

// Reads a run store (read-only) as a source: judging, eRAG and end-to-end runs. `scope` empty =
// the file name. false with `error` for a store that cannot be read.
bool readRunSource(const std::filesystem::path& path, std::string scope, RunSource& out,
                   std::string* error);

// The project's run stores (each under its path as the project lists it) and, with
// `withDatasets`, its datasets loaded (for relevance labels: big corpora take a while). A store
// or dataset that cannot be read is an error naming it.
bool readProjectSources(const Project& project, bool withDatasets, LabelSources& out,
                        std::string* error);
// The same from a project file (read first; an unreadable project is an error naming it).
bool readProjectFileSources(const std::filesystem::path& projectFile, bool withDatasets,
                            LabelSources& out, std::string* error);

// Refuses targets the sources do not hold (see the header comment). A scope no source names is
// refused too ("no run store or dataset named ... is known").
LabelCatalog makeLabelCatalog(std::shared_ptr<const LabelSources> sources);

// Each label's scope spelled as its source's (a label made on "claims.db" of a project listing
// "runs/claims.db" is stored under "runs/claims.db"), so one run's labels share one scope.
void adoptSourceScopes(std::vector<Label>& labels, const LabelSources& sources);

// What the dataset knows of a query-document pair: any document may be graded, judged or not.
struct DocumentStatus {
  bool queryKnown = false;
  std::optional<int> qrelsGrade;  // the qrels' grade; nullopt: unjudged
  bool inCorpus = false;
};
DocumentStatus documentStatus(const Dataset& dataset, std::string_view qid, std::string_view doc);

// A measure table (measure -> qid -> value) as a pointwise judge table (a column per measure,
// rows in qid order, NaN where a query has no value).
claims::PointwiseTable pointwiseFromMeasures(const stats::MeasureTable& table);

}  // namespace ragscope::core::labels
