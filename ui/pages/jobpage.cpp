#include "ui/pages/jobpage.h"

#include <QLabel>

#include "ui/pages/jobcontrols.h"
#include "ui/pages/joblauncher.h"

namespace ragscope::ui {

void JobPage::makeControls(const QString& startText, const QString& estimateHint) {
  m_controls = new JobControls({startText, JobControls::WithEstimate | JobControls::WithBudget});
  m_controls->estimateLabel()->setText(estimateHint);
  m_controls->setEstimator([this] { return runEstimate(); });
  connect(m_controls, &JobControls::startRequested, this, &JobPage::start);
  connect(m_controls, &JobControls::estimateFinished, this, &JobPage::estimateFinished);
  m_launcher = new JobLauncher(m_controls, this);
}

void JobPage::cancel() { m_launcher->cancel(); }
bool JobPage::isRunning() const { return m_controls->isBusy(); }
bool JobPage::estimate() { return m_controls->estimateNow(); }
void JobPage::setBudget(std::optional<double> usd) { m_controls->setBudget(usd); }
QProgressBar* JobPage::progressBar() const { return m_controls->progressBar(); }
QLabel* JobPage::estimateLabel() const { return m_controls->estimateLabel(); }
QLabel* JobPage::statusLabel() const { return m_controls->statusLabel(); }

std::optional<core::eval::JobSpec> JobPage::jobSpec(QString* error) const {
  auto spec = formSpec(error);
  if (spec) spec->limits.budgetUsd = m_controls->budgetUsd();
  return spec;
}

std::optional<core::eval::JobSpec> JobPage::startableSpec() {
  if (m_launcher->isActive() || isRunning()) return std::nullopt;
  QString error;
  auto spec = jobSpec(&error);
  if (!spec) m_controls->setStatus(error, true);
  return spec;
}

std::optional<core::eval::JobSpec> JobPage::estimableSpec() {
  QString error;
  auto spec = jobSpec(&error);
  if (!spec) m_controls->showEstimate(error, false);
  return spec;
}

}  // namespace ragscope::ui
