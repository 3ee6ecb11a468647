#pragma once
// The results of a claim-judging run (core::eval::JudgeReport, read back from its run store):
//  - Summary: per metric the mean, 95% CI, answers with a value, claims scored / total and the
//    answers in each state, in the run's compatibility mode (named); beneath, the claim metrics'
//    judge-only, human-only and prediction-powered means (PpiSummary); selecting a metric opens the
//    statistics panel (bootstrap histogram), and a second claims run can be compared with this
//    one, paired by query (bootstrap CI of the difference, randomization and t tests);
//  - Answers: every answer with its metrics and claim counts, sortable, filterable by text and by
//    "has unsupported claims" / "has unparsed", beside the claim inspector of the selected one;
//  - Claim × chunk: the selected answer's matrix (RAGChecker's checking) as a heatmap;
//  - Unsupported claims: every claim of every answer the judge did not find in the chunks, with
//    its closest chunk;
//  - Judge vs human: agreement with human labels.
// Shows only: stores are read by the page (and the inspector's calls in the background).

#include <QWidget>
#include <memory>

#include "core/eval/jobs/judgejob.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTabWidget;
class QTableView;
class QTextBrowser;

namespace ragscope::ui {

namespace charts {
class ChartWidget;
}
class AgreementView;
class ClaimInspector;
class ClaimMatrixModel;
class LabelBook;
class PpiSummary;
class StatsPanel;

class ClaimsResultsView : public QWidget {
  Q_OBJECT
 public:
  explicit ClaimsResultsView(QWidget* parent = nullptr);

  void setReport(std::shared_ptr<const core::eval::JudgeReport> report, const QString& store);
  const core::eval::JudgeReport* report() const { return m_report.get(); }
  QString storePath() const { return m_store; }
  // Human labels: the inspector's verdicts, the labelling queue, the agreement view (may be null).
  void setLabelBook(LabelBook* book);
  LabelBook* labelBook() const { return m_labelBook; }
  // Opens the labelling queue over this run's claims (a window of its own).
  void openLabelQueue();

  // Scripted use (tests, self-test).
  bool openStatistics(int metricRow);
  bool selectAnswer(const QString& qid);  // in the answers table (clearing filters that hide it)
  void setTextFilter(const QString& text);
  void setUnsupportedFilter(bool on);
  void setUnparsedFilter(bool on);
  int visibleAnswers() const;
  bool compareWith(const QString& otherStore);  // compared() follows

  QTabWidget* tabs() const { return m_tabs; }
  QLabel* modeLabel() const { return m_mode; }
  QStandardItemModel* summaryModel() const { return m_summary; }
  QTableView* summaryView() const { return m_summaryView; }
  QStandardItemModel* answersModel() const { return m_answers; }
  QTableView* answersView() const { return m_answersView; }
  ClaimInspector* inspector() const { return m_inspector; }
  ClaimMatrixModel* matrix() const { return m_matrix; }
  QTableView* matrixView() const { return m_matrixView; }
  QTextBrowser* matrixDetail() const { return m_matrixDetail; }
  QStandardItemModel* unsupportedModel() const { return m_unsupported; }
  QTableView* unsupportedView() const { return m_unsupportedView; }
  AgreementView* agreement() const { return m_agreement; }
  StatsPanel* statsPanel() const { return m_statsPanel; }
  PpiSummary* ppiSummary() const { return m_ppi; }
  QLabel* comparisonLabel() const { return m_comparison; }
  charts::ChartWidget* comparisonChart() const { return m_comparisonChart; }
  int answersTab() const { return m_answersTab; }
  int matrixTab() const { return m_matrixTab; }
  int unsupportedTab() const { return m_unsupportedTab; }
  int agreementTab() const { return m_agreementTab; }

 signals:
  void compared(bool ok);

 private:
  void fillSummary();
  void fillAnswers();
  void fillUnsupported();
  void showAnswer(int queryIndex);
  void showMatrixCell(int row, int column);
  int currentMetric() const;

  std::shared_ptr<const core::eval::JudgeReport> m_report;
  QString m_store;
  LabelBook* m_labelBook = nullptr;
  int m_compareGeneration = 0;
  QTabWidget* m_tabs = nullptr;
  QLabel* m_mode = nullptr;
  QStandardItemModel* m_summary = nullptr;
  QTableView* m_summaryView = nullptr;
  QLabel* m_comparison = nullptr;
  charts::ChartWidget* m_comparisonChart = nullptr;
  QStandardItemModel* m_answers = nullptr;
  QSortFilterProxyModel* m_answerFilter = nullptr;
  QTableView* m_answersView = nullptr;
  QLineEdit* m_filterText = nullptr;
  QCheckBox* m_filterUnsupported = nullptr;
  QCheckBox* m_filterUnparsed = nullptr;
  ClaimInspector* m_inspector = nullptr;
  ClaimMatrixModel* m_matrix = nullptr;
  QLabel* m_matrixTitle = nullptr;
  QTableView* m_matrixView = nullptr;
  QTextBrowser* m_matrixDetail = nullptr;
  QStandardItemModel* m_unsupported = nullptr;
  QTableView* m_unsupportedView = nullptr;
  AgreementView* m_agreement = nullptr;
  StatsPanel* m_statsPanel = nullptr;
  PpiSummary* m_ppi = nullptr;  // judge-only, human-only and PPI means (the Summary tab)
  int m_answersTab = -1;
  int m_matrixTab = -1;
  int m_unsupportedTab = -1;
  int m_agreementTab = -1;
};

}  // namespace ragscope::ui
