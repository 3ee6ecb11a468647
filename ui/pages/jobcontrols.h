#pragma once
// The controls of every page that runs a job (eRAG, Claims, the retriever run bars, and whatever
// comes next): Start and Cancel, a progress bar, one status line with its error state, and where
// the page asks for them a debounced dry-run estimate (its error shown) and a budget cap. One
// widget so the pages cannot drift apart again; the rules it keeps:
//   - the estimate waits kEstimateDebounceMs after the last change, and only the latest request
//     is shown; a failed estimate shows why, in the error colour;
//   - Start is enabled when the page is idle; Cancel while a job is being launched or runs (a
//     cancel during the key lookup means the job never starts), never while the page only reads;
//   - an error stays in the error colour until the next start or status.
// JobLauncher (ui/pages/joblauncher.h) drives it: trust confirmation, key lookup, the job;
// JobPage (ui/pages/jobpage.h) puts both on a page.
//
//   auto* controls = new JobControls({tr("Run eRAG"), JobControls::WithEstimate |
//                                     JobControls::WithBudget});
//   connect(controls, &JobControls::startRequested, this, &EragPage::start);
//   controls->setEstimator([this] { return runEstimate(); });
//   controls->scheduleEstimate();  // after every change of the setup

#include <QString>
#include <QThreadPool>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

#include "core/eval/api/job.h"

class QCheckBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace ragscope::ui {

class JobControls : public QWidget {
  Q_OBJECT
 public:
  enum Part { WithEstimate = 1, WithBudget = 2, Compact = 4 };  // Compact: one row, no estimate
  struct Options {
    QString startText;
    int parts = 0;
  };
  // One debounce for every page: long enough to coalesce a spin box's key repeat, short enough
  // that the estimate follows the setup at once.
  static constexpr int kEstimateDebounceMs = 150;

  explicit JobControls(Options options, QWidget* parent = nullptr);
  ~JobControls() override;

  // Widgets the page places before Start/Cancel in the button row (an "Open stored runs…"
  // button, a checkbox), or at the start of the compact row (a selector, a depth).
  void addLeading(QWidget* widget, int stretch = 0);
  void addTrailing(QWidget* widget);
  // The budget row (checkbox and amount) for the page's form (WithBudget).
  QWidget* budgetEditor() const { return m_budgetRow; }
  std::optional<double> budgetUsd() const;
  void setBudget(std::optional<double> usd);
  // "As batch" (with the budget row): the job's calls go to the endpoint's Batch API.
  bool asBatch() const;

  // Busy: Start disabled, the progress bar shown; Cancel follows `cancellable`.
  void setBusy(bool busy, bool cancellable = false);
  bool isBusy() const { return m_busy; }
  void setStartEnabled(bool on);  // idle only: e.g. nothing to run yet
  // The status line: plain text (it quotes servers and files), in the error colour when `error`.
  void setStatus(const QString& text, bool error = false);
  bool hasError() const { return m_error; }
  // Ends a busy phase with an error: idle again, the message in the error colour.
  void fail(const QString& message);
  // Engine progress: the bar determinate once the total is known, the text after `stage`.
  void showProgress(const QString& stage, const core::eval::Progress& progress,
                    std::optional<double> budgetUsd);
  // The retrieval step's progress (index building, then queries).
  void showRetrievalProgress(bool indexing, quint64 done, quint64 total);

  // The estimate (WithEstimate). The estimator starts one and returns whether it could;
  // showEstimate()/estimateJob() deliver it. scheduleEstimate() debounces calls to it.
  void setEstimator(std::function<bool()> estimator) { m_estimator = std::move(estimator); }
  void scheduleEstimate();
  bool estimateNow();
  void showEstimate(const QString& text, bool ok);
  // core::eval::estimateJob off the GUI thread: "Estimating…", then `describe(e)` or e's error.
  using DescribeEstimate = std::function<QString(const core::eval::JobEstimate&)>;
  void estimateJob(core::eval::JobSpec spec, std::shared_ptr<const core::Dataset> dataset,
                   DescribeEstimate describe);

  QPushButton* startButton() const { return m_start; }
  QPushButton* cancelButton() const { return m_cancel; }
  QProgressBar* progressBar() const { return m_progress; }
  QLabel* statusLabel() const { return m_status; }
  QLabel* estimateLabel() const { return m_estimate; }

 signals:
  void startRequested();
  void cancelRequested();
  void estimateFinished(bool ok);

 private:
  QThreadPool m_pool;  // estimates, one at a time
  std::function<bool()> m_estimator;
  QTimer* m_debounce;
  int m_estimateGeneration = 0;
  bool m_busy = false;
  bool m_error = false;
  bool m_startEnabled = true;
  QHBoxLayout* m_row = nullptr;
  int m_leadingAt = 0;  // where the next leading widget goes in m_row
  QPushButton* m_start;
  QPushButton* m_cancel;
  QProgressBar* m_progress;
  QLabel* m_status;
  QLabel* m_estimate = nullptr;
  QWidget* m_budgetRow = nullptr;
  QCheckBox* m_useBudget = nullptr;
  QDoubleSpinBox* m_budget = nullptr;
  QCheckBox* m_asBatch = nullptr;
};

}  // namespace ragscope::ui
