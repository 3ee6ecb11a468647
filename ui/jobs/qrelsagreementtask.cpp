#include "ui/jobs/qrelsagreementtask.h"

#include <utility>

#include "core/data/loaders.h"
#include "core/stats/runsummary.h"

namespace ragscope::ui {

namespace {

using namespace ragscope::core;

// As many problems as the CLI prints for one file (gradeScaleProblems' default cap).
constexpr std::size_t kMaxProblemsPerFile = 20;

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(); }

// Keeps a reader's diagnostics (warnings too: the CLI prints them); true when it had no error.
bool takeReport(const LoadReport& report, QrelsAgreementOutcome& out) {
  for (const auto& d : report.diagnostics) out.problems.push_back(d);
  out.unlisted += report.unstoredDiagnostics;
  return report.ok() && !report.hasErrors();
}

// The qrels to compare: the file's, or the dataset's when `path` is empty. Null on any problem
// (recorded in `out`).
const Qrels* gradedQrels(const std::string& path, const std::shared_ptr<const Dataset>& dataset,
                         std::optional<Qrels>& storage, QrelsAgreementOutcome& out) {
  const Qrels* qrels = nullptr;
  if (path.empty()) {
    if (!dataset || dataset->qrels.byQuery.empty()) {
      out.error = "the loaded dataset has no qrels: choose a qrels file";
      return nullptr;
    }
    qrels = &dataset->qrels;
  } else {
    auto loaded = readTrecQrels(path, LoadOptions{});
    if (!takeReport(loaded.report, out)) {
      out.error = path + " cannot be used";
      return nullptr;
    }
    storage = std::move(loaded.value);
    qrels = &*storage;
  }
  std::size_t total = 0;
  auto problems = trecrag::gradeScaleProblems(*qrels, kMaxProblemsPerFile, &total);
  out.unlisted += total - problems.size();
  for (auto& d : problems) out.problems.push_back(std::move(d));
  if (total > 0) {
    out.error = (path.empty() ? qrels->source : path) + " cannot be used";
    return nullptr;
  }
  return qrels;
}

std::string qrelsName(const std::string& path, const std::shared_ptr<const Dataset>& dataset) {
  if (!path.empty()) return path;
  return dataset && !dataset->qrels.source.empty() ? dataset->qrels.source : "dataset qrels";
}

}  // namespace

nlohmann::ordered_json QrelsAgreementOutcome::json() const {
  return trecrag::qrelsAgreementJson(grades, systems ? &*systems : nullptr, names);
}

QrelsAgreementOutcome computeQrelsAgreement(const QrelsAgreementRequest& request,
                                            const std::atomic<bool>* cancel) {
  QrelsAgreementOutcome out;
  out.names = {qrelsName(request.qrelsA, request.dataset),
               qrelsName(request.qrelsB, request.dataset), request.level};
  std::optional<Qrels> storageA, storageB;
  const Qrels* a = gradedQrels(request.qrelsA, request.dataset, storageA, out);
  if (!a) return out;
  const Qrels* b = gradedQrels(request.qrelsB, request.dataset, storageB, out);
  if (!b) return out;
  if ((out.cancelled = cancelled(cancel))) return out;
  out.grades = trecrag::compareGrades(*a, *b, request.level);
  out.computed = true;
  if (out.grades.shared == 0) out.error = "the two files judge no pair in common";

  // Runs: the dataset's (in the order given), then files, named as the Retrieval page names them.
  std::vector<Run> fileRuns;
  std::vector<const Run*> runs;
  std::vector<stats::RunName> names;
  for (std::size_t i : request.datasetRuns) {
    if (!request.dataset || i >= request.dataset->runs.size()) continue;
    const Run& run = request.dataset->runs[i];
    runs.push_back(&run);
    names.push_back({run.tag, run.source});
  }
  fileRuns.reserve(request.runFiles.size());
  for (const auto& path : request.runFiles) {
    if ((out.cancelled = cancelled(cancel))) return out;
    auto loaded = readTrecRun(path, LoadOptions{});
    if (!takeReport(loaded.report, out)) {
      out.error = path + " cannot be used";
      return out;
    }
    fileRuns.push_back(std::move(loaded.value));
  }
  for (std::size_t i = 0; i < fileRuns.size(); ++i) {
    runs.push_back(&fileRuns[i]);
    names.push_back({fileRuns[i].tag, request.runFiles[i]});
  }
  if (runs.empty() || out.grades.shared == 0) return out;
  if ((out.cancelled = cancelled(cancel))) return out;
  const auto labels = stats::runLabels(names);
  std::vector<trecrag::NamedRun> named;
  for (std::size_t i = 0; i < runs.size(); ++i) named.push_back({labels[i], runs[i]});
  EvalSettings settings;
  settings.relevanceLevel = request.level;
  settings.complete = request.complete;
  settings.measures = {request.measure.request};
  out.systems = trecrag::compareSystems(*a, *b, named, request.measure.column(), settings);
  if (!out.systems->ok()) {
    out.error = out.systems->error;
    out.systems.reset();
    return out;
  }
  out.swaps = trecrag::largestRankSwaps(*out.systems);
  return out;
}

}  // namespace ragscope::ui
