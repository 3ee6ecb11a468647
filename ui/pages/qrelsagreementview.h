#pragma once
// The Retrieval page's "Qrels agreement" tab (core/trecrag/README.md, "Qrels agreement"; the
// workbench side of `ragscope-cli qrels-agreement`): two qrels files A and B (the loaded
// dataset's qrels as A by default), the runs to order (the dataset's, plus files), the measure
// and the level. Shows on the pairs both judge Cohen's kappa on the four grades and binary at the
// level, with the pairs and queries counted, both confusion matrices as heatmaps (rows A,
// columns B; HeatmapDelegate), each run's mean under A and B with its ranks, Kendall's tau-b and
// Spearman's rho between the two orderings, and the largest rank swaps. The files are read and
// compared off the GUI thread (ui/jobs/qrelsagreementtask.h, the CLI's code path); their problems
// are listed as core reports them (file:line: field: problem). "Save JSON…" writes the CLI's
// --json document; File > Export view exports the focused table (a matrix or the systems).

#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>

#include "ui/jobs/qrelsagreementtask.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QTextBrowser;

namespace ragscope::ui {

class ConfusionModel;
class RunListEditor;
class StatsRunner;
class SystemAgreementModel;
class Workbench;

class QrelsAgreementView : public QWidget {
  Q_OBJECT
 public:
  explicit QrelsAgreementView(Workbench* workbench, QWidget* parent = nullptr);

  // Scripted use (tests, screenshots). An empty file means the loaded dataset's qrels.
  void setQrels(const QString& fileA, const QString& fileB);
  void addRunFiles(const QStringList& files);
  void setMeasure(const QString& measure);
  void setLevel(int level);
  void setComplete(bool on);
  // Starts the comparison; finished(ok) follows. False (status says why) when it cannot start.
  bool compute();
  // Writes the CLI's --json document of the outcome on screen; saved(ok, message) follows.
  bool saveJson(const QString& file);

  std::shared_ptr<const QrelsAgreementOutcome> outcome() const { return m_outcome; }
  // The figure shown for a name: "pairs", "only_a", "only_b", "queries", "kappa", "accuracy",
  // "binary_kappa", "binary_accuracy", "kendall", "spearman"; empty when unknown.
  QString figureText(const QString& name) const;
  QTableView* gradesView() const { return m_gradesView; }
  QTableView* binaryView() const { return m_binaryView; }
  QTableView* systemsView() const { return m_systemsView; }
  QLabel* swapsLabel() const { return m_swaps; }
  QLabel* statusLabel() const { return m_status; }
  QTextBrowser* problemsView() const { return m_problems; }

 signals:
  void finished(bool ok);
  void saved(bool ok, const QString& message);

 private:
  void buildUi();
  void refreshDatasetInputs();
  void chooseQrels(QComboBox* target);
  int qrelsItem(QComboBox* combo, const QString& file);
  void show(std::shared_ptr<const QrelsAgreementOutcome> outcome, bool cancelled);
  void showProblems(const QrelsAgreementOutcome& outcome);
  void clearFigures();
  void saveJsonDialog();

  Workbench* m_workbench;
  StatsRunner* m_runner = nullptr;
  std::shared_ptr<const QrelsAgreementOutcome> m_outcome;
  QStringList m_inputFiles;  // the files of the comparison on screen (never a save target)

  QComboBox* m_qrelsA = nullptr;
  QComboBox* m_qrelsB = nullptr;
  RunListEditor* m_runs = nullptr;
  QLineEdit* m_measure = nullptr;
  QSpinBox* m_level = nullptr;
  QCheckBox* m_complete = nullptr;
  QPushButton* m_compare = nullptr;
  QPushButton* m_save = nullptr;
  QProgressBar* m_busy = nullptr;
  QLabel* m_status = nullptr;

  QGroupBox* m_gradesBox = nullptr;
  QLabel* m_pairs = nullptr;
  QLabel* m_queries = nullptr;
  QLabel* m_kappa = nullptr;
  QLabel* m_accuracy = nullptr;
  QLabel* m_binaryCaption = nullptr;
  QLabel* m_binaryKappa = nullptr;
  QLabel* m_binaryAccuracy = nullptr;
  ConfusionModel* m_grades = nullptr;
  ConfusionModel* m_binary = nullptr;
  QTableView* m_gradesView = nullptr;
  QTableView* m_binaryView = nullptr;
  QLabel* m_binaryMatrixCaption = nullptr;

  QGroupBox* m_systemsBox = nullptr;
  SystemAgreementModel* m_systems = nullptr;
  QTableView* m_systemsView = nullptr;
  QLabel* m_kendall = nullptr;
  QLabel* m_spearman = nullptr;
  QLabel* m_systemsNote = nullptr;
  QLabel* m_swaps = nullptr;

  QGroupBox* m_problemsBox = nullptr;
  QTextBrowser* m_problems = nullptr;
};

}  // namespace ragscope::ui
