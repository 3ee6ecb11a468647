#include "core/labels/labelcatalog.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/eval/e2ejob.h"
#include "core/eval/eragjob.h"
#include "core/eval/storedscores.h"
#include "core/store/project.h"
#include "core/store/runstore.h"
#include "core/util/textescape.h"

namespace ragscope::core::labels {

namespace {

std::string catalogQuoted(std::string_view text) {
  std::string out(1, '"');
  out += escapeControlChars(text.substr(0, 120));
  out += '"';
  return out;
}

std::string scopeFileName(std::string_view scope) {
  return std::filesystem::path(std::string(scope)).filename().string();
}

// The claim index of "response:<i>" / "gold:<i>" (labelProblem checked the spelling).
std::size_t catalogClaimIndex(const std::string& item) {
  std::size_t index = std::numeric_limits<std::size_t>::max();
  const char* digits = item.data() + std::min(item.size(), item.find(':') + 1);
  std::from_chars(digits, item.data() + item.size(), index);
  return index;
}

std::optional<std::string> claimTargetProblem(const RunSource& run, const Target& t) {
  if (!run.judge)
    return "the run store " + catalogQuoted(run.scope) + " is a '" + run.kind +
           "' run: it has no claims (a judging run has)";
  const eval::JudgedQuery* query = nullptr;
  for (const auto& q : run.judge->queries)
    if (q.qid == t.qid) query = &q;
  if (!query) return "query " + catalogQuoted(t.qid) + " is not in " + catalogQuoted(run.scope);
  const bool gold = t.item.rfind("gold:", 0) == 0;
  const std::size_t count =
      gold ? query->goldClaims.claims.size() : query->responseClaims.claims.size();
  if (catalogClaimIndex(t.item) >= count)
    return std::string("the ") + (gold ? "gold answer" : "answer") + " has " +
           std::to_string(count) + (gold ? " gold" : " response") + " claims (indexes from 0)";
  return std::nullopt;
}

}  // namespace

const RunSource* LabelSources::findRun(std::string_view scope) const {
  for (const auto& run : runs)
    if (run.scope == scope) return &run;
  const std::string name = scopeFileName(scope);
  for (const auto& run : runs)
    if (scopeFileName(run.scope) == name || run.path.filename().string() == name) return &run;
  return nullptr;
}

const DatasetSource* LabelSources::findDataset(std::string_view scope) const {
  for (const auto& ds : datasets)
    if (ds.name == scope) return &ds;
  return nullptr;
}

claims::PointwiseTable pointwiseFromMeasures(const stats::MeasureTable& table) {
  claims::PointwiseTable out;
  std::set<std::string> qids;
  for (const auto& [measure, values] : table) {
    out.columns.push_back(measure);
    for (const auto& [qid, v] : values) qids.insert(qid);
  }
  for (const auto& qid : qids) {
    claims::PointwiseTable::Row row{qid, {}, 0};
    for (const auto& [measure, values] : table) {
      auto it = values.find(qid);
      row.values.push_back(it == values.end() ? std::numeric_limits<double>::quiet_NaN()
                                              : it->second);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

RunSource judgeRunSource(std::string scope, std::shared_ptr<const eval::JudgeReport> report) {
  RunSource run;
  run.scope = std::move(scope);
  run.path = run.scope;
  run.kind = std::string(eval::kJudgeJobKind);
  for (const auto& q : report->queries) run.qids.insert(q.qid);
  run.scores = eval::judgePointwiseTable(*report);
  run.judge = std::move(report);
  return run;
}

bool readRunSource(const std::filesystem::path& path, std::string scope, RunSource& out,
                   std::string* error) {
  if (scope.empty()) scope = path.filename().string();
  store::RunStore runStore;
  std::string err;
  if (!runStore.openReadOnly(path, &err)) {
    if (error) *error = err;
    return false;
  }
  const std::string kind = runStore.run().kind;
  stats::BootstrapOptions noIntervals;
  noIntervals.resamples = 0;
  auto fail = [&](const std::string& why) {
    if (error) *error = why.rfind(path.string(), 0) == 0 ? why : path.string() + ": " + why;
    return false;
  };
  if (kind == eval::kJudgeJobKind) {
    auto report =
        std::make_shared<eval::JudgeReport>(eval::computeJudgeReport(runStore, noIntervals));
    if (!report->error.empty()) return fail(report->error);
    out = judgeRunSource(std::move(scope), std::move(report));
    out.path = path;
    return true;
  }
  out = RunSource{};
  out.scope = std::move(scope);
  out.path = path;
  out.kind = kind;
  if (kind == eval::kEragJobKind) {
    const eval::EragReport report = eval::computeEragReport(runStore, {}, noIntervals);
    if (!report.error.empty()) return fail(report.error);
    for (std::size_t q = 0; q < report.queries.size(); ++q) {
      const auto& planned = report.queries[q];
      out.qids.insert(planned.qid);
      auto& docs = out.eragDocs[planned.qid];
      for (std::size_t r = 0; r < planned.docIds.size(); ++r)
        docs[planned.docIds[r]] = r < report.labels[q].size() ? report.labels[q][r] : std::nullopt;
    }
  } else if (kind == eval::kE2eJobKind) {
    const eval::E2eReport report = eval::computeE2eReport(runStore, noIntervals);
    if (!report.error.empty()) return fail(report.error);
    for (const auto& planned : report.queries) out.qids.insert(planned.qid);
  } else {
    return fail("a '" + kind + "' run store holds nothing to label (judge, erag and e2e runs do)");
  }
  const eval::StoredScores scores = eval::readStoredScores(path);
  if (scores.ok()) out.scores = pointwiseFromMeasures(scores.table);
  return true;
}

bool readProjectSources(const Project& project, bool withDatasets, LabelSources& out,
                        std::string* error) {
  for (const auto& listed : project.runStores) {
    RunSource run;
    if (!readRunSource(project.resolve(listed), listed, run, error)) return false;
    out.runs.push_back(std::move(run));
  }
  if (!withDatasets) return true;
  for (const auto& ds : project.datasets) {
    LoadReport report;
    const auto parts = project.datasetParts(ds, report);
    if (report.hasErrors()) {
      if (error) *error = "dataset " + catalogQuoted(ds.name) + " of the project cannot be read";
      return false;
    }
    LoadOptions options;
    auto loaded = loadDataset(parts, options);
    if (!loaded.report.ok() || loaded.report.hasErrors()) {
      if (error) *error = "dataset " + catalogQuoted(ds.name) + " of the project cannot be loaded";
      return false;
    }
    loaded.value.name = ds.name;
    out.datasets.push_back({ds.name, std::make_shared<Dataset>(std::move(loaded.value))});
  }
  return true;
}

bool readProjectFileSources(const std::filesystem::path& projectFile, bool withDatasets,
                            LabelSources& out, std::string* error) {
  auto project = readProject(projectFile);
  if (!project.report.ok() || project.report.hasErrors()) {
    std::string why = projectFile.string() + ": the project cannot be read";
    for (const auto& d : project.report.diagnostics)
      if (d.severity == Severity::Error) {
        why += " (" + d.toString() + ")";
        break;
      }
    if (error) *error = why;
    return false;
  }
  return readProjectSources(project.value, withDatasets, out, error);
}

void adoptSourceScopes(std::vector<Label>& labels, const LabelSources& sources) {
  for (auto& l : labels) {
    if (l.target.kind == TargetKind::Relevance) continue;
    if (const RunSource* run = sources.findRun(l.target.scope)) l.target.scope = run->scope;
  }
}

DocumentStatus documentStatus(const Dataset& dataset, std::string_view qid, std::string_view doc) {
  DocumentStatus status;
  status.queryKnown = dataset.findQuery(qid) != nullptr;
  auto it = dataset.qrels.byQuery.find(std::string(qid));
  if (it != dataset.qrels.byQuery.end()) {
    status.queryKnown = true;
    for (const auto& j : it->second)
      if (j.docId == doc) status.qrelsGrade = j.rel;
  }
  if (!status.queryKnown)
    for (const auto& run : dataset.runs)
      if (run.find(qid)) status.queryKnown = true;
  status.inCorpus = dataset.corpus.find(doc).has_value();
  return status;
}

LabelCatalog makeLabelCatalog(std::shared_ptr<const LabelSources> sources) {
  return [sources](const Target& t) -> std::optional<std::string> {
    if (t.kind == TargetKind::Relevance) {
      const DatasetSource* ds = sources->findDataset(t.scope);
      if (!ds || !ds->dataset) return "no dataset named " + catalogQuoted(t.scope) + " is known";
      if (!documentStatus(*ds->dataset, t.qid, t.item).queryKnown)
        return "query " + catalogQuoted(t.qid) + " is not in dataset " + catalogQuoted(t.scope);
      return std::nullopt;  // any document may be graded, judged or not
    }
    const RunSource* run = sources->findRun(t.scope);
    if (!run) return "no run store named " + catalogQuoted(t.scope) + " is known";
    switch (t.kind) {
      case TargetKind::Claim:
        return claimTargetProblem(*run, t);
      case TargetKind::Answer:
        if (!run->qids.contains(t.qid))
          return "query " + catalogQuoted(t.qid) + " is not in " + catalogQuoted(run->scope);
        return std::nullopt;
      case TargetKind::EragDoc: {
        auto q = run->eragDocs.find(t.qid);
        if (q == run->eragDocs.end())
          return "query " + catalogQuoted(t.qid) + " has no eRAG labels in " +
                 catalogQuoted(run->scope);
        if (!q->second.contains(t.item))
          return "document " + catalogQuoted(t.item) + " was not labelled by the eRAG run for " +
                 "query " + catalogQuoted(t.qid);
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  };
}

}  // namespace ragscope::core::labels
