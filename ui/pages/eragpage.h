#pragma once
// eRAG (SPEC §6, paper 000) in the GUI. Setup: the current dataset, one of its runs or a retriever
// (BM25 over the dataset's corpus: the run is retrieved in the background first, added to the
// dataset's runs so every page sees it, and can be saved as a TREC run file), the generator
// endpoint, the prompt template, k, the downstream metric that turns each output into a document
// label, and the measures that aggregate the labels; a dry-run estimate (calls, tokens, cost) for
// eRAG and, optionally, the end-to-end run it is compared with; an optional budget cap. The jobs
// run as RunJobs (listed in the Jobs dock, resumable). Results: a summary (means with bootstrap
// CIs), a per-query table, a heatmap of queries x ranks coloured by label whose cells drill down
// to the document text, the prompt and the generated output, and — with the end-to-end run — the
// correlation table of every evaluation method against end-to-end quality and a scatter of eRAG
// vs end-to-end per query. Selecting a measure column of the per-query table opens the statistics
// panel (bootstrap CI and histogram) on it.

#include <QString>

#include <memory>
#include <optional>
#include <vector>

#include "core/eval/correlationanalysis.h"
#include "core/eval/e2ejob.h"
#include "core/eval/eragjob.h"
#include "core/llm/provider.h"
#include "core/metrics/downstream.h"
#include "ui/pages/page.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QStandardItemModel;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QThreadPool;

namespace ragscope::ui {

namespace charts {
class ChartWidget;
}
class HeatmapModel;
class RetrieveJob;
struct RetrieveOutcome;
class RunJob;
class StatsPanel;
class Workbench;

// Everything the result views show, computed on a worker from the run stores.
struct EragResults {
  QString eragStore;
  QString e2eStore;
  core::eval::EragReport erag;
  std::vector<std::vector<std::string>> prompts;  // [query][rank], from the store's requests
  std::optional<core::eval::E2eReport> e2e;
  std::optional<core::eval::CorrelationAnalysis> correlation;
  std::vector<core::MeasureRequest> measures;
  QString system;  // the run's name
  QString error;
};

class EragPage : public Page {
  Q_OBJECT
 public:
  explicit EragPage(Workbench* workbench, QWidget* parent = nullptr);
  ~EragPage() override;

  QString title() const override { return tr("eRAG"); }
  QIcon icon() const override;
  void activated() override;

  // Scripted use (self-test, tests).
  void setRunIndex(int index);  // a run of the dataset
  void setRetrieverBm25();       // BM25 (Xapian) over the dataset's corpus, top k
  bool retrieverSelected() const;
  void setEndpointIndex(int index);  // 0: the offline heuristic reader
  void setK(int k);
  void setMetric(core::DownstreamMetric metric);
  void setMeasures(const QString& text);
  void setEndToEnd(bool on);
  void setBudget(std::optional<double> usd);
  bool estimate();  // estimateFinished() follows
  bool start();     // finished() follows
  void cancel();
  bool isRunning() const;
  // Writes run `runIndex` of the current dataset as a TREC run file in the background;
  // runSaved() follows.
  bool saveRun(int runIndex, const QString& path);
  // Opens the statistics panel on a measure column of the per-query table; false when the
  // column holds no measure.
  bool openStatistics(int column);
  // Shows the results of stored runs (an eRAG store, optionally its end-to-end store).
  bool openStores(const QString& eragStore, const QString& e2eStore = {});

  const EragResults* results() const { return m_results.get(); }
  HeatmapModel* heatmap() const { return m_heatmap; }
  QTableView* heatmapView() const { return m_heatmapView; }
  QTextBrowser* drillView() const { return m_drill; }
  QTabWidget* resultTabs() const { return m_tabs; }
  QTableView* perQueryView() const { return m_perQueryView; }
  QTextBrowser* summaryView() const { return m_summary; }
  StatsPanel* statsPanel() const { return m_statsPanel; }
  QProgressBar* progressBar() const { return m_progress; }
  QTableView* correlationView() const { return m_correlationView; }
  charts::ChartWidget* scatter() const { return m_scatter; }
  QLabel* estimateLabel() const { return m_estimate; }
  QLabel* statusLabel() const { return m_status; }
  QLabel* runNoteLabel() const { return m_runNote; }
  // Selects a heatmap cell and shows its drill-down; false when out of range.
  bool drillDown(int queryRow, int rank);
  int heatmapTab() const { return m_heatmapTab; }
  int correlationTab() const { return m_correlationTab; }

 signals:
  void estimateFinished(bool ok);
  // The retriever's run is in the dataset (or the retrieval failed or was cancelled).
  void retrieved(bool ok);
  void runSaved(bool ok, const QString& message);
  void finished(bool ok);

 private:
  void buildUi();
  void refreshInputs();
  // Shows the open project's stored eRAG (and end-to-end) run of the loaded dataset, when the page
  // has nothing else to show: a project reopens with its results on screen.
  void showProjectRuns();
  core::llm::EndpointConfig endpoint() const;
  std::vector<core::MeasureRequest> parsedMeasures(QString* error) const;
  void scheduleEstimate();
  bool startRetrieval();
  void onRetrieved(const RetrieveOutcome& outcome);
  void startEndToEnd(const std::shared_ptr<const EragResults>& stage);
  void computeFromStores(const QString& eragStore, const QString& e2eStore);
  void showResults(std::shared_ptr<const EragResults> results);
  void fail(const QString& message);
  void updateScatter();
  void setBusy(bool busy);

  Workbench* m_workbench;
  QLabel* m_datasetLabel = nullptr;
  QComboBox* m_run = nullptr;
  QComboBox* m_endpoint = nullptr;
  QLineEdit* m_template = nullptr;
  QSpinBox* m_k = nullptr;
  QComboBox* m_metric = nullptr;
  QLineEdit* m_measures = nullptr;
  QCheckBox* m_e2e = nullptr;
  QCheckBox* m_useBudget = nullptr;
  QDoubleSpinBox* m_budget = nullptr;
  QLabel* m_estimate = nullptr;
  QLabel* m_status = nullptr;
  QPushButton* m_startButton = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QPushButton* m_saveRun = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_runNote = nullptr;  // how the last retrieved run was made
  QTabWidget* m_tabs = nullptr;
  QTextBrowser* m_summary = nullptr;
  QStandardItemModel* m_perQuery = nullptr;
  QTableView* m_perQueryView = nullptr;
  HeatmapModel* m_heatmap = nullptr;
  QTableView* m_heatmapView = nullptr;
  QTextBrowser* m_drill = nullptr;
  QStandardItemModel* m_correlation = nullptr;
  QTableView* m_correlationView = nullptr;
  QComboBox* m_scatterMeasure = nullptr;
  charts::ChartWidget* m_scatter = nullptr;
  StatsPanel* m_statsPanel = nullptr;
  int m_heatmapTab = -1;
  int m_correlationTab = -1;
  std::vector<core::llm::EndpointConfig> m_endpoints;
  std::shared_ptr<const EragResults> m_results;
  RunJob* m_job = nullptr;
  RetrieveJob* m_retrieve = nullptr;
  QThreadPool* m_pool = nullptr;  // owned: result computation off the GUI thread
  bool m_measuresEdited = false;
  bool m_running = false;
  int m_estimateGeneration = 0;
  std::shared_ptr<const core::Dataset> m_runDataset;  // dataset of the job in flight
};

}  // namespace ragscope::ui
