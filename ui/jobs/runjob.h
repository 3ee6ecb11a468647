#pragma once
// Runs one LLM job (generate, eRAG, ...) through core::eval::executeRun off the GUI thread: an
// owned single-thread pool, a std::stop_source for cancel, the engine's Progress forwarded as
// coalesced queued signals (at most ~10 a second, the last one always delivered), and a
// finished() signal with the summary and the store's counts. The store is created or opened on
// the worker by the request's `prepare` step, so planning and SQLite I/O never block the window;
// resuming a stored run is a request whose `prepare` opens the store (resumeRequest()).
//
//   auto* job = new RunJob(this);
//   connect(job, &RunJob::progress, ...);
//   job->start(std::move(request));
//   job->cancel();                  // the engine stops, in-flight calls are aborted
//
// Every RunJob announces itself through RunJobHub::instance()->jobStarted(), which is how the
// jobs dock shows jobs started by any page.

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>

#include "core/eval/runengine.h"
#include "core/llm/httpprovider.h"
#include "core/llm/offline.h"
#include "core/llm/provider.h"
#include "core/store/runstore.h"

namespace ragscope::ui {

struct RunJobRequest {
  QString title;      // for people: "generate · Harbor City demo · offline"
  QString storePath;  // the run store file
  // On the worker, before the engine: create the store and add the plan (new run) or open it
  // (resume). False with *error set stops the job.
  std::function<bool(core::store::RunStore&, std::string* error)> prepare;
  core::llm::EndpointConfig endpoint;       // key names resolved (see Secrets::resolveEndpointKey)
  core::llm::TransportOptions transport;    // carries a keychain secret's callback, if any
  core::llm::OfflineRole offlineRole = core::llm::OfflineRole::Auto;
  core::eval::EngineOptions engine;
  bool useCache = true;  // HTTP endpoints only: the user's response cache
  QString cachePath;     // empty: ResponseCache::defaultPath()
  // On the worker, after the engine (also when cancelled or paused): job-specific results such
  // as eRAG aggregation; what it returns travels back in RunJobOutcome::extra.
  std::function<std::shared_ptr<const void>(core::store::RunStore&, const core::eval::RunSummary&)> finish;
  // Test hook: a provider to use instead of the one the endpoint describes.
  std::function<std::unique_ptr<core::llm::Provider>()> makeProvider;
};

struct RunJobOutcome {
  bool started = false;          // prepare succeeded and the engine ran
  core::eval::RunSummary summary;
  core::store::RunCounts counts;
  QString status;                // the stored run status afterwards
  QString error;                 // prepare / store / provider problem
  QString cacheNote;             // e.g. "response cache not used: ..."
  std::shared_ptr<const void> extra;
};

// The folder run stores go to (Preferences::runsFolder, else <app data>/runs), created on demand.
QString runsFolder();
// For the self-test and tests: a folder used instead of the preference for this process (empty:
// back to the preference), so scripted runs never write into the user's runs folder.
void setRunsFolderOverride(const QString& folder);
// A fresh store path in runsFolder(): "<kind>-YYYYMMDD-HHMMSS[-n].db".
QString newRunStorePath(const QString& kind);

// A request that continues the stored run at `storePath` with `endpoint` (as stored, keys
// resolved): items with a result are skipped, errors redone when `retryErrors`.
RunJobRequest resumeRequest(const QString& storePath, const core::llm::EndpointConfig& endpoint,
                            const core::llm::TransportOptions& transport, const QString& kind,
                            bool retryErrors, std::optional<double> budgetUsd);

class RunJob : public QObject {
  Q_OBJECT
 public:
  explicit RunJob(QObject* parent = nullptr);
  ~RunJob() override;  // cancels and waits

  bool start(RunJobRequest request);
  void cancel();
  bool isRunning() const { return m_running; }
  bool cancelRequested() const { return m_cancelRequested; }
  QString title() const { return m_title; }
  QString storePath() const { return m_storePath; }
  const core::eval::Progress& lastProgress() const { return m_last; }
  std::optional<double> budgetUsd() const { return m_budget; }
  // The offline heuristic providers answer, not an LLM (SPEC §9: labelled wherever shown).
  bool heuristic() const { return m_heuristic; }

 signals:
  void progress(const ragscope::core::eval::Progress& progress);
  void finished(const ragscope::ui::RunJobOutcome& outcome);

 private:
  struct Relay;
  void deliverProgress();

  QThreadPool m_pool;
  std::stop_source m_stop;
  std::shared_ptr<Relay> m_relay;
  QFutureWatcher<RunJobOutcome>* m_watcher = nullptr;
  bool m_running = false;
  bool m_cancelRequested = false;
  QString m_title;
  QString m_storePath;
  std::optional<double> m_budget;
  bool m_heuristic = false;
  core::eval::Progress m_last;
};

// Announces jobs to whoever shows them (the jobs dock).
class RunJobHub : public QObject {
  Q_OBJECT
 public:
  static RunJobHub* instance();
 signals:
  void jobStarted(ragscope::ui::RunJob* job);
};

}  // namespace ragscope::ui

Q_DECLARE_METATYPE(ragscope::core::eval::Progress)
Q_DECLARE_METATYPE(ragscope::ui::RunJobOutcome)
