#include "ui/jobs/loadjob.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <chrono>
#include <exception>

namespace ragscope::ui {

LoadJob::LoadJob(QObject* parent) : QObject(parent) {
  // One load at a time is enough: parsing is I/O bound and a superseded load stops at its next
  // progress callback. Never the global pool: it is shared with short CPU tasks.
  m_pool.setMaxThreadCount(2);
  qRegisterMetaType<LoadResult>();
}

LoadJob::~LoadJob() {
  if (m_cancel) m_cancel->store(true);
  if (m_watcher) m_watcher->disconnect(this);
  m_pool.waitForDone();
}

void LoadJob::cancel() {
  if (m_cancel) m_cancel->store(true);
}

void LoadJob::start(QString name, std::vector<core::DatasetPart> parts, core::LoadOptions options) {
  // Supersede a running load: stop it, forget its watcher (it deletes itself when done).
  if (m_cancel) m_cancel->store(true);
  if (m_watcher) {
    m_watcher->disconnect(this);
    if (m_watcher->isFinished()) {
      delete m_watcher;
    } else {
      connect(m_watcher, &QFutureWatcher<LoadResult>::finished, m_watcher, &QObject::deleteLater);
    }
    m_watcher = nullptr;
  }

  const quint64 generation = ++m_generation;
  auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
  m_cancel = cancelFlag;
  m_running = true;

  // The callback runs on the worker thread; it only posts to this object (dropped if this object
  // is gone) and reads the atomic flag.
  using Clock = std::chrono::steady_clock;
  options.progress = [this, generation, cancelFlag, last = Clock::time_point{}](
                         std::uint64_t done, std::uint64_t total) mutable {
    const auto now = Clock::now();
    if (now - last >= std::chrono::milliseconds(50) || (total != 0 && done >= total)) {
      last = now;
      QMetaObject::invokeMethod(
          this,
          [this, generation, done, total] {
            if (generation == m_generation && m_running) emit progress(done, total);
          },
          Qt::QueuedConnection);
    }
    return !cancelFlag->load();
  };

  auto work = [name, parts = std::move(parts), options = std::move(options), cancelFlag]() {
    QElapsedTimer timer;
    timer.start();
    LoadResult result;
    result.name = name;
    try {
      core::Loaded<core::Dataset> loaded = core::loadDataset(parts, options);
      result.report = std::move(loaded.report);
      if (cancelFlag->load()) result.report.cancelled = true;
      if (!result.report.cancelled) {
        loaded.value.name = name.toStdString();
        result.dataset = std::make_shared<const core::Dataset>(std::move(loaded.value));
      }
    } catch (const std::exception& e) {
      // Loaders report bad input as diagnostics; anything thrown is a bug or exhaustion (e.g.
      // bad_alloc). Surface it in the Issues dock rather than losing the worker's exception.
      result.report.add(
          {core::Severity::Error, parts.empty() ? std::string() : parts.front().path.string(), 0,
           "load", std::string("internal error: ") + e.what()},
          options.maxStoredDiagnostics);
      result.report.stopped = true;
    }
    result.elapsedMs = timer.elapsed();
    return result;
  };

  m_watcher = new QFutureWatcher<LoadResult>(this);
  QFutureWatcher<LoadResult>* watcher = m_watcher;
  connect(watcher, &QFutureWatcher<LoadResult>::finished, this, [this, watcher, generation] {
    if (generation != m_generation) return;
    m_running = false;
    const LoadResult result = watcher->result();
    m_watcher = nullptr;
    watcher->deleteLater();
    emit finished(result);
  });
  emit started(name);
  watcher->setFuture(QtConcurrent::run(&m_pool, std::move(work)));
}

}  // namespace ragscope::ui
