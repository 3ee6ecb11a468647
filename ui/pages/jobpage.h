#pragma once
// A page that runs a job planned from a setup form (eRAG, Claims, and whatever comes next): the
// shared JobControls and JobLauncher, and the calls every such page offers scripts and tests
// (estimate, start, cancel, budget, the controls' labels). A subclass supplies the form's
// core::eval::JobSpec (formSpec), its estimate (runEstimate) and what start() launches; the budget
// cap and the checks before a start or an estimate are made here, once.

#include <QString>
#include <optional>

#include "core/eval/api/job.h"
#include "ui/pages/page.h"

class QLabel;
class QProgressBar;

namespace ragscope::ui {

class JobControls;
class JobLauncher;

class JobPage : public Page {
  Q_OBJECT
 public:
  using Page::Page;

  virtual bool start() = 0;  // finished() follows
  void cancel();
  bool isRunning() const;
  bool estimate();  // estimateFinished() follows
  void setBudget(std::optional<double> usd);
  // The specification start() would run now (the endpoint's key not yet resolved).
  std::optional<core::eval::JobSpec> jobSpec(QString* error) const;

  JobControls* controls() const { return m_controls; }
  QProgressBar* progressBar() const;
  QLabel* estimateLabel() const;
  QLabel* statusLabel() const;

 signals:
  void estimateFinished(bool ok);
  void finished(bool ok);

 protected:
  // Makes the controls (Start labelled `startText`, an estimate showing `estimateHint` until the
  // first one, a budget) and the launcher; Start, the estimator and the signals are connected.
  void makeControls(const QString& startText, const QString& estimateHint);
  virtual std::optional<core::eval::JobSpec> formSpec(QString* error) const = 0;
  virtual bool runEstimate() = 0;
  // The spec to start, or nullopt when a job is under way or the form is incomplete (the status
  // line says why).
  std::optional<core::eval::JobSpec> startableSpec();
  // The spec to estimate, or nullopt when the form is incomplete (the estimate says why).
  std::optional<core::eval::JobSpec> estimableSpec();

  JobControls* m_controls = nullptr;
  JobLauncher* m_launcher = nullptr;
};

}  // namespace ragscope::ui
