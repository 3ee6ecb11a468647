#include "ui/pages/eragpage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include "core/eval/projectruns.h"
#include "core/eval/runengine.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/prompts.h"
#include "core/llm/providerfactory.h"
#include "core/retrieval/retriever.h"
#include "core/stats/correlation.h"
#include "ui/charts/chartwidget.h"
#include "ui/delegates/heatmapdelegate.h"
#include "ui/jobs/retrievejob.h"
#include "ui/jobs/runjob.h"
#include "ui/jobsdock.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/models/heatmapmodel.h"
#include "ui/models/naturalsort.h"
#include "ui/pages/statspanel.h"
#include "ui/secrets.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

using core::eval::EragReport;

constexpr std::size_t kBootstrapResamples = 2000;
constexpr std::size_t kCorrelationResamples = 1000;
// Data of the run selector's last item: the retriever instead of a run of the dataset.
constexpr int kBm25Item = -1;

QString q(const std::string& s) { return QString::fromStdString(s); }
QString html(const std::string& s) { return q(s).toHtmlEscaped(); }

QString number(double v, int decimals = 4) {
  return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', decimals);
}

core::stats::BootstrapOptions bootstrapOptions() {
  core::stats::BootstrapOptions o;
  o.resamples = kBootstrapResamples;
  o.threads = 1;  // the machine is shared with the GUI; the sample is small
  o.keepDistribution = false;
  return o;
}

// The prompt of every (query, rank) cell, from the items' stored requests.
std::vector<std::vector<std::string>> collectPrompts(core::store::RunStore& store, const EragReport& report) {
  std::unordered_map<std::string, std::string> byKey;
  for (const auto& item : store.items()) {
    if (item.key.rfind(core::eval::kEragKeyPrefix, 0) != 0) continue;
    const auto j = nlohmann::json::parse(item.requestJson, nullptr, false);
    const auto request = core::llm::requestFromJson(j);
    if (!request) continue;
    std::string text;
    for (const auto& m : request->messages) {
      if (!text.empty()) text += "\n\n";
      if (request->messages.size() > 1) text += "[" + m.role + "]\n";
      text += m.content;
    }
    byKey.emplace(item.key, std::move(text));
  }
  std::vector<std::vector<std::string>> prompts;
  prompts.reserve(report.queries.size());
  for (const auto& pq : report.queries) {
    std::vector<std::string> row;
    for (std::size_t r = 0; r < pq.docIds.size(); ++r) {
      const auto it = byKey.find(core::eval::eragItemKey(pq.qid, r + 1, pq.docIds[r]));
      row.push_back(it == byKey.end() ? std::string() : it->second);
    }
    prompts.push_back(std::move(row));
  }
  return prompts;
}

// `persist`: write the labels and per-query scores into the store (after a run). Reopening a
// stored run only reads it, so a shipped or shared store is never modified by viewing it.
void eragStage(EragResults& res, core::store::RunStore& store, bool persist) {
  res.eragStore = QString::fromStdString(store.path().string());
  res.erag = core::eval::computeEragReport(store, res.measures, bootstrapOptions());
  if (!res.erag.error.empty()) {
    res.error = QObject::tr("eRAG: %1").arg(q(res.erag.error));
    return;
  }
  std::string err;
  if (persist && !core::eval::storeEragScores(store.path(), res.erag, &err))
    res.error = QObject::tr("eRAG: storing the labels: %1").arg(q(err));
  res.prompts = collectPrompts(store, res.erag);
}

void e2eStage(EragResults& res, core::store::RunStore& store, const core::Qrels* qrels) {
  res.e2eStore = QString::fromStdString(store.path().string());
  core::stats::BootstrapOptions b = bootstrapOptions();
  res.e2e = core::eval::computeE2eReport(store, b);
  if (!res.e2e->error.empty()) {
    res.error = QObject::tr("end-to-end: %1").arg(q(res.e2e->error));
    res.e2e.reset();
    return;
  }
  std::string err;
  if (!core::eval::storeE2eScores(store.path(), *res.e2e, &err))
    res.error = QObject::tr("end-to-end: storing the scores: %1").arg(q(err));
  if (!res.erag.error.empty()) return;
  core::eval::CorrelationAnalysisOptions options;
  options.measures = res.measures;
  options.qrels = qrels && !qrels->byQuery.empty() ? qrels : nullptr;
  options.provenance = true;
  options.stats.resamples = kCorrelationResamples;
  options.stats.threads = 1;
  res.correlation = core::eval::analyseCorrelation({{res.system.toStdString(), &res.erag, &*res.e2e}}, options);
}

core::llm::EndpointConfig offlineReader() {
  core::llm::EndpointConfig c;
  c.name = "offline reader";
  c.baseUrl = "offline";
  c.model = "heuristic-reader";
  return c;
}

QString defaultMeasures(bool binary, int k) {
  return binary ? QStringLiteral("P_%1, success_1, ndcg_cut_%1, map, recip_rank").arg(k)
                : QStringLiteral("P_%1, success_1, success_%1").arg(k);
}

QStandardItem* textItem(const QString& text) {
  auto* item = new QStandardItem(text);
  item->setData(naturalSortKey(text), Qt::UserRole);  // q2 before q10
  item->setEditable(false);
  return item;
}

QStandardItem* numberItem(double v, int decimals = 4) {
  auto* item = new QStandardItem(number(v, decimals));
  item->setData(std::isnan(v) ? -1e300 : v, Qt::UserRole);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  item->setEditable(false);
  return item;
}

}  // namespace

EragPage::EragPage(Workbench* workbench, QWidget* parent)
    : Page(parent), m_workbench(workbench), m_pool(new QThreadPool(this)) {
  setObjectName(QStringLiteral("EragPage"));
  m_pool->setMaxThreadCount(1);
  m_retrieve = new RetrieveJob(this);
  connect(m_retrieve, &RetrieveJob::progress, this, [this](RetrieveJob::Phase phase, quint64 done, quint64 total) {
    const QLocale l;
    m_progress->setRange(0, total ? 1000 : 0);
    m_progress->setValue(total ? int(1000.0 * double(done) / double(total)) : 0);
    m_status->setText(phase == RetrieveJob::Phase::Index
                          ? tr("Building the BM25 index: %1 of %2 documents").arg(l.toString(done), l.toString(total))
                          : tr("Retrieving with BM25: %1 of %2 queries").arg(l.toString(done), l.toString(total)));
  });
  connect(m_retrieve, &RetrieveJob::finished, this, &EragPage::onRetrieved);
  buildUi();
  connect(m_workbench, &Workbench::datasetChanged, this, &EragPage::refreshInputs);
  connect(m_workbench, &Workbench::datasetChanged, this, &EragPage::showProjectRuns);
  refreshInputs();
}

void EragPage::showProjectRuns() {
  const auto& project = m_workbench->project();
  const auto ds = m_workbench->dataset();
  if (!project || project->runStores.empty() || !ds || m_running || m_results) return;
  std::vector<std::filesystem::path> stores;
  for (const auto& s : project->runStores) stores.push_back(project->resolve(s));
  auto* watcher = new QFutureWatcher<core::eval::StoredRunPair>(this);
  connect(watcher, &QFutureWatcher<core::eval::StoredRunPair>::finished, this, [this, watcher, ds] {
    const auto pair = watcher->result();
    watcher->deleteLater();
    // Still the same dataset and still nothing on screen: a run started meanwhile wins.
    if (!pair.erag || m_workbench->dataset() != ds || m_running || m_results) return;
    openStores(QString::fromStdString(pair.erag->string()),
               pair.e2e ? QString::fromStdString(pair.e2e->string()) : QString());
  });
  watcher->setFuture(QtConcurrent::run(m_pool, [stores, parts = ds->parts] {
    return core::eval::storedRunsForDataset(stores, parts);
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
  m_endpoints = {offlineReader()};
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
  m_measures->setToolTip(tr("How the labels become per-query scores (trec_eval names). Continuous labels "
                            "allow P_k and success_k only."));
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

  // Results.
  m_tabs = new QTabWidget;
  m_summary = new QTextBrowser;
  m_tabs->addTab(m_summary, tr("Summary"));

  m_perQuery = new QStandardItemModel(this);
  m_perQuery->setSortRole(Qt::UserRole);
  m_perQueryView = new QTableView;
  m_perQueryView->setModel(m_perQuery);
  m_perQueryView->setSortingEnabled(true);
  m_perQueryView->verticalHeader()->hide();
  m_perQueryView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_perQueryView->setAlternatingRowColors(true);
  m_perQueryView->setWordWrap(false);  // one line per query; long questions show in full as tooltips
  m_perQueryView->verticalHeader()->setDefaultSectionSize(22);
  m_perQueryView->horizontalHeader()->setStretchLastSection(true);
  m_perQueryView->setToolTip(tr("Select a measure column for its bootstrap CI and histogram"));
  connect(m_perQueryView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) openStatistics(current.column());
          });
  connect(m_perQueryView->horizontalHeader(), &QHeaderView::sectionClicked, this, &EragPage::openStatistics);
  m_tabs->addTab(m_perQueryView, tr("Per query"));

  m_heatmap = new HeatmapModel(this);
  m_heatmapView = new QTableView;
  m_heatmapView->setObjectName(QStringLiteral("EragHeatmap"));
  m_heatmapView->setModel(m_heatmap);
  m_heatmapView->setItemDelegate(new HeatmapDelegate(m_heatmapView));
  m_heatmapView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_heatmapView->setShowGrid(false);
  m_heatmapView->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_heatmapView->horizontalHeader()->setDefaultSectionSize(64);
  m_heatmapView->verticalHeader()->setDefaultSectionSize(24);
  m_heatmapView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_drill = new QTextBrowser;
  m_drill->setObjectName(QStringLiteral("EragDrillDown"));
  m_drill->setPlaceholderText(tr("Click a cell: the document, the prompt and the generated output."));
  connect(m_heatmapView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) drillDown(current.row(), current.column());
          });
  auto* legend = new QLabel(tr("Label of the document at each rank: "
                               "<span style='background:%1'>&nbsp;0&nbsp;</span> "
                               "<span style='background:%2'>&nbsp;0.5&nbsp;</span> "
                               "<span style='background:%3'>&nbsp;1&nbsp;</span> "
                               "<span style='background:%4'>&nbsp;no output&nbsp;</span>")
                                .arg(HeatmapDelegate::labelColour(0).name(), HeatmapDelegate::labelColour(0.5).name(),
                                     HeatmapDelegate::labelColour(1).name(), HeatmapDelegate::missingColour().name()));
  auto* heatLeft = new QWidget;
  auto* heatLeftLayout = new QVBoxLayout(heatLeft);
  heatLeftLayout->setContentsMargins(0, 0, 0, 0);
  heatLeftLayout->addWidget(legend);
  heatLeftLayout->addWidget(m_heatmapView, 1);
  auto* heatSplit = new QSplitter(Qt::Horizontal);
  heatSplit->addWidget(heatLeft);
  heatSplit->addWidget(m_drill);
  heatSplit->setStretchFactor(0, 2);
  heatSplit->setStretchFactor(1, 3);
  m_heatmapTab = m_tabs->addTab(heatSplit, tr("Heatmap"));

  m_correlation = new QStandardItemModel(this);
  m_correlation->setSortRole(Qt::UserRole);
  m_correlationView = new QTableView;
  m_correlationView->setModel(m_correlation);
  m_correlationView->verticalHeader()->hide();
  m_correlationView->setAlternatingRowColors(true);
  m_correlationView->setSortingEnabled(true);
  m_correlationView->horizontalHeader()->setStretchLastSection(true);
  m_scatterMeasure = new QComboBox;
  connect(m_scatterMeasure, &QComboBox::currentIndexChanged, this, &EragPage::updateScatter);
  m_scatter = new charts::ChartWidget;
  m_scatter->setPlaceholder(tr("Run eRAG with end-to-end to compare them per query."));
  auto* scatterBox = new QWidget;
  auto* scatterLayout = new QVBoxLayout(scatterBox);
  scatterLayout->setContentsMargins(0, 0, 0, 0);
  auto* scatterTop = new QHBoxLayout;
  scatterTop->addWidget(new QLabel(tr("eRAG measure:")));
  scatterTop->addWidget(m_scatterMeasure);
  scatterTop->addStretch(1);
  scatterLayout->addLayout(scatterTop);
  scatterLayout->addWidget(m_scatter, 1);
  // The table is wide (eleven columns): full width on top, the scatter beneath.
  auto* corrSplit = new QSplitter(Qt::Vertical);
  corrSplit->addWidget(m_correlationView);
  corrSplit->addWidget(scatterBox);
  // The scatter needs height to be read; the table scrolls.
  scatterBox->setMinimumHeight(260);
  corrSplit->setStretchFactor(0, 2);
  corrSplit->setStretchFactor(1, 3);
  m_correlationTab = m_tabs->addTab(corrSplit, tr("Correlation with end-to-end"));

  // The statistics panel sits beside the results, hidden until a measure column is selected.
  m_statsPanel = new StatsPanel;
  m_statsPanel->setVisible(false);
  connect(m_statsPanel, &StatsPanel::closeRequested, this, [this] { m_statsPanel->setVisible(false); });
  auto* withStats = new QSplitter(Qt::Horizontal);
  withStats->addWidget(m_tabs);
  withStats->addWidget(m_statsPanel);
  withStats->setStretchFactor(0, 3);
  withStats->setStretchFactor(1, 2);
  withStats->setCollapsible(1, false);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(setup);
  layout->addWidget(withStats, 1);
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
  return i >= 0 && std::size_t(i) < m_endpoints.size() ? m_endpoints[std::size_t(i)] : offlineReader();
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

bool EragPage::estimate() {
  const auto ds = m_workbench->dataset();
  if (ds && retrieverSelected()) {
    m_estimate->setText(tr("BM25 retrieves the top %1 of every query first (the index is built once and reused "
                           "while the corpus is unchanged); the run joins the dataset's runs and its estimate "
                           "follows.").arg(m_k->value()));
    emit estimateFinished(true);
    return true;
  }
  const int runIndex = m_run->currentData().toInt();
  if (!ds || runIndex < 0 || std::size_t(runIndex) >= ds->runs.size()) {
    emit estimateFinished(false);
    return false;
  }
  const std::size_t k = std::size_t(m_k->value());
  const bool e2e = m_e2e->isChecked();
  const core::llm::EndpointConfig ep = endpoint();
  QString templateText = QString::fromStdString(core::llm::defaultRagTemplate());
  if (!m_template->text().trimmed().isEmpty()) {
    QFile f(m_template->text().trimmed());
    if (!f.open(QIODevice::ReadOnly)) {
      m_estimate->setText(tr("The template file cannot be read."));
      emit estimateFinished(false);
      return false;
    }
    templateText = QString::fromUtf8(f.readAll());
  }
  const int generation = m_estimateGeneration;
  m_estimate->setText(tr("Estimating…"));
  using Result = QString;
  auto* watcher = new QFutureWatcher<Result>(this);
  connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, generation] {
    const QString text = watcher->result();
    watcher->deleteLater();
    if (generation != m_estimateGeneration) return;  // superseded
    m_estimate->setText(text);
    emit estimateFinished(true);
  });
  watcher->setFuture(QtConcurrent::run(m_pool, [ds, runIndex, k, e2e, ep, tmpl = templateText.toStdString()]() -> Result {
    const core::Run& run = ds->runs[std::size_t(runIndex)];
    const auto erag = core::eval::planErag(*ds, run, k, tmpl);
    if (erag.top.lists.empty()) return QObject::tr("No query of this dataset has a gold answer to score outputs against.");
    auto provider = core::llm::isOfflineEndpoint(ep) ? core::llm::makeOfflineProvider(core::llm::OfflineRole::Reader, ep)
                                                     : core::llm::makeHttpProvider(ep);
    const auto eragEstimate = core::eval::estimateItems(erag.items, *provider);
    QString text = QObject::tr("eRAG: %1").arg(describeEstimate(eragEstimate));
    double total = eragEstimate.costUsd;
    if (e2e) {
      const auto plan = core::eval::planE2e(*ds, run, k, tmpl);
      const auto e = core::eval::estimateItems(plan.items, *provider);
      text += QObject::tr("\nend-to-end: %1").arg(describeEstimate(e));
      total += e.costUsd;
    }
    text += QObject::tr("\n%1 queries with gold answers").arg(erag.top.lists.size());
    if (erag.top.queriesWithoutGold) text += QObject::tr(", %1 without (left out)").arg(erag.top.queriesWithoutGold);
    if (erag.top.missingDocuments) text += QObject::tr(", %1 run documents not in the corpus (skipped)").arg(erag.top.missingDocuments);
    if (core::llm::isOfflineEndpoint(ep)) text += QObject::tr(" · offline heuristic reader: no cost, outputs labelled heuristic");
    else text += QObject::tr(" · total ≤ $%1").arg(total, 0, 'f', 4);
    return text;
  }));
  return true;
}

void EragPage::setBusy(bool busy) {
  m_running = busy;
  m_startButton->setEnabled(!busy);
  m_cancelButton->setEnabled(busy);
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
  if (ds && retrieverSelected()) return startRetrieval();
  const int runIndex = m_run->currentData().toInt();
  if (!ds || runIndex < 0 || std::size_t(runIndex) >= ds->runs.size()) {
    m_status->setText(tr("Open a dataset with a run first."));
    return false;
  }
  QString error;
  const auto measures = parsedMeasures(&error);
  if (!error.isEmpty() || measures.empty()) {
    m_status->setText(tr("Aggregation measures: %1").arg(error.isEmpty() ? tr("none given") : error));
    m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
    return false;
  }
  std::string templateText = core::llm::defaultRagTemplate();
  const QString templatePath = m_template->text().trimmed();
  if (!templatePath.isEmpty()) {
    QFile f(templatePath);
    if (!f.open(QIODevice::ReadOnly)) {
      m_status->setText(tr("The template file %1 cannot be read.").arg(templatePath));
      return false;
    }
    templateText = f.readAll().toStdString();
  }
  const std::size_t k = std::size_t(m_k->value());
  const auto metric = core::DownstreamMetric(m_metric->currentData().toInt());
  const bool e2e = m_e2e->isChecked();
  const std::optional<double> budget = m_useBudget->isChecked() ? std::optional<double>(m_budget->value()) : std::nullopt;
  const core::llm::EndpointConfig ep = endpoint();
  const QString datasetName = m_workbench->datasetName();
  const QString system = q(ds->runs[std::size_t(runIndex)].tag);
  m_runDataset = ds;
  setBusy(true);
  m_status->setStyleSheet(QString());
  m_status->setText(tr("Starting…"));

  // The record of a job: mirrors ragscope-cli erag/e2e so `ragscope-cli resume` continues it.
  const std::string measuresText = m_measures->text().toStdString();
  auto makeRecord = [=](const std::string& job) {
    nlohmann::json s;
    s["job"] = job;
    s["dataset"] = datasetName.toStdString();
    s["run"] = {{"name", system.toStdString()}, {"source", ds->runs[std::size_t(runIndex)].source}};
    s["system"] = system.toStdString();
    s["k"] = k;
    s["metric"] = core::downstreamMetricKey(metric);
    if (job == core::eval::kEragJobKind) s["measures"] = measuresText;
    s["template_source"] = templatePath.isEmpty() ? std::string("default") : templatePath.toStdString();
    s["concurrency"] = ep.concurrency;
    s["budget_usd"] = budget ? nlohmann::json(*budget) : nlohmann::json();
    s["started_from"] = "gui";
    core::store::RunRecord record;
    record.kind = job;
    record.settings = std::move(s);
    record.templateText = templateText;
    record.templateHash = core::llm::templateHash(templateText);
    record.endpoint = core::llm::toJson(ep);  // key names only
    return record;
  };
  const core::store::RunRecord eragRecord = makeRecord(std::string(core::eval::kEragJobKind));
  const core::store::RunRecord e2eRecord = makeRecord(std::string(core::eval::kE2eJobKind));

  Secrets::resolveEndpointKey(ep, this, [=, this](const ResolvedEndpoint& resolved) {
    if (!resolved.ok) {
      fail(tr("Not started: %1").arg(resolved.message));
      return;
    }
    auto makeRequest = [=](const core::store::RunRecord& record, bool erag) {
      RunJobRequest r;
      r.title = tr("%1 · %2 · %3").arg(q(record.kind), datasetName, system);
      r.storePath = newRunStorePath(q(record.kind));
      r.endpoint = resolved.config;
      r.transport = resolved.transport;
      r.offlineRole = core::llm::OfflineRole::Reader;
      r.engine.concurrency = std::size_t(std::max(1, ep.concurrency));
      r.engine.budgetUsd = budget;
      r.prepare = [=, path = r.storePath.toStdString()](core::store::RunStore& store, std::string* err) {
        const core::Run& run = ds->runs[std::size_t(runIndex)];
        core::store::RunRecord rec = record;
        std::vector<core::store::NewItem> items;
        std::size_t lists = 0;
        if (erag) {
          auto plan = core::eval::planErag(*ds, run, k, templateText);
          lists = plan.top.lists.size();
          rec.settings["queries"] = lists;
          rec.settings["missing_documents"] = plan.top.missingDocuments;
          rec.settings["queries_without_gold"] = plan.top.queriesWithoutGold;
          rec.settings["plan"] = std::move(plan.plan);
          items = std::move(plan.items);
        } else {
          auto plan = core::eval::planE2e(*ds, run, k, templateText);
          lists = plan.top.lists.size();
          rec.settings["queries"] = lists;
          rec.settings["missing_documents"] = plan.top.missingDocuments;
          rec.settings["queries_without_gold"] = plan.top.queriesWithoutGold;
          rec.settings["plan"] = std::move(plan.plan);
          items = std::move(plan.items);
        }
        if (lists == 0) {
          *err = "no query has a gold answer to score outputs against";
          return false;
        }
        return store.create(path, rec, err) && store.addItems(items, err);
      };
      return r;
    };

    RunJobRequest eragRequest = makeRequest(eragRecord, true);
    eragRequest.finish = [measures, system](core::store::RunStore& store, const core::eval::RunSummary&) {
      auto res = std::make_shared<EragResults>();
      res->measures = measures;
      res->system = system;
      eragStage(*res, store, true);
      return std::shared_ptr<const void>(res);
    };
    RunJobRequest e2eRequest = makeRequest(e2eRecord, false);

    m_job = new RunJob(this);
    connect(m_job, &RunJob::progress, this, [this](const core::eval::Progress& p) {
      m_status->setText(tr("eRAG: %1").arg(describeProgress(p, m_job ? m_job->budgetUsd() : std::nullopt)));
    });
    connect(m_job, &RunJob::finished, this, [=, this](const RunJobOutcome& outcome) {
      const QString storePath = m_job->storePath();
      m_job->deleteLater();
      m_job = nullptr;
      if (!outcome.started) {
        fail(tr("eRAG could not start: %1").arg(outcome.error));
        return;
      }
      auto stage = std::static_pointer_cast<const EragResults>(outcome.extra);
      const bool complete = outcome.summary.outcome == core::eval::RunOutcome::Done ||
                            outcome.summary.outcome == core::eval::RunOutcome::DoneWithErrors;
      if (!complete || !e2e || !stage || !stage->error.isEmpty()) {
        if (stage) showResults(stage);
        setBusy(false);
        m_status->setText(complete ? tr("eRAG %1. Store: %2").arg(outcome.status, QFileInfo(storePath).fileName())
                                   : tr("eRAG %1: %2 of %3 calls done; resume it from the Jobs dock.")
                                         .arg(outcome.status)
                                         .arg(outcome.summary.progress.done)
                                         .arg(outcome.summary.progress.total));
        emit finished(complete && stage && stage->error.isEmpty());
        return;
      }
      showResults(stage);  // eRAG's views now; the correlation follows the end-to-end run
      RunJobRequest second = e2eRequest;
      second.finish = [stage, ds](core::store::RunStore& store, const core::eval::RunSummary&) {
        auto res = std::make_shared<EragResults>(*stage);
        e2eStage(*res, store, &ds->qrels);
        return std::shared_ptr<const void>(res);
      };
      m_job = new RunJob(this);
      connect(m_job, &RunJob::progress, this, [this](const core::eval::Progress& p) {
        m_status->setText(tr("end-to-end: %1").arg(describeProgress(p, m_job ? m_job->budgetUsd() : std::nullopt)));
      });
      connect(m_job, &RunJob::finished, this, [this](const RunJobOutcome& o2) {
        m_job->deleteLater();
        m_job = nullptr;
        setBusy(false);
        if (!o2.started) {
          fail(tr("end-to-end could not start: %1").arg(o2.error));
          return;
        }
        auto all = std::static_pointer_cast<const EragResults>(o2.extra);
        if (all) showResults(all);
        m_status->setText(tr("Done: eRAG and end-to-end (%1). Stores: %2, %3")
                              .arg(o2.status, QFileInfo(all ? all->eragStore : QString()).fileName(),
                                   QFileInfo(all ? all->e2eStore : QString()).fileName()));
        emit finished(all && all->error.isEmpty());
      });
      m_job->start(std::move(second));
    });
    m_job->start(std::move(eragRequest));
  });
  return true;
}

void EragPage::cancel() {
  if (m_job) m_job->cancel();
  m_retrieve->cancel();
}

bool EragPage::startRetrieval() {
  const auto ds = m_workbench->dataset();
  if (!m_retrieve->start(ds, m_k->value())) {
    m_status->setText(tr("BM25 needs a dataset with queries and a corpus."));
    return false;
  }
  setBusy(true);
  m_status->setStyleSheet(QString());
  m_status->setText(tr("Opening the BM25 index…"));
  m_progress->setRange(0, 0);
  m_progress->setVisible(true);
  return true;
}

void EragPage::onRetrieved(const RetrieveOutcome& outcome) {
  m_progress->setVisible(false);
  if (!outcome.ok) {
    emit retrieved(false);
    fail(outcome.cancelled ? tr("BM25 retrieval cancelled; nothing was added.") : tr("BM25: %1").arg(outcome.error));
    return;
  }
  // The run joins the dataset (every page sees it); then eRAG runs on it.
  if (!m_workbench->updateDataset(outcome.dataset, outcome.basis)) {
    emit retrieved(false);
    fail(tr("The dataset was replaced during the retrieval; the run was not added."));
    return;
  }
  setRunIndex(outcome.runIndex);
  const QString note = tr("%1: top %2 of %3 queries in %4 s (index %5 %6)%7.")
                           .arg(outcome.tag)
                           .arg(m_k->value())
                           .arg(outcome.dataset->queries.size())
                           .arg(outcome.seconds, 0, 'f', 1)
                           .arg(outcome.indexReused ? tr("reused from") : tr("built in"), outcome.indexDir)
                           .arg(outcome.queriesFailed ? tr("; %n queries failed", "", int(outcome.queriesFailed)) : QString());
  m_runNote->setText(note);
  m_runNote->setVisible(true);
  emit retrieved(true);
  setBusy(false);
  // A refusal after the retrieval (bad measures, unreadable template) ends the job visibly, so
  // nothing waits for a `finished` that would never come.
  if (!start()) fail(m_status->text());
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

bool EragPage::openStatistics(int column) {
  if (!m_results || column < 2) return false;
  const EragResults& r = *m_results;
  const auto& a = r.erag.aggregate;
  std::vector<std::string> qids;
  std::vector<double> values;
  QString run, measure;
  const std::size_t m = std::size_t(column - 2);
  if (m < a.measures.size()) {
    for (std::size_t i = 0; i < a.qids.size(); ++i)
      if (!std::isnan(a.values[m][i])) {
        qids.push_back(a.qids[i]);
        values.push_back(a.values[m][i]);
      }
    run = tr("eRAG (%1) · %2").arg(q(r.erag.metricKey), r.system);
    measure = q(a.measures[m]);
  } else if (m == a.measures.size() && r.e2e) {
    qids = r.e2e->qids;
    values = r.e2e->values;
    run = tr("end-to-end · %1").arg(r.system);
    measure = q(r.e2e->metricKey);
  } else {
    return false;
  }
  if (values.empty()) return false;
  m_statsPanel->setVisible(true);
  m_statsPanel->setSample(run, measure, std::move(qids), std::move(values));
  return true;
}

bool EragPage::openStores(const QString& eragStore, const QString& e2eStore) {
  if (m_running) return false;
  setBusy(true);
  m_status->setText(tr("Reading %1…").arg(QFileInfo(eragStore).fileName()));
  computeFromStores(eragStore, e2eStore);
  return true;
}

void EragPage::computeFromStores(const QString& eragStore, const QString& e2eStore) {
  const auto ds = m_workbench->dataset();
  QString measureError;
  const auto measures = parsedMeasures(&measureError);
  auto* watcher = new QFutureWatcher<std::shared_ptr<const EragResults>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<const EragResults>>::finished, this, [this, watcher] {
    auto res = watcher->result();
    watcher->deleteLater();
    setBusy(false);
    showResults(res);
    m_status->setText(res->error.isEmpty() ? tr("Showing %1").arg(QFileInfo(res->eragStore).fileName()) : res->error);
    emit finished(res->error.isEmpty());
  });
  m_runDataset = ds;
  watcher->setFuture(QtConcurrent::run(m_pool, [=, this]() -> std::shared_ptr<const EragResults> {
    auto res = std::make_shared<EragResults>();
    res->measures = measures;  // empty (unparsable field): the run's own
    core::store::RunStore store;
    std::string err;
    if (!store.open(eragStore.toStdString(), &err)) {
      res->error = q(err);
      return res;
    }
    const auto record = store.run();
    res->system = q(record.settings.value("system", std::string("run")));
    if (record.kind != core::eval::kEragJobKind) {
      res->error = tr("%1 is a %2 run, not an eRAG run").arg(QFileInfo(eragStore).fileName(), q(record.kind));
      return res;
    }
    if (res->measures.empty()) {
      auto parsed = core::eval::parseEragMeasures(record.settings.value("measures", std::string("P_5")));
      res->measures = parsed.value;
    }
    eragStage(*res, store, false);
    if (!e2eStore.isEmpty()) {
      core::store::RunStore second;
      if (!second.open(e2eStore.toStdString(), &err)) {
        res->error = q(err);
        return res;
      }
      e2eStage(*res, second, ds ? &ds->qrels : nullptr);
    }
    return res;
  }));
}

void EragPage::showResults(std::shared_ptr<const EragResults> results) {
  m_results = std::move(results);
  // The panel's sample belongs to the results it was opened on.
  m_statsPanel->clear();
  m_statsPanel->setVisible(false);
  const EragResults& r = *m_results;
  const auto& a = r.erag.aggregate;

  // Summary.
  QString s;
  s += tr("<h3>eRAG of %1</h3>").arg(r.system.toHtmlEscaped());
  if (!r.error.isEmpty()) s += QStringLiteral("<p style='color:#b01c1c'>%1</p>").arg(r.error.toHtmlEscaped());
  if (r.erag.error.empty()) {
    s += tr("<p>%1 queries scored with <b>%2</b> labels (%3)%4.</p>")
             .arg(a.qids.size())
             .arg(html(r.erag.metricKey))
             .arg(a.binary ? tr("binary: trec_eval measures over the labels") : tr("continuous: P and success only"))
             .arg(r.erag.incomplete.empty() ? QString()
                                            : tr("; %1 incomplete queries left out").arg(r.erag.incomplete.size()));
    if (r.erag.heuristicOutputs)
      s += tr("<p><i>%1 outputs come from the offline heuristic reader, not an LLM.</i></p>").arg(r.erag.heuristicOutputs);
    // n beside each mean: the queries it averages (a measure undefined for a query leaves it out).
    s += QStringLiteral("<table cellpadding='4' border='0'><tr><th align='left'>%1</th><th align='right'>%2</th>"
                        "<th align='left'>%3</th><th align='right'>%4</th></tr>")
             .arg(tr("measure"), tr("mean"), tr("95% CI"), tr("n"));
    const QString row = QStringLiteral("<tr><td>%1</td><td align='right'>%2</td><td>%3</td><td align='right'>%4</td></tr>");
    for (std::size_t m = 0; m < a.measures.size(); ++m) {
      QString ci;
      if (m < r.erag.intervals.size() && r.erag.intervals[m].resamples > 0)
        ci = QStringLiteral("[%1, %2]").arg(number(r.erag.intervals[m].ci.low), number(r.erag.intervals[m].ci.high));
      const auto n = std::count_if(a.values[m].begin(), a.values[m].end(), [](double v) { return !std::isnan(v); });
      s += row.arg(tr("eRAG %1").arg(html(a.measures[m])), number(a.means[m]), ci).arg(n);
    }
    if (r.e2e) {
      QString ci;
      if (r.e2e->interval.resamples > 0)
        ci = QStringLiteral("[%1, %2]").arg(number(r.e2e->interval.ci.low), number(r.e2e->interval.ci.high));
      s += row.arg(tr("end-to-end %1").arg(html(r.e2e->metricKey)), number(r.e2e->mean), ci).arg(r.e2e->values.size());
    }
    s += QStringLiteral("</table>");
  }
  s += tr("<p style='color:gray'>Run stores: %1%2</p>")
           .arg(r.eragStore.toHtmlEscaped(), r.e2eStore.isEmpty() ? QString() : QStringLiteral(", ") + r.e2eStore.toHtmlEscaped());
  m_summary->setHtml(s);

  // Per query.
  m_perQuery->clear();
  QStringList headers{tr("Query"), tr("Question")};
  for (const auto& m : a.measures) headers << tr("eRAG %1").arg(q(m));
  if (r.e2e) headers << tr("end-to-end");
  headers << tr("Labels by rank");
  m_perQuery->setHorizontalHeaderLabels(headers);
  std::unordered_map<std::string, std::size_t> aggIndex;
  for (std::size_t i = 0; i < a.qids.size(); ++i) aggIndex.emplace(a.qids[i], i);
  std::unordered_map<std::string, double> e2eScore;
  if (r.e2e)
    for (std::size_t i = 0; i < r.e2e->qids.size(); ++i) e2eScore.emplace(r.e2e->qids[i], r.e2e->values[i]);
  const auto ds = m_runDataset ? m_runDataset : m_workbench->dataset();
  std::unordered_map<std::string, const core::Query*> queries;
  if (ds)
    for (const auto& query : ds->queries) queries.emplace(query.id, &query);
  std::vector<HeatmapRow> heat;
  int k = 0;
  for (std::size_t qi = 0; qi < r.erag.queries.size(); ++qi) {
    const auto& pq = r.erag.queries[qi];
    QList<QStandardItem*> row;
    row << textItem(q(pq.qid));
    const auto qit = queries.find(pq.qid);
    row << textItem(qit != queries.end() ? q(qit->second->text) : QString());
    row.back()->setToolTip(row.back()->text());  // elided in the column
    const auto ai = aggIndex.find(pq.qid);
    for (std::size_t m = 0; m < a.measures.size(); ++m)
      row << numberItem(ai != aggIndex.end() ? a.values[m][ai->second] : std::nan(""));
    if (r.e2e) {
      const auto e = e2eScore.find(pq.qid);
      row << numberItem(e != e2eScore.end() ? e->second : std::nan(""));
    }
    QStringList labels;
    HeatmapRow h;
    h.qid = q(pq.qid);
    h.question = qit != queries.end() ? q(qit->second->text) : QString();
    for (std::size_t rank = 0; rank < pq.docIds.size(); ++rank) {
      const std::optional<double> label = qi < r.erag.labels.size() && rank < r.erag.labels[qi].size()
                                              ? r.erag.labels[qi][rank]
                                              : std::nullopt;
      labels << (label ? QString::number(*label, 'f', 2) : QStringLiteral("–"));
      h.docIds.push_back(q(pq.docIds[rank]));
      h.labels.push_back(label);
    }
    k = std::max(k, int(pq.docIds.size()));
    row << textItem(labels.join(QStringLiteral("  ")));
    m_perQuery->appendRow(row);
    heat.push_back(std::move(h));
  }
  m_perQueryView->resizeColumnsToContents();
  // Narrow enough that the measure columns stay in view beside the statistics panel.
  if (m_perQueryView->columnWidth(1) > 320) m_perQueryView->setColumnWidth(1, 320);
  m_heatmap->setRows(std::move(heat), k);
  m_drill->clear();

  // Correlation.
  m_correlation->clear();
  m_correlation->setHorizontalHeaderLabels({tr("Method"), tr("Measure"), tr("n"), tr("Kendall τ"), tr("τ 95% CI"),
                                            tr("p (τ)"), tr("Spearman ρ"), tr("ρ 95% CI"), tr("method mean"),
                                            tr("end-to-end mean"), tr("Note")});
  if (r.correlation && !r.correlation->tables.empty()) {
    for (const auto& row : r.correlation->tables.front().rows) {
      const auto& res = row.result;
      auto ci = [](const core::stats::Interval& i) {
        return std::isnan(i.low) ? QStringLiteral("–") : QStringLiteral("[%1, %2]").arg(number(i.low, 3), number(i.high, 3));
      };
      m_correlation->appendRow({textItem(q(row.method)), textItem(q(row.measure)), numberItem(double(row.n), 0),
                                numberItem(res.kendall.value, 3), textItem(ci(res.kendall.ci)),
                                numberItem(res.kendall.p, 4), numberItem(res.spearman.value, 3),
                                textItem(ci(res.spearman.ci)), numberItem(row.methodMean), numberItem(row.targetMean),
                                textItem(q(row.note.empty() ? res.error : row.note))});
    }
  } else if (!r.correlation) {
    m_correlation->appendRow({textItem(tr("Run end-to-end as well to correlate eRAG with it."))});
  } else {
    m_correlation->appendRow({textItem(q(r.correlation->error))});
  }
  m_correlationView->resizeColumnsToContents();
  {
    QSignalBlocker block(m_scatterMeasure);
    const QString previous = m_scatterMeasure->currentText();
    m_scatterMeasure->clear();
    for (const auto& m : a.measures) m_scatterMeasure->addItem(q(m));
    const int keep = m_scatterMeasure->findText(previous);
    m_scatterMeasure->setCurrentIndex(keep >= 0 ? keep : 0);
  }
  updateScatter();
}

void EragPage::updateScatter() {
  if (!m_results || !m_results->e2e) {
    m_scatter->setPlaceholder(tr("Run eRAG with end-to-end to compare them per query."));
    return;
  }
  const auto& a = m_results->erag.aggregate;
  const auto m = a.measureIndex(m_scatterMeasure->currentText().toStdString());
  if (!m) return;
  std::unordered_map<std::string, double> e2e;
  for (std::size_t i = 0; i < m_results->e2e->qids.size(); ++i) e2e.emplace(m_results->e2e->qids[i], m_results->e2e->values[i]);
  charts::ScatterChart chart;
  for (std::size_t i = 0; i < a.qids.size(); ++i) {
    const auto it = e2e.find(a.qids[i]);
    if (it == e2e.end()) continue;
    chart.qids.push_back(q(a.qids[i]));
    chart.x.push_back(a.values[*m][i]);
    chart.y.push_back(it->second);
  }
  chart.tau = core::stats::kendallTauB(chart.x, chart.y);
  chart.rho = core::stats::spearmanRho(chart.x, chart.y);
  // Short: the chart appends tau and rho, and the axes name the measures.
  chart.title = tr("Per query (n = %1)").arg(chart.x.size());
  chart.xTitle = tr("eRAG %1").arg(m_scatterMeasure->currentText());
  chart.yTitle = tr("end-to-end %1").arg(q(m_results->e2e->metricKey));
  chart.diagonal = false;
  m_scatter->setSpec(std::move(chart));
}

bool EragPage::drillDown(int queryRow, int rank) {
  const HeatmapRow* row = m_heatmap->row(queryRow);
  if (!row || !m_results || rank < 0 || std::size_t(rank) >= row->docIds.size()) return false;
  const QModelIndex cell = m_heatmap->index(queryRow, rank);
  if (m_heatmapView->currentIndex() != cell) {
    m_heatmapView->setCurrentIndex(cell);  // re-enters through currentChanged
    return true;
  }
  const EragResults& r = *m_results;
  const std::size_t qi = std::size_t(queryRow);
  const std::size_t ri = std::size_t(rank);
  const auto& pq = r.erag.queries[qi];
  const std::optional<double> label = row->labels[ri];
  const QString docId = row->docIds[ri];
  const std::string prompt = qi < r.prompts.size() && ri < r.prompts[qi].size() ? r.prompts[qi][ri] : std::string();
  const std::string output = qi < r.erag.outputs.size() && ri < r.erag.outputs[qi].size() ? r.erag.outputs[qi][ri] : std::string();
  const auto ds = m_runDataset ? m_runDataset : m_workbench->dataset();
  const core::Document* doc = ds ? ds->corpus.find(docId.toStdString()) : nullptr;

  const QColor chip = label ? HeatmapDelegate::labelColour(*label) : HeatmapDelegate::missingColour();
  QString h;
  h += QStringLiteral("<h3>%1 · rank %2 · %3</h3>").arg(row->qid.toHtmlEscaped()).arg(rank + 1).arg(docId.toHtmlEscaped());
  h += tr("<p>Label <span style='background:%1'>&nbsp;<b>%2</b>&nbsp;</span> (%3 of the output against the gold answers)</p>")
           .arg(chip.name(), label ? QString::number(*label, 'f', 3) : tr("missing: no output"), html(r.erag.metricKey));
  if (!row->question.isEmpty()) h += tr("<p><b>Question:</b> %1</p>").arg(row->question.toHtmlEscaped());
  QStringList gold;
  for (const auto& g : pq.gold) gold << html(g);
  h += tr("<p><b>Gold answers:</b> %1</p>").arg(gold.isEmpty() ? tr("(none)") : gold.join(QStringLiteral(" | ")));
  const bool contains = ri < pq.contains.size() && pq.contains[ri] > 0.5;
  h += tr("<p><b>Document contains a gold answer:</b> %1</p>").arg(contains ? tr("yes") : tr("no"));
  const QString pre = QStringLiteral("<pre style='white-space: pre-wrap; background:#f4f4f4; padding:4px'>%1</pre>");
  // A run has one generator: when the offline reader answered, every output is its (SPEC §9).
  h += (r.erag.heuristicOutputs ? tr("<h4>Generated output <i>(offline heuristic reader, not an LLM)</i></h4>")
                                : tr("<h4>Generated output</h4>")) +
       pre.arg(output.empty() ? tr("(no output)") : html(output));
  h += tr("<h4>Document text</h4>");
  if (doc)
    h += pre.arg((doc->title.empty() ? QString() : html(doc->title) + QStringLiteral("\n")) + html(doc->text));
  else
    h += tr("<p><i>Not in the loaded dataset's corpus; the prompt below holds the text the generator saw.</i></p>");
  h += tr("<h4>Prompt</h4>") + pre.arg(prompt.empty() ? tr("(not stored)") : html(prompt));
  m_drill->setHtml(h);
  return true;
}

}  // namespace ragscope::ui
