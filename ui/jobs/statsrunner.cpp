#include "ui/jobs/statsrunner.h"

namespace ragscope::ui {

StatsRunner::StatsRunner(Busy busy, QObject* parent)
    : QObject(parent),
      m_job(new StatsJob(this)),
      m_compute(busy.compute),
      m_cancel(busy.cancel),
      m_indicator(busy.indicator) {
  if (m_cancel) m_cancel->setEnabled(false);
  if (m_indicator) m_indicator->setVisible(false);
  connect(m_job, &StatsJob::finished, this, &StatsRunner::onFinished);
}

void StatsRunner::forget() {
  m_job->cancel();
  m_ticket = 0;
  m_deliver = nullptr;
  setBusy(false);
}

void StatsRunner::setBusy(bool busy) {
  if (m_compute) m_compute->setEnabled(!busy);
  if (m_cancel) m_cancel->setEnabled(busy);
  if (m_indicator) m_indicator->setVisible(busy);
}

void StatsRunner::onFinished(int ticket, bool cancelled) {
  if (ticket != m_ticket) return;  // superseded by a later request
  setBusy(false);
  if (auto deliver = std::exchange(m_deliver, nullptr)) deliver(cancelled);
}

}  // namespace ragscope::ui
