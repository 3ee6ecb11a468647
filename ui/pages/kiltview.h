#pragma once
// The KILT page: KILT's own evaluation (core/eval/kilt/kilteval.h, as `ragscope-cli kilt-eval`) of
// a predictions file against the dataset's KILT task file. Shows KILT's three groups (downstream,
// retrieval, kilt) with bootstrap CIs, computed off the GUI thread, and a sortable, filterable
// per-item table; the selected item's detail sets the guess's answer and provenance beside the
// gold answers and provenance (pages and paragraph ranges, with their text when the knowledge
// source is loaded). The files come from the dataset (a "kilt" part and a "kilt-predictions"
// part) or are chosen on the page.

#include <QString>
#include <atomic>
#include <functional>
#include <memory>

#include "core/eval/kilt/kilteval.h"
#include "ui/pages/page.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QTableWidget;
class QTextBrowser;
class QThreadPool;

namespace ragscope::ui {

class KiltItemModel;
class KiltItemProxy;
class Workbench;

class KiltView : public Page {
  Q_OBJECT
 public:
  explicit KiltView(Workbench* workbench, QWidget* parent = nullptr);
  ~KiltView() override;

  QString title() const override { return tr("KILT"); }
  QIcon icon() const override;

  // Scripted use (tests, self-test).
  void setFiles(const QString& gold, const QString& guess);
  void setKs(const QString& ks);
  // 0: wikipedia_id, 1: + section, 2: + start/end paragraph.
  void setRankKeys(int setting);
  void setResamples(int b);
  // Starts the evaluation in the background; false (status says why) when it cannot start.
  bool evaluate();
  bool isRunning() const { return m_running; }
  void setFilterText(const QString& text);
  // Writes the predictions of the dataset's run `runIndex` (pages of its top k documents, no
  // answers) to `path` off the GUI thread, then evaluates them (evaluationFinished follows).
  bool writePredictionsFromRun(std::size_t runIndex, const QString& path);
  // Tests: where "From a run…" writes, instead of a save dialog.
  void setPredictionsPathChooser(std::function<QString(const QString& suggested)> chooser) {
    m_predictionsPathChooser = std::move(chooser);
  }
  // Shows the detail of the item in proxy row `row` (detailShown() follows).
  void selectRow(int row);

  const core::eval::KiltEvaluation* evaluation() const { return m_evaluation.get(); }
  QTableWidget* summaryTable() const { return m_summary; }
  QTableView* itemTable() const { return m_items; }
  QTextBrowser* detail() const { return m_detail; }
  QString statusText() const;

 signals:
  void evaluationFinished(bool ok);
  // The detail of the selected item is shown (it is built off the GUI thread).
  void detailShown();

 private:
  void takeFilesFromDataset();
  void chooseRunForPredictions();
  void showEvaluation();
  void showDetail(int sourceRow);

  Workbench* m_workbench;
  QThreadPool* m_pool;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  bool m_running = false;
  int m_detailTicket = 0;  // the latest showDetail(): older builds are dropped
  std::shared_ptr<const core::eval::KiltEvaluation> m_evaluation;

  QLineEdit* m_gold;
  QLineEdit* m_guess;
  QLineEdit* m_ks;
  QComboBox* m_keys;
  QSpinBox* m_resamples;
  QPushButton* m_run;
  QPushButton* m_fromRun;
  std::function<QString(const QString&)> m_predictionsPathChooser;
  QLabel* m_status;
  QTableWidget* m_summary;
  QLineEdit* m_filter;
  QTableView* m_items;
  QTextBrowser* m_detail;
  KiltItemModel* m_model;
  KiltItemProxy* m_proxy;
};

}  // namespace ragscope::ui
