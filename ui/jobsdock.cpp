#include "ui/jobsdock.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "core/eval/api/batchjob.h"
#include "core/eval/api/job.h"
#include "core/llm/llmjson.h"
#include "core/llm/providerfactory.h"
#include "core/llm/trustedendpoints.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/models/runlistmodel.h"
#include "ui/outputguard.h"
#include "ui/secrets.h"
#include "ui/style.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

// The job's title, marked when the offline heuristic providers answer instead of an LLM.
QString titleOf(const RunJob* job) {
  return job->heuristic() ? QObject::tr("%1 (heuristic)").arg(job->title()) : job->title();
}

// The core job a generate dialog describes: the answers of the dataset's queries.
core::eval::JobSpec generateSpec(const core::Dataset& ds, const GenerateSettings& settings) {
  core::eval::JobSpec spec;
  spec.kind = core::eval::JobKind::Generate;
  const bool withRun = settings.runIndex >= 0 && std::size_t(settings.runIndex) < ds.runs.size();
  spec.run.type =
      withRun ? core::eval::RunSource::Type::DatasetRun : core::eval::RunSource::Type::None;
  spec.run.datasetRun = withRun ? std::size_t(settings.runIndex) : 0;
  spec.k = std::size_t(std::max(1, settings.k));
  spec.endpoint = settings.endpoint;
  spec.limits.concurrency = std::size_t(std::max(1, settings.endpoint.concurrency));
  spec.limits.budgetUsd = settings.budgetUsd;
  spec.storeFolder = runsFolder().toStdString();
  spec.frontEnd = "gui";
  return spec;
}

JobsDock::TrustPrompt& trustPrompt() {
  static JobsDock::TrustPrompt prompt;
  return prompt;
}

bool askTrust(QWidget* parent, const QString& store, const QString& endpoint) {
  QMessageBox box(
      QMessageBox::Warning, QObject::tr("Send this run's calls to an unknown endpoint?"),
      QObject::tr("The run store %1 sends its calls to\n\n%2\n\nYou have not configured, used or "
                  "confirmed this endpoint on this machine. A store received from someone else "
                  "can name any server: resuming sends this run's prompts there, and your API "
                  "key when it names one.\n\nSend them to this endpoint?")
          .arg(QFileInfo(store).fileName(), endpoint),
      QMessageBox::Yes | QMessageBox::No, parent);
  box.setTextFormat(Qt::PlainText);  // the URL comes from the store: never rendered as rich text
  box.setDefaultButton(QMessageBox::No);
  return box.exec() == QMessageBox::Yes;
}

JobsDock::OutputPrompt& outputPrompt() {
  static JobsDock::OutputPrompt prompt;
  return prompt;
}

QString askOutput(QWidget* parent, const QString& store, const QString& what,
                  const QString& suggested) {
  const QString platform = QGuiApplication::platformName();
  if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal")) return {};
  QMessageBox box(
      QMessageBox::Question, QObject::tr("Write %1?").arg(what),
      QObject::tr("The run store %1 names this file for %2:\n\n%3\n\nA store received from "
                  "someone else can name any file of yours. Write it there, choose another "
                  "file, or write none (the results stay in the store)?")
          .arg(QFileInfo(store).fileName(), what, suggested),
      QMessageBox::NoButton, parent);
  box.setTextFormat(Qt::PlainText);  // the path comes from the store
  QPushButton* here = box.addButton(QObject::tr("Write there"), QMessageBox::AcceptRole);
  QPushButton* other = box.addButton(QObject::tr("Choose another..."), QMessageBox::ActionRole);
  QPushButton* none = box.addButton(QObject::tr("Write none"), QMessageBox::RejectRole);
  box.setDefaultButton(none);
  box.exec();
  if (box.clickedButton() == here) return suggested;
  if (box.clickedButton() == other)
    return QFileDialog::getSaveFileName(parent, QObject::tr("Write %1 to").arg(what),
                                        QFileInfo(suggested).fileName());
  return {};
}

enum class Chosen { InRegistry, Saved, No };

// Chosen by this machine's user: in the trust registry (runs started here, confirmations), or
// one of the endpoints saved on the Endpoints page.
Chosen endpointChosenHere(const core::llm::EndpointConfig& endpoint) {
  if (core::llm::TrustedEndpoints().isTrusted(endpoint)) return Chosen::InRegistry;
  const std::string url = core::llm::normalizeBaseUrl(endpoint.baseUrl);
  for (const auto& saved : EndpointListModel::saved()) {
    if (core::llm::normalizeBaseUrl(saved.baseUrl) != url) continue;
    if (!endpoint.apiKeyEnv.empty() && endpoint.apiKeyEnv != saved.apiKeyEnv) continue;
    if (!endpoint.keychainEntry.empty() && endpoint.keychainEntry != saved.keychainEntry) continue;
    return Chosen::Saved;
  }
  return Chosen::No;
}

}  // namespace

QString formatDuration(double seconds) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) return QStringLiteral("—");
  const qint64 s = qint64(std::llround(seconds));
  if (s >= 3600)
    return QStringLiteral("%1:%2:%3")
        .arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString describeEstimate(const core::eval::Estimate& e) {
  const QLocale l;
  QString text = QObject::tr("%1 calls").arg(l.toString(qulonglong(e.calls)));
  QStringList extras;
  if (e.alreadyDone)
    extras << QObject::tr("%1 already done").arg(l.toString(qulonglong(e.alreadyDone)));
  if (e.cached) extras << QObject::tr("%1 from the cache").arg(l.toString(qulonglong(e.cached)));
  if (!extras.isEmpty()) text += QStringLiteral(" (%1)").arg(extras.join(QStringLiteral(", ")));
  text += QObject::tr(" · ~%1 prompt tokens + ≤ %2 output tokens · ≤ $%3")
              .arg(l.toString(qlonglong(e.promptTokens)), l.toString(qlonglong(e.completionTokens)))
              .arg(e.costUsd, 0, 'f', 4);
  return text;
}

QString describeProgress(const core::eval::Progress& p, std::optional<double> budgetUsd) {
  const QLocale l;
  QStringList parts;
  parts << QObject::tr("%1 / %2 calls")
               .arg(l.toString(qulonglong(p.done)), l.toString(qulonglong(p.total)));
  parts << QObject::tr("%1 calls/s").arg(p.callsPerSecond, 0, 'f', 1);
  parts << QObject::tr("ETA %1").arg(formatDuration(p.etaSeconds));
  parts << QObject::tr("elapsed %1").arg(formatDuration(p.elapsedSeconds));
  parts << QObject::tr("tokens %1 in + %2 out")
               .arg(l.toString(qlonglong(p.promptTokens)),
                    l.toString(qlonglong(p.completionTokens)));
  parts << (budgetUsd ? QObject::tr("cost $%1 of $%2 budget")
                            .arg(p.costUsd, 0, 'f', 4)
                            .arg(*budgetUsd, 0, 'f', 2)
                      : QObject::tr("cost $%1").arg(p.costUsd, 0, 'f', 4));
  parts << QObject::tr("%n error(s)", "", int(p.errors));
  if (p.inFlight) parts << QObject::tr("%1 in flight").arg(p.inFlight);
  if (p.fromCache) parts << QObject::tr("%1 cached").arg(p.fromCache);
  return parts.join(QStringLiteral("  ·  "));
}

JobsDock::JobsDock(Workbench* workbench, QWidget* parent)
    : QDockWidget(tr("Jobs"), parent), m_workbench(workbench), m_runs(new RunListModel(this)) {
  setObjectName(QStringLiteral("JobsDock"));
  m_estimatePool.setMaxThreadCount(1);
  qRegisterMetaType<core::eval::Estimate>();

  auto* body = new QWidget;
  auto* generate =
      new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Generate answers…"));
  generate->setToolTip(
      tr("One RAG answer per query of the current dataset, with a cost estimate first"));
  m_resume = new QPushButton(tr("Resume"));
  m_resume->setToolTip(tr("Continue the selected run: finished calls are not repeated"));
  m_retry = new QPushButton(tr("Retry errors"));
  m_retry->setToolTip(tr("Continue the selected run and redo the calls that failed"));
  m_cancel = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Cancel"));
  m_exportBatch = new QPushButton(tr("Export batch file…"));
  m_exportBatch->setToolTip(
      tr("Write the selected run's pending calls as Batch API input lines (OpenAI's Batch API, "
         "vLLM's run_batch); nothing is sent"));
  m_importBatch = new QPushButton(tr("Import batch results…"));
  m_importBatch->setToolTip(
      tr("Read a batch's output (and error) file into the selected run; Resume then finishes it"));
  connect(m_exportBatch, &QPushButton::clicked, this, [this] {
    const RunRow* row = m_runs->row(m_table->currentIndex().row());
    if (!row) return;
    const QFileInfo store(row->path);
    const QString file = QFileDialog::getSaveFileName(
        this, tr("Export batch file"),
        store.dir().filePath(store.completeBaseName() + QStringLiteral("-calls.jsonl")),
        tr("Batch input (*.jsonl)"));
    if (!file.isEmpty()) exportBatchFile(m_table->currentIndex().row(), file);
  });
  connect(m_importBatch, &QPushButton::clicked, this, [this] {
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Import batch results (output and error files)"),
                                      QString(), tr("Batch output (*.jsonl);;All files (*)"));
    if (!files.isEmpty()) importBatchResults(m_table->currentIndex().row(), files);
  });
  auto* refresh = new QPushButton(style()->standardIcon(QStyle::SP_BrowserReload), QString());
  refresh->setToolTip(tr("Re-read the runs folder"));
  auto* folder = new QPushButton(style()->standardIcon(QStyle::SP_DirOpenIcon), QString());
  folder->setToolTip(tr("Open the runs folder"));
  connect(generate, &QPushButton::clicked, this, &JobsDock::openGenerateDialog);
  connect(m_resume, &QPushButton::clicked, this,
          [this] { resumeRow(m_table->currentIndex().row(), false); });
  connect(m_retry, &QPushButton::clicked, this,
          [this] { resumeRow(m_table->currentIndex().row(), true); });
  connect(m_cancel, &QPushButton::clicked, this, &JobsDock::cancelCurrent);
  // The runs folder is read anew each time: a preference or (in tests) an override may have moved
  // it.
  connect(refresh, &QPushButton::clicked, this, [this] { m_runs->setFolder(runsFolder()); });
  connect(folder, &QPushButton::clicked, this,
          [] { QDesktopServices::openUrl(QUrl::fromLocalFile(runsFolder())); });

  m_title = new QLabel(tr("No job running."));
  QFont bold = m_title->font();
  bold.setBold(true);
  m_title->setFont(bold);
  m_bar = new QProgressBar;
  m_bar->setRange(0, 1000);
  m_bar->setValue(0);
  m_bar->setFormat(QStringLiteral("%p %"));
  m_bar->setMinimumWidth(260);
  m_stats = new QLabel;
  m_stats->setTextFormat(Qt::PlainText);  // shows errors and URLs read from stores
  m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_stats->setWordWrap(true);

  auto* top = new QHBoxLayout;
  top->addWidget(m_title);
  top->addWidget(m_bar, 1);
  top->addWidget(m_cancel);
  top->addSpacing(12);
  top->addWidget(generate);
  top->addWidget(m_resume);
  top->addWidget(m_retry);
  top->addWidget(m_exportBatch);
  top->addWidget(m_importBatch);
  top->addWidget(refresh);
  top->addWidget(folder);

  m_table = new QTableView;
  m_table->setObjectName(QStringLiteral("RunTable"));
  m_table->setModel(m_runs);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(22);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->horizontalHeader()->setSectionResizeMode(RunListModel::Run,
                                                    QHeaderView::ResizeToContents);
  // Contents decide these widths: "erag (heuristic)", "running elsewhere or interrupted" and
  // large token counts must not be elided.
  for (const int column :
       {int(RunListModel::Job), int(RunListModel::Status), int(RunListModel::Tokens)})
    m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
  m_table->setAlternatingRowColors(true);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &JobsDock::updateButtons);
  connect(m_runs, &RunListModel::modelReset, this, &JobsDock::updateButtons);

  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addLayout(top);
  layout->addWidget(m_stats);
  layout->addWidget(m_table, 1);
  setWidget(body);

  connect(RunJobHub::instance(), &RunJobHub::jobStarted, this, &JobsDock::track);
  connect(RetrieverJobHub::instance(), &RetrieverJobHub::embeddingStarted, this,
          &JobsDock::trackRetrieval);
  m_runs->setFolder(runsFolder());
  updateButtons();
}

JobsDock::~JobsDock() = default;

void JobsDock::updateButtons() {
  const RunRow* row = m_runs->row(m_table->currentIndex().row());
  const bool idle = !m_current || !m_current->isRunning();
  const bool resumable =
      row && row->error.isEmpty() && !row->live &&
      (row->counts.pending + row->counts.cancelled > 0 || row->status != QLatin1String("done"));
  m_resume->setEnabled(idle && resumable && row->counts.pending + row->counts.cancelled > 0);
  m_retry->setEnabled(idle && row && !row->live && row->counts.errors > 0);
  m_cancel->setEnabled((m_current && m_current->isRunning()) || showingRetrieval());
  const bool pending = row && row->error.isEmpty() && !row->live &&
                       row->counts.pending + row->counts.cancelled + row->counts.errors > 0;
  m_exportBatch->setEnabled(idle && pending && row->batch.isEmpty());
  m_importBatch->setEnabled(idle && pending);
}

void JobsDock::track(RunJob* job) {
  // The panel follows the latest job: a retriever job shown before lets go of it.
  for (const auto& c : m_retrievalConnections) disconnect(c);
  m_retrievalConnections.clear();
  m_retrieval = nullptr;
  m_current = job;
  m_title->setText(titleOf(job));
  m_bar->setRange(0, 1000);  // a retriever job may have left it busy
  m_bar->setValue(0);
  m_stats->setText(tr("Starting…"));
  m_stats->setStyleSheet(QString());
  connect(job, &RunJob::progress, this, [this, job](const core::eval::Progress& p) {
    // The stage's kind and store: a chained job (eRAG, then end-to-end) moves to its second store.
    m_runs->setLive(job->storePath(), job->kind(), p, job->heuristic());
    if (job == m_current && !showingRetrieval()) showProgress(job, p);
  });
  // A job's retrieval step (a dense retriever embeds the corpus first): shown until its calls
  // start; Cancel stops it as it stops the job.
  connect(job, &RunJob::retrieveProgress, this,
          [this, job](RunJob::RetrievePhase phase, quint64 done, quint64 total) {
            if (job == m_current && !showingRetrieval())
              showRetrieverProgress(m_bar, m_stats, phase, done, total);
          });
  connect(job, &RunJob::batchStatus, this,
          [this, job](const QString& id, const QString& status, qint64 done, qint64 failed,
                      qint64 total) {
            if (job != m_current || showingRetrieval()) return;
            const QLocale l;
            m_bar->setRange(0, 1000);
            m_bar->setValue(total > 0 ? int(1000.0 * double(done) / double(total)) : 0);
            m_stats->setText(tr("Batch %1: %2 · %3 / %4 calls done · %5 failed · polled with "
                                "backoff; closing the workbench leaves it running at the server "
                                "(Resume polls it again)")
                                 .arg(id, status, l.toString(done), l.toString(total))
                                 .arg(l.toString(failed)));
          });
  connect(job, &RunJob::finished, this, [this, job](const RunJobOutcome& outcome) {
    // Every stage's store: a chained job (eRAG, then end-to-end) finished the first one earlier.
    if (outcome.result)
      for (const auto& stage : outcome.result->stages)
        m_runs->setFinished(QString::fromStdString(stage.store.string()),
                            QString::fromStdString(stage.status), stage.counts);
    if (job == m_current) {
      QString text = outcome.error.isEmpty() ? tr("Finished: %1").arg(outcome.status)
                                             : tr("Failed: %1").arg(outcome.error);
      if (outcome.summary.outcome == core::eval::RunOutcome::PausedBudget)
        text = tr("Paused: the next calls would exceed the $%1 budget. Resume it with a larger "
                  "budget.")
                   .arg(job->budgetUsd().value_or(0.0), 0, 'f', 2);
      else if (outcome.summary.outcome == core::eval::RunOutcome::Cancelled)
        text = tr("Cancelled: %1 of %2 calls done. Resume continues where it stopped.")
                   .arg(outcome.summary.progress.done)
                   .arg(outcome.summary.progress.total);
      else if (outcome.cancelledBeforeCalls)
        text =
            tr("Cancelled during the retrieval step, before any call (a dense index keeps the "
               "embeddings finished so far for the next run).");
      m_bar->setRange(0, 1000);  // the retrieval step may have left it busy
      if (outcome.result && !outcome.result->stages.empty()) {
        // Batch calls: the files written, the batches' ends (core/eval/engine/batchrun.h).
        const auto& stage = outcome.result->stages.back();
        for (const auto& f : stage.batchFiles)
          text += QStringLiteral("\n") +
                  tr("Wrote %n call(s) to %1: run it with the Batch API or vLLM's run_batch, "
                     "then Import batch results….",
                     "", int(f.lines))
                      .arg(QString::fromStdString(f.path.string()));
        for (const auto& b : stage.batches)
          text += QStringLiteral("\n") +
                  tr("Batch %1 %2, %3 calls imported (%4 failed)")
                      .arg(QString::fromStdString(b.id), QString::fromStdString(b.status))
                      .arg(b.counts.completed + b.counts.failed)
                      .arg(b.counts.failed);
        if (!stage.batchNote.empty())
          text += QStringLiteral("\n") + QString::fromStdString(stage.batchNote).trimmed();
      }
      if (!outcome.cacheNote.isEmpty()) text += QStringLiteral(" (%1)").arg(outcome.cacheNote);
      m_title->setText(titleOf(job));
      m_stats->setText(text + QStringLiteral("\n") +
                       describeProgress(outcome.summary.progress, job->budgetUsd()));
      setErrorStyle(m_stats, !outcome.error.isEmpty());
    }
    emit statusMessage(
        tr("%1: %2").arg(job->title(), outcome.error.isEmpty() ? outcome.status : outcome.error));
    emit jobFinished(outcome);
    m_runs->setFolder(runsFolder());
    updateButtons();
  });
  if (isHidden()) show();
  raise();  // tabbed with the Issues dock: bring the jobs to the front
  updateButtons();
}

void JobsDock::trackRetrieval(RetrieverJob* job) {
  for (const auto& c : m_retrievalConnections) disconnect(c);
  m_retrievalConnections.clear();
  m_retrieval = job;
  m_title->setText(job->title());
  setErrorStyle(m_stats, false);
  // Announced at its first embedding report: what was reported so far is shown at once.
  const auto [done, total] = job->lastProgress(RetrieverJob::Phase::Embed);
  showRetrieverProgress(m_bar, m_stats, RetrieverJob::Phase::Embed, done, total);
  m_retrievalConnections.push_back(
      connect(job, &RetrieverJob::progress, this,
              [this, job](RetrieverJob::Phase phase, quint64 done, quint64 total) {
                if (job == m_retrieval) showRetrieverProgress(m_bar, m_stats, phase, done, total);
              }));
  // The end of the job, in the dock's words; the page that started it says the rest.
  auto ended = [this, job](bool ok, bool cancelled, const std::string& error) {
    if (job != m_retrieval) return;
    m_bar->setRange(0, 1000);
    if (ok) m_bar->setValue(1000);
    m_stats->setText(cancelled ? tr("Cancelled. The embeddings finished so far are kept: the "
                                    "next run sends only the rest.")
                     : ok      ? tr("Finished.")
                               : tr("Failed: %1").arg(QString::fromStdString(error)));
    setErrorStyle(m_stats, !ok && !cancelled);
    updateButtons();
  };
  m_retrievalConnections.push_back(
      connect(job, &RetrieverJob::finished, this,
              [ended](const std::shared_ptr<const core::RetrieveJobResult>& r) {
                ended(r->ok, r->cancelled, r->error);
              }));
  m_retrievalConnections.push_back(
      connect(job, &RetrieverJob::tested, this,
              [ended](const std::shared_ptr<const core::RetrieverProbe>& r) {
                ended(r->ok, r->cancelled, r->error);
              }));
  if (isHidden()) show();
  raise();
  updateButtons();
}

void JobsDock::showProgress(RunJob* job, const core::eval::Progress& p) {
  m_bar->setRange(0, 1000);  // the retrieval step may have left it busy
  m_bar->setValue(p.total ? int(1000.0 * double(p.done) / double(p.total)) : 0);
  m_stats->setText(describeProgress(p, job->budgetUsd()));
}

void JobsDock::cancelCurrent() {
  if (showingRetrieval()) {
    m_retrieval->cancel();
    m_stats->setText(tr("Cancelling… (the embeddings finished so far are kept)"));
    return;
  }
  if (m_current && m_current->isRunning()) {
    m_current->cancel();
    m_stats->setText(tr("Cancelling… (calls in flight are aborted)"));
  }
}

bool JobsDock::estimateGenerate(const GenerateSettings& settings) {
  const auto dataset = m_workbench->dataset();
  if (!dataset || dataset->queries.empty()) {
    emit estimateReady({}, tr("The current dataset has no queries."));
    return false;
  }
  auto* watcher = new QFutureWatcher<std::pair<core::eval::Estimate, QString>>(this);
  connect(watcher, &QFutureWatcher<std::pair<core::eval::Estimate, QString>>::finished, this,
          [this, watcher] {
            const auto [estimate, problem] = watcher->result();
            watcher->deleteLater();
            emit estimateReady(estimate, problem);
          });
  watcher->setFuture(
      QtConcurrent::run(&m_estimatePool, [dataset, spec = generateSpec(*dataset, settings)]() {
        const core::eval::JobEstimate e = core::eval::estimateJob(spec, *dataset);
        QString problem = QString::fromStdString(e.error);
        if (e.missingDocuments)
          problem = QObject::tr(
              "%n run document(s) are not in the corpus and are left out of the prompts", "",
              int(e.missingDocuments));
        return std::make_pair(e.stages.empty() ? core::eval::Estimate{} : e.stages.front().estimate,
                              problem);
      }));
  return true;
}

bool JobsDock::startGenerate(const GenerateSettings& settings) {
  const auto dataset = m_workbench->dataset();
  if (!dataset || dataset->queries.empty()) {
    emit statusMessage(tr("Generate: the current dataset has no queries"));
    return false;
  }
  if (m_current && m_current->isRunning()) {
    emit statusMessage(tr("A job is already running; cancel it or wait"));
    return false;
  }
  const QString datasetName = m_workbench->datasetName();
  Secrets::resolveEndpointKey(
      settings.endpoint, this,
      [this, dataset, settings, datasetName](const ResolvedEndpoint& resolved) {
        if (!resolved.ok) {
          m_stats->setText(tr("Not started: %1").arg(resolved.message));
          setErrorStyle(m_stats, true);
          if (isHidden()) show();
          return;
        }
        RunJobRequest request;
        request.title = tr("generate · %1 · %2")
                            .arg(datasetName, QString::fromStdString(settings.endpoint.name));
        request.spec = generateSpec(*dataset, settings);
        request.dataset = dataset;
        request.execution.transport = resolved.transport;
        if (settings.asBatch) request.execution.batch.mode = core::eval::BatchMode::Api;
        auto* job = new RunJob(this);
        connect(
            job, &RunJob::finished, job, [job] { job->deleteLater(); }, Qt::QueuedConnection);
        if (!resolved.message.isEmpty()) emit statusMessage(resolved.message);
        job->start(std::move(request));
      });
  return true;
}

void JobsDock::setTrustPrompt(TrustPrompt prompt) { trustPrompt() = std::move(prompt); }

void JobsDock::setOutputPrompt(OutputPrompt prompt) { outputPrompt() = std::move(prompt); }

bool JobsDock::resumeRow(int rowIndex, bool retryErrors) {
  const RunRow* listed = m_runs->row(rowIndex);
  if (!listed || !listed->error.isEmpty() || listed->live) return false;
  // A copy: the question below runs an event loop, in which the list may be read again.
  const RunRow copy = *listed;
  const RunRow* row = &copy;
  if (m_current && m_current->isRunning()) {
    emit statusMessage(tr("A job is already running; cancel it or wait"));
    return false;
  }
  const core::llm::EndpointConfig endpoint = core::llm::endpointFromJson(row->endpoint);
  // Before the keychain is even read: a store decides nothing about where keys and prompts go.
  const Chosen chosen = endpointChosenHere(endpoint);
  bool confirmed = chosen == Chosen::Saved;  // configured here: recorded as trusted on resume
  if (chosen == Chosen::No) {
    const QString where = QString::fromStdString(core::llm::describeEndpointTrust(endpoint));
    const auto& ask = trustPrompt();
    const bool yes = ask ? ask(this, row->path, where) : askTrust(this, row->path, where);
    if (!yes) {
      m_stats->setText(
          tr("Not resumed: %1 sends its calls to %2, an endpoint not configured, used or "
             "confirmed on this machine; nothing was sent")
              .arg(QFileInfo(row->path).fileName(), where));
      setErrorStyle(m_stats, true);
      emit statusMessage(tr("Not resumed: endpoint not confirmed"));
      return false;
    }
    confirmed = true;
    std::string err;
    if (core::llm::TrustedEndpoints().add(endpoint, "confirmed", &err))
      confirmed = false;  // recorded
  }
  std::optional<double> budget;
  if (row->settings.is_object() && row->settings.contains("budget_usd") &&
      row->settings["budget_usd"].is_number())
    budget = row->settings["budget_usd"].get<double>();
  const QString path = row->path;
  const QString kind = row->kind;
  // Files the store names are written only where the user says (the cache: the default one).
  core::eval::ResumeOverrides outputs;
  for (const auto& suggested : core::eval::storedOutputs(row->settings)) {
    const auto& ask = outputPrompt();
    const QString what = QString::fromStdString(suggested.what);
    const QString named = QString::fromStdString(suggested.path.string());
    const QString chosenPath =
        ask ? ask(this, path, what, named) : askOutput(this, path, what, named);
    if (chosenPath.isEmpty()) continue;
    // Never over the store itself or a file the workbench reads (core/util/outputcheck.h).
    auto inputs = workbenchInputs(*m_workbench);
    inputs.push_back({"the run store", path.toStdString()});
    if (const QString why = refusedOutput(chosenPath, inputs); !why.isEmpty()) {
      m_stats->setText(tr("Not resumed: %1").arg(why));
      setErrorStyle(m_stats, true);
      return false;
    }
    (suggested.option == "--out" ? outputs.out : outputs.claimsOut) = chosenPath.toStdString();
  }
  Secrets::resolveEndpointKey(
      endpoint, this,
      [this, path, kind, retryErrors, budget, confirmed,
       outputs](const ResolvedEndpoint& resolved) {
        if (!resolved.ok) {
          m_stats->setText(tr("Not resumed: %1").arg(resolved.message));
          return;
        }
        RunJobRequest request;
        request.title = tr("resume %1 · %2").arg(kind, QFileInfo(path).fileName());
        request.resumeStore = path;
        request.overrides.retryErrors = retryErrors;
        // Confirmed but not recorded (the registry could not be written): trusted for this resume.
        request.overrides.trustEndpoint = confirmed;
        request.overrides.budgetUsd = budget;
        request.overrides.out = outputs.out;
        request.overrides.claimsOut = outputs.claimsOut;
        request.execution.transport = resolved.transport;
        request.execution.retryErrors = retryErrors;
        request.heuristic = core::llm::isOfflineEndpoint(resolved.config);
        auto* job = new RunJob(this);
        connect(
            job, &RunJob::finished, job, [job] { job->deleteLater(); }, Qt::QueuedConnection);
        job->start(std::move(request));
      });
  return true;
}

bool JobsDock::exportBatchFile(int rowIndex, const QString& file) {
  const RunRow* row = m_runs->row(rowIndex);
  if (!row || !row->error.isEmpty() || row->live || file.isEmpty()) return false;
  if (m_current && m_current->isRunning()) {
    emit statusMessage(tr("A job is already running; cancel it or wait"));
    return false;
  }
  auto inputs = workbenchInputs(*m_workbench);
  inputs.push_back({"the run store", row->path.toStdString()});
  if (const QString why = refusedOutput(file, inputs); !why.isEmpty()) {
    m_stats->setText(tr("Not exported: %1").arg(why));
    setErrorStyle(m_stats, true);
    emit statusMessage(tr("Batch file not exported"));
    return false;
  }
  RunJobRequest request;
  request.title = tr("batch export · %1").arg(QFileInfo(row->path).fileName());
  request.resumeStore = row->path;
  request.execution.batch.mode = core::eval::BatchMode::File;
  request.execution.batch.file = file.toStdString();
  request.heuristic = row->heuristic;
  auto* job = new RunJob(this);
  connect(
      job, &RunJob::finished, job, [job] { job->deleteLater(); }, Qt::QueuedConnection);
  return job->start(std::move(request));
}

bool JobsDock::importBatchResults(int rowIndex, const QStringList& files) {
  const RunRow* row = m_runs->row(rowIndex);
  if (!row || !row->error.isEmpty() || row->live || files.isEmpty()) return false;
  if (m_current && m_current->isRunning()) {
    emit statusMessage(tr("A job is already running; cancel it or wait"));
    return false;
  }
  const QString store = row->path;
  std::vector<std::filesystem::path> paths;
  for (const auto& f : files) paths.push_back(f.toStdString());
  m_stats->setText(tr("Importing batch results into %1…").arg(QFileInfo(store).fileName()));
  setErrorStyle(m_stats, false);
  m_importBatch->setEnabled(false);
  using Result = std::pair<QString, bool>;
  auto* watcher = new QFutureWatcher<Result>(this);
  connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher] {
    const auto [text, ok] = watcher->result();
    watcher->deleteLater();
    m_stats->setText(text);
    setErrorStyle(m_stats, !ok);
    emit statusMessage(ok ? tr("Batch results imported") : tr("Batch import refused"));
    emit batchImported(text, ok);
    m_runs->setFolder(runsFolder());
    updateButtons();
  });
  // Reading a batch output file can take a while: never on the GUI thread.
  watcher->setFuture(QtConcurrent::run(&m_estimatePool, [store, paths]() -> Result {
    std::string err;
    auto job = core::eval::openStoredJob(store.toStdString(), {}, &err);
    if (!job) return {QString::fromStdString(err), false};
    const auto s = core::eval::importBatchFiles(*job, paths);
    if (!s.ok()) return {tr("Import refused: %1").arg(QString::fromStdString(s.error)), false};
    const QLocale l;
    QString text = tr("Imported %1 lines: %2 answers, %3 failed calls recorded as errors")
                       .arg(l.toString(qulonglong(s.lines)), l.toString(qulonglong(s.answered)),
                            l.toString(qulonglong(s.failed)));
    if (s.alreadyAnswered + s.unchanged > 0)
      text += tr("; %1 lines for calls already recorded (unchanged)")
                  .arg(l.toString(qulonglong(s.alreadyAnswered + s.unchanged)));
    text += QStringLiteral("\n") +
            tr("%1 calls pending, %2 failed. Resume finishes the run (Retry errors asks the "
               "failed ones again).")
                .arg(l.toString(qulonglong(s.stillPending)), l.toString(qulonglong(s.stillFailed)));
    if (!s.cacheNote.empty()) text += QStringLiteral("\n") + QString::fromStdString(s.cacheNote);
    return {text, true};
  }));
  return true;
}

void JobsDock::openGenerateDialog() {
  const auto dataset = m_workbench->dataset();
  if (!dataset || dataset->queries.empty()) {
    emit statusMessage(tr("Open a dataset with queries first"));
    return;
  }
  auto* dialog = new QDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(tr("Generate answers"));
  auto* endpoint = new QComboBox;
  std::vector<core::llm::EndpointConfig> endpoints{core::eval::offlineReaderEndpoint()};
  for (const auto& e : EndpointListModel::saved())
    if (e.kind == core::llm::EndpointKind::Chat) endpoints.push_back(e);
  for (const auto& e : endpoints)
    endpoint->addItem(core::llm::isOfflineEndpoint(e)
                          ? tr("%1 (heuristic, no server)").arg(QString::fromStdString(e.name))
                          : QString::fromStdString(e.name));
  auto* run = new QComboBox;
  for (const auto& r : dataset->runs) run->addItem(QString::fromStdString(r.tag));
  run->addItem(tr("(no documents: closed book)"));
  auto* k = new QSpinBox;
  k->setRange(1, 100);
  k->setValue(5);
  auto* useBudget = new QCheckBox(tr("Pause before the cost exceeds"));
  auto* budget = new QDoubleSpinBox;
  budget->setRange(0.0, 100000.0);
  budget->setDecimals(2);
  budget->setPrefix(QStringLiteral("$"));
  budget->setValue(1.0);
  budget->setEnabled(false);
  connect(useBudget, &QCheckBox::toggled, budget, &QWidget::setEnabled);
  auto* budgetRow = new QHBoxLayout;
  budgetRow->addWidget(useBudget);
  budgetRow->addWidget(budget);
  auto* asBatch =
      new QCheckBox(tr("Send as a batch (the endpoint's Batch API: about half the "
                       "price, results within 24 h)"));
  asBatch->setObjectName(QStringLiteral("AsBatch"));
  auto* estimate = new QLabel(tr("Estimating…"));
  estimate->setWordWrap(true);
  estimate->setMinimumWidth(420);
  auto* form = new QFormLayout;
  form->addRow(tr("Dataset"), new QLabel(m_workbench->datasetName()));
  form->addRow(tr("Generator"), endpoint);
  form->addRow(tr("Documents from run"), run);
  form->addRow(tr("Top k"), k);
  form->addRow(tr("Budget"), budgetRow);
  form->addRow(tr("Calls"), asBatch);
  form->addRow(tr("Dry-run estimate"), estimate);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
  auto* layout = new QVBoxLayout(dialog);
  layout->addLayout(form);
  layout->addWidget(buttons);

  auto settings = [=]() {
    GenerateSettings s;
    s.endpoint = endpoints[std::size_t(std::max(0, endpoint->currentIndex()))];
    s.runIndex = run->currentIndex() < int(dataset->runs.size()) ? run->currentIndex() : -1;
    s.k = k->value();
    if (useBudget->isChecked()) s.budgetUsd = budget->value();
    // A heuristic reader sends nothing: there is no batch to make.
    s.asBatch = asBatch->isChecked() && !core::llm::isOfflineEndpoint(s.endpoint);
    return s;
  };
  auto* debounce = new QTimer(dialog);
  debounce->setSingleShot(true);
  debounce->setInterval(150);
  connect(debounce, &QTimer::timeout, dialog, [this, settings, estimate] {
    estimate->setText(tr("Estimating…"));
    estimateGenerate(settings());
  });
  connect(this, &JobsDock::estimateReady, dialog,
          [estimate](const core::eval::Estimate& e, const QString& problem) {
            estimate->setText(describeEstimate(e) +
                              (problem.isEmpty() ? QString() : QStringLiteral("\n") + problem));
          });
  auto restart = [debounce] { debounce->start(); };
  connect(endpoint, &QComboBox::currentIndexChanged, dialog, restart);
  connect(run, &QComboBox::currentIndexChanged, dialog, restart);
  connect(k, &QSpinBox::valueChanged, dialog, restart);
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  connect(buttons, &QDialogButtonBox::accepted, dialog, [this, dialog, settings] {
    startGenerate(settings());
    dialog->accept();
  });
  debounce->start();
  dialog->open();
}

}  // namespace ragscope::ui
