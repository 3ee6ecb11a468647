#include "ui/pages/retrievalpage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/metrics/doclevel.h"
#include "core/metrics/measures.h"
#include "core/stats/bootstrap.h"
#include "core/stats/runsummary.h"
#include "ui/jobs/statsrunner.h"
#include "ui/labelbook.h"
#include "ui/models/evalsummarymodel.h"
#include "ui/models/perqueryevalmodel.h"
#include "ui/models/rankedlistmodel.h"
#include "ui/models/runvalues.h"
#include "ui/pages/labelqueue.h"
#include "ui/pages/qrelsagreementview.h"
#include "ui/pages/retrieverrunbar.h"
#include "ui/pages/runlisteditor.h"
#include "ui/pages/statspanel.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

constexpr int kGoldQrelsRole = Qt::UserRole + 3;  // qrels choice: the dataset's gold documents

QTableView* makeTable(QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setSortingEnabled(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setAlternatingRowColors(true);
  view->verticalHeader()->setVisible(false);
  view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
  view->horizontalHeader()->setHighlightSections(false);
  return view;
}

// Sizes the summary's columns to their contents, and the CI columns at least to a full interval
// while they still show "…": they keep their width when the bootstrap fills them in, and a
// screenshot or a glance before then does not suggest truncated values.
void fitSummaryColumns(QTableView* view, const EvalSummaryModel* model) {
  view->resizeColumnsToContents();
  const int margin =
      2 * (view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1);
  const int intervalWidth =
      view->fontMetrics().horizontalAdvance(formatInterval({0.0, 0.0})) + margin + 8;
  for (int c = 0; c < model->columnCount(); ++c)
    if (model->isIntervalColumn(c) && view->columnWidth(c) < intervalWidth)
      view->setColumnWidth(c, intervalWidth);
}

// Splits "map P.5,10  ndcg_cut.10" into -m arguments.
std::vector<std::string> measureArgs(const QString& text) {
  std::vector<std::string> out;
  for (const QString& part :
       text.split(QRegularExpression(QStringLiteral("[\\s;]+")), Qt::SkipEmptyParts)) {
    QString p = part;
    if (p.startsWith(QLatin1String("-m"))) p = p.mid(2);
    if (!p.isEmpty()) out.push_back(p.toStdString());
  }
  return out;
}

}  // namespace

RetrievalPage::RetrievalPage(Workbench* workbench, QWidget* parent)
    : Page(parent),
      m_workbench(workbench),
      m_job(new EvalJob(this)),
      m_statsJob(new StatsRunner({}, this)),
      m_outcome(std::make_shared<const EvalOutcome>()) {
  buildUi();
  connect(m_workbench, &Workbench::datasetChanged, this, &RetrievalPage::refreshDatasetInputs);
  connect(m_job, &EvalJob::progress, this, [this](int done, int total) {
    m_progress->setRange(0, total);
    m_progress->setValue(done);
  });
  connect(m_job, &EvalJob::finished, this, &RetrievalPage::onFinished);
  connect(m_workbench->labelBook(), &LabelBook::labelsChanged, this,
          &RetrievalPage::refreshHumanGrades);
  connect(m_workbench->labelBook(), &LabelBook::labelFailed, this,
          [this](const QString& why) { m_status->setText(tr("Grade not stored: %1").arg(why)); });
  refreshDatasetInputs();
}

RetrievalPage::~RetrievalPage() {
  // Views point into m_outcome; detach them before it goes.
  m_perQuery->setResult(nullptr);
  m_summary->setResults(nullptr);
  m_ranked->clear();
}

QIcon RetrievalPage::icon() const {
  return style()->standardIcon(QStyle::SP_FileDialogDetailedView);
}

void RetrievalPage::buildUi() {
  auto* inputs = new QGroupBox(tr("Evaluate runs against qrels"), this);
  auto* form = new QFormLayout;

  m_qrels = new QComboBox(inputs);
  m_qrels->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_qrels->setMinimumContentsLength(30);
  auto* qrelsBrowse = new QPushButton(tr("Qrels file…"), inputs);
  connect(qrelsBrowse, &QPushButton::clicked, this, &RetrievalPage::chooseQrelsFile);
  auto* qrelsRow = new QHBoxLayout;
  qrelsRow->addWidget(m_qrels, 1);
  qrelsRow->addWidget(qrelsBrowse);
  form->addRow(tr("Qrels:"), qrelsRow);

  m_runs = new RunListEditor(6, inputs);
  form->addRow(tr("Runs:"), m_runs);
  // Runs made by the project's retrievers join the dataset's runs above, checked: several
  // retrievers (or one with several settings) are then compared side by side.
  m_retrieverBar = new RetrieverRunBar(m_workbench, 1000, inputs);
  form->addRow(tr("Retriever:"), m_retrieverBar);

  m_measures = new QLineEdit(inputs);
  m_measures->setPlaceholderText(
      tr("empty = trec_eval's official set; e.g. map P.5,10 ndcg_cut.10 all_trec, or nDCG@10 P@5 "
         "AP RR@10"));
  {
    QString names;
    for (const auto& line : core::irMeasuresAliasText())
      names += QStringLiteral("\n  ") + QString::fromStdString(line);
    m_measures->setToolTip(
        tr("trec_eval measures (any of all_trec, with parameters: P.5,10, ndcg.1=3,2=9, "
           "rbp.p=0.9) or ir_measures names:%1")
            .arg(names));
  }
  form->addRow(tr("Measures (-m):"), m_measures);

  m_level = new QSpinBox(inputs);
  m_level->setRange(-10, 100);
  m_level->setValue(1);
  m_level->setToolTip(
      tr("Relevant means rel >= level (-l). TREC DL passage binary measures use 2."));
  m_depth = new QSpinBox(inputs);
  m_depth->setRange(0, 100000000);
  m_depth->setSpecialValueText(tr("full depth"));
  m_depth->setToolTip(tr("Cut every ranking after this many documents, after sorting (-M)."));
  m_complete = new QCheckBox(tr("Complete (-c): queries missing from a run count as 0"), inputs);
  m_docLevel = new QCheckBox(tr("Document level (chunks count as their document)"), inputs);
  m_docLevel->setToolTip(
      tr("For chunked corpora (Docugami): a chunk id file#page#n counts as its document, first "
         "occurrence only; reports P, recall, AP (trec_eval) and AP over retrieved relevant "
         "against document-level qrels."));
  auto* optionsRow = new QHBoxLayout;
  optionsRow->addWidget(new QLabel(tr("Relevance level (-l):"), inputs));
  optionsRow->addWidget(m_level);
  optionsRow->addSpacing(12);
  optionsRow->addWidget(new QLabel(tr("Depth (-M):"), inputs));
  optionsRow->addWidget(m_depth);
  optionsRow->addSpacing(12);
  optionsRow->addWidget(m_complete);
  optionsRow->addSpacing(12);
  optionsRow->addWidget(m_docLevel);
  optionsRow->addStretch();
  form->addRow(tr("Options:"), optionsRow);

  m_evaluate = new QPushButton(tr("Evaluate"), inputs);
  m_evaluate->setDefault(true);
  connect(m_evaluate, &QPushButton::clicked, this, &RetrievalPage::evaluate);
  m_cancel = new QPushButton(tr("Cancel"), inputs);
  m_cancel->setEnabled(false);
  connect(m_cancel, &QPushButton::clicked, this, &RetrievalPage::cancel);
  m_progress = new QProgressBar(inputs);
  m_progress->setVisible(false);
  m_status = new QLabel(inputs);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* actionRow = new QHBoxLayout;
  actionRow->addWidget(m_evaluate);
  actionRow->addWidget(m_cancel);
  actionRow->addWidget(m_progress);
  actionRow->addWidget(m_status, 1);
  form->addRow(actionRow);
  inputs->setLayout(form);

  // Summary (runs x measures) beside the conventions.
  m_summary = new EvalSummaryModel(this);
  m_summaryProxy = new QSortFilterProxyModel(this);
  m_summaryProxy->setSourceModel(m_summary);
  m_summaryProxy->setSortRole(EvalSummaryModel::SortRole);
  m_summaryView = makeTable(this);
  m_summaryView->setModel(m_summaryProxy);
  m_summaryView->setToolTip(tr("Select a measure cell for its bootstrap distribution"));
  connect(m_summaryView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &RetrievalPage::onSummaryColumnSelected);
  m_conventions = new QTextBrowser(this);
  m_conventions->setMinimumWidth(240);
  auto* conventionsBox = new QGroupBox(tr("Conventions"), this);
  auto* cl = new QVBoxLayout(conventionsBox);
  cl->setContentsMargins(4, 4, 4, 4);
  cl->addWidget(m_conventions);
  auto* top = new QSplitter(Qt::Horizontal, this);
  top->addWidget(m_summaryView);
  top->addWidget(conventionsBox);
  top->setStretchFactor(0, 3);
  top->setStretchFactor(1, 1);

  // Per-query table of one run, and the ranked list of the selected query.
  m_runChoice = new QComboBox(this);
  connect(m_runChoice, &QComboBox::currentIndexChanged, this, &RetrievalPage::showRun);
  m_queryFilter = new QLineEdit(this);
  m_queryFilter->setPlaceholderText(tr("Filter queries by id"));
  m_queryFilter->setClearButtonEnabled(true);
  m_perQuery = new PerQueryEvalModel(this);
  m_perQueryProxy = new QSortFilterProxyModel(this);
  m_perQueryProxy->setSourceModel(m_perQuery);
  m_perQueryProxy->setSortRole(PerQueryEvalModel::SortRole);
  m_perQueryProxy->setFilterKeyColumn(PerQueryEvalModel::Qid);
  m_perQueryProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  connect(m_queryFilter, &QLineEdit::textChanged, m_perQueryProxy,
          &QSortFilterProxyModel::setFilterFixedString);
  m_perQueryView = makeTable(this);
  m_perQueryView->setModel(m_perQueryProxy);
  m_perQueryView->setSelectionMode(QAbstractItemView::SingleSelection);
  connect(m_perQueryView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &RetrievalPage::onQuerySelected);
  connect(m_perQueryView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &RetrievalPage::onPerQueryColumnSelected);
  // A click on a measure's header (which also sorts) opens its statistics too.
  connect(m_perQueryView->horizontalHeader(), &QHeaderView::sectionClicked, this,
          [this](int section) { onPerQueryColumnSelected(m_perQueryProxy->index(0, section)); });
  auto* perQueryPane = new QWidget(this);
  auto* pl = new QVBoxLayout(perQueryPane);
  pl->setContentsMargins(0, 0, 0, 0);
  auto* choiceRow = new QHBoxLayout;
  choiceRow->addWidget(new QLabel(tr("Per query, run:"), perQueryPane));
  choiceRow->addWidget(m_runChoice, 1);
  choiceRow->addWidget(m_queryFilter, 1);
  pl->addLayout(choiceRow);
  pl->addWidget(m_perQueryView);

  m_ranked = new RankedListModel(this);
  auto* rankedProxy = new QSortFilterProxyModel(this);
  rankedProxy->setSourceModel(m_ranked);
  rankedProxy->setSortRole(RankedListModel::SortRole);
  m_rankedView = makeTable(this);
  m_rankedView->setModel(rankedProxy);
  m_rankedView->setAlternatingRowColors(false);
  m_rankedView->horizontalHeader()->setStretchLastSection(true);
  m_rankedTitle = new QLabel(tr("Select a query to see its ranked list."), this);
  m_rankedTitle->setWordWrap(true);
  auto* rankedPane = new QWidget(this);
  auto* rl = new QVBoxLayout(rankedPane);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->addWidget(m_rankedTitle);
  rl->addWidget(m_rankedView);
  // Human grades: one key on the selected document, judged or not (core/labels/README.md).
  m_rankedView->installEventFilter(this);
  auto* gradeKeys = new QLabel(
      tr("Human grade of the selected document: <b>0</b> not relevant · <b>1</b> related · "
         "<b>2</b> relevant · <b>3</b> highly relevant"),
      rankedPane);
  gradeKeys->setObjectName(QStringLiteral("RankedGradeKeys"));
  gradeKeys->setWordWrap(true);
  auto* queue = new QPushButton(tr("Labelling queue…"), rankedPane);
  queue->setObjectName(QStringLiteral("RetrievalLabelQueueButton"));
  queue->setToolTip(tr("Grade the unjudged documents in the top k of a run, one after another"));
  connect(queue, &QPushButton::clicked, this, &RetrievalPage::openLabelQueue);
  auto* gradeRow = new QHBoxLayout;
  gradeRow->addWidget(gradeKeys, 1);
  gradeRow->addWidget(queue);
  rl->addLayout(gradeRow);

  auto* bottom = new QSplitter(Qt::Horizontal, this);
  bottom->addWidget(perQueryPane);
  bottom->addWidget(rankedPane);
  bottom->setStretchFactor(0, 3);
  bottom->setStretchFactor(1, 2);

  auto* results = new QSplitter(Qt::Vertical, this);
  results->addWidget(top);
  results->addWidget(bottom);
  results->setStretchFactor(0, 1);
  results->setStretchFactor(1, 2);

  // The statistics panel sits beside the results, hidden until a measure column is selected.
  m_statsPanel = new StatsPanel(this);
  auto* evaluation = new QWidget(this);
  auto* layout = new QVBoxLayout(evaluation);
  layout->addWidget(inputs);
  layout->addWidget(m_statsPanel->placeBeside(results), 1);
  // Two qrels files compared (issue 37: UMBRELA's validation of LLM grades) in a tab of their own:
  // the same files and runs, another question.
  m_qrelsAgreement = new QrelsAgreementView(m_workbench, this);
  m_tabs = new QTabWidget(this);
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(evaluation, tr("Evaluation"));
  m_tabs->addTab(m_qrelsAgreement, tr("Qrels agreement"));
  auto* pageLayout = new QVBoxLayout(this);
  pageLayout->setContentsMargins(0, 0, 0, 0);
  pageLayout->addWidget(m_tabs);
  updateConventions();
}

void RetrievalPage::refreshDatasetInputs() {
  const auto dataset = m_workbench->dataset();
  // Qrels: the dataset's first, then files the user added (kept).
  QStringList files;
  for (int i = 0; i < m_qrels->count(); ++i)
    if (!m_qrels->itemData(i).toString().isEmpty()) files << m_qrels->itemData(i).toString();
  const QString current = m_qrels->currentData().toString();
  const bool goldWasCurrent = m_qrels->currentData(kGoldQrelsRole).toBool();
  m_qrels->clear();
  if (dataset && !dataset->qrels.byQuery.empty())
    m_qrels->addItem(tr("Dataset qrels (%1 judgments, %2 queries)")
                         .arg(dataset->qrels.judgmentCount())
                         .arg(dataset->qrels.byQuery.size()),
                     QString());
  // Docugami names gold documents, not judgments: offered as document-level qrels.
  if (dataset) {
    const auto withGold =
        std::count_if(dataset->queries.begin(), dataset->queries.end(),
                      [](const core::Query& q) { return !q.goldDocIds().empty(); });
    if (withGold > 0) {
      m_qrels->addItem(tr("Dataset gold documents (%1 queries)").arg(withGold), QString());
      m_qrels->setItemData(m_qrels->count() - 1, true, kGoldQrelsRole);
    }
  }
  for (const QString& f : files) m_qrels->addItem(QFileInfo(f).fileName(), f);
  int idx = m_qrels->findData(current);
  if (goldWasCurrent) idx = m_qrels->findData(true, kGoldQrelsRole);
  if (idx >= 0) m_qrels->setCurrentIndex(idx);

  // Runs: replace the dataset's, keep added files.
  m_runs->setDatasetRuns(dataset.get());
}

void RetrievalPage::chooseQrelsFile() {
  const QString file = QFileDialog::getOpenFileName(this, tr("Qrels file"));
  if (file.isEmpty()) return;
  setInputs(file, {});
}

void RetrievalPage::setInputs(const QString& qrelsFile, const QStringList& runFiles) {
  if (qrelsFile.isEmpty()) {
    int idx = -1;
    for (int i = 0; i < m_qrels->count() && idx < 0; ++i)
      if (m_qrels->itemData(i).toString().isEmpty() &&
          !m_qrels->itemData(i, kGoldQrelsRole).toBool())
        idx = i;
    if (idx >= 0) m_qrels->setCurrentIndex(idx);
  } else {
    int idx = m_qrels->findData(qrelsFile);
    if (idx < 0) {
      m_qrels->addItem(QFileInfo(qrelsFile).fileName(), qrelsFile);
      idx = m_qrels->count() - 1;
      m_qrels->setItemData(idx, qrelsFile, Qt::ToolTipRole);
    }
    m_qrels->setCurrentIndex(idx);
  }
  m_runs->addRunFiles(runFiles);
}

void RetrievalPage::setMeasures(const QString& measures) { m_measures->setText(measures); }
void RetrievalPage::setRelevanceLevel(int level) { m_level->setValue(level); }
void RetrievalPage::setComplete(bool on) { m_complete->setChecked(on); }
void RetrievalPage::setMaxDepth(int depth) { m_depth->setValue(depth); }
void RetrievalPage::setDocumentLevel(bool on) { m_docLevel->setChecked(on); }

bool RetrievalPage::useGoldDocuments() {
  const int idx = m_qrels->findData(true, kGoldQrelsRole);
  if (idx < 0) return false;
  m_qrels->setCurrentIndex(idx);
  return true;
}
bool RetrievalPage::isRunning() const { return m_job->isRunning(); }
QListWidget* RetrievalPage::runList() const { return m_runs->list(); }
void RetrievalPage::showQrelsAgreement() { m_tabs->setCurrentWidget(m_qrelsAgreement); }
void RetrievalPage::cancel() { m_job->cancel(); }

bool RetrievalPage::evaluate() {
  if (m_job->isRunning()) return false;
  EvalRequest request;
  request.dataset = m_workbench->dataset();
  request.qrelsFile = m_qrels->currentData().toString();
  request.goldDocumentQrels = m_qrels->currentData(kGoldQrelsRole).toBool();
  request.docLevel = m_docLevel->isChecked();
  if (m_qrels->count() == 0) {
    m_status->setText(tr("Choose a qrels file, or load a dataset with judgments."));
    return false;
  }
  RunListEditor::Choice runs = m_runs->chosen();
  request.datasetRuns = std::move(runs.datasetRuns);
  request.runFiles = std::move(runs.files);
  if (request.datasetRuns.empty() && request.runFiles.isEmpty()) {
    m_status->setText(tr("Choose at least one run."));
    return false;
  }
  auto parsed = core::parseMeasureArgs(measureArgs(m_measures->text()));
  if (parsed.ok()) {
    auto resolved = core::resolveMeasures(parsed.value);
    if (!resolved.ok()) parsed.error = resolved.error;
  }
  if (!parsed.ok()) {
    m_status->setText(tr("Measures: %1").arg(QString::fromStdString(parsed.error)));
    return false;
  }
  request.settings.measures = parsed.value;
  request.settings.relevanceLevel = m_level->value();
  request.settings.complete = m_complete->isChecked();
  if (m_depth->value() > 0) request.settings.maxDepth = static_cast<std::size_t>(m_depth->value());

  m_evaluate->setEnabled(false);
  m_cancel->setEnabled(true);
  m_progress->setVisible(true);
  m_progress->setRange(0, 0);
  m_status->setText(tr("Evaluating…"));
  m_job->start(std::move(request));
  return true;
}

void RetrievalPage::onFinished(const EvalOutcome& outcome) {
  m_evaluate->setEnabled(true);
  m_cancel->setEnabled(false);
  m_progress->setVisible(false);

  m_perQuery->setResult(nullptr);
  m_summary->setResults(nullptr);
  m_ranked->clear();
  m_statsPanel->clear();
  m_outcome = std::make_shared<const EvalOutcome>(outcome);
  m_evaluatedDocLevel = m_outcome->docLevel;  // what the results on screen were computed with
  m_summary->setResults(&m_outcome->results);
  fitSummaryColumns(m_summaryView, m_summary);
  computeSummaryIntervals();

  m_runChoice->blockSignals(true);
  m_runChoice->clear();
  m_runChoice->addItems(runDisplayNames(m_outcome->results));
  m_runChoice->blockSignals(false);
  showRun(m_outcome->results.empty() ? -1 : 0);
  updateConventions();

  const bool ok =
      !m_outcome->cancelled && !m_outcome->results.empty() && !m_outcome->report.hasErrors();
  QString text;
  if (m_outcome->cancelled)
    text = tr("Cancelled.");
  else
    text = tr("%n run(s) evaluated in %1 ms", nullptr, static_cast<int>(m_outcome->results.size()))
               .arg(m_outcome->elapsedMs);
  if (m_outcome->report.errors > 0)
    text += tr("; %n error(s), see Conventions and the Issues dock", nullptr,
               static_cast<int>(m_outcome->report.errors));
  m_status->setText(text);
  // The statistics pages take their inputs from the latest evaluation with results.
  if (!m_outcome->cancelled && !m_outcome->results.empty()) m_workbench->setEvaluation(m_outcome);
  emit evaluationFinished(ok);
}

void RetrievalPage::showRun(int index) {
  m_ranked->clear();
  m_rankedTitle->setText(tr("Select a query to see its ranked list."));
  if (index < 0 || index >= static_cast<int>(m_outcome->results.size())) {
    m_perQuery->setResult(nullptr);
    return;
  }
  m_perQuery->setResult(&m_outcome->results[index]);
  m_perQueryView->resizeColumnsToContents();
}

bool RetrievalPage::showQuery(int runIndex, const QString& qid) {
  if (runIndex < 0 || runIndex >= m_runChoice->count()) return false;
  m_runChoice->setCurrentIndex(runIndex);
  showRun(runIndex);
  for (int row = 0; row < m_perQueryProxy->rowCount(); ++row) {
    const QModelIndex idx = m_perQueryProxy->index(row, PerQueryEvalModel::Qid);
    if (idx.data().toString() == qid) {
      m_perQueryView->setCurrentIndex(idx);
      m_perQueryView->scrollTo(idx);
      return true;
    }
  }
  return false;
}

void RetrievalPage::onQuerySelected() {
  const int runIndex = m_runChoice->currentIndex();
  const QModelIndex current = m_perQueryView->currentIndex();
  if (runIndex < 0 || runIndex >= static_cast<int>(m_outcome->runs.size()) || !current.isValid())
    return;
  const core::QueryEval* q = m_perQuery->queryAt(m_perQueryProxy->mapToSource(current).row());
  if (!q) return;
  const auto& run = m_outcome->runs[runIndex];
  const core::Ranking* ranking = run->find(q->qid);
  const std::vector<core::Judgment>* judgments = nullptr;
  if (m_outcome->qrels) {
    auto it = m_outcome->qrels->byQuery.find(q->qid);
    if (it != m_outcome->qrels->byQuery.end()) judgments = &it->second;
  }
  if (m_evaluatedDocLevel && judgments) {
    // The qrels name documents and the run names chunks: each chunk shows its document's grade.
    std::unordered_map<std::string, int> grades;
    // A document is as relevant as its best-judged chunk, as evaluateRunDocLevel counts it.
    for (const auto& j : *judgments) {
      const auto [it, added] = grades.emplace(core::chunkDocumentId(j.docId), j.rel);
      if (!added) it->second = std::max(it->second, j.rel);
    }
    m_docJudgments.clear();
    if (ranking)
      for (const auto& e : ranking->entries)
        if (auto g = grades.find(core::chunkDocumentId(e.docId())); g != grades.end())
          m_docJudgments.push_back({std::string(e.docId()), g->second, 0});
    judgments = &m_docJudgments;
  }
  const auto dataset = m_workbench->dataset();
  const auto& settings = m_outcome->results[runIndex].settings;
  const bool haveCorpus = dataset && !dataset->corpus.empty();
  m_ranked->setRanking(run, ranking, judgments, settings.relevanceLevel, settings.maxDepth,
                       haveCorpus ? &dataset->corpus : nullptr);
  if (m_evaluatedDocLevel) m_ranked->markRepeatedDocuments();
  refreshHumanGrades();
  m_rankedView->setColumnHidden(RankedListModel::Text, !haveCorpus);
  m_rankedView->resizeColumnsToContents();
  QString queryText;
  if (dataset)
    if (const core::Query* query = dataset->findQuery(q->qid))
      queryText = QString::fromStdString(query->text).toHtmlEscaped();
  // The legend names only the colours this level can show.
  const int level = settings.relevanceLevel;
  auto swatch = [](const QColor& c, const QString& label) {
    return QStringLiteral("<span style='background:%1'>&nbsp;%2&nbsp;</span> ")
        .arg(c.name(), label);
  };
  QString legend = swatch(RankedListModel::gradeColor(level, level), tr("relevant"));
  if (level > 1)
    legend += swatch(RankedListModel::gradeColor(level - 1, level), tr("below the level"));
  legend += swatch(RankedListModel::gradeColor(0, level), tr("judged non-relevant"));
  m_rankedTitle->setText(tr("<b>%1</b> %2<br>%3 retrieved, %4 relevant, %5 relevant retrieved. %6"
                            "<i>italic = unjudged</i>")
                             .arg(QString::fromStdString(q->qid).toHtmlEscaped(), queryText)
                             .arg(q->numRet)
                             .arg(q->numRel)
                             .arg(q->numRelRet)
                             .arg(legend));
}

void RetrievalPage::updateConventions() {
  core::EvalSettings settings;
  if (!m_outcome->results.empty()) settings = m_outcome->results.front().settings;
  QString html = QStringLiteral("<ul style='margin-left:-20px'>");
  // Document level changes what every number means: its rules come first.
  std::vector<std::string> lines;
  if (m_evaluatedDocLevel && !m_outcome->results.empty()) lines = core::docLevelConventionsText();
  for (auto& line : core::conventionsText(settings)) lines.push_back(std::move(line));
  for (const auto& line : lines)
    html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(line).toHtmlEscaped());
  html += QStringLiteral("</ul>");
  const QStringList names = runDisplayNames(m_outcome->results);
  for (std::size_t i = 0; i < m_outcome->results.size(); ++i) {
    const auto& r = m_outcome->results[i];
    const QString name = names[static_cast<int>(i)].toHtmlEscaped();
    html += tr("<p><b>%1</b>: %2 queries averaged").arg(name).arg(r.numQueries);
    if (!r.skippedQueries.empty())
      html +=
          tr("; %1 qrels queries absent from the run were skipped").arg(r.skippedQueries.size());
    if (!r.zeroFilledQueries.empty())
      html += tr("; %1 absent queries counted as 0").arg(r.zeroFilledQueries.size());
    if (!r.ignoredRunQueries.empty())
      html += tr("; %1 run queries without qrels ignored").arg(r.ignoredRunQueries.size());
    html += QStringLiteral(".</p>");
  }
  for (const auto& d : m_outcome->report.diagnostics)
    html += QStringLiteral("<p style='color:#a03030'>%1</p>")
                .arg(QString::fromStdString(d.toString()).toHtmlEscaped());
  m_conventions->setHtml(html);
}

}  // namespace ragscope::ui

namespace ragscope::ui {

bool RetrievalPage::summaryStatisticsPending() const { return m_statsJob->isPending(); }

void RetrievalPage::computeSummaryIntervals() {
  // Every run x mean-type measure: a percentile bootstrap CI (B = 10,000, seed 42) of the mean,
  // off the GUI thread; the summary shows "…" until it is done. core::stats::summarizeRun is what
  // `ragscope-cli eval --format csv|json` prints, so the GUI and CLI CIs are the same numbers.
  using Intervals = std::vector<std::map<std::string, core::stats::Interval>>;
  m_statsJob->start<Intervals>(
      [outcome = m_outcome](Intervals& out, const std::atomic<bool>* cancel) {
        core::stats::BootstrapOptions o;
        o.cancel = cancel;
        for (const auto& r : outcome->results) {
          const auto summaries = core::stats::summarizeRun(r, o);
          if (cancel->load()) return;
          auto& intervals = out.emplace_back();
          for (std::size_t c = 0; c < r.columns.size() && c < summaries.size(); ++c)
            if (std::isfinite(summaries[c].ci.low) && std::isfinite(summaries[c].ci.high))
              intervals[r.columns[c].name] = summaries[c].ci;
        }
      },
      [this](Intervals intervals, bool cancelled) {
        if (!cancelled) m_summary->setIntervals(std::move(intervals), 0.95);
        fitSummaryColumns(m_summaryView, m_summary);
        emit summaryStatisticsReady();
      });
}

bool RetrievalPage::openStatistics(int runIndex, const QString& measure) {
  if (runIndex < 0 || runIndex >= static_cast<int>(m_outcome->results.size())) return false;
  const core::EvalResult& r = m_outcome->results[static_cast<std::size_t>(runIndex)];
  const auto col = r.columnIndex(measure.toStdString());
  if (!col || !core::stats::supportsStatistics(r.columns[*col])) return false;
  std::vector<std::string> qids;
  std::vector<double> values = core::stats::perQueryValues(r, *col, &qids);
  m_statsPanel->setVisible(true);
  m_statsPanel->setSample(runDisplayNames(m_outcome->results)[runIndex], measure, std::move(qids),
                          std::move(values));
  return true;
}

void RetrievalPage::onSummaryColumnSelected(const QModelIndex& proxyIndex) {
  if (!proxyIndex.isValid()) return;
  const QModelIndex source = m_summaryProxy->mapToSource(proxyIndex);
  const std::string measure = m_summary->measureAt(source.column());
  if (!measure.empty()) openStatistics(source.row(), QString::fromStdString(measure));
}

void RetrievalPage::onPerQueryColumnSelected(const QModelIndex& proxyIndex) {
  const int runIndex = m_runChoice->currentIndex();
  if (!proxyIndex.isValid() || runIndex < 0 || !m_perQuery->result()) return;
  const int column = m_perQuery->resultColumn(m_perQueryProxy->mapToSource(proxyIndex).column());
  if (column < 0) return;
  openStatistics(runIndex,
                 QString::fromStdString(m_perQuery->result()->columns[std::size_t(column)].name));
}

void RetrievalPage::refreshHumanGrades() {
  LabelBook* book = m_workbench->labelBook();
  m_ranked->setHumanLabels(book->snapshot(), book->datasetScope(), book->annotator().toStdString());
}

bool RetrievalPage::gradeSelectedDocument(int grade) {
  const QModelIndex current = m_rankedView->currentIndex();
  const auto* proxy = static_cast<const QSortFilterProxyModel*>(m_rankedView->model());
  if (!current.isValid() || grade < 0 || grade > 3) return false;
  const std::string doc = m_ranked->docIdAt(proxy->mapToSource(current).row());
  LabelBook* book = m_workbench->labelBook();
  if (doc.empty() || m_ranked->queryId().empty() || !book->ensureAnnotator(this)) return false;
  core::labels::Label label;
  label.target = {core::labels::TargetKind::Relevance, book->datasetScope(), m_ranked->queryId(),
                  doc};
  label.value = std::to_string(grade);
  book->add(std::move(label));
  return true;
}

void RetrievalPage::openLabelQueue() {
  if (m_outcome->runs.empty()) {
    m_status->setText(tr("Evaluate runs first: the queue looks for unjudged documents in them."));
    return;
  }
  auto* queue = LabelQueue::documentsQueue(m_workbench->labelBook(), m_workbench->dataset(),
                                           m_outcome->runs, m_outcome->qrels, this);
  queue->show();
  queue->raise();
}

bool RetrievalPage::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_rankedView && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    const bool plain =
        !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier));
    if (plain && key->key() >= Qt::Key_0 && key->key() <= Qt::Key_3) {
      // Graded, on to the next document: a ranked list is graded top to bottom.
      if (gradeSelectedDocument(key->key() - Qt::Key_0)) {
        const QModelIndex below =
            m_rankedView->currentIndex().siblingAtRow(m_rankedView->currentIndex().row() + 1);
        if (below.isValid()) m_rankedView->setCurrentIndex(below);
      }
      return true;
    }
  }
  return Page::eventFilter(watched, event);
}

}  // namespace ragscope::ui
