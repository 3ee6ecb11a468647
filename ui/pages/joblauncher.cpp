#include "ui/pages/joblauncher.h"

#include <utility>

#include "ui/pages/jobcontrols.h"
#include "ui/retrievertrust.h"
#include "ui/secrets.h"
#include "ui/textutil.h"

namespace ragscope::ui {

JobLauncher::JobLauncher(JobControls* controls, QObject* parent)
    : QObject(parent), m_controls(controls) {
  connect(m_controls, &JobControls::cancelRequested, this, &JobLauncher::cancel);
}

JobLauncher::~JobLauncher() {
  if (m_job) m_job->disconnect(this);  // the job (a child) cancels and waits as it goes
}

bool JobLauncher::begin(const QString& startText) {
  if (m_active) return false;
  m_active = true;
  m_cancelled = false;
  m_controls->setBusy(true, true);
  m_controls->setStatus(startText);
  return true;
}

bool JobLauncher::keyArrived(bool ok, const QString& message) {
  if (ok && !m_cancelled) return true;
  m_active = false;
  m_controls->fail(m_cancelled ? tr("Cancelled before any call.")
                               : tr("Not started: %1").arg(message));
  emit notStarted(m_cancelled);
  return false;
}

bool JobLauncher::launch(const core::llm::EndpointConfig& endpoint, const QString& startText,
                         MakeRequest make, StageName stage) {
  if (!begin(startText)) return false;
  startJob(endpoint, std::move(make), std::move(stage));
  return true;
}

bool JobLauncher::launchWithRetriever(QWidget* dialogParent, const core::RetrieverSpec& retriever,
                                      const core::llm::EndpointConfig& endpoint,
                                      const QString& startText, MakeRequest make, StageName stage) {
  if (m_active) return false;
  QString why;
  if (!confirmRetriever(dialogParent, retriever, &why)) {
    m_controls->setStatus(why, true);
    return false;
  }
  begin(startText);
  // The retriever's key (keychain) before the generator's; a cancel meanwhile starts nothing.
  resolveRetrieverKey(
      retriever, this,
      [this, endpoint, make = std::move(make), stage = std::move(stage)](
          bool ok, std::function<std::string()> key, const QString& message) mutable {
        if (!keyArrived(ok, message)) return;
        startJob(
            endpoint,
            [make = std::move(make), key = std::move(key)](const ResolvedEndpoint& resolved) {
              RunJobRequest request = make(resolved);
              request.retrieverKey = key;
              return request;
            },
            std::move(stage));
      });
  return true;
}

void JobLauncher::startJob(const core::llm::EndpointConfig& endpoint, MakeRequest make,
                           StageName stage) {
  Secrets::resolveEndpointKey(
      endpoint, this,
      [this, make = std::move(make), stage = std::move(stage)](const ResolvedEndpoint& key) {
        if (!keyArrived(key.ok, key.message)) return;
        m_job = new RunJob(this);
        connect(m_job, &RunJob::retrieveProgress, this,
                [this](RunJob::RetrievePhase phase, quint64 done, quint64 total) {
                  showRetrieverProgress(m_controls->progressBar(), m_controls->statusLabel(), phase,
                                        done, total);
                });
        connect(m_job, &RunJob::retrieved, this, &JobLauncher::retrieved);
        connect(m_job, &RunJob::progress, this, [this, stage](const core::eval::Progress& p) {
          if (m_job) m_controls->showProgress(stage(*m_job), p, m_job->budgetUsd());
        });
        connect(m_job, &RunJob::finished, this, [this](const RunJobOutcome& outcome) {
          m_job->deleteLater();
          m_job = nullptr;
          m_cancelRunning = nullptr;
          m_active = false;
          emit finished(outcome);
        });
        connect(m_job, &RunJob::batchStatus, this,
                [this](const QString& id, const QString& status, qint64 done, qint64 failed,
                       qint64 total) {
                  m_controls->setStatus(tr("Batch %1: %2, %3 / %4 calls done, %5 failed")
                                            .arg(id, status)
                                            .arg(done)
                                            .arg(total)
                                            .arg(failed));
                });
        m_cancelRunning = [job = m_job] { job->cancel(); };
        RunJobRequest request = make(key);
        if (m_controls->asBatch()) request.execution.batch.mode = core::eval::BatchMode::Api;
        m_job->start(std::move(request));
      });
}

bool JobLauncher::launchRetriever(QWidget* dialogParent, const core::RetrieverSpec& spec,
                                  const QString& startText, StartWithKey start,
                                  std::function<void()> cancelRunning) {
  if (m_active) return false;
  QString why;
  if (!confirmRetriever(dialogParent, spec, &why)) {
    m_controls->setStatus(why);
    return false;
  }
  begin(startText);
  // The key from the keychain, when the retriever names an entry, before anything is sent.
  resolveRetrieverKey(spec, this,
                      [this, start = std::move(start), cancelRunning = std::move(cancelRunning)](
                          bool ok, std::function<std::string()> key, const QString& message) {
                        if (!keyArrived(ok, message)) return;
                        m_cancelRunning = cancelRunning;
                        start(std::move(key));
                      });
  return true;
}

void JobLauncher::done() {
  m_active = false;
  m_cancelRunning = nullptr;
  m_controls->setBusy(false);
}

void JobLauncher::cancel() {
  if (!m_active) return;
  if (m_cancelRunning)
    m_cancelRunning();
  else
    m_cancelled = true;  // still looking up the key: the job never starts
}

bool JobLauncher::showOutcome(const RunJobOutcome& outcome, const OutcomeTexts& texts) {
  m_cancelRunning = nullptr;
  m_controls->setBusy(false);
  if (!outcome.started) {
    m_controls->setStatus(outcome.cancelledBeforeCalls
                              ? texts.cancelled
                              : tr("%1 could not start: %2").arg(texts.job, outcome.error),
                          true);
    return false;
  }
  const auto& result = *outcome.result;
  const bool complete = outcome.summary.outcome == core::eval::RunOutcome::Done ||
                        outcome.summary.outcome == core::eval::RunOutcome::DoneWithErrors;
  if (!result.error.empty()) {
    m_controls->setStatus(q(result.error), true);
  } else if (complete) {
    m_controls->setStatus(texts.done);
  } else {
    const QString stage = result.stages.empty() ? texts.job : q(result.stages.back().kindName);
    m_controls->setStatus(tr("%1 %2: %3 of %4 calls done; resume it from the Jobs dock.")
                              .arg(stage, outcome.status)
                              .arg(outcome.summary.progress.done)
                              .arg(outcome.summary.progress.total));
  }
  return complete && result.error.empty();
}

}  // namespace ragscope::ui
