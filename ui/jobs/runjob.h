#pragma once
// The Qt adapter over the core job API (core/eval/api/job.h): runs one job — a new one planned from
// a JobSpec (the BM25 retrieval step included), or the resume of a stored run — on an owned
// single-thread pool, with a std::stop_source for cancel. What core reports on its threads comes
// back as queued signals: engine progress coalesced (at most one delivery queued, the last one
// always delivered), each stage's start (kind and store), the retrieval step's progress and its
// run, and finished() with the core JobResult. Nothing of a page runs on the worker.
//
//   RunJobRequest r;
//   r.spec = spec;  r.dataset = dataset;          // or r.resumeStore = path
//   auto* job = new RunJob(this);
//   connect(job, &RunJob::finished, ...);
//   job->start(std::move(r));
//   job->cancel();                                  // the engine stops, in-flight calls are
//   aborted
//
// Every RunJob announces itself through RunJobHub::instance()->jobStarted(), which is how the
// jobs dock shows jobs started by any page.

#include <QFutureWatcher>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "core/eval/api/job.h"
#include "ui/jobs/retrieverjob.h"

namespace ragscope::ui {

struct RunJobRequest {
  QString title;  // for people: "erag · Harbor City demo · bm25-tuned"
  // A new job: `spec` planned against `dataset` on the worker.
  std::optional<core::eval::JobSpec> spec;
  std::shared_ptr<const core::Dataset> dataset;
  // Or the resume of a stored run.
  QString resumeStore;
  core::eval::ResumeOverrides overrides;
  bool heuristic = false;  // resume: the stored endpoint is an offline heuristic provider
  core::eval::ExecutionOptions execution;  // the key's transport (keychain), test provider hook
  // The retrieval step's retriever key in memory (keychain); empty: its variable at each request.
  std::function<std::string()> retrieverKey;
  core::eval::ResultOptions results;  // qrels point into `dataset`, which the job keeps alive
};

struct RunJobOutcome {
  bool started = false;            // at least one stage ran
  core::eval::RunSummary summary;  // the last stage's
  core::store::RunCounts counts;   // the last stage's
  QString status;                  // the last stage's stored status
  QString error;
  QString cacheNote;
  bool cancelledBeforeCalls = false;  // e.g. during the BM25 step
  std::shared_ptr<const core::eval::JobResult> result;
  std::shared_ptr<const core::eval::RetrievedRun> retrieved;
};

// The folder run stores go to (Preferences::runsFolder, else <app data>/runs). Not created here:
// the job creates it on its worker when it writes the first store.
QString runsFolder();
// For the self-test and tests: a folder used instead of the preference for this process (empty:
// back to the preference), so scripted runs never write into the user's runs folder.
void setRunsFolderOverride(const QString& folder);

class RunJob : public QObject {
  Q_OBJECT
 public:
  // The retrieval step's phases, as a RetrieverJob reports them (one showRetrieverProgress for
  // both): Index (documents indexed, or a dense index's vectors added), Retrieve (queries),
  // Embed (a dense retriever's corpus embedding calls).
  using RetrievePhase = RetrieverJob::Phase;

  explicit RunJob(QObject* parent = nullptr);
  ~RunJob() override;  // cancels and waits

  bool start(RunJobRequest request);
  void cancel();
  bool isRunning() const { return m_running; }
  bool cancelRequested() const { return m_cancelRequested; }
  QString title() const { return m_title; }
  QString kind() const { return m_kind; }            // the stage running ("erag", "e2e", ...)
  QString storePath() const { return m_storePath; }  // its store (empty before the first stage)
  const core::eval::Progress& lastProgress() const { return m_last; }
  std::optional<double> budgetUsd() const { return m_budget; }
  // The offline heuristic providers answer, not an LLM (labelled wherever shown, as
  // core/llm/README.md says).
  bool heuristic() const { return m_heuristic; }

 signals:
  void stageStarted(const QString& kind, const QString& storePath);
  void progress(const ragscope::core::eval::Progress& progress);
  void retrieveProgress(ragscope::ui::RunJob::RetrievePhase phase, quint64 done, quint64 total);
  void retrieved(std::shared_ptr<const ragscope::core::eval::RetrievedRun> run);
  void finished(const ragscope::ui::RunJobOutcome& outcome);
  // Each poll of a batch at the Batch API (core/eval/engine/batchrun.h): its id, state and counts.
  void batchStatus(const QString& id, const QString& status, qint64 done, qint64 failed,
                   qint64 total);

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
  QString m_kind;
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
Q_DECLARE_METATYPE(std::shared_ptr<const ragscope::core::eval::RetrievedRun>)
