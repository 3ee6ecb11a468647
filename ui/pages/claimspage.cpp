#include "ui/pages/claimspage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QThreadPool>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <filesystem>

#include "core/eval/projectruns.h"
#include "core/llm/prompts.h"
#include "core/llm/providerfactory.h"
#include "ui/jobs/retrieverjob.h"
#include "ui/jobs/runjob.h"
#include "ui/jobsdock.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/pages/templatefield.h"
#include "ui/secrets.h"
#include "ui/pages/retrieverrunbar.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

struct FamilyInfo {
  const char* label;
  const char* metrics;
  const char* tip;
};
// In ClaimsPage::Family order.
const FamilyInfo kFamilies[] = {
    {"Notebook: faithfulness, correctness, coverage", "notebook",
     "Answer claims vs the chunks joined; answer claims vs the gold answer; gold claims vs the "
     "answer"},
    {"RAGChecker: all eleven ragchecker.* metrics", "ragchecker",
     "Claim x chunk checking of the answer and the gold answer (judges every chunk alone)"},
    {"RAGAS: faithfulness, context recall, context precision",
     "ragas.faithfulness,ragas.context_recall,ragas.context_precision",
     "RAGAS's definitions; context precision judges the gold answer against each chunk in rank "
     "order"},
    {"RAGAS paper: context relevance", "ragas.context_relevance_paper",
     "Sentences of the chunks the judge copies as helpful, over all their sentences"},
    {"RAGAS: answer relevancy (embeddings endpoint)", "ragas.answer_relevancy",
     "Questions written from the answer by the judge, embedded with the question: mean cosine"},
    {"VERA: consolidated (rerank endpoint)", "vera.consolidated",
     "The rerank endpoint's score of the answer for the question"},
};

void fillCombo(QComboBox* combo, const std::vector<core::llm::EndpointConfig>& endpoints,
               const QString& offlineNote) {
  const QString previous = combo->currentText();
  QSignalBlocker block(combo);
  combo->clear();
  for (const auto& e : endpoints)
    combo->addItem(core::llm::isOfflineEndpoint(e)
                       ? QStringLiteral("%1 (%2)").arg(q(e.name), offlineNote)
                       : q(e.name));
  const int keep = combo->findText(previous);
  combo->setCurrentIndex(keep >= 0 ? keep : 0);
}

}  // namespace

ClaimsPage::ClaimsPage(Workbench* workbench, QWidget* parent)
    : Page(parent), m_workbench(workbench), m_pool(new QThreadPool(this)) {
  setObjectName(QStringLiteral("ClaimsPage"));
  m_pool->setMaxThreadCount(1);
  buildUi();
  connect(m_workbench, &Workbench::datasetChanged, this, &ClaimsPage::refreshInputs);
  connect(m_workbench, &Workbench::datasetChanged, this, &ClaimsPage::showProjectRuns);
  connect(m_workbench, &Workbench::projectChanged, this, &ClaimsPage::showProjectRuns);
  refreshInputs();
}

ClaimsPage::~ClaimsPage() {
  if (m_job) m_job->disconnect(this);
  m_pool->waitForDone();
}

QIcon ClaimsPage::icon() const { return style()->standardIcon(QStyle::SP_DialogApplyButton); }

core::eval::ResultOptions ClaimsPage::resultOptions() {
  core::eval::ResultOptions o;  // the CLI's bootstrap: B = 10,000, seed 42, percentile 95 %
  o.bootstrap.threads =
      1;  // deterministic for a seed on any number of threads; the GUI keeps a core
  o.bootstrap.keepDistribution = false;
  o.threads = 1;
  return o;
}

void ClaimsPage::activated() { refreshEndpoints(); }

void ClaimsPage::refreshEndpoints() {
  m_generators = {core::eval::offlineReaderEndpoint()};
  m_judges = {core::eval::offlineJudgeEndpoint()};
  m_embedders.clear();
  m_rerankers.clear();
  for (const auto& e : EndpointListModel::saved()) {
    if (e.kind == core::llm::EndpointKind::Chat) {
      m_generators.push_back(e);
      m_judges.push_back(e);
    } else if (e.kind == core::llm::EndpointKind::Embeddings) {
      m_embedders.push_back(e);
    } else if (e.kind == core::llm::EndpointKind::Rerank) {
      m_rerankers.push_back(e);
    }
  }
  for (const auto& e : m_scripted) {
    auto& list = e.kind == core::llm::EndpointKind::Embeddings ? m_embedders
                 : e.kind == core::llm::EndpointKind::Rerank   ? m_rerankers
                                                               : m_judges;
    list.push_back(e);
  }
  fillCombo(m_generator, m_generators, tr("heuristic, no server"));
  fillCombo(m_judge, m_judges, tr("heuristic, no server"));
  fillCombo(m_embedder, m_embedders, {});
  fillCombo(m_reranker, m_rerankers, {});
  m_embedder->setEnabled(!m_embedders.empty());
  m_reranker->setEnabled(!m_rerankers.empty());
  if (m_embedders.empty())
    m_embedder->addItem(tr("(add an embeddings endpoint on the Endpoints page)"));
  if (m_rerankers.empty()) m_reranker->addItem(tr("(add a rerank endpoint on the Endpoints page)"));
}

void ClaimsPage::buildUi() {
  auto* setup = new QGroupBox(tr("Claim judging setup"));
  m_datasetLabel = new QLabel;
  m_answers = new QComboBox;
  m_answers->setToolTip(
      tr("The answers to judge: the dataset's own responses, an answers file written by "
         "`ragscope-cli generate`, or answers generated now from a run's top k"));
  m_answersFile = new QLineEdit;
  m_answersFile->setPlaceholderText(tr("answers JSONL {\"qid\", \"answer\"}"));
  auto* browse = new QPushButton(tr("…"));
  browse->setFixedWidth(30);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(
        this, tr("Answers file"), {}, tr("JSON lines (*.jsonl *.json);;All files (*)"));
    if (!f.isEmpty()) setAnswersFile(f);
  });
  auto* fileRow = new QHBoxLayout;
  fileRow->addWidget(m_answersFile, 1);
  fileRow->addWidget(browse);
  m_generator = new QComboBox;
  m_generator->setToolTip(tr("Writes the answers when they are generated from a run"));
  m_judge = new QComboBox;
  m_judge->setToolTip(
      tr("Extracts the claims and gives the verdicts; endpoints are edited on the Endpoints page"));
  m_embedder = new QComboBox;
  m_reranker = new QComboBox;
  m_k = new QSpinBox;
  m_k->setRange(1, 100);
  m_k->setValue(5);
  m_k->setToolTip(tr("Chunks per answer when answers are generated from a run (its top k)"));
  m_mode = new QComboBox;
  m_mode->addItem(tr("ragscope (unparsed never 0 or 1)"), QStringLiteral("ragscope"));
  m_mode->addItem(tr("ragchecker (RAGChecker's numbers)"), QStringLiteral("ragchecker"));
  m_mode->addItem(tr("ragas (RAGAS's numbers)"), QStringLiteral("ragas"));
  m_repeats = new QSpinBox;
  m_repeats->setRange(1, 100);
  m_repeats->setToolTip(tr(
      "Ask every verdict this many times (distinct seeds): flip rate, majority label, variance"));
  m_matrix = new QCheckBox(tr("Judge each chunk alone (claim × chunk matrix)"));
  m_extractTemplate =
      new TemplateField(tr("Claim extraction template"),
                        core::llm::defaultClaimExtractionTemplate(), QStringLiteral("{text}"));
  m_judgeTemplate =
      new TemplateField(tr("Claim judging template"), core::llm::defaultClaimJudgeTemplate(),
                        QStringLiteral("{documents}, {claims}"));
  auto* familyBox = new QWidget;
  auto* familyGrid = new QGridLayout(familyBox);
  familyGrid->setContentsMargins(0, 0, 0, 0);
  for (std::size_t i = 0; i < std::size(kFamilies); ++i) {
    auto* box = new QCheckBox(tr(kFamilies[i].label));
    box->setToolTip(tr(kFamilies[i].tip));
    m_families.push_back(box);
    familyGrid->addWidget(box, int(i / 2), int(i % 2));
    connect(box, &QCheckBox::toggled, this, &ClaimsPage::scheduleEstimate);
  }
  m_families[std::size_t(Family::Notebook)]->setChecked(true);
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

  auto* left = new QFormLayout;
  left->addRow(tr("Dataset"), m_datasetLabel);
  left->addRow(tr("Answers"), m_answers);
  // A configured retriever makes a run first; it joins the dataset and answers come from it.
  m_retrieverBar = new RetrieverRunBar(m_workbench, 100);
  connect(m_retrieverBar, &RetrieverRunBar::runAdded, this, [this](int runIndex) {
    const int item = m_answers->findData(runIndex);
    if (item >= 0) m_answers->setCurrentIndex(item);
  });
  left->addRow(tr("Retriever"), m_retrieverBar);
  left->addRow(tr("Answers file"), fileRow);
  left->addRow(tr("Generator"), m_generator);
  left->addRow(tr("Judge"), m_judge);
  left->addRow(tr("Extraction"), m_extractTemplate);
  left->addRow(tr("Judging"), m_judgeTemplate);
  auto* right = new QFormLayout;
  auto* modeRow = new QHBoxLayout;
  modeRow->addWidget(m_mode, 1);
  modeRow->addWidget(new QLabel(tr("repeats")));
  modeRow->addWidget(m_repeats);
  modeRow->addWidget(new QLabel(tr("k")));
  modeRow->addWidget(m_k);
  right->addRow(tr("Mode"), modeRow);
  right->addRow(tr("Embedder"), m_embedder);
  right->addRow(tr("Reranker"), m_reranker);
  right->addRow(QString(), m_matrix);
  right->addRow(tr("Budget"), budgetRow);
  auto* columns = new QHBoxLayout;
  columns->addLayout(left, 1);
  columns->addSpacing(16);
  columns->addLayout(right, 1);

  m_estimate = new QLabel(tr("Open a dataset with answers, or with a run to generate them from."));
  m_estimate->setWordWrap(true);
  m_estimate->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status = new QLabel;
  m_status->setWordWrap(true);
  m_status->setTextFormat(Qt::PlainText);  // errors quote judges and files: never HTML
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_startButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Judge claims"));
  m_cancelButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Cancel"));
  m_cancelButton->setEnabled(false);
  auto* open = new QPushButton(tr("Open stored claims run…"));
  connect(open, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Claims run store"), runsFolder(),
                                                   tr("Run stores (*.db)"));
    if (!f.isEmpty()) openStore(f);
  });
  connect(m_startButton, &QPushButton::clicked, this, &ClaimsPage::start);
  connect(m_cancelButton, &QPushButton::clicked, this, &ClaimsPage::cancel);
  m_progress = new QProgressBar;
  m_progress->setTextVisible(false);
  m_progress->setMaximumHeight(14);
  m_progress->setVisible(false);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_progress, 1);
  buttons->addStretch(0);
  buttons->addWidget(open);
  buttons->addWidget(m_cancelButton);
  buttons->addWidget(m_startButton);
  auto* estimateRow = new QHBoxLayout;
  auto* estimateTitle = new QLabel(tr("Estimate:"));
  estimateTitle->setAlignment(Qt::AlignTop);
  estimateRow->addWidget(estimateTitle);
  estimateRow->addWidget(m_estimate, 1);
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->addLayout(columns);
  setupLayout->addWidget(familyBox);
  setupLayout->addLayout(estimateRow);
  setupLayout->addLayout(buttons);
  setupLayout->addWidget(m_status);

  auto restart = [this] { scheduleEstimate(); };
  connect(m_answers, &QComboBox::currentIndexChanged, this, restart);
  connect(m_answers, &QComboBox::currentIndexChanged, this, [this] {
    const int source = m_answers->currentData().toInt();
    m_answersFile->setEnabled(source == AnswersFile);
    m_generator->setEnabled(source >= 0 || source == Bm25Generated);
  });
  connect(m_answersFile, &QLineEdit::editingFinished, this, restart);
  connect(m_judge, &QComboBox::currentIndexChanged, this, restart);
  connect(m_generator, &QComboBox::currentIndexChanged, this, restart);
  connect(m_mode, &QComboBox::currentIndexChanged, this, restart);
  connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
    m_judgeTemplate->setBuiltin(m_mode->currentData().toString() == QLatin1String("ragchecker")
                                    ? core::llm::defaultClaimJudgeThreeWayTemplate()
                                    : core::llm::defaultClaimJudgeTemplate());
  });
  connect(m_repeats, &QSpinBox::valueChanged, this, restart);
  connect(m_k, &QSpinBox::valueChanged, this, restart);
  connect(m_matrix, &QCheckBox::toggled, this, restart);
  connect(m_extractTemplate, &TemplateField::changed, this, restart);
  connect(m_judgeTemplate, &TemplateField::changed, this, restart);

  m_view = new ClaimsResultsView;
  // The setup scrolls and can be folded away: on a 1366x768 screen the results need the height.
  auto* scroll = new QScrollArea;
  scroll->setWidget(setup);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(scroll);
  split->addWidget(m_view);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setChildrenCollapsible(false);
  m_setupToggle = new QToolButton;
  m_setupToggle->setCheckable(true);
  m_setupToggle->setChecked(true);
  m_setupToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_setupToggle->setArrowType(Qt::DownArrow);
  m_setupToggle->setText(tr("Setup"));
  m_setupToggle->setToolTip(tr("Show or hide the judging setup"));
  connect(m_setupToggle, &QToolButton::toggled, this, [this, scroll](bool on) {
    scroll->setVisible(on);
    m_setupToggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
  });
  m_runLabel = new QLabel;
  m_runLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* header = new QHBoxLayout;
  header->addWidget(m_setupToggle);
  header->addWidget(m_runLabel, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(header);
  layout->addWidget(split, 1);
  refreshEndpoints();
}

void ClaimsPage::refreshInputs() {
  const auto ds = m_workbench->dataset();
  m_datasetLabel->setText(ds ? m_workbench->datasetName() : tr("(none loaded)"));
  const int previous = m_answers->currentData().toInt();
  {
    QSignalBlocker block(m_answers);
    m_answers->clear();
    if (ds && !ds->examples.empty())
      m_answers->addItem(tr("the dataset's own answers (%1)").arg(ds->examples.size()),
                         int(DatasetAnswers));
    m_answers->addItem(tr("an answers file"), int(AnswersFile));
    if (ds) {
      for (std::size_t i = 0; i < ds->runs.size(); ++i)
        m_answers->addItem(tr("generated from run %1, top k").arg(q(ds->runs[i].tag)), int(i));
      if (!ds->corpus.empty())
        m_answers->addItem(tr("generated from BM25 over the corpus, top k"), int(Bm25Generated));
    }
    const int keep = m_answers->findData(previous);
    m_answers->setCurrentIndex(keep >= 0 ? keep : 0);
  }
  emit m_answers->currentIndexChanged(m_answers->currentIndex());
}

bool ClaimsPage::setAnswersSource(int source) {
  const int i = m_answers->findData(source);
  if (i < 0) return false;
  m_answers->setCurrentIndex(i);
  return true;
}
void ClaimsPage::setAnswersFile(const QString& path) {
  m_answersFile->setText(path);
  setAnswersSource(AnswersFile);
  scheduleEstimate();
}
void ClaimsPage::setJudgeEndpoint(const core::llm::EndpointConfig& endpoint) {
  m_scripted.push_back(endpoint);
  refreshEndpoints();
  if (endpoint.kind == core::llm::EndpointKind::Chat)
    m_judge->setCurrentIndex(m_judge->findText(q(endpoint.name)));
  else if (endpoint.kind == core::llm::EndpointKind::Embeddings)
    m_embedder->setCurrentIndex(m_embedder->findText(q(endpoint.name)));
  else
    m_reranker->setCurrentIndex(m_reranker->findText(q(endpoint.name)));
}
void ClaimsPage::setJudgeIndex(int index) { m_judge->setCurrentIndex(index); }
void ClaimsPage::setFamily(Family family, bool on) {
  m_families[std::size_t(family)]->setChecked(on);
}
void ClaimsPage::setMode(const QString& mode) {
  m_mode->setCurrentIndex(std::max(0, m_mode->findData(mode)));
}
void ClaimsPage::setRepeats(int repeats) { m_repeats->setValue(repeats); }
void ClaimsPage::setK(int k) { m_k->setValue(k); }
void ClaimsPage::setMatrix(bool on) { m_matrix->setChecked(on); }
void ClaimsPage::setSetupVisible(bool on) { m_setupToggle->setChecked(on); }
void ClaimsPage::setBudget(std::optional<double> usd) {
  m_useBudget->setChecked(usd.has_value());
  if (usd) m_budget->setValue(*usd);
}

QString ClaimsPage::metricList() const {
  QStringList list;
  for (std::size_t i = 0; i < m_families.size(); ++i)
    if (m_families[i]->isChecked()) list << QString::fromLatin1(kFamilies[i].metrics);
  return list.join(QLatin1Char(','));
}

std::optional<core::eval::JobSpec> ClaimsPage::jobSpec(QString* error) const {
  const auto ds = m_workbench->dataset();
  if (!ds) {
    *error = tr("Open a dataset first.");
    return std::nullopt;
  }
  core::eval::JobSpec spec;
  spec.kind = core::eval::JobKind::Judge;
  const int source = m_answers->currentData().toInt();
  if (source == AnswersFile) {
    if (m_answersFile->text().trimmed().isEmpty()) {
      *error = tr("Choose an answers file.");
      return std::nullopt;
    }
    spec.judge.answers = m_answersFile->text().trimmed().toStdString();
  } else if (source == Bm25Generated) {
    spec.run.type = core::eval::RunSource::Type::Retriever;
  } else if (source >= 0) {
    if (std::size_t(source) >= ds->runs.size()) {
      *error = tr("The run is no longer in the dataset.");
      return std::nullopt;
    }
    spec.run.type = core::eval::RunSource::Type::DatasetRun;
    spec.run.datasetRun = std::size_t(source);
  }
  spec.judge.metrics = metricList().toStdString();
  if (spec.judge.metrics.empty()) {
    *error = tr("Choose at least one metric family.");
    return std::nullopt;
  }
  spec.judge.mode = m_mode->currentData().toString().toStdString();
  spec.judge.repeats = std::size_t(m_repeats->value());
  spec.judge.matrices = m_matrix->isChecked();
  const int judge = m_judge->currentIndex();
  spec.judge.judge = judge >= 0 && std::size_t(judge) < m_judges.size()
                         ? m_judges[std::size_t(judge)]
                         : core::eval::offlineJudgeEndpoint();
  if (m_families[std::size_t(Family::AnswerRelevancy)]->isChecked() && !m_embedders.empty())
    spec.judge.embedder = m_embedders[std::size_t(std::max(0, m_embedder->currentIndex()))];
  if (m_families[std::size_t(Family::Vera)]->isChecked() && !m_rerankers.empty())
    spec.judge.reranker = m_rerankers[std::size_t(std::max(0, m_reranker->currentIndex()))];
  spec.judge.extractTemplate =
      m_extractTemplate->path().toStdString();  // read by core, on the worker
  spec.judge.judgeTemplate = m_judgeTemplate->path().toStdString();
  const int generator = m_generator->currentIndex();
  spec.endpoint = generator >= 0 && std::size_t(generator) < m_generators.size()
                      ? m_generators[std::size_t(generator)]
                      : core::eval::offlineReaderEndpoint();
  spec.k = std::size_t(m_k->value());
  spec.limits.concurrency = std::size_t(std::max(1, spec.judge.judge.concurrency));
  if (m_useBudget->isChecked()) spec.limits.budgetUsd = m_budget->value();
  spec.storeFolder = runsFolder().toStdString();
  spec.frontEnd = "gui";
  return spec;
}

void ClaimsPage::scheduleEstimate() {
  const int generation = ++m_estimateGeneration;
  QTimer::singleShot(150, this, [this, generation] {
    if (generation == m_estimateGeneration) estimate();
  });
}

bool ClaimsPage::estimate() {
  const auto ds = m_workbench->dataset();
  QString error;
  const auto spec = jobSpec(&error);
  if (!spec) {
    m_estimate->setText(error);
    emit estimateFinished(false);
    return false;
  }
  if (spec->run.type == core::eval::RunSource::Type::Retriever) {
    m_estimate->setText(
        tr("BM25 retrieves the top %1 of every query first; the answers are generated from them, "
           "then judged. The cost follows from the generator and judge calls.")
            .arg(spec->k));
    emit estimateFinished(true);
    return true;
  }
  const int generation = m_estimateGeneration;
  m_estimate->setText(tr("Estimating…"));
  auto* watcher = new QFutureWatcher<core::eval::JobEstimate>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    const core::eval::JobEstimate e = watcher->result();
    watcher->deleteLater();
    if (generation != m_estimateGeneration) return;
    if (!e.error.empty()) {
      m_estimate->setText(q(e.error));
      emit estimateFinished(false);
      return;
    }
    QStringList lines;
    for (const auto& s : e.stages) lines << describeEstimate(s.estimate);
    QString tail =
        tr("%n answer(s); the claims' verdicts follow the extractions (planned as replies arrive)",
           "", int(e.queries));
    if (e.missingDocuments)
      tail += tr(", %1 run documents not in the corpus (left out)").arg(e.missingDocuments);
    if (e.heuristic) tail += tr(" · offline heuristic judge: no cost, verdicts labelled heuristic");
    lines << tail;
    m_estimate->setText(lines.join(QLatin1Char('\n')));
    emit estimateFinished(true);
  });
  watcher->setFuture(
      QtConcurrent::run(m_pool, [spec = *spec, ds] { return core::eval::estimateJob(spec, *ds); }));
  return true;
}

void ClaimsPage::setBusy(bool busy) {
  m_running = busy;
  m_startButton->setEnabled(!busy);
  m_cancelButton->setEnabled(busy && m_job);
  if (!busy) m_progress->setVisible(false);
}

void ClaimsPage::fail(const QString& message) {
  setBusy(false);
  m_status->setText(message);
  m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
  emit finished(false);
}

bool ClaimsPage::start() {
  if (m_running) return false;
  const auto ds = m_workbench->dataset();
  QString error;
  const auto spec = jobSpec(&error);
  if (!spec) {
    m_status->setText(error);
    m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
    return false;
  }
  m_userOpened = true;
  setBusy(true);
  m_status->setStyleSheet(QString());
  m_status->setText(tr("Starting…"));
  m_progress->setRange(0, 0);
  m_progress->setVisible(true);
  const QString title =
      tr("judge · %1 · %2").arg(m_workbench->datasetName(), m_judge->currentText());
  Secrets::resolveEndpointKey(
      spec->judge.judge, this, [this, spec = *spec, ds, title](const ResolvedEndpoint& resolved) {
        if (!resolved.ok) {
          fail(tr("Not started: %1").arg(resolved.message));
          return;
        }
        RunJobRequest request;
        request.title = title;
        request.spec = spec;
        request.spec->judge.judge = resolved.config;
        request.dataset = ds;
        request.execution.transport = resolved.transport;
        request.results = resultOptions();
        m_job = new RunJob(this);
        m_cancelButton->setEnabled(true);
        connect(m_job, &RunJob::retrieveProgress, this,
                [this](RunJob::RetrievePhase phase, quint64 done, quint64 total) {
                  showRetrievalProgress(m_progress, m_status, phase == RunJob::RetrievePhase::Index, done, total);
                });
        connect(m_job, &RunJob::progress, this, [this](const core::eval::Progress& p) {
          if (!m_job) return;
          if (p.total) {
            m_progress->setRange(0, 1000);
            m_progress->setValue(int(1000.0 * double(p.done) / double(p.total)));
          }
          m_status->setText(tr("Judging: %1").arg(describeProgress(p, m_job->budgetUsd())));
        });
        connect(m_job, &RunJob::finished, this, &ClaimsPage::onFinished);
        m_job->start(std::move(request));
      });
  return true;
}

void ClaimsPage::cancel() {
  if (m_job) m_job->cancel();
}

void ClaimsPage::onFinished(const RunJobOutcome& outcome) {
  m_job->deleteLater();
  m_job = nullptr;
  if (!outcome.started) {
    fail(outcome.cancelledBeforeCalls ? tr("Cancelled before any call.")
                                      : tr("Claim judging could not start: %1").arg(outcome.error));
    return;
  }
  const auto& result = *outcome.result;
  const QString store = result.stages.empty()
                            ? QString()
                            : q(std::filesystem::absolute(result.stages.back().store).string());
  if (result.judge)
    showReport(std::make_shared<const core::eval::JudgeReport>(*result.judge), store);
  setBusy(false);
  if (!store.isEmpty()) m_workbench->addRunStores({store});  // saved with the project
  const bool complete = outcome.summary.outcome == core::eval::RunOutcome::Done ||
                        outcome.summary.outcome == core::eval::RunOutcome::DoneWithErrors;
  if (!result.error.empty()) {
    m_status->setText(q(result.error));
    m_status->setStyleSheet(QStringLiteral("color: #b01c1c;"));
  } else if (complete) {
    m_status->setText(tr("Done (%1). Store: %2").arg(outcome.status, QFileInfo(store).fileName()));
  } else {
    m_status->setText(tr("Judging %1: %2 of %3 calls done; resume it from the Jobs dock.")
                          .arg(outcome.status)
                          .arg(outcome.summary.progress.done)
                          .arg(outcome.summary.progress.total));
  }
  emit finished(complete && result.error.empty());
}

void ClaimsPage::showReport(std::shared_ptr<const core::eval::JudgeReport> report,
                            const QString& store) {
  m_runLabel->setText(tr("<b>%1</b> · %n answer(s) · judge: %2%3", "", int(report->queries.size()))
                          .arg(QFileInfo(store).fileName().toHtmlEscaped(),
                               report->heuristic ? tr("offline heuristic") : tr("LLM endpoint"),
                               report->settings.repeats > 1
                                   ? tr(" · %1 repeats").arg(report->settings.repeats)
                                   : QString()));
  m_view->setReport(std::move(report), store);
}

bool ClaimsPage::openStore(const QString& path) {
  if (m_running) return false;
  m_userOpened = true;
  const int generation = ++m_openGeneration;
  m_status->setStyleSheet(QString());
  m_status->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
  auto* watcher = new QFutureWatcher<core::eval::JudgeReport>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path, generation] {
    auto report = std::make_shared<const core::eval::JudgeReport>(watcher->result());
    watcher->deleteLater();
    if (generation != m_openGeneration) return;
    const bool ok = report->error.empty();
    if (ok) showReport(report, path);
    m_status->setText(ok ? tr("Showing %1").arg(QFileInfo(path).fileName()) : q(report->error));
    m_status->setStyleSheet(ok ? QString() : QStringLiteral("color: #b01c1c;"));
    emit finished(ok);
  });
  // Viewing only reads: a shipped or shared store is never modified by opening it.
  watcher->setFuture(QtConcurrent::run(m_pool, [p = path.toStdString()] {
    return core::eval::readJudgeReport(p, resultOptions().bootstrap);
  }));
  return true;
}

void ClaimsPage::showProjectRuns() {
  const auto& project = m_workbench->project();
  if (!project || project->runStores.empty() || m_running || m_userOpened) return;
  std::vector<std::filesystem::path> stores;
  for (const auto& s : project->runStores) stores.push_back(project->resolve(s));
  auto* watcher = new QFutureWatcher<std::vector<std::filesystem::path>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    const auto found = watcher->result();
    watcher->deleteLater();
    if (found.empty() || m_running || m_userOpened ||
        m_view->storePath() == q(found.front().string()))
      return;
    openStore(q(found.front().string()));
    m_userOpened = false;  // the project's run: another project's may replace it
  });
  watcher->setFuture(
      QtConcurrent::run(m_pool, [stores] { return core::eval::storedJudgeRuns(stores); }));
}

}  // namespace ragscope::ui
