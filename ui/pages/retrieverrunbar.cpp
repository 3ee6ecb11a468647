#include "ui/pages/retrieverrunbar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>

#include "core/retrieval/retrievejob.h"
#include "ui/jobs/retrieverjob.h"
#include "ui/retrievertrust.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

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
  m_run = new QPushButton(tr("Retrieve"), this);
  m_run->setObjectName(QStringLiteral("RetrieveButton"));
  m_run->setToolTip(tr("Run the retriever over every query of the dataset; the run joins the dataset"));
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setEnabled(false);
  m_progress = new QProgressBar(this);
  m_progress->setVisible(false);
  m_progress->setMaximumWidth(160);
  m_status = new QLabel(this);
  m_status->setTextFormat(Qt::PlainText);  // quotes the service's replies: never HTML
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(m_retriever);
  row->addWidget(m_k);
  row->addWidget(m_run);
  row->addWidget(m_cancel);
  row->addWidget(m_progress);
  row->addWidget(m_status, 1);
  connect(m_run, &QPushButton::clicked, this, [this] { run(); });
  connect(m_cancel, &QPushButton::clicked, this, &RetrieverRunBar::cancel);
  connect(m_workbench, &Workbench::retrieversChanged, this, &RetrieverRunBar::refresh);
  connect(m_workbench, &Workbench::datasetChanged, this, &RetrieverRunBar::refresh);
  connect(m_job, &RetrieverJob::progress, this, [this](RetrieverJob::Phase phase, quint64 done, quint64 total) {
    showRetrievalProgress(m_progress, m_status, phase == RetrieverJob::Phase::Index, done, total);
  });
  connect(m_job, &RetrieverJob::finished, this, &RetrieverRunBar::onFinished);
  refresh();
}

RetrieverRunBar::~RetrieverRunBar() = default;

// From Run until the job's end, the key lookup included.
bool RetrieverRunBar::isRunning() const { return m_job->isRunning() || m_basis; }

void RetrieverRunBar::cancel() { m_job->cancel(); }

void RetrieverRunBar::refresh() {
  const QString current = m_retriever->currentText();
  m_retriever->clear();
  for (const auto& spec : m_workbench->retrievers())
    m_retriever->addItem(q(spec.name.empty() ? core::retrieverKindName(spec.kind) : spec.name));
  if (m_retriever->count() == 0) m_retriever->addItem(tr("(no retrievers: add one on the Retrievers page)"));
  const int idx = m_retriever->findText(current);
  if (idx >= 0) m_retriever->setCurrentIndex(idx);
  const bool any = !m_workbench->retrievers().empty();
  m_retriever->setEnabled(any && !isRunning());
  m_run->setEnabled(any && m_workbench->dataset() && !isRunning());
}

bool RetrieverRunBar::run(int index, int k) {
  if (isRunning()) return false;
  const auto& specs = m_workbench->retrievers();
  if (index < 0) index = m_retriever->currentIndex();
  if (k > 0) m_k->setValue(k);
  const auto ds = m_workbench->dataset();
  if (index < 0 || index >= int(specs.size()) || !ds) {
    m_status->setText(tr("Open a dataset and configure a retriever first."));
    return false;
  }
  m_retriever->setCurrentIndex(index);
  const core::RetrieverSpec spec = specs[std::size_t(index)];
  if (ds->queries.empty()) {
    m_status->setText(tr("The dataset has no queries."));
    return false;
  }
  QString why;
  if (!confirmRetriever(this, spec, &why)) {
    m_status->setText(why);
    return false;
  }
  core::RetrieveJobOptions options;
  options.k = std::size_t(m_k->value());
  options.tag = spec.name.empty() ? core::retrieverKindName(spec.kind) : spec.name;
  options.out = m_workbench->retrievedRunPath(options.tag);
  m_basis = ds;
  m_run->setEnabled(false);
  m_retriever->setEnabled(false);
  m_progress->setRange(0, 0);
  m_progress->setVisible(true);
  m_status->setText(tr("Starting %1…").arg(q(core::describeRetriever(spec))));
  // The key from the keychain, when the retriever names an entry, before anything is sent.
  resolveRetrieverKey(spec, this, [this, spec, ds, options](bool ok, std::function<std::string()> key, const QString& message) mutable {
    if (!ok) {
      m_basis.reset();
      m_progress->setVisible(false);
      refresh();
      m_status->setText(tr("Not started: %1").arg(message));
      emit finished(false);
      return;
    }
    options.apiKey = std::move(key);
    m_cancel->setEnabled(true);
    m_job->run(spec, ds, ds->parts.empty() ? std::filesystem::path() : ds->parts.front().path, std::move(options));
  });
  return true;
}

void RetrieverRunBar::onFinished(const std::shared_ptr<const core::RetrieveJobResult>& result) {
  m_progress->setVisible(false);
  m_cancel->setEnabled(false);
  const auto basis = std::exchange(m_basis, nullptr);
  refresh();
  if (result->cancelled) {
    m_status->setText(result->checkpoint.empty()
                          ? tr("Cancelled; nothing was added.")
                          : tr("Cancelled; the answers so far are kept in %1 and are not asked for again.")
                                .arg(q(result->checkpoint.string())));
    emit finished(false);
    return;
  }
  if (!result->ok) {
    m_status->setText(tr("Failed: %1").arg(q(result->error)));
    m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
    emit finished(false);
    return;
  }
  m_status->setStyleSheet(QString());
  const int runIndex = m_workbench->addRetrievedRun(result->run.value, result->run.value.source, basis);
  if (runIndex < 0) {
    m_status->setText(tr("The dataset was replaced during the retrieval; the run was not added (it is in %1).")
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
  if (result->resumed) text += tr(", %n answered by an earlier interrupted run", "", int(result->resumed));
  if (failed) {
    // Each failure is in the report; the first one is shown here, all in the tooltip.
    QStringList errors;
    for (const auto& d : result->run.report.diagnostics)
      if (d.severity == core::Severity::Error) errors << q(d.field + ": " + d.problem);
    text += tr("; %n queries failed (%1)", "", int(failed)).arg(errors.value(0));
    m_status->setToolTip(errors.join(QLatin1Char('\n')));
    m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
  } else {
    m_status->setToolTip(q(result->run.value.source));
  }
  m_status->setText(text + QLatin1Char('.'));
  emit runAdded(runIndex);
  emit finished(true);
}

}  // namespace ragscope::ui
