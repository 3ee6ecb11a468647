#pragma once
// Compare runs (core/stats/README.md, paired comparison): pick runs (from the retrieval page's
// latest evaluation, or `trec_eval -q` per-query files) and measures; every pair of runs on every
// measure gets the mean difference with a paired bootstrap CI, the randomization and t-test
// p-values raw and Holm-adjusted across all comparisons, wins/ties/losses per query, and for the
// selected row the sorted per-query differences and a scatter of the two runs with Kendall's tau
// and Spearman's rho. Computed in the background with cancel.

#include <QStringList>
#include <memory>
#include <vector>

#include "ui/models/comparisonmodel.h"
#include "ui/models/runvalues.h"
#include "ui/pages/page.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QSplitter;
class QTableView;

namespace ragscope::ui {

namespace charts {
class ChartWidget;
}
class RunSources;
class StatsRunner;
class Workbench;

class ComparePage : public Page {
  Q_OBJECT
 public:
  explicit ComparePage(Workbench* workbench, QWidget* parent = nullptr);
  ~ComparePage() override;

  QString title() const override { return tr("Compare runs"); }
  QIcon icon() const override;

  // Scripted use (self-test, tests).
  // Reads the files off the GUI thread; perQueryFilesAdded() follows.
  void addPerQueryFiles(const QStringList& files);
  QStringList runNames() const;
  void setRunsChecked(const QStringList& names);  // empty = all
  void setMeasuresChecked(const QStringList& measures);
  void setResamples(int b);
  void setPermutations(int n);
  bool compare();
  void cancel();
  bool isRunning() const;
  bool selectRow(int row);  // source row of the model

  ComparisonModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  charts::ChartWidget* pairedChart() const { return m_paired; }
  charts::ChartWidget* scatterChart() const { return m_scatter; }

 signals:
  void comparisonFinished(bool ok);
  // addPerQueryFiles() done: `allOk` false when a file had errors or no values (status says which).
  void perQueryFilesAdded(bool allOk);

 protected:
  // Fits the table's height again: before the page is first shown the splitter has no sizes.
  void showEvent(QShowEvent* event) override;

 private:
  void buildUi();
  void refreshRuns();
  void refreshMeasures();
  void onFinished(std::vector<ComparisonRow> rows, bool cancelled);
  void showRow(int sourceRow);
  void fitTableHeight();
  std::vector<const RunValues*> checkedRuns() const;
  QStringList checkedMeasures() const;

  Workbench* m_workbench;
  StatsRunner* m_job = nullptr;
  RunSources* m_sources;

  QListWidget* m_runs;
  QListWidget* m_measures;
  QSpinBox* m_resamples;
  QSpinBox* m_permutations;
  QComboBox* m_level;
  QDoubleSpinBox* m_alpha;
  QSpinBox* m_seed;
  QPushButton* m_compare;
  QPushButton* m_cancel;
  QProgressBar* m_busy;
  QLabel* m_status;
  ComparisonModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QTableView* m_table;
  QSplitter* m_results;
  charts::ChartWidget* m_paired;
  charts::ChartWidget* m_scatter;
};

}  // namespace ragscope::ui
