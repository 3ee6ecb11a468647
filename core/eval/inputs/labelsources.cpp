#include "core/eval/inputs/labelsources.h"

#include "core/eval/inputs/claimlabels.h"
#include "core/eval/inputs/storedscores.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragjob.h"
#include "core/labels/labelscope.h"
#include "core/store/project.h"
#include "core/store/runstore.h"
#include "core/util/textescape.h"

namespace ragscope::core::eval {

namespace {

using labels::ClaimPremise;

std::string sourcesQuoted(std::string_view text) {
  return "\"" + escapeControlChars(text.substr(0, 120)) + "\"";
}

// One side's verdicts against each premise the run asked about it.
void addSideVerdicts(const JudgedQuery& q, bool gold, std::size_t claims,
                     std::map<ClaimPremise, std::vector<std::optional<claims::Label>>>& out) {
  for (const ClaimPremise premise :
       {ClaimPremise::Chunks, ClaimPremise::GoldAnswer, ClaimPremise::Response}) {
    std::vector<std::optional<claims::Label>> verdicts(claims);
    bool any = false;
    for (std::size_t i = 0; i < claims; ++i) {
      verdicts[i] = claimVerdict(q, gold, i, premise);
      any |= verdicts[i].has_value();
    }
    if (any) out.emplace(premise, std::move(verdicts));
  }
}

}  // namespace

labels::RunSource labelSourceOfReport(std::string scope, std::filesystem::path path,
                                      const JudgeReport& report) {
  labels::RunSource run;
  run.scope = std::move(scope);
  run.path = std::move(path);
  run.kind = std::string(kJudgeJobKind);
  run.judging = true;
  for (const auto& q : report.queries) {
    run.qids.insert(q.qid);
    labels::AnswerClaims& claims = run.claims[q.qid];
    claims.response = q.responseClaims.claims;
    claims.gold = q.goldClaims.claims;
    addSideVerdicts(q, false, claims.response.size(), claims.responseVerdicts);
    addSideVerdicts(q, true, claims.gold.size(), claims.goldVerdicts);
  }
  run.scores = judgePointwiseTable(report);
  return run;
}

bool readLabelRunSource(const std::filesystem::path& path, std::string scope,
                        labels::RunSource& out, std::string* error) {
  if (scope.empty()) scope = labels::scopeOfStore({}, path);
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
  if (kind == kJudgeJobKind) {
    const JudgeReport report = computeJudgeReport(runStore, noIntervals);
    if (!report.error.empty()) return fail(report.error);
    out = labelSourceOfReport(std::move(scope), path, report);
    return true;
  }
  out = labels::RunSource{};
  out.scope = std::move(scope);
  out.path = path;
  out.kind = kind;
  if (kind == kEragJobKind) {
    const EragReport report = computeEragReport(runStore, {}, noIntervals);
    if (!report.error.empty()) return fail(report.error);
    for (std::size_t q = 0; q < report.queries.size(); ++q) {
      const auto& planned = report.queries[q];
      out.qids.insert(planned.qid);
      auto& docs = out.eragDocs[planned.qid];
      for (std::size_t r = 0; r < planned.docIds.size(); ++r)
        docs[planned.docIds[r]] = r < report.labels[q].size() ? report.labels[q][r] : std::nullopt;
    }
  } else if (kind == kE2eJobKind) {
    const E2eReport report = computeE2eReport(runStore, noIntervals);
    if (!report.error.empty()) return fail(report.error);
    for (const auto& planned : report.queries) out.qids.insert(planned.qid);
  } else {
    return fail("a '" + kind + "' run store holds nothing to label (judge, erag and e2e runs do)");
  }
  const StoredScores scores = readStoredScores(path);
  if (scores.ok()) out.scores = labels::pointwiseFromMeasures(scores.table);
  return true;
}

bool readProjectLabelSources(const Project& project, bool withDatasets, labels::LabelSources& out,
                             std::string* error) {
  if (!project.file.empty())
    out.folder = labels::labelsFolder(labels::labelsStorePath(project.file));
  for (const auto& listed : project.runStores) {
    labels::RunSource run;
    if (!readLabelRunSource(project.resolve(listed), listed, run, error)) return false;
    out.runs.push_back(std::move(run));
  }
  if (!withDatasets) return true;
  for (const auto& ds : project.datasets) {
    LoadReport report;
    const auto parts = project.datasetParts(ds, report);
    if (report.hasErrors()) {
      if (error) *error = "dataset " + sourcesQuoted(ds.name) + " of the project cannot be read";
      return false;
    }
    LoadOptions options;
    auto loaded = loadDataset(parts, options);
    if (!loaded.report.ok() || loaded.report.hasErrors()) {
      if (error) *error = "dataset " + sourcesQuoted(ds.name) + " of the project cannot be loaded";
      return false;
    }
    loaded.value.name = ds.name;
    out.datasets.push_back({ds.name, std::make_shared<Dataset>(std::move(loaded.value))});
  }
  return true;
}

bool readProjectFileLabelSources(const std::filesystem::path& projectFile, bool withDatasets,
                                 labels::LabelSources& out, std::string* error) {
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
  return readProjectLabelSources(project.value, withDatasets, out, error);
}

}  // namespace ragscope::core::eval
