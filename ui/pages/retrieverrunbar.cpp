#include "ui/pages/retrieverrunbar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

#include "core/retrieval/retrievejob.h"
#include "ui/jobs/retrieverjob.h"
#include "ui/pages/jobcontrols.h"
#include "ui/pages/joblauncher.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

RetrieverRunBar::RetrieverRunBar(Workbench* workbench, int defaultK, QWidget* parent)
    : QWidget(parent), m_workbench(workbench), m_job(new RetrieverJob(this)) {
  setObjectName(QStringLiteral("RetrieverRunBar"));
  m_retriever = new QComboBox(this);
  m_retriever->setObjectName(QStringLiteral("RetrieverCombo"));
  m_retriever->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_retriever->setToolTip(tr("Retrievers of the project (the Retrievers page configures them)"));
  m_k = new QSpinBox(this);
  m_k->setRange(1, 100000);
  m_k->setValue(defaultK);
  m_k->setPrefix(tr("top "));
  m_controls = new JobControls({tr("Retrieve"), JobControls::Compact}, this);
  m_controls->addLeading(m_retriever);
  m_controls->addLeading(m_k);
  m_controls->startButton()->setObjectName(QStringLiteral("RetrieveButton"));
  m_controls->startButton()->setToolTip(
      tr("Run the retriever over every query of the dataset; the run joins the dataset"));
  m_launcher = new JobLauncher(m_controls, this);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(m_controls);
  connect(m_controls, &JobControls::startRequested, this, [this] { run(); });
  connect(m_launcher, &JobLauncher::notStarted, this, [this] {
    m_basis.reset();
    refresh();
    emit finished(false);
  });
  connect(m_workbench, &Workbench::retrieversChanged, this, &RetrieverRunBar::refresh);
  connect(m_workbench, &Workbench::datasetChanged, this, &RetrieverRunBar::refresh);
  connect(m_job, &RetrieverJob::progress, this,
          [this](RetrieverJob::Phase phase, quint64 done, quint64 total) {
            showRetrieverProgress(m_controls->progressBar(), m_controls->statusLabel(), phase, done,
                                  total);
          });
  connect(m_job, &RetrieverJob::finished, this, &RetrieverRunBar::onFinished);
  refresh();
}

RetrieverRunBar::~RetrieverRunBar() = default;

// From Run until the job's end, the key lookup included.
bool RetrieverRunBar::isRunning() const { return m_job->isRunning() || m_launcher->isActive(); }

void RetrieverRunBar::cancel() { m_launcher->cancel(); }

QLabel* RetrieverRunBar::statusLabel() const { return m_controls->statusLabel(); }

void RetrieverRunBar::refresh() {
  const QString current = m_retriever->currentText();
  m_retriever->clear();
  for (const auto& spec : m_workbench->retrievers())
    m_retriever->addItem(q(spec.name.empty() ? core::retrieverKindName(spec.kind) : spec.name));
  if (m_retriever->count() == 0)
    m_retriever->addItem(tr("(no retrievers: add one on the Retrievers page)"));
  const int idx = m_retriever->findText(current);
  if (idx >= 0) m_retriever->setCurrentIndex(idx);
  const bool any = !m_workbench->retrievers().empty();
  m_retriever->setEnabled(any && !isRunning());
  m_controls->setStartEnabled(any && m_workbench->dataset());
}

bool RetrieverRunBar::run(int index, int k) {
  if (isRunning()) return false;
  const auto& specs = m_workbench->retrievers();
  if (index < 0) index = m_retriever->currentIndex();
  if (k > 0) m_k->setValue(k);
  const auto ds = m_workbench->dataset();
  if (index < 0 || index >= int(specs.size()) || !ds) {
    m_controls->setStatus(tr("Open a dataset and configure a retriever first."), true);
    return false;
  }
  m_retriever->setCurrentIndex(index);
  const core::RetrieverSpec spec = specs[std::size_t(index)];
  if (ds->queries.empty()) {
    m_controls->setStatus(tr("The dataset has no queries."), true);
    return false;
  }
  core::RetrieveJobOptions options;
  options.k = std::size_t(m_k->value());
  options.tag = spec.name.empty() ? core::retrieverKindName(spec.kind) : spec.name;
  options.out = m_workbench->retrievedRunPath(options.tag);
  m_basis = ds;
  m_retriever->setEnabled(false);
  const bool launched = m_launcher->launchRetriever(
      this, spec, tr("Starting %1…").arg(q(core::describeRetriever(spec))),
      [this, spec, ds, options](std::function<std::string()> key) mutable {
        options.apiKey = std::move(key);
        m_job->run(spec, ds, ds->parts.empty() ? std::filesystem::path() : ds->parts.front().path,
                   std::move(options));
      },
      [this] { m_job->cancel(); });
  if (!launched) {  // the retriever was not confirmed: the status says why
    m_basis.reset();
    refresh();
  }
  return launched;
}

void RetrieverRunBar::onFinished(const std::shared_ptr<const core::RetrieveJobResult>& result) {
  m_launcher->done();
  const auto basis = std::exchange(m_basis, nullptr);
  refresh();
  if (result->cancelled) {
    m_controls->setStatus(
        result->checkpoint.empty()
            ? tr("Cancelled; nothing was added.")
            : tr("Cancelled; the answers so far are kept in %1 and are not asked for again.")
                  .arg(q(result->checkpoint.string())));
    emit finished(false);
    return;
  }
  if (!result->ok) {
    m_controls->setStatus(tr("Failed: %1").arg(q(result->error)), true);
    emit finished(false);
    return;
  }
  const int runIndex =
      m_workbench->addRetrievedRun(result->run.value, result->run.value.source, basis);
  if (runIndex < 0) {
    m_controls->setStatus(tr("The dataset was replaced during the retrieval; the run was not "
                             "added (it is in %1).")
                              .arg(q(result->run.value.source)));
    emit finished(false);
    return;
  }
  const std::size_t failed = result->run.report.skipped;
  QString text = tr("%1: %2 of %3 queries with results in %4 s")
                     .arg(q(result->run.value.tag))
                     .arg(result->run.report.records)
                     .arg(basis->queries.size())
                     .arg(result->seconds, 0, 'f', 1);
  if (result->resumed)
    text += tr(", %n answered by an earlier interrupted run", "", int(result->resumed));
  if (const auto& dense = result->dense; dense.ok && !dense.reused)  // a dense index was built
    text += tr("; corpus embedded (%1 sent, %2 from the cache), index built in %3 s")
                .arg(dense.calls == 1 ? tr("1 call") : tr("%1 calls").arg(dense.calls))
                .arg(dense.fromCache)
                .arg(dense.indexSeconds, 0, 'f', 1);
  for (const auto& note : result->notes)  // e.g. a project's index folder left alone
    text += QStringLiteral("; ") + q(note);
  QStringList errors;
  if (failed) {
    // Each failure is in the report; the first one is shown here, all in the tooltip.
    for (const auto& d : result->run.report.diagnostics)
      if (d.severity == core::Severity::Error) errors << q(d.field + ": " + d.problem);
    text += tr("; %n queries failed (%1)", "", int(failed)).arg(errors.value(0));
  }
  m_controls->setStatus(text + QLatin1Char('.'), failed > 0);
  m_controls->statusLabel()->setToolTip(failed ? errors.join(QLatin1Char('\n'))
                                               : q(result->run.value.source));
  emit runAdded(runIndex);
  emit finished(true);
}

}  // namespace ragscope::ui
