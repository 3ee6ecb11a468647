#include "core/eval/inputs/storedscores.h"

#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragjob.h"
#include "core/eval/jobs/judgejob.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

stats::MeasureTable judgeMeasureTable(const JudgeReport& report) {
  stats::MeasureTable table;
  for (std::size_t m = 0; m < report.metrics.size(); ++m) {
    stats::QueryValues& values = table[report.metrics[m].name];
    for (const auto& q : report.queries)
      if (m < q.values.size() && q.values[m].value) values.emplace(q.qid, *q.values[m].value);
  }
  return table;
}

StoredScores readStoredScores(const std::filesystem::path& path) {
  StoredScores out;
  store::RunStore runStore;
  if (!runStore.openReadOnly(path, &out.error)) {
    if (out.error.rfind(path.string(), 0) != 0) out.error = path.string() + ": " + out.error;
    return out;
  }
  out.kind = runStore.run().kind;
  stats::BootstrapOptions noIntervals;
  noIntervals.resamples = 0;
  if (out.kind == kEragJobKind) {
    const EragReport report = computeEragReport(runStore, {}, noIntervals);
    if (!report.error.empty()) {
      out.error = report.error.rfind(path.string(), 0) == 0 ? report.error
                                                            : path.string() + ": " + report.error;
      return out;
    }
    const EragAggregate& a = report.aggregate;
    for (std::size_t m = 0; m < a.measures.size(); ++m) {
      stats::QueryValues& values = out.table[a.measures[m]];
      for (std::size_t q = 0; q < a.qids.size(); ++q) values.emplace(a.qids[q], a.values[m][q]);
    }
  } else if (out.kind == kE2eJobKind) {
    const E2eReport report = computeE2eReport(runStore, noIntervals);
    if (!report.error.empty()) {
      out.error = report.error.rfind(path.string(), 0) == 0 ? report.error
                                                            : path.string() + ": " + report.error;
      return out;
    }
    stats::QueryValues& values = out.table[report.metricKey];
    for (std::size_t q = 0; q < report.qids.size(); ++q)
      values.emplace(report.qids[q], report.values[q]);
  } else if (out.kind == kJudgeJobKind) {
    const JudgeReport report = computeJudgeReport(runStore, noIntervals);
    if (!report.error.empty()) {
      out.error = report.error.rfind(path.string(), 0) == 0 ? report.error
                                                            : path.string() + ": " + report.error;
      return out;
    }
    out.table = judgeMeasureTable(report);
  } else {
    out.error = path.string() + ": a '" + out.kind +
                "' run store has no per-query scores (erag, e2e and judge stores have)";
    return out;
  }
  if (out.table.empty() || out.table.begin()->second.empty())
    out.error = path.string() + ": the run store has no scored query yet (resume it first)";
  return out;
}

}  // namespace ragscope::core::eval
