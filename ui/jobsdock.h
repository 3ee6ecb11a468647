#pragma once
// The Jobs dock: every LLM job of this session (generate from here, eRAG from its page, resumes)
// with a live panel — progress, ETA, calls/s, tokens, cost, errors, cancel — over the list of run
// stores in the runs folder with their stored status, from which a stopped, paused or interrupted
// run is resumed. "Generate answers…" plans a generate job on the current dataset, shows its
// dry-run estimate (calls, tokens, cost) and starts it with an optional budget cap that pauses
// the run before the cap would be exceeded. A retriever job that embeds a corpus (a dense
// retriever's first run, issue 36) shows here too while it runs: calls done / total, then the
// index build and the queries, with Cancel (the embedded batches are kept for the next run).

#include <QDockWidget>
#include <QPointer>
#include <QThreadPool>
#include <functional>
#include <optional>

#include "core/eval/engine/runengine.h"
#include "core/llm/provider.h"
#include "ui/jobs/retrieverjob.h"
#include "ui/jobs/runjob.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace ragscope::ui {

class RunListModel;
class Workbench;

struct GenerateSettings {
  core::llm::EndpointConfig endpoint;  // base URL "offline": the heuristic reader
  int runIndex = 0;                    // index into the dataset's runs; -1: no documents
  int k = 5;
  std::optional<double> budgetUsd;
  bool asBatch = false;  // through the endpoint's Batch API (core/eval/engine/batchrun.h)
};

// "42 calls · ~12,345 prompt tokens + ≤ 21,504 output tokens · ≤ $0.0123" for people.
QString describeEstimate(const core::eval::Estimate& estimate);
// "1:02:03", "4:05", "—" for unknown.
QString formatDuration(double seconds);
// The one-line live summary of a job's progress (calls/s, ETA, tokens, cost, errors).
QString describeProgress(const core::eval::Progress& p, std::optional<double> budgetUsd);

class JobsDock : public QDockWidget {
  Q_OBJECT
 public:
  explicit JobsDock(Workbench* workbench, QWidget* parent = nullptr);
  ~JobsDock() override;

  RunListModel* runs() const { return m_runs; }
  QTableView* table() const { return m_table; }
  RunJob* currentJob() const { return m_current; }
  // The retriever job whose embedding the panel follows (null before the first one).
  RetrieverJob* currentRetrieval() const { return m_retrieval; }
  QProgressBar* progressBar() const { return m_bar; }
  QLabel* statsLabel() const { return m_stats; }
  QLabel* titleLabel() const { return m_title; }

  // Dry run of a generate job on the current dataset, off the GUI thread: estimateReady() follows.
  bool estimateGenerate(const GenerateSettings& settings);
  // Starts a generate job on the current dataset (after resolving the endpoint's key); the job
  // announces itself through RunJobHub and becomes currentJob(). False when it cannot start.
  bool startGenerate(const GenerateSettings& settings);
  // Continues the stored run of a table row. When the store's endpoint (its base URL with its
  // key's variable or keychain entry) was not configured, used or confirmed on this machine, the
  // user is asked first (trust prompt); declined: nothing is sent and false is returned.
  bool resumeRow(int row, bool retryErrors = false);
  void cancelCurrent();
  // The file route of batch calls for a table row's run (core/eval/engine/README.md, "Batch runs"),
  // off the GUI thread: its pending calls written to `file` (Export batch file…), or the Batch API
  // output and error files read into it (Import batch results…). False when it cannot start.
  bool exportBatchFile(int row, const QString& file);
  bool importBatchResults(int row, const QStringList& files);

  // The question before a stored run's calls go to an endpoint this machine's user did not
  // choose: true sends them (and records the endpoint as trusted). The default asks with a
  // QMessageBox naming the URL and the key; tests answer through a hook (empty: the default).
  using TrustPrompt =
      std::function<bool(QWidget* parent, const QString& store, const QString& endpoint)>;
  static void setTrustPrompt(TrustPrompt prompt);
  // The question when a stored run names a file it would write (a generate run's answers, a
  // judging run's claims): a store never chooses where ragscope writes, so the user accepts the
  // suggested path, picks another, or writes nothing (an empty string). The default asks with a
  // QMessageBox and a save dialog; offscreen it writes nothing. Tests answer through a hook.
  using OutputPrompt = std::function<QString(QWidget* parent, const QString& store,
                                             const QString& what, const QString& suggested)>;
  static void setOutputPrompt(OutputPrompt prompt);

 signals:
  void estimateReady(const core::eval::Estimate& estimate, const QString& problem);
  void jobFinished(const ragscope::ui::RunJobOutcome& outcome);
  void batchImported(const QString& summary, bool ok);
  void statusMessage(const QString& message);

 private:
  void track(RunJob* job);
  void trackRetrieval(RetrieverJob* job);
  bool showingRetrieval() const { return m_retrieval && m_retrieval->isRunning(); }
  void showProgress(RunJob* job, const core::eval::Progress& p);
  void openGenerateDialog();
  void updateButtons();

  Workbench* m_workbench;
  RunListModel* m_runs;
  QTableView* m_table = nullptr;
  QLabel* m_title = nullptr;
  QProgressBar* m_bar = nullptr;
  QLabel* m_stats = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_resume = nullptr;
  QPushButton* m_retry = nullptr;
  QPushButton* m_exportBatch = nullptr;
  QPushButton* m_importBatch = nullptr;
  QPointer<RunJob> m_current;
  QPointer<RetrieverJob> m_retrieval;
  std::vector<QMetaObject::Connection> m_retrievalConnections;
  QThreadPool m_estimatePool;
};

}  // namespace ragscope::ui

Q_DECLARE_METATYPE(ragscope::core::eval::Estimate)
