#include "ui/jobs/runjob.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "core/llm/cachingprovider.h"
#include "core/llm/providerfactory.h"
#include "core/llm/responsecache.h"
#include "ui/preferences.h"

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

}  // namespace

namespace {
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
    dir = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("runs"));
  QDir().mkpath(dir);
  return dir;
}

QString newRunStorePath(const QString& kind) {
  const QDir dir(runsFolder());
  const QString stem = QStringLiteral("%1-%2").arg(kind, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
  QString path = dir.filePath(stem + QStringLiteral(".db"));
  for (int n = 2; QFileInfo::exists(path); ++n) path = dir.filePath(QStringLiteral("%1-%2.db").arg(stem).arg(n));
  return path;
}

RunJobRequest resumeRequest(const QString& storePath, const core::llm::EndpointConfig& endpoint,
                            const core::llm::TransportOptions& transport, const QString& kind,
                            bool retryErrors, std::optional<double> budgetUsd) {
  RunJobRequest r;
  r.title = QObject::tr("resume %1 · %2").arg(kind, QFileInfo(storePath).fileName());
  r.storePath = storePath;
  r.endpoint = endpoint;
  r.transport = transport;
  r.offlineRole = kind == QLatin1String("generate") ? core::llm::OfflineRole::Reader : core::llm::OfflineRole::Auto;
  r.engine.concurrency = std::size_t(std::max(1, endpoint.concurrency));
  r.engine.retryErrors = retryErrors;
  r.engine.budgetUsd = budgetUsd;
  r.prepare = [path = storePath.toStdString()](core::store::RunStore& store, std::string* error) {
    return store.open(path, error);
  };
  return r;
}

RunJob::RunJob(QObject* parent) : QObject(parent), m_relay(std::make_shared<Relay>()) {
  m_pool.setMaxThreadCount(1);
  qRegisterMetaType<core::eval::Progress>();
  qRegisterMetaType<RunJobOutcome>();
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
  if (m_running || !request.prepare) return false;
  m_running = true;
  m_cancelRequested = false;
  m_stop = std::stop_source();
  m_title = request.title;
  m_storePath = request.storePath;
  m_budget = request.engine.budgetUsd;
  m_heuristic = core::llm::isOfflineEndpoint(request.endpoint);
  m_last = {};
  const std::stop_token token = m_stop.get_token();
  std::shared_ptr<Relay> relay = m_relay;

  auto work = [this, request = std::move(request), token, relay]() -> RunJobOutcome {
    RunJobOutcome out;
    try {
      core::store::RunStore store;
      std::string error;
      if (!request.prepare(store, &error)) {
        out.error = QString::fromStdString(error);
        return out;
      }
      std::unique_ptr<core::llm::ResponseCache> cache;
      std::unique_ptr<core::llm::Provider> provider;
      if (request.makeProvider) {
        provider = request.makeProvider();
      } else if (core::llm::isOfflineEndpoint(request.endpoint)) {
        provider = core::llm::makeOfflineProvider(request.offlineRole, request.endpoint);
      } else {
        provider = core::llm::makeHttpProvider(request.endpoint, request.transport);
        if (request.useCache) {
          cache = std::make_unique<core::llm::ResponseCache>();
          const std::filesystem::path path = request.cachePath.isEmpty()
                                                 ? core::llm::ResponseCache::defaultPath()
                                                 : std::filesystem::path(request.cachePath.toStdString());
          std::string why;
          if (cache->open(path, &why)) {
            provider = std::make_unique<core::llm::CachingProvider>(std::move(provider), *cache);
          } else {
            out.cacheNote = QObject::tr("response cache not used: %1").arg(QString::fromStdString(why));
            cache.reset();
          }
        }
      }
      RelayListener listener;
      listener.store = [this, relay](const core::eval::Progress& p) {
        std::lock_guard lock(relay->mutex);
        relay->latest = p;
        if (relay->pending) return;
        relay->pending = true;
        QMetaObject::invokeMethod(this, &RunJob::deliverProgress, Qt::QueuedConnection);
      };
      out.started = true;
      out.summary = core::eval::executeRun(store, *provider, request.engine, &listener, token);
      provider.reset();  // every callback has run; connections close before the results are read
      if (request.finish) out.extra = request.finish(store, out.summary);
      out.counts = store.counts();
      out.status = QString::fromStdString(store.run().status);
      if (out.summary.outcome == core::eval::RunOutcome::Failed && out.error.isEmpty())
        out.error = QString::fromStdString(out.summary.error);
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
