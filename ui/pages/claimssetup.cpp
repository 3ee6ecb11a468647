#include "ui/pages/claimssetup.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "core/llm/prompts.h"
#include "ui/jobs/runjob.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/pages/formwidgets.h"
#include "ui/pages/retrieverchoice.h"
#include "ui/pages/retrieverrunbar.h"
#include "ui/pages/templatefield.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

struct FamilyInfo {
  const char* label;
  const char* metrics;
  const char* tip;
};
// In ClaimsSetup::Family order.
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

}  // namespace

ClaimsSetup::ClaimsSetup(Workbench* workbench, QWidget* budgetEditor, QWidget* parent)
    : QWidget(parent), m_workbench(workbench) {
  m_datasetLabel = new QLabel;
  m_answers = new QComboBox;
  m_answers->setToolTip(
      tr("The answers to judge: the dataset's own responses, an answers file written by "
         "`ragscope-cli generate`, or answers generated now from a run's top k"));
  m_answersFile = new QLineEdit;
  m_answersFile->setPlaceholderText(tr("answers JSONL {\"qid\", \"answer\"}"));
  auto* fileRow = pathRow(m_answersFile, [this] {
    const QString f = QFileDialog::getOpenFileName(
        this, tr("Answers file"), {}, tr("JSON lines (*.jsonl *.json);;All files (*)"));
    if (!f.isEmpty()) setAnswersSource(AnswersFile);
    return f;
  });
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
    connect(box, &QCheckBox::toggled, this, &ClaimsSetup::changed);
  }
  m_families[std::size_t(Family::Notebook)]->setChecked(true);

  auto* left = new QFormLayout;
  left->addRow(tr("Dataset"), m_datasetLabel);
  left->addRow(tr("Answers"), m_answers);
  // "Retrieve only": a saved retriever makes a run at its own depth, nothing judged yet; it joins
  // the dataset and answers come from it.
  m_retrieverBar = new RetrieverRunBar(m_workbench, 100);
  connect(m_retrieverBar, &RetrieverRunBar::runAdded, this, [this](int runIndex) {
    const int item = m_answers->findData(runIndex);
    if (item >= 0) m_answers->setCurrentIndex(item);
  });
  left->addRow(tr("Retrieve only"), m_retrieverBar);
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
  right->addRow(tr("Budget"), budgetEditor);
  auto* columns = new QHBoxLayout;
  columns->addLayout(left, 1);
  columns->addSpacing(16);
  columns->addLayout(right, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(columns);
  layout->addWidget(familyBox);

  auto restart = [this] { emit changed(); };  // anything the estimate depends on
  connect(m_answers, &QComboBox::currentIndexChanged, this, restart);
  connect(m_answers, &QComboBox::currentIndexChanged, this, [this] {
    const int source = m_answers->currentData().toInt();
    m_answersFile->setEnabled(source == AnswersFile);
    m_generator->setEnabled(source >= 0 || source <= Bm25Generated);
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

  refreshEndpoints();
}

void ClaimsSetup::refreshEndpoints() {
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
  fillEndpointCombo(m_generator, m_generators, tr("heuristic, no server"));
  fillEndpointCombo(m_judge, m_judges, tr("heuristic, no server"));
  fillEndpointCombo(m_embedder, m_embedders, {});
  fillEndpointCombo(m_reranker, m_rerankers, {});
  m_embedder->setEnabled(!m_embedders.empty());
  m_reranker->setEnabled(!m_rerankers.empty());
  if (m_embedders.empty())
    m_embedder->addItem(tr("(add an embeddings endpoint on the Endpoints page)"));
  if (m_rerankers.empty()) m_reranker->addItem(tr("(add a rerank endpoint on the Endpoints page)"));
}

void ClaimsSetup::refreshInputs() {
  const auto ds = m_workbench->dataset();
  m_datasetLabel->setText(ds ? m_workbench->datasetName() : tr("(none loaded)"));
  const int previous = m_answers->currentData().toInt();
  const QString previousText = m_answers->currentText();
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
      if (!ds->corpus.empty()) {
        m_answers->addItem(tr("generated from BM25 over the corpus, top k"), int(Bm25Generated));
        // The project's saved retrievers, by name: the job runs the one chosen first.
        for (int c = 1; c < retrieverChoiceCount(*m_workbench); ++c) {
          const auto spec = retrieverChoiceSpec(*m_workbench, c);
          m_answers->addItem(tr("generated from retriever %1, top k").arg(retrieverName(spec)),
                             int(Bm25Generated) - c);
          m_answers->setItemData(m_answers->count() - 1, describeRetrieverChoice(spec),
                                 Qt::ToolTipRole);
        }
      }
    }
    // The same item after runs or retrievers were added: by its text, else by its data.
    int keep = m_answers->findText(previousText);
    if (keep < 0) keep = m_answers->findData(previous);
    m_answers->setCurrentIndex(keep >= 0 ? keep : 0);
  }
  emit m_answers->currentIndexChanged(m_answers->currentIndex());
}

bool ClaimsSetup::setAnswersSource(int source) {
  const int i = m_answers->findData(source);
  if (i < 0) return false;
  m_answers->setCurrentIndex(i);
  return true;
}
bool ClaimsSetup::setRetriever(const QString& name) {
  for (int c = 1; c < retrieverChoiceCount(*m_workbench); ++c)
    if (retrieverName(retrieverChoiceSpec(*m_workbench, c)) == name)
      return setAnswersSource(int(Bm25Generated) - c);
  return false;
}
std::optional<core::RetrieverSpec> ClaimsSetup::selectedRetriever() const {
  const int source = m_answers->currentData().toInt();
  if (m_answers->count() == 0 || source > Bm25Generated) return std::nullopt;
  return retrieverChoiceSpec(*m_workbench, int(Bm25Generated) - source);
}
void ClaimsSetup::setAnswersFile(const QString& path) {
  m_answersFile->setText(path);
  setAnswersSource(AnswersFile);
  emit changed();
}
void ClaimsSetup::setJudgeEndpoint(const core::llm::EndpointConfig& endpoint) {
  m_scripted.push_back(endpoint);
  refreshEndpoints();
  if (endpoint.kind == core::llm::EndpointKind::Chat)
    m_judge->setCurrentIndex(m_judge->findText(q(endpoint.name)));
  else if (endpoint.kind == core::llm::EndpointKind::Embeddings)
    m_embedder->setCurrentIndex(m_embedder->findText(q(endpoint.name)));
  else
    m_reranker->setCurrentIndex(m_reranker->findText(q(endpoint.name)));
}
void ClaimsSetup::setJudgeIndex(int index) { m_judge->setCurrentIndex(index); }
QString ClaimsSetup::judgeName() const { return m_judge->currentText(); }
void ClaimsSetup::setMode(const QString& mode) {
  m_mode->setCurrentIndex(std::max(0, m_mode->findData(mode)));
}
void ClaimsSetup::setK(int k) { m_k->setValue(k); }
void ClaimsSetup::setMatrix(bool on) { m_matrix->setChecked(on); }
QString ClaimsSetup::metricList() const {
  QStringList list;
  for (std::size_t i = 0; i < m_families.size(); ++i)
    if (m_families[i]->isChecked()) list << QString::fromLatin1(kFamilies[i].metrics);
  return list.join(QLatin1Char(','));
}

std::optional<core::eval::JobSpec> ClaimsSetup::jobSpec(QString* error) const {
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
  } else if (source <= Bm25Generated) {
    spec.run.type = core::eval::RunSource::Type::Retriever;
    spec.run.retriever = *selectedRetriever();
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
  spec.storeFolder = runsFolder().toStdString();
  spec.frontEnd = "gui";
  return spec;
}

}  // namespace ragscope::ui
