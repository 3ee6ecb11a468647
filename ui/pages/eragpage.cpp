#include "ui/pages/eragpage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStyle>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/eval/projectruns.h"
#include "core/llm/providerfactory.h"
#include "ui/jobs/retrieverjob.h"
#include "ui/jobs/runjob.h"
#include "ui/jobsdock.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/secrets.h"
#include "ui/pages/retrieverrunbar.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

// Data of the run selector's last item: the retriever instead of a run of the dataset.
constexpr int kBm25Item = -1;

QString q(const std::string& s) { return QString::fromStdString(s); }

QString defaultMeasures(bool binary, int k) {
  return binary ? QStringLiteral("P_%1, success_1, ndcg_cut_%1, map, recip_rank").arg(k)
                : QStringLiteral("P_%1, success_1, success_%1").arg(k);
}

}  // namespace

EragPage::EragPage(Workbench* workbench, QWidget* parent)
    : Page(parent), m_workbench(workbench), m_pool(new QThreadPool(this)) {
  setObjectName(QStringLiteral("EragPage"));
  m_pool->setMaxThreadCount(1);
  buildUi();
  connect(m_workbench, &Workbench::datasetChanged, this, &EragPage::refreshInputs);
  connect(m_workbench, &Workbench::datasetChanged, this, &EragPage::showProjectRuns);
  refreshInputs();
}

void EragPage::showProjectRuns() {
  const auto& project = m_workbench->project();
  const auto ds = m_workbench->dataset();
  if (!project || project->runStores.empty() || !ds || m_running || results()) return;
  std::vector<std::filesystem::path> stores;
  for (const auto& s : project->runStores) stores.push_back(project->resolve(s));
  auto* watcher = new QFutureWatcher<core::eval::StoredRunPair>(this);
  connect(watcher, &QFutureWatcher<core::eval::StoredRunPair>::finished, this, [this, watcher, ds] {
    const auto pair = watcher->result();
    watcher->deleteLater();
    // Still the same dataset and still nothing on screen: a run started meanwhile wins.
    if (!pair.erag || m_workbench->dataset() != ds || m_running || results()) return;
    openStores(QString::fromStdString(pair.erag->string()),
               pair.e2e ? QString::fromStdString(pair.e2e->string()) : QString());
  });
  watcher->setFuture(QtConcurrent::run(m_pool, [stores, parts = ds->parts, name = ds->name] {
    return core::eval::storedRunsForDataset(stores, parts, name);
  }));
}

EragPage::~EragPage() {
  if (m_job) m_job->disconnect(this);
  m_pool->waitForDone();
}

QIcon EragPage::icon() const { return style()->standardIcon(QStyle::SP_FileDialogContentsView); }

void EragPage::activated() {
  // Endpoints may have been edited on their page since.
  const int previous = m_endpoint->currentIndex();
  m_endpoints = {core::eval::offlineReaderEndpoint()};
  for (const auto& e : EndpointListModel::saved())
    if (e.kind == core::llm::EndpointKind::Chat) m_endpoints.push_back(e);
  QSignalBlocker block(m_endpoint);
  m_endpoint->clear();
  for (const auto& e : m_endpoints)
    m_endpoint->addItem(core::llm::isOfflineEndpoint(e) ? tr("%1 (heuristic, no server)").arg(q(e.name)) : q(e.name));
  m_endpoint->setCurrentIndex(previous >= 0 && previous < m_endpoint->count() ? previous : 0);
}

void EragPage::buildUi() {
  auto* setup = new QGroupBox(tr("eRAG setup"));
  m_datasetLabel = new QLabel;
  m_run = new QComboBox;
  m_run->setToolTip(tr("The retrieval run whose top-k documents are evaluated, or BM25 over the dataset's "
                       "corpus: the run is retrieved first and added to the dataset's runs"));
  m_saveRun = new QPushButton(tr("Save run…"));
  m_saveRun->setToolTip(tr("Write the selected run as a TREC run file"));
  connect(m_saveRun, &QPushButton::clicked, this, [this] {
    const int index = m_run->currentData().toInt();
    if (index == kBm25Item) return;
    const QString f = QFileDialog::getSaveFileName(this, tr("Save run"), m_run->currentText() + QStringLiteral(".trec"),
                                                   tr("TREC run files (*.trec *.txt);;All files (*)"));
    if (!f.isEmpty()) saveRun(index, f);
  });
  connect(this, &EragPage::runSaved, this, [this](bool, const QString& message) { m_status->setText(message); });
  m_runNote = new QLabel;
  m_runNote->setWordWrap(true);
  m_runNote->setStyleSheet(QStringLiteral("color: gray;"));
  m_runNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_runNote->setVisible(false);
  auto* runRow = new QHBoxLayout;
  runRow->addWidget(m_run, 1);
  runRow->addWidget(m_saveRun);
  m_endpoint = new QComboBox;
  m_endpoint->setToolTip(tr("The generator (LLM) each document is given to; endpoints are edited on the Endpoints page"));
  m_template = new QLineEdit;
  m_template->setPlaceholderText(tr("default RAG prompt"));
  m_template->setToolTip(tr("A prompt template file with {question} and {documents}; empty: the default"));
  auto* browse = new QPushButton(tr("…"));
  browse->setFixedWidth(30);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Prompt template"));
    if (!f.isEmpty()) m_template->setText(f);
  });
  auto* templateRow = new QHBoxLayout;
  templateRow->addWidget(m_template, 1);
  templateRow->addWidget(browse);
  m_k = new QSpinBox;
  m_k->setRange(1, 100);
  m_k->setValue(5);
  m_metric = new QComboBox;
  for (const auto metric : core::allDownstreamMetrics())
    m_metric->addItem(q(core::downstreamMetricName(metric)), int(metric));
  m_metric->setToolTip(tr("Scores each output against the gold answers: the document's label"));
  m_measures = new QLineEdit;
  m_measures->setToolTip(tr("How the labels become per-query scores: trec_eval names (P_5, ndcg_cut_10) or "
                            "ir_measures names (P@5, nDCG@10). Continuous labels allow P_k and success_k only."));
  connect(m_measures, &QLineEdit::textEdited, this, [this] { m_measuresEdited = true; });
  m_e2e = new QCheckBox(tr("Also run end-to-end (all k documents in one prompt) for the correlation"));
  m_e2e->setChecked(true);
  m_useBudget = new QCheckBox(tr("Pause before the cost exceeds"));
  m_budget = new QDoubleSpinBox;
  m_budget->setRange(0.0, 100000.0);
  m_budget->setPrefix(QStringLiteral("$"));
  m_budget->setValue(1.0);
  m_budget->setEnabled(false);
  connect(m_useBudget, &QCheckBox::toggled, m_budget, &QWidget::setEnabled);
  auto* budgetRow = new QHBoxLayout;
  budgetRow->addWidget(m_useBudget);
  budgetRow->addWidget(m_budget);
  budgetRow->addStretch(1);
  m_estimate = new QLabel(tr("Open a dataset with a run and gold answers."));
  m_estimate->setWordWrap(true);
  m_estimate->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status = new QLabel;
  m_status->setWordWrap(true);
  m_status->setTextFormat(Qt::PlainText);  // errors quote servers and files: never HTML
  m_startButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run eRAG"));
  m_cancelButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Cancel"));
  m_cancelButton->setEnabled(false);
  auto* open = new QPushButton(tr("Open stored runs…"));
  open->setToolTip(tr("Show the results of an eRAG run store (and its end-to-end store)"));
  connect(m_startButton, &QPushButton::clicked, this, &EragPage::start);
  connect(m_cancelButton, &QPushButton::clicked, this, &EragPage::cancel);
  connect(open, &QPushButton::clicked, this, [this] {
    const QString erag = QFileDialog::getOpenFileName(this, tr("eRAG run store"), runsFolder(), tr("Run stores (*.db)"));
    if (erag.isEmpty()) return;
    const QString e2e = QFileDialog::getOpenFileName(this, tr("End-to-end run store (optional)"), runsFolder(),
                                                     tr("Run stores (*.db)"));
    openStores(erag, e2e);
  });

  auto* left = new QFormLayout;
  left->addRow(tr("Dataset"), m_datasetLabel);
  left->addRow(tr("Run"), runRow);
  // A configured retriever makes a run first; it joins the dataset and is chosen here.
  m_retrieverBar = new RetrieverRunBar(m_workbench, 100);
  connect(m_retrieverBar, &RetrieverRunBar::runAdded, this, &EragPage::setRunIndex);
  left->addRow(tr("Retriever"), m_retrieverBar);
  left->addRow(tr("Generator"), m_endpoint);
  left->addRow(tr("Template"), templateRow);
  auto* right = new QFormLayout;
  right->addRow(tr("k"), m_k);
  right->addRow(tr("Downstream metric"), m_metric);
  right->addRow(tr("Aggregation"), m_measures);
  right->addRow(tr("Budget"), budgetRow);
  auto* columns = new QHBoxLayout;
  columns->addLayout(left, 1);
  columns->addSpacing(16);
  columns->addLayout(right, 1);
  m_progress = new QProgressBar;
  m_progress->setTextVisible(false);
  m_progress->setMaximumHeight(14);
  m_progress->setVisible(false);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_e2e);
  buttons->addStretch(1);
  buttons->addWidget(m_progress, 1);
  buttons->addWidget(open);
  buttons->addWidget(m_cancelButton);
  buttons->addWidget(m_startButton);
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->addLayout(columns);
  setupLayout->addWidget(m_runNote);
  auto* estimateRow = new QHBoxLayout;
  auto* estimateTitle = new QLabel(tr("Estimate:"));
  estimateTitle->setAlignment(Qt::AlignTop);
  estimateRow->addWidget(estimateTitle);
  estimateRow->addWidget(m_estimate, 1);
  setupLayout->addLayout(estimateRow);
  setupLayout->addLayout(buttons);
  setupLayout->addWidget(m_status);

  auto restart = [this] { scheduleEstimate(); };
  connect(m_run, &QComboBox::currentIndexChanged, this, restart);
  connect(m_run, &QComboBox::currentIndexChanged, this, [this] { m_saveRun->setEnabled(!retrieverSelected()); });
  connect(m_endpoint, &QComboBox::currentIndexChanged, this, restart);
  connect(m_k, &QSpinBox::valueChanged, this, restart);
  connect(m_e2e, &QCheckBox::toggled, this, restart);
  connect(m_template, &QLineEdit::editingFinished, this, restart);
  auto defaults = [this] {
    if (m_measuresEdited) return;
    const auto metric = core::DownstreamMetric(m_metric->currentData().toInt());
    m_measures->setText(defaultMeasures(core::isBinaryDownstreamMetric(metric), m_k->value()));
  };
  connect(m_metric, &QComboBox::currentIndexChanged, this, defaults);
  connect(m_k, &QSpinBox::valueChanged, this, defaults);
  m_metric->setCurrentIndex(std::max(0, m_metric->findData(int(core::DownstreamMetric::RougeL))));
  defaults();

  m_view = new EragResultsView;
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(setup);
  layout->addWidget(m_view, 1);
  activated();
}

void EragPage::refreshInputs() {
  const auto ds = m_workbench->dataset();
  m_datasetLabel->setText(ds ? m_workbench->datasetName() : tr("(none loaded)"));
  const QString previous = m_run->currentText();
  QSignalBlocker block(m_run);
  m_run->clear();
  if (ds) {
    for (std::size_t i = 0; i < ds->runs.size(); ++i) m_run->addItem(q(ds->runs[i].tag), int(i));
    if (!ds->corpus.empty()) m_run->addItem(tr("BM25 (Xapian) over the dataset's corpus, top k"), kBm25Item);
  }
  const int keep = m_run->findText(previous);  // the same run after runs were added
  if (keep >= 0) m_run->setCurrentIndex(keep);
  m_saveRun->setEnabled(ds && !ds->runs.empty() && !retrieverSelected());
  m_startButton->setEnabled(m_run->count() > 0 && !m_running);
  if (m_run->count() == 0) m_estimate->setText(tr("The current dataset has no run to evaluate and no corpus to retrieve from."));
  else scheduleEstimate();
}

void EragPage::setRunIndex(int index) { m_run->setCurrentIndex(std::max(0, m_run->findData(index))); }
void EragPage::setRetrieverBm25() {
  const int item = m_run->findData(kBm25Item);
  if (item >= 0) m_run->setCurrentIndex(item);
}
bool EragPage::retrieverSelected() const { return m_run->count() > 0 && m_run->currentData().toInt() == kBm25Item; }
void EragPage::setEndpointIndex(int index) { m_endpoint->setCurrentIndex(index); }
void EragPage::setK(int k) { m_k->setValue(k); }
void EragPage::setMetric(core::DownstreamMetric metric) {
  m_metric->setCurrentIndex(std::max(0, m_metric->findData(int(metric))));
}
void EragPage::setMeasures(const QString& text) {
  m_measures->setText(text);
  m_measuresEdited = !text.isEmpty();
}
void EragPage::setEndToEnd(bool on) { m_e2e->setChecked(on); }
void EragPage::setBudget(std::optional<double> usd) {
  m_useBudget->setChecked(usd.has_value());
  if (usd) m_budget->setValue(*usd);
}
bool EragPage::isRunning() const { return m_running; }

core::llm::EndpointConfig EragPage::endpoint() const {
  const int i = m_endpoint->currentIndex();
  return i >= 0 && std::size_t(i) < m_endpoints.size() ? m_endpoints[std::size_t(i)] : core::eval::offlineReaderEndpoint();
}

std::vector<core::MeasureRequest> EragPage::parsedMeasures(QString* error) const {
  const auto parsed = core::eval::parseEragMeasures(m_measures->text().toStdString());
  if (!parsed.ok()) {
    if (error) *error = q(parsed.error);
    return {};
  }
  return parsed.value;
}

void EragPage::scheduleEstimate() {
  // Coalesce bursts of changes into one estimate.
  const int generation = ++m_estimateGeneration;
  QTimer::singleShot(120, this, [this, generation] {
    if (generation == m_estimateGeneration) estimate();
  });
}
std::optional<core::eval::JobSpec> EragPage::jobSpec(QString* error) const {
  const auto ds = m_workbench->dataset();
  core::eval::JobSpec spec;
  spec.kind = core::eval::JobKind::Erag;
  spec.withEndToEnd = m_e2e->isChecked();
  if (ds && retrieverSelected()) {
    spec.run.type = core::eval::RunSource::Type::Retriever;
  } else {
    const int runIndex = m_run->currentData().toInt();
    if (!ds || runIndex < 0 || std::size_t(runIndex) >= ds->runs.size()) {
      *error = tr("Open a dataset with a run first.");
      return std::nullopt;
    }
    spec.run.type = core::eval::RunSource::Type::DatasetRun;
    spec.run.datasetRun = std::size_t(runIndex);
  }
  QString measureError;
  const auto measures = parsedMeasures(&measureError);
  if (!measureError.isEmpty() || measures.empty()) {
    *error = tr("Aggregation measures: %1").arg(measureError.isEmpty() ? tr("none given") : measureError);
    return std::nullopt;
  }
  spec.k = std::size_t(m_k->value());
  spec.metric = core::DownstreamMetric(m_metric->currentData().toInt());
  spec.measures = m_measures->text().toStdString();
  spec.templatePath = m_template->text().trimmed().toStdString();  // read by core, on the worker
  spec.endpoint = endpoint();
  spec.limits.concurrency = std::size_t(std::max(1, spec.endpoint.concurrency));
  if (m_useBudget->isChecked()) spec.limits.budgetUsd = m_budget->value();
  spec.storeFolder = runsFolder().toStdString();
  spec.frontEnd = "gui";
  return spec;
}

core::eval::ResultOptions EragPage::resultOptions(const std::shared_ptr<const core::Dataset>& dataset) const {
  core::eval::ResultOptions o;
  o.measures = parsedMeasures(nullptr);  // empty (unparsable field): the run's own
  o.bootstrap.resamples = 2000;
  o.bootstrap.keepDistribution = false;
  o.threads = 1;  // the machine is shared with the GUI; the samples are small
  o.bootstrap.threads = 1;
  o.qrels = dataset ? &dataset->qrels : nullptr;
  o.prompts = true;
  return o;
}

bool EragPage::estimate() {
  const auto ds = m_workbench->dataset();
  if (ds && retrieverSelected()) {
    m_estimate->setText(tr("BM25 retrieves the top %1 of every query first (the index is built once and reused "
                           "while the corpus is unchanged); the run joins the dataset's runs and its estimate "
                           "follows.").arg(m_k->value()));
    emit estimateFinished(true);
    return true;
  }
  QString error;
  const auto spec = jobSpec(&error);
  if (!spec) {
    emit estimateFinished(false);
    return false;
  }
  const int generation = m_estimateGeneration;
  m_estimate->setText(tr("Estimating…"));
  auto* watcher = new QFutureWatcher<core::eval::JobEstimate>(this);
  connect(watcher, &QFutureWatcher<core::eval::JobEstimate>::finished, this, [this, watcher, generation] {
    const core::eval::JobEstimate e = watcher->result();
    watcher->deleteLater();
    if (generation != m_estimateGeneration) return;  // superseded
    QStringList lines;
    double total = 0;
    for (const auto& s : e.stages) {
      lines << tr("%1: %2").arg(s.kind == core::eval::JobKind::Erag ? tr("eRAG") : tr("end-to-end"),
                                describeEstimate(s.estimate));
      total += s.estimate.costUsd;
    }
    QString tail = e.error.empty() ? tr("%1 queries with gold answers").arg(e.queries) : q(e.error);
    if (e.queriesWithoutGold) tail += tr(", %1 without (left out)").arg(e.queriesWithoutGold);
    if (e.missingDocuments) tail += tr(", %1 run documents not in the corpus (skipped)").arg(e.missingDocuments);
    if (e.error.empty())
      tail += e.heuristic ? tr(" · offline heuristic reader: no cost, outputs labelled heuristic")
                          : tr(" · total ≤ $%1").arg(total, 0, 'f', 4);
    lines << tail;
    m_estimate->setText(lines.join(QLatin1Char('\n')));
    emit estimateFinished(e.error.empty());
  });
  watcher->setFuture(QtConcurrent::run(m_pool, [spec = *spec, ds] { return core::eval::estimateJob(spec, *ds); }));
  return true;
}

void EragPage::setBusy(bool busy) {
  m_running = busy;
  m_startButton->setEnabled(!busy);
  m_cancelButton->setEnabled(busy);
  if (!busy) m_progress->setVisible(false);
}

void EragPage::fail(const QString& message) {
  setBusy(false);
  m_status->setText(message);
  m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
  emit finished(false);
}

bool EragPage::start() {
  if (m_running) return false;
  const auto ds = m_workbench->dataset();
  QString error;
  const auto spec = jobSpec(&error);
  if (!spec) {
    m_status->setText(error);
    m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
    return false;
  }
  if (spec->run.type == core::eval::RunSource::Type::Retriever && (ds->corpus.empty() || ds->queries.empty())) {
    m_status->setText(tr("BM25 needs a dataset with queries and a corpus."));
    return false;
  }
  m_runDataset = ds;
  setBusy(true);
  m_status->setStyleSheet(QString());
  m_status->setText(spec->run.type == core::eval::RunSource::Type::Retriever ? tr("Opening the BM25 index…") : tr("Starting…"));
  m_retrievalPending = spec->run.type == core::eval::RunSource::Type::Retriever;
  if (m_retrievalPending) {
    m_progress->setRange(0, 0);
    m_progress->setVisible(true);
  }
  const QString system = spec->run.type == core::eval::RunSource::Type::Retriever
                             ? QStringLiteral("bm25-top%1").arg(spec->k)
                             : q(ds->runs[spec->run.datasetRun].tag);
  const QString title = tr("erag · %1 · %2").arg(m_workbench->datasetName(), system);
  Secrets::resolveEndpointKey(spec->endpoint, this, [this, spec = *spec, ds, title](const ResolvedEndpoint& resolved) {
    if (!resolved.ok) {
      if (std::exchange(m_retrievalPending, false)) emit retrieved(false);
      fail(tr("Not started: %1").arg(resolved.message));
      return;
    }
    RunJobRequest request;
    request.title = title;
    request.spec = spec;
    request.dataset = ds;
    request.execution.transport = resolved.transport;
    request.results = resultOptions(ds);
    m_job = new RunJob(this);
    connect(m_job, &RunJob::retrieveProgress, this, [this](RunJob::RetrievePhase phase, quint64 done, quint64 total) {
      showRetrievalProgress(m_progress, m_status, phase == RunJob::RetrievePhase::Index, done, total);
    });
    connect(m_job, &RunJob::retrieved, this, &EragPage::onRetrieved);
    connect(m_job, &RunJob::progress, this, [this](const core::eval::Progress& p) {
      if (!m_job) return;
      m_status->setText(tr("%1: %2").arg(m_job->kind() == QLatin1String("e2e") ? tr("end-to-end") : tr("eRAG"),
                                         describeProgress(p, m_job->budgetUsd())));
    });
    connect(m_job, &RunJob::finished, this, &EragPage::onFinished);
    m_job->start(std::move(request));
  });
  return true;
}

void EragPage::cancel() {
  if (m_job) m_job->cancel();
}

void EragPage::onRetrieved(const std::shared_ptr<const core::eval::RetrievedRun>& r) {
  m_progress->setVisible(false);
  m_retrievalPending = false;
  // The run joins the dataset (every page sees it); a second retrieval at the same depth replaces
  // the first, so indexes of other runs hold.
  const int runIndex = m_workbench->addRetrievedRun(r->run, {}, m_runDataset);
  if (runIndex < 0) {
    emit retrieved(false);
    m_status->setText(tr("The dataset was replaced during the retrieval; the run was not added."));
    return;
  }
  const auto updated = m_workbench->dataset();
  m_runDataset = updated;
  setRunIndex(runIndex);
  m_runNote->setText(tr("%1: top %2 of %3 queries in %4 s (index %5 %6)%7.")
                         .arg(q(r->run.tag))
                         .arg(m_k->value())
                         .arg(updated->queries.size())
                         .arg(r->seconds, 0, 'f', 1)
                         .arg(r->index.reused ? tr("reused from") : tr("built in"), q(r->index.dir.string()))
                         .arg(r->queriesFailed ? tr("; %n queries failed", "", int(r->queriesFailed)) : QString()));
  m_runNote->setVisible(true);
  emit retrieved(true);
}

void EragPage::onFinished(const RunJobOutcome& outcome) {
  m_job->deleteLater();
  m_job = nullptr;
  // A retrieval that ended without its run (failed, cancelled) is reported before the job.
  if (std::exchange(m_retrievalPending, false)) emit retrieved(false);
  if (!outcome.started) {
    fail(outcome.cancelledBeforeCalls ? tr("BM25 retrieval cancelled; nothing was added.")
                                      : tr("eRAG could not start: %1").arg(outcome.error));
    return;
  }
  const auto& result = *outcome.result;
  if (result.evaluation.erag || result.evaluation.e2e)
    showResults(std::make_shared<const core::eval::EvaluationResults>(result.evaluation));
  setBusy(false);
  const bool complete = outcome.summary.outcome == core::eval::RunOutcome::Done ||
                        outcome.summary.outcome == core::eval::RunOutcome::DoneWithErrors;
  QStringList stores, paths;
  for (const auto& s : result.stages) {
    stores << QFileInfo(q(s.store.string())).fileName();
    paths << q(std::filesystem::absolute(s.store).string());
  }
  m_workbench->addRunStores(paths);  // saved with the project, found again when it reopens
  if (!result.error.empty()) {
    m_status->setText(q(result.error));
    m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
  } else if (complete) {
    m_status->setText(tr("Done: %1 (%2). Stores: %3")
                          .arg(result.stages.size() > 1 ? tr("eRAG and end-to-end") : tr("eRAG"), outcome.status,
                               stores.join(QStringLiteral(", "))));
  } else {
    m_status->setText(tr("%1 %2: %3 of %4 calls done; resume it from the Jobs dock.")
                          .arg(q(result.stages.back().kindName), outcome.status)
                          .arg(outcome.summary.progress.done)
                          .arg(outcome.summary.progress.total));
  }
  emit finished(complete && result.error.empty());
}

bool EragPage::saveRun(int runIndex, const QString& path) {
  const auto ds = m_workbench->dataset();
  if (!ds || runIndex < 0 || std::size_t(runIndex) >= ds->runs.size() || path.isEmpty()) return false;
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, path] {
    const QString error = watcher->result();
    watcher->deleteLater();
    emit runSaved(error.isEmpty(), error.isEmpty() ? tr("Run saved to %1").arg(path) : tr("Run not saved: %1").arg(error));
  });
  watcher->setFuture(QtConcurrent::run(m_pool, [ds, runIndex, file = std::filesystem::path(path.toStdString())] {
    std::string error;
    return core::writeTrecRun(ds->runs[std::size_t(runIndex)], file, &error) ? QString() : q(error);
  }));
  return true;
}


bool EragPage::openStores(const QString& eragStore, const QString& e2eStore) {
  if (m_running) return false;
  setBusy(true);
  m_status->setText(tr("Reading %1…").arg(QFileInfo(eragStore).fileName()));
  const auto ds = m_workbench->dataset();
  m_runDataset = ds;
  auto* watcher = new QFutureWatcher<core::eval::EvaluationResults>(this);
  connect(watcher, &QFutureWatcher<core::eval::EvaluationResults>::finished, this, [this, watcher] {
    auto res = std::make_shared<const core::eval::EvaluationResults>(watcher->result());
    watcher->deleteLater();
    setBusy(false);
    showResults(res);
    m_status->setText(res->error.empty() ? tr("Showing %1").arg(QFileInfo(q(res->eragStore.string())).fileName())
                                         : q(res->error));
    emit finished(res->error.empty());
  });
  // Viewing only reads: a shipped or shared store is never modified by opening it.
  watcher->setFuture(QtConcurrent::run(m_pool, [erag = eragStore.toStdString(), e2e = e2eStore.toStdString(),
                                                options = resultOptions(ds), ds] {
    return core::eval::readEvaluation(erag, e2e, options);
  }));
  return true;
}

void EragPage::showResults(std::shared_ptr<const core::eval::EvaluationResults> results) {
  m_view->setResults(std::move(results), m_runDataset ? m_runDataset : m_workbench->dataset());
}

}  // namespace ragscope::ui
