#include "ui/jobs/runjob.h"

#include <QDir>
#include <QPointer>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>
#include <chrono>
#include <exception>
#include <mutex>

#include "core/llm/providerfactory.h"
#include "ui/preferences.h"
#include "ui/textutil.h"

namespace ragscope::ui {

struct RunJob::Relay {
  std::mutex mutex;
  core::eval::Progress latest;
  bool pending = false;
};

namespace {

// Forwards the engine's progress to the GUI thread, coalesced: while one delivery is queued,
// newer progress only replaces the value it will carry.
class RelayListener final : public core::eval::ProgressListener {
 public:
  std::function<void(const core::eval::Progress&)> store;
  void onProgress(const core::eval::Progress& p) override { store(p); }
};

QString& runsFolderOverride() {
  static QString folder;
  return folder;
}

}  // namespace

void setRunsFolderOverride(const QString& folder) { runsFolderOverride() = folder; }

QString runsFolder() {
  QString dir = runsFolderOverride();
  if (dir.isEmpty()) dir = Preferences::runsFolder.get();
  if (dir.isEmpty())
    dir = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
              .filePath(QStringLiteral("runs"));
  return dir;
}

RunJob::RunJob(QObject* parent) : QObject(parent), m_relay(std::make_shared<Relay>()) {
  m_pool.setMaxThreadCount(1);
  qRegisterMetaType<core::eval::Progress>();
  qRegisterMetaType<RunJobOutcome>();
  qRegisterMetaType<std::shared_ptr<const core::eval::RetrievedRun>>();
}

RunJob::~RunJob() {
  m_stop.request_stop();
  if (m_watcher) m_watcher->disconnect(this);
  m_pool.waitForDone();
}

void RunJob::cancel() {
  if (!m_running) return;
  m_cancelRequested = true;
  m_stop.request_stop();
}

void RunJob::deliverProgress() {
  core::eval::Progress p;
  {
    std::lock_guard lock(m_relay->mutex);
    p = m_relay->latest;
    m_relay->pending = false;
  }
  m_last = p;
  emit progress(p);
}

bool RunJob::start(RunJobRequest request) {
  if (m_running || (!request.spec && request.resumeStore.isEmpty())) return false;
  if (request.spec && !request.dataset) return false;
  m_running = true;
  m_cancelRequested = false;
  m_stop = std::stop_source();
  m_title = request.title;
  m_kind = request.spec ? q(std::string(core::eval::jobKindName(request.spec->kind))) : QString();
  m_storePath = request.resumeStore;
  m_budget = request.spec ? request.spec->limits.budgetUsd : request.overrides.budgetUsd;
  m_heuristic =
      request.spec ? core::llm::isOfflineEndpoint(request.spec->endpoint) : request.heuristic;
  m_last = {};

  // Callbacks run on the worker (or the engine's threads): they only post to this object.
  QPointer<RunJob> self(this);
  core::eval::JobCallbacks callbacks;
  callbacks.stop = m_stop.get_token();
  callbacks.stageStarted = [self](core::eval::JobKind kind, const std::filesystem::path& store) {
    const QString k = q(std::string(core::eval::jobKindName(kind))), path = q(store.string());
    QMetaObject::invokeMethod(
        self.data(),
        [self, k, path] {
          if (!self) return;
          self->m_kind = k;
          self->m_storePath = path;
          emit self->stageStarted(k, path);
        },
        Qt::QueuedConnection);
  };
  using Clock = std::chrono::steady_clock;
  auto reporter = [self](RetrievePhase phase) {
    return
        [self, phase, last = Clock::time_point{}](std::uint64_t done, std::uint64_t total) mutable {
          const auto now = Clock::now();
          if (now - last >= std::chrono::milliseconds(100) || done >= total) {
            last = now;
            QMetaObject::invokeMethod(
                self.data(),
                [self, phase, done, total] {
                  if (self) emit self->retrieveProgress(phase, done, total);
                },
                Qt::QueuedConnection);
          }
          return true;  // cancel goes through the stop token
        };
  };
  callbacks.indexProgress = reporter(RetrievePhase::Index);
  callbacks.retrieveProgress = reporter(RetrievePhase::Retrieve);
  callbacks.embedProgress = reporter(RetrievePhase::Embed);
  callbacks.retrieverApiKey = request.retrieverKey;
  callbacks.retrieved = [self](const core::eval::RetrievedRun& run) {
    auto copy = std::make_shared<const core::eval::RetrievedRun>(run);
    QMetaObject::invokeMethod(
        self.data(),
        [self, copy] {
          if (self) emit self->retrieved(copy);
        },
        Qt::QueuedConnection);
  };

  // Batch polls (a --batch job, or the resume of a run whose calls went to the Batch API).
  request.execution.batch.onStatus = [self](const core::eval::BatchStatusUpdate& u) {
    const QString id = q(u.batchId), status = q(u.status);
    const qint64 done = u.counts.completed + u.counts.failed, failed = u.counts.failed,
                 total = u.counts.total;
    QMetaObject::invokeMethod(
        self.data(),
        [self, id, status, done, failed, total] {
          if (self) emit self->batchStatus(id, status, done, failed, total);
        },
        Qt::QueuedConnection);
  };
  std::shared_ptr<Relay> relay = m_relay;
  auto work = [self, request = std::move(request), callbacks, relay]() mutable -> RunJobOutcome {
    RunJobOutcome out;
    RelayListener listener;
    listener.store = [self, relay](const core::eval::Progress& p) {
      std::lock_guard lock(relay->mutex);
      relay->latest = p;
      if (relay->pending) return;
      relay->pending = true;
      QMetaObject::invokeMethod(self.data(), &RunJob::deliverProgress, Qt::QueuedConnection);
    };
    callbacks.listener = &listener;
    try {
      auto result = std::make_shared<core::eval::JobResult>();
      if (request.spec) {
        const core::eval::JobPlan plan =
            core::eval::planJob(*request.spec, *request.dataset, callbacks);
        if (plan.retrieved)
          out.retrieved = std::make_shared<const core::eval::RetrievedRun>(*plan.retrieved);
        out.cancelledBeforeCalls = plan.cancelled;
        *result =
            core::eval::runJob(plan, *request.spec, request.execution, request.results, callbacks);
      } else {
        std::string error;
        auto stored =
            core::eval::openStoredJob(request.resumeStore.toStdString(), request.overrides, &error);
        // Writing a batch file sends nothing (answers come only from heuristics and the cache).
        if (stored && request.execution.batch.mode == core::eval::BatchMode::File)
          stored->endpointTrusted = true;
        if (!stored)
          result->error = error;
        else
          *result = core::eval::resumeJob(*stored, request.execution, request.results, callbacks);
      }
      out.started = result->started();
      if (out.started) {
        const auto& last = result->stages.back();
        out.summary = last.summary;
        out.counts = last.counts;
        out.status = q(last.status);
      }
      out.error = q(result->error);
      out.cacheNote = q(result->cacheNote);
      out.result = std::move(result);
    } catch (const std::exception& e) {
      out.error = QObject::tr("internal error: %1").arg(QString::fromUtf8(e.what()));
    }
    return out;
  };

  m_watcher = new QFutureWatcher<RunJobOutcome>(this);
  auto* watcher = m_watcher;
  connect(watcher, &QFutureWatcher<RunJobOutcome>::finished, this, [this, watcher] {
    m_running = false;
    RunJobOutcome outcome = watcher->result();
    m_watcher = nullptr;
    watcher->deleteLater();
    if (outcome.started) {
      m_last = outcome.summary.progress;
      emit progress(m_last);
    }
    emit finished(outcome);
  });
  watcher->setFuture(QtConcurrent::run(&m_pool, std::move(work)));
  emit RunJobHub::instance()->jobStarted(this);
  return true;
}

RunJobHub* RunJobHub::instance() {
  static RunJobHub* hub = new RunJobHub;
  return hub;
}

}  // namespace ragscope::ui
