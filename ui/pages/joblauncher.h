#pragma once
// Starting a job from a page, the same way everywhere: the endpoint's trust (a retriever read from
// a project file is confirmed before anything is sent), its key (keychain, else the environment),
// then the job itself, with a JobControls showing each step; and the status line when it ends.
// The rules: one launch at a time; Cancel works from the first step (a cancel during the key
// lookup means nothing starts and nothing is sent); a key that cannot be found ends the launch
// with "Not started: <why>".
//
//   m_launcher = new JobLauncher(m_controls, this);
//   connect(m_launcher, &JobLauncher::finished, this, &ClaimsPage::onFinished);
//   m_launcher->launch(spec.judge.judge, tr("Starting…"), [=](const ResolvedEndpoint& key) {
//     RunJobRequest r; ... r.execution.transport = key.transport; return r; });

#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <string>

#include "core/llm/provider.h"
#include "core/retrieval/retrieverspec.h"
#include "ui/jobs/runjob.h"

namespace ragscope::ui {

class JobControls;
struct ResolvedEndpoint;

class JobLauncher : public QObject {
  Q_OBJECT
 public:
  JobLauncher(JobControls* controls, QObject* parent);
  ~JobLauncher() override;

  // An LLM job: `endpoint`'s key, then a RunJob for the request `make` builds from it. `stage`
  // names the running stage in the progress line ("eRAG", "Judging").
  using MakeRequest = std::function<RunJobRequest(const ResolvedEndpoint& key)>;
  using StageName = std::function<QString(const RunJob& job)>;
  bool launch(const core::llm::EndpointConfig& endpoint, const QString& startText, MakeRequest make,
              StageName stage);
  // An LLM job whose first step runs `retriever` (RunSource::Type::Retriever): the retriever is
  // confirmed first (as on the Retrievers page; refused: the status says why, nothing is sent,
  // false), then its key is looked up, then as launch(), the request carrying the retriever's key.
  bool launchWithRetriever(QWidget* dialogParent, const core::RetrieverSpec& retriever,
                           const core::llm::EndpointConfig& endpoint, const QString& startText,
                           MakeRequest make, StageName stage);
  // A retriever job: confirmed (or refused: the status says why, false returned), its key, then
  // `start` with it (an empty function: the key comes from its variable at each request).
  // `cancelRunning` stops the job `start` began; the page calls done() when it ends.
  using StartWithKey = std::function<void(std::function<std::string()> key)>;
  bool launchRetriever(QWidget* dialogParent, const core::RetrieverSpec& spec,
                       const QString& startText, StartWithKey start,
                       std::function<void()> cancelRunning);
  void done();

  void cancel();
  bool isActive() const { return m_active; }  // from launch until the job's end
  RunJob* job() const { return m_job; }

  // The status line after a RunJob: it could not start (`job` names it: "eRAG could not start:
  // …"), was cancelled before any call (`cancelledText`), failed, completed (`doneText`), or
  // stopped part-way (how far, and that the Jobs dock resumes it). The controls are idle again.
  // True when the job completed without error.
  struct OutcomeTexts {
    QString job;
    QString done;
    QString cancelled;
  };
  bool showOutcome(const RunJobOutcome& outcome, const OutcomeTexts& texts);

 signals:
  // The launch ended before a job ran: the key failed (status "Not started: …") or Cancel came
  // during the key lookup. The controls are idle again.
  void notStarted(bool cancelled);
  void retrieved(std::shared_ptr<const ragscope::core::eval::RetrievedRun> run);
  void finished(const ragscope::ui::RunJobOutcome& outcome);

 private:
  bool begin(const QString& startText);
  // After begin(): the endpoint's key, then the RunJob.
  void startJob(const core::llm::EndpointConfig& endpoint, MakeRequest make, StageName stage);
  // After the key lookup: true when the launch goes on.
  bool keyArrived(bool ok, const QString& message);

  JobControls* m_controls;
  RunJob* m_job = nullptr;
  std::function<void()> m_cancelRunning;
  bool m_active = false;
  bool m_cancelled = false;  // Cancel came during the key lookup
};

}  // namespace ragscope::ui
