#pragma once
// eRAG (Salemi & Zamani, SIGIR 2024; core/eval/jobs/README.md) in the GUI. Setup: the current
// dataset, one of its runs or a retriever (BM25 over the dataset's corpus, or a retriever saved in
// the project: bm25, es, http, dense, hybrid; confirmed first when it calls an endpoint, retrieved
// as the job's first step with its progress in the Jobs dock, then added to the dataset's runs so
// every page sees it, and savable as a TREC run file),
// the generator endpoint, the prompt template, k, the downstream metric that turns each output into
// a document label, and the measures that aggregate the labels; a dry-run estimate (calls, tokens,
// cost) for eRAG and, optionally, the end-to-end run it is compared with; an optional budget cap.
// The page only gathers a core::eval::JobSpec (EragSetup) and hands it to a RunJob through the
// JobLauncher and JobControls every job page shares (listed in the Jobs dock, resumable): planning,
// the stores, the engine, the scores and the eRAG-then-end-to-end chain are core's, the same path
// as `ragscope-cli erag --with-e2e`. Results show in an EragResultsView.

#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "core/eval/api/job.h"
#include "core/metrics/downstream.h"
#include "ui/pages/eragresultsview.h"
#include "ui/pages/jobpage.h"

class QLabel;
class QProgressBar;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QThreadPool;

namespace ragscope::ui {

class EragSetup;
struct RunJobOutcome;
class RetrieverRunBar;
class Workbench;

class EragPage : public JobPage {
  Q_OBJECT
 public:
  explicit EragPage(Workbench* workbench, QWidget* parent = nullptr);
  ~EragPage() override;

  QString title() const override { return tr("eRAG"); }
  QIcon icon() const override;
  void activated() override;

  // Scripted use (self-test, tests).
  void setRunIndex(int index);             // a run of the dataset
  void setRetrieverBm25();                 // BM25 (Xapian) over the dataset's corpus, top k
  bool setRetriever(const QString& name);  // a saved retriever of the project, top k
  bool retrieverSelected() const;
  void setEndpointIndex(int index);  // 0: the offline heuristic reader
  void setK(int k);
  void setMetric(core::DownstreamMetric metric);
  void setMeasures(const QString& text);
  void setEndToEnd(bool on);
  bool start() override;
  // Writes run `runIndex` of the current dataset as a TREC run file in the background;
  // runSaved() follows.
  bool saveRun(int runIndex, const QString& path);
  // Shows the results of stored runs (an eRAG store, optionally its end-to-end store).
  bool openStores(const QString& eragStore, const QString& e2eStore = {});

  const core::eval::EvaluationResults* results() const { return m_view->results(); }
  EragResultsView* view() const { return m_view; }
  bool openStatistics(int column) { return m_view->openStatistics(column); }
  bool drillDown(int queryRow, int rank) { return m_view->drillDown(queryRow, rank); }
  HeatmapModel* heatmap() const { return m_view->heatmap(); }
  QTableView* heatmapView() const { return m_view->heatmapView(); }
  QTextBrowser* drillView() const { return m_view->drillView(); }
  QTabWidget* resultTabs() const { return m_view->tabs(); }
  QTableView* perQueryView() const { return m_view->perQueryView(); }
  QTextBrowser* summaryView() const { return m_view->summaryView(); }
  StatsPanel* statsPanel() const { return m_view->statsPanel(); }
  QTableView* correlationView() const { return m_view->correlationView(); }
  charts::ChartWidget* scatter() const { return m_view->scatter(); }
  int heatmapTab() const { return m_view->heatmapTab(); }
  int correlationTab() const { return m_view->correlationTab(); }
  QLabel* runNoteLabel() const { return m_runNote; }
  EragSetup* setup() const { return m_setup; }

  // Makes a run with one of the project's retrievers (scripted use: tests, screenshots).
  RetrieverRunBar* retrieverBar() const;
 signals:
  // The retriever's run is in the dataset (or the retrieval failed or was cancelled).
  void retrieved(bool ok);
  void runSaved(bool ok, const QString& message);

 private:
  void buildUi();
  void refreshInputs();
  // Shows the open project's stored eRAG (and end-to-end) run of the loaded dataset, when the page
  // has nothing else to show: a project reopens with its results on screen.
  void showProjectRuns();
  std::optional<core::eval::JobSpec> formSpec(QString* error) const override;
  bool runEstimate() override;
  void onRetrieved(const std::shared_ptr<const core::eval::RetrievedRun>& run);
  void onFinished(const RunJobOutcome& outcome);
  void showResults(std::shared_ptr<const core::eval::EvaluationResults> results);

  Workbench* m_workbench;
  EragSetup* m_setup = nullptr;
  QLabel* m_runNote = nullptr;  // how the last retrieved run was made
  EragResultsView* m_view = nullptr;
  QThreadPool* m_pool = nullptr;    // owned: stored results and saved runs off the GUI thread
  bool m_retrievalPending = false;  // the job's retrieval step has not delivered its run yet
  std::shared_ptr<const core::Dataset> m_runDataset;  // dataset of the job in flight
};

}  // namespace ragscope::ui
