#pragma once
// Retrieval evaluation (core/metrics/README.md): pick qrels and runs (files, or the loaded
// dataset's), measures in trec_eval's syntax, level, depth and complete mode; the evaluation runs
// in the background. Results: a runs x measures summary, the conventions in force, a per-query
// table per run, and a drill-down from a query to its ranked list with grades coloured and unjudged
// documents marked. A second tab compares two qrels files (QrelsAgreementView).

#include <QStringList>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/stats/summary.h"
#include "ui/jobs/evaljob.h"
#include "ui/pages/page.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTabWidget;
class QTableView;
class QTextBrowser;

namespace ragscope::ui {

class EvalSummaryModel;
class PerQueryEvalModel;
class QrelsAgreementView;
class RankedListModel;
class StatsRunner;
class StatsPanel;
class RetrieverRunBar;
class RunListEditor;
class Workbench;

class RetrievalPage : public Page {
  Q_OBJECT
 public:
  explicit RetrievalPage(Workbench* workbench, QWidget* parent = nullptr);
  ~RetrievalPage() override;

  QString title() const override { return tr("Retrieval"); }
  QIcon icon() const override;

  // Scripted use (self-test, screenshots, tests): qrels file (empty = the dataset's) and run files.
  void setInputs(const QString& qrelsFile, const QStringList& runFiles);
  void setMeasures(const QString& measures);
  void setRelevanceLevel(int level);
  void setComplete(bool on);
  void setMaxDepth(int depth);  // 0 = no cut
  // Document level: chunk ids file#page#n count as their document (core/metrics/README.md, document
  // level).
  void setDocumentLevel(bool on);
  // Chooses the loaded dataset's gold documents as the (document-level) qrels; false when the
  // dataset names none.
  bool useGoldDocuments();
  bool evaluate();
  void cancel();
  bool isRunning() const;
  // Selects a run in the per-query table and a query in it (drills down to its ranked list).
  bool showQuery(int runIndex, const QString& qid);

  const EvalOutcome& outcome() const { return *m_outcome; }
  std::shared_ptr<const EvalOutcome> sharedOutcome() const { return m_outcome; }
  // Opens the statistics panel for a measure of a run (as selecting its column does).
  bool openStatistics(int runIndex, const QString& measure);
  StatsPanel* statsPanel() const { return m_statsPanel; }
  // The summary's bootstrap CIs are still being computed.
  bool summaryStatisticsPending() const;
  QTableView* summaryView() const { return m_summaryView; }
  QListWidget* runList() const;
  QTableView* perQueryView() const { return m_perQueryView; }
  QTableView* rankedView() const { return m_rankedView; }
  RankedListModel* rankedModel() const { return m_ranked; }
  // Gives the selected ranked-list document a human relevance grade (0..3), as its key does.
  bool gradeSelectedDocument(int grade);
  // Opens the labelling queue over the evaluated runs' unjudged documents.
  void openLabelQueue();
  QLineEdit* queryFilterEdit() const { return m_queryFilter; }
  QTextBrowser* conventionsView() const { return m_conventions; }

  // The "Qrels agreement" tab: two qrels files compared (kappa, confusion, system orderings).
  QrelsAgreementView* qrelsAgreement() const { return m_qrelsAgreement; }
  void showQrelsAgreement();

  // Makes a run with one of the project's retrievers (scripted use: tests, screenshots).
  RetrieverRunBar* retrieverBar() const { return m_retrieverBar; }
 signals:
  void evaluationFinished(bool ok);
  // The summary table's CI columns are filled in.
  void summaryStatisticsReady();

 private:
  void buildUi();
  void refreshDatasetInputs();
  void chooseQrelsFile();
  void onFinished(const EvalOutcome& outcome);
  void showRun(int index);
  void onQuerySelected();
  void updateConventions();
  void computeSummaryIntervals();
  void onSummaryColumnSelected(const QModelIndex& proxyIndex);
  void onPerQueryColumnSelected(const QModelIndex& proxyIndex);
  void refreshHumanGrades();
  bool eventFilter(QObject* watched, QEvent* event) override;

  Workbench* m_workbench;
  RetrieverRunBar* m_retrieverBar = nullptr;
  EvalJob* m_job;
  StatsRunner* m_statsJob;  // the summary's confidence intervals
  std::shared_ptr<const EvalOutcome> m_outcome;

  QComboBox* m_qrels;
  RunListEditor* m_runs;
  QLineEdit* m_measures;
  QSpinBox* m_level;
  QSpinBox* m_depth;
  QCheckBox* m_complete;
  QCheckBox* m_docLevel;
  bool m_evaluatedDocLevel = false;  // the option as it was when the shown results were computed
  // Document-level drill-down: the ranking's chunk ids, each with its document's grade.
  std::vector<core::Judgment> m_docJudgments;
  QPushButton* m_evaluate;
  QPushButton* m_cancel;
  QProgressBar* m_progress;
  QLabel* m_status;

  EvalSummaryModel* m_summary;
  QTableView* m_summaryView;
  QTextBrowser* m_conventions;
  QComboBox* m_runChoice;
  QLineEdit* m_queryFilter;
  PerQueryEvalModel* m_perQuery;
  QSortFilterProxyModel* m_perQueryProxy;
  QTableView* m_perQueryView;
  QLabel* m_rankedTitle;
  RankedListModel* m_ranked;
  QTableView* m_rankedView;
  StatsPanel* m_statsPanel;
  QSortFilterProxyModel* m_summaryProxy;
  QTabWidget* m_tabs = nullptr;
  QrelsAgreementView* m_qrelsAgreement = nullptr;
};

}  // namespace ragscope::ui
