#include "core/eval/inputs/agreementinputs.h"

#include <optional>

#include "core/claims/checkingfile.h"
#include "core/claims/ragchecker.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

namespace {

bool unusable(const LoadReport& report, const std::filesystem::path& path, AgreementOutcome& out) {
  if (report.ok() && !report.hasErrors()) return false;
  out.report = report;
  out.failedFile = path.string();
  out.error = path.string() + " cannot be used";
  return true;
}

bool isCsv(const std::filesystem::path& path) { return path.extension() == ".csv"; }

// The judge of a pointwise comparison: a CSV, a judging run store's per-query metrics, or a
// checking output's per-example metrics.
std::optional<claims::PointwiseTable> pointwiseJudge(const std::filesystem::path& path,
                                                     AgreementOutcome& out) {
  if (store::RunStore::hasSqliteHeader(path)) {
    const auto report = readJudgeReport(path, {.resamples = 0});
    if (!report.error.empty()) {
      out.error = report.error;
      out.failedFile = path.string();
      return std::nullopt;
    }
    return judgePointwiseTable(report);
  }
  if (isCsv(path)) {
    auto table = claims::readPointwiseCsv(path);
    if (unusable(table.report, path, out)) return std::nullopt;
    return std::move(table.value);
  }
  auto file = claims::readCheckingOutput(path);
  if (unusable(file.report, path, out)) return std::nullopt;
  const auto scores = claims::scoreCorpus(file.value, claims::Mode::RagChecker);
  claims::PointwiseTable table;
  for (auto m : claims::allMetrics()) table.columns.push_back(claims::metricName(m));
  for (std::size_t e = 0; e < file.value.size(); ++e) {
    claims::PointwiseTable::Row row{file.value[e].queryId, {}, file.value[e].line};
    for (auto m : claims::allMetrics()) row.values.push_back(scores.perExample[e][m].value);
    table.rows.push_back(std::move(row));
  }
  return table;
}

void compared(AgreementOutcome& out) {
  if (!out.result.ok()) out.error = out.result.error;
}

}  // namespace

AgreementOutcome compareAgreementFiles(const std::filesystem::path& human,
                                       const std::filesystem::path& judge, const std::string& name,
                                       const claims::AgreementOptions& options) {
  AgreementOutcome out;
  if (isCsv(human)) {
    auto h = claims::readPointwiseCsv(human);
    if (unusable(h.report, human, out)) return out;
    auto j = pointwiseJudge(judge, out);
    if (!j) return out;
    out.result = claims::comparePointwise(h.value, *j, options);
  } else {
    auto h = claims::readPairwiseHuman(human);
    if (unusable(h.report, human, out)) return out;
    auto j = claims::readPairwiseJudge(judge, name);
    if (unusable(j.report, judge, out)) return out;
    out.result = claims::comparePairwise(h.value, j.value, options);
  }
  compared(out);
  return out;
}

AgreementOutcome compareAgreementWithReport(const std::filesystem::path& human,
                                            const JudgeReport& judge,
                                            const claims::AgreementOptions& options) {
  AgreementOutcome out;
  if (!isCsv(human)) {
    out.error =
        human.string() + ": human labels for a judging run are a CSV with qid,label columns";
    out.failedFile = human.string();
    return out;
  }
  auto h = claims::readPointwiseCsv(human);
  if (unusable(h.report, human, out)) return out;
  out.result = claims::comparePointwise(h.value, judgePointwiseTable(judge), options);
  compared(out);
  return out;
}

}  // namespace ragscope::core::eval
