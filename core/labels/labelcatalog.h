#pragma once
// What can be labelled, and what the judge said about it (core/labels/README.md, "Catalog"):
// the run stores and datasets a label's scope names, as data. The catalog made from them
// refuses a label whose target does not exist (a query not in the run, a claim index past the
// answer's claims, a document the eRAG run did not label); the
// agreement reads the judge's side from the same sources. Filling them from run stores is
// core/eval/inputs/labelsources.h's (core/labels never reads a run: eval depends on labels, not the
// reverse).
//
//   auto sources = std::make_shared<LabelSources>();
//   sources->folder = labelsFolder(store.path());
//   sources->runs.push_back(eval::labelSourceOfReport("runs/claims.db", path, report));
//   sources->datasets.push_back({"demo", dataset});
//   LabelCatalog catalog = makeLabelCatalog(sources);
//   store.add(labels, &err, catalog);   // "claim \"response:9\" ...: the answer has 4 response
//                                       //  claims"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims/labels.h"
#include "core/claims/metaeval.h"
#include "core/data/dataset.h"
#include "core/labels/labelstore.h"
#include "core/stats/queryvalues.h"

namespace ragscope::core::labels {

// The claims of one judged answer and the judge's verdict of each against each premise the run
// judged it against (the majority over repeats, read as core/eval/jobs/claimverdicts.h reads it).
struct AnswerClaims {
  std::vector<std::string> response, gold;  // the claims' texts
  // premise -> the verdict of each claim ([i]); a premise absent: not judged against it.
  std::map<ClaimPremise, std::vector<std::optional<claims::Label>>> responseVerdicts, goldVerdicts;
  // The verdict of response claim i (gold claim i with `gold`) against `premise`; nullopt when
  // it was not judged against it.
  std::optional<claims::Label> verdict(bool gold, std::size_t claim, ClaimPremise premise) const;
  // Whether the run judged this side's claims against `premise` at all.
  bool judged(bool gold, ClaimPremise premise) const;
};

// One run store: its answers (qids), claims (judging runs), eRAG document labels (eRAG runs) and
// per-query scores (the judge's side of answer labels).
struct RunSource {
  std::string scope;  // as labels name it: the path as the project lists it (labelscope.h)
  std::filesystem::path path;
  std::string kind;                            // "judge", "erag", "e2e", ...
  bool judging = false;                        // a judging run: `claims` holds its answers'
  std::map<std::string, AnswerClaims> claims;  // qid -> claims
  std::set<std::string> qids;                  // queries with an answer or a plan
  std::map<std::string, std::map<std::string, std::optional<double>>> eragDocs;  // qid->doc->label
  claims::PointwiseTable scores;  // per-query scores: a column per metric, NaN where none
};

struct DatasetSource {
  std::string name;  // the dataset's name in the project: the scope of relevance labels
  std::shared_ptr<const Dataset> dataset;
};

struct LabelSources {
  // Where relative scopes lead (labelscope.h): the project's folder, the labels store's.
  std::filesystem::path folder;
  std::vector<RunSource> runs;
  std::vector<DatasetSource> datasets;
  // The run a scope names: the run with that scope, else the run whose store is the file the
  // scope leads to (labelscope.h: "runs/claims.db" and "/home/ana/proj/runs/claims.db" are one
  // store), never one that merely has the same file name.
  const RunSource* findRun(std::string_view scope) const;
  const DatasetSource* findDataset(std::string_view scope) const;

 private:
  // findRun's answers by scope, as indexes into `runs` (each distinct scope is looked up on disk
  // once); forgotten when the number of runs changes.
  mutable std::map<std::string, std::size_t, std::less<>> m_found;
  mutable std::size_t m_foundRuns = 0;
  mutable std::shared_ptr<std::mutex> m_foundLock = std::make_shared<std::mutex>();
};

// Refuses targets the sources do not hold (see the header comment). A scope no source names is
// refused too ("no run store named ... is known"), with the project's spelling of a store of
// that file name when there is one ("(a store of that file name: \"runs/claims.db\"; ...)").
LabelCatalog makeLabelCatalog(std::shared_ptr<const LabelSources> sources);

// Each label's scope spelled as its source's (a label made on "/home/ana/proj/runs/claims.db" of
// a project listing "runs/claims.db" is stored under "runs/claims.db"), so one run's labels
// share one scope.
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
