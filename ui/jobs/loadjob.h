#pragma once
// Loads a dataset bundle off the GUI thread: loadDataset() runs on a thread pool this object owns,
// progress comes back as queued signals (throttled), cancel sets an atomic flag that the loader's
// progress callback consults, and destruction cancels and waits so no worker outlives its owner.

#include <QFutureWatcher>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"

namespace ragscope::ui {

struct LoadResult {
  QString name;
  std::shared_ptr<const core::Dataset> dataset;  // null when cancelled
  core::LoadReport report;
  qint64 elapsedMs = 0;
};

class LoadJob : public QObject {
  Q_OBJECT
 public:
  explicit LoadJob(QObject* parent = nullptr);
  ~LoadJob() override;

  // Starts a load; a load still running is cancelled and its result ignored.
  void start(QString name, std::vector<core::DatasetPart> parts, core::LoadOptions options = {});
  void cancel();
  bool isRunning() const { return m_running; }

 signals:
  void started(const QString& name);
  // Bytes done and total (total 0 when unknown); at most ~20 per second.
  void progress(quint64 done, quint64 total);
  // Always emitted once per start() that was not superseded, cancelled or not.
  void finished(const ragscope::ui::LoadResult& result);

 private:
  QThreadPool m_pool;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  QFutureWatcher<LoadResult>* m_watcher = nullptr;
  quint64 m_generation = 0;
  bool m_running = false;
};

}  // namespace ragscope::ui

Q_DECLARE_METATYPE(ragscope::ui::LoadResult)
