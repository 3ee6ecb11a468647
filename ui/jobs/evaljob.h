#pragma once
// Runs retrieval evaluations off the GUI thread: reads qrels and run files (or takes them from the
// loaded dataset), evaluates every run with one EvalSettings, and hands the results back by a
// queued signal. Owned pool, atomic cancel consulted by the readers' and evaluator's progress
// callbacks, cancel + wait on destruction.

#include <QFutureWatcher>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <vector>

#include "core/data/dataset.h"
#include "core/metrics/retrievalevaluator.h"

namespace ragscope::ui {

struct EvalRequest {
  std::shared_ptr<const core::Dataset> dataset;  // source of dataset qrels/runs (may be null)
  QString qrelsFile;                             // empty: the dataset's qrels
  bool goldDocumentQrels = false;                // the dataset's gold documents as qrels instead
  std::vector<std::size_t> datasetRuns;          // indices into dataset->runs
  QStringList runFiles;
  core::EvalSettings settings;
  bool docLevel = false;  // chunks count as their document (core::evaluateRunDocLevel)
};

struct EvalOutcome {
  std::shared_ptr<const core::Qrels> qrels;
  std::vector<std::shared_ptr<const core::Run>> runs;  // parallel to results
  std::vector<core::EvalResult> results;
  core::LoadReport report;  // reading problems and evaluation diagnostics
  bool cancelled = false;
  bool docLevel = false;  // chunks were scored as their documents
  qint64 elapsedMs = 0;
};

class EvalJob : public QObject {
  Q_OBJECT
 public:
  explicit EvalJob(QObject* parent = nullptr);
  ~EvalJob() override;

  void start(EvalRequest request);
  void cancel();
  bool isRunning() const { return m_running; }

 signals:
  // Steps done of total (one per file read and one per run evaluated).
  void progress(int done, int total);
  void finished(const ragscope::ui::EvalOutcome& outcome);

 private:
  QThreadPool m_pool;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  QFutureWatcher<EvalOutcome>* m_watcher = nullptr;
  bool m_running = false;
};

}  // namespace ragscope::ui

Q_DECLARE_METATYPE(ragscope::ui::EvalOutcome)
