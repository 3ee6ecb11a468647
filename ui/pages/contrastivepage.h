#pragma once
// Contrastive analysis (VERA §3.4; core/stats/README.md): two or more named query sets over the
// same collection, the same measure of one run on each. Sets are made by selecting queries, by
// splitting on a column (top vs bottom half, or a threshold, of any run's measure) or from a file
// of query ids. Each set's bootstrap distribution of the mean is overlaid; each pair of sets gets
// the difference of means with a bootstrap CI and a permutation p-value (Holm across pairs).
// Computed in the background with cancel.

#include <QStringList>
#include <memory>
#include <vector>

#include "core/stats/contrastive.h"
#include "ui/models/runvalues.h"
#include "ui/pages/page.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTableWidget;

namespace ragscope::ui {

namespace charts {
class ChartWidget;
}
class QuerySetModel;
class RunSources;
class StatsRunner;
class Workbench;

class ContrastivePage : public Page {
  Q_OBJECT
 public:
  explicit ContrastivePage(Workbench* workbench, QWidget* parent = nullptr);
  ~ContrastivePage() override;

  QString title() const override { return tr("Contrastive"); }
  QIcon icon() const override;

  // Scripted use (self-test, tests).
  // Reads the files off the GUI thread; perQueryFilesAdded() follows.
  void addPerQueryFiles(const QStringList& files);
  QStringList runNames() const;
  bool setSource(int run, const QString& measure);
  // Top half (the ceil(n/2) highest values, ties by qid) vs the rest, by a run's measure.
  bool splitByHalves(int run, const QString& measure, const QString& topName,
                     const QString& bottomName);
  // value >= threshold vs below.
  bool splitByThreshold(int run, const QString& measure, double threshold, const QString& highName,
                        const QString& lowName);
  void assignQueries(const QStringList& qids, const QString& set);
  // Reads query ids (first whitespace-separated field per line, # comments) into a set; returns
  // how many of them are queries of the source run, -1 when unreadable.
  int loadSetFile(const QString& path, const QString& set);
  void clearSets();
  void setResamples(int b);
  void setSampleSize(int s);
  void setPermutations(int n);
  void useVeraSetting();
  bool analyse();
  void cancel();
  bool isRunning() const;

  const core::stats::ContrastiveResult& result() const { return m_result; }
  QuerySetModel* queryModel() const { return m_queries; }
  QTableView* queryView() const { return m_table; }
  // The one-line result summary above the tables.
  QString statusText() const;
  charts::ChartWidget* chart() const { return m_chart; }

 signals:
  void analysisFinished(bool ok);
  // addPerQueryFiles() done: `allOk` false when a file had errors or no values (status says which).
  void perQueryFilesAdded(bool allOk);

 protected:
  // Fits the query table again: before the page is first shown its fonts are not yet polished.
  void showEvent(QShowEvent* event) override;

 private:
  void buildUi();
  void refreshRuns();
  void refreshMeasures();
  void applySource();
  void chooseSetFile();
  void assignSelected();
  void updateSetsLabel();
  void onFinished(bool cancelled);
  const RunValues* runAt(int index) const;

  Workbench* m_workbench;
  StatsRunner* m_job = nullptr;
  RunSources* m_sources;
  core::stats::ContrastiveResult m_result;
  QString m_analysedMeasure;

  QComboBox* m_run;
  QComboBox* m_measure;
  QComboBox* m_splitRun;
  QComboBox* m_splitMeasure;
  QDoubleSpinBox* m_threshold;
  QComboBox* m_setName;
  QLabel* m_setsLabel;
  QSpinBox* m_resamples;
  QSpinBox* m_sampleSize;
  QSpinBox* m_permutations;
  QComboBox* m_level;
  QSpinBox* m_seed;
  QPushButton* m_analyse;
  QPushButton* m_cancel;
  QProgressBar* m_busy;
  QLabel* m_status;
  QLineEdit* m_filter;
  QuerySetModel* m_queries;
  QSortFilterProxyModel* m_proxy;
  QTableView* m_table;
  QTableWidget* m_groups;
  QTableWidget* m_pairs;
  charts::ChartWidget* m_chart;
};

}  // namespace ragscope::ui
