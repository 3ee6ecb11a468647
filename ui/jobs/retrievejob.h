#pragma once
// Turns a dataset's queries into a run with the embedded BM25 (Xapian) over its corpus, off the
// GUI thread: the index is opened or built (core::chooseIndexDir, so the CLI's index is reused
// and the other way round), the top k retrieved, and the run appended to a copy of the dataset
// that the caller hands to Workbench::updateDataset, so every page sees the new run. Progress
// comes back as throttled queued signals per phase; cancel() stops the build or the retrieval
// (a cancelled build leaves any previous index as it was).
//
//   auto* job = new RetrieveJob(this);
//   connect(job, &RetrieveJob::finished, this, [](const RetrieveOutcome& o) { ... });
//   job->start(workbench->dataset(), 5);

#include <QFutureWatcher>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <memory>
#include <stop_token>

#include "core/data/dataset.h"

namespace ragscope::ui {

struct RetrieveOutcome {
  bool ok = false;
  bool cancelled = false;
  QString error;
  std::shared_ptr<const core::Dataset> basis;    // the dataset retrieved from
  std::shared_ptr<const core::Dataset> dataset;  // basis plus the run (replacing one of its tag)
  int runIndex = -1;                             // the run's index in dataset->runs
  QString tag;                                   // "bm25-top5"
  QString indexDir;
  bool indexReused = false;
  std::size_t queriesFailed = 0;
  double seconds = 0;
};

class RetrieveJob : public QObject {
  Q_OBJECT
 public:
  enum class Phase { Index, Retrieve };

  explicit RetrieveJob(QObject* parent = nullptr);
  ~RetrieveJob() override;  // cancels and waits

  // False when a retrieval is already running or `dataset` has no corpus or no queries.
  bool start(std::shared_ptr<const core::Dataset> dataset, int k);
  void cancel();
  bool isRunning() const { return m_watcher != nullptr; }

  // The run tag a retrieval with depth k gets.
  static QString bm25Tag(int k);

 signals:
  void progress(ragscope::ui::RetrieveJob::Phase phase, quint64 done, quint64 total);
  void finished(const ragscope::ui::RetrieveOutcome& outcome);

 private:
  QThreadPool m_pool;
  std::stop_source m_stop;
  QFutureWatcher<RetrieveOutcome>* m_watcher = nullptr;
};

}  // namespace ragscope::ui

Q_DECLARE_METATYPE(ragscope::ui::RetrieveOutcome)
