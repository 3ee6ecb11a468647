#include "ui/pages/eragsetup.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <algorithm>

#include "ui/jobs/runjob.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/pages/formwidgets.h"
#include "ui/pages/retrieverchoice.h"
#include "ui/pages/retrieverrunbar.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

// Item data of the run selector: a run's index (>= 0), or kBm25Item - c for retriever choice c
// (0: the built-in BM25, 1 + i: the project's saved retriever i; ui/pages/retrieverchoice.h).
constexpr int kBm25Item = -1;
int eragChoiceOf(int data) { return kBm25Item - data; }

QString defaultMeasures(bool binary, int k) {
  return binary ? QStringLiteral("P_%1, success_1, ndcg_cut_%1, map, recip_rank").arg(k)
                : QStringLiteral("P_%1, success_1, success_%1").arg(k);
}

}  // namespace

EragSetup::EragSetup(Workbench* workbench, QWidget* budgetEditor, QWidget* parent)
    : QWidget(parent), m_workbench(workbench) {
  m_datasetLabel = new QLabel;
  m_run = new QComboBox;
  m_run->setObjectName(QStringLiteral("EragRunCombo"));
  m_run->setToolTip(
      tr("The retrieval run whose top-k documents are evaluated, or a retriever over the "
         "dataset's corpus (BM25, or one saved on the Retrievers page: dense, hybrid, es, "
         "http): the run is retrieved first and added to the dataset's runs"));
  m_saveRun = new QPushButton(tr("Save run…"));
  m_saveRun->setToolTip(tr("Write the selected run as a TREC run file"));
  connect(m_saveRun, &QPushButton::clicked, this, [this] {
    const int index = m_run->currentData().toInt();
    if (index < 0) return;
    const QString f = QFileDialog::getSaveFileName(
        this, tr("Save run"), m_run->currentText() + QStringLiteral(".trec"),
        tr("TREC run files (*.trec *.txt);;All files (*)"));
    if (!f.isEmpty()) emit saveRunRequested(index, f);
  });
  auto* runRow = new QHBoxLayout;
  runRow->addWidget(m_run, 1);
  runRow->addWidget(m_saveRun);
  m_endpoint = new QComboBox;
  m_endpoint->setToolTip(
      tr("The generator (LLM) each document is given to; endpoints are edited "
         "on the Endpoints page"));
  m_template = new QLineEdit;
  m_template->setPlaceholderText(tr("default RAG prompt"));
  m_template->setToolTip(
      tr("A prompt template file with {question} and {documents}; empty: the default"));
  auto* templateRow = pathRow(
      m_template, [this] { return QFileDialog::getOpenFileName(this, tr("Prompt template")); });
  m_k = new QSpinBox;
  m_k->setRange(1, 100);
  m_k->setValue(5);
  m_metric = new QComboBox;
  for (const auto metric : core::allDownstreamMetrics())
    m_metric->addItem(q(core::downstreamMetricName(metric)), int(metric));
  m_metric->setToolTip(tr("Scores each output against the gold answers: the document's label"));
  m_measures = new QLineEdit;
  m_measures->setToolTip(
      tr("How the labels become per-query scores: trec_eval names (P_5, ndcg_cut_10) or "
         "ir_measures names (P@5, nDCG@10). Continuous labels allow P_k and success_k only."));
  connect(m_measures, &QLineEdit::textEdited, this, [this] { m_measuresEdited = true; });
  m_e2e =
      new QCheckBox(tr("Also run end-to-end (all k documents in one prompt) for the correlation"));
  m_e2e->setChecked(true);

  auto* left = new QFormLayout;
  left->addRow(tr("Dataset"), m_datasetLabel);
  left->addRow(tr("Run"), runRow);
  // "Retrieve only": a saved retriever makes a run at its own depth, nothing evaluated yet; it
  // joins the dataset and is chosen here.
  m_retrieverBar = new RetrieverRunBar(m_workbench, 100);
  connect(m_retrieverBar, &RetrieverRunBar::runAdded, this, &EragSetup::setRunIndex);
  left->addRow(tr("Retrieve only"), m_retrieverBar);
  left->addRow(tr("Generator"), m_endpoint);
  left->addRow(tr("Template"), templateRow);
  auto* right = new QFormLayout;
  right->addRow(tr("k"), m_k);
  right->addRow(tr("Downstream metric"), m_metric);
  right->addRow(tr("Aggregation"), m_measures);
  right->addRow(tr("Budget"), budgetEditor);
  auto* columns = new QHBoxLayout(this);
  columns->setContentsMargins(0, 0, 0, 0);
  columns->addLayout(left, 1);
  columns->addSpacing(16);
  columns->addLayout(right, 1);

  connect(m_run, &QComboBox::currentIndexChanged, this, &EragSetup::changed);
  connect(m_run, &QComboBox::currentIndexChanged, this,
          [this] { m_saveRun->setEnabled(!retrieverSelected()); });
  connect(m_endpoint, &QComboBox::currentIndexChanged, this, &EragSetup::changed);
  connect(m_k, &QSpinBox::valueChanged, this, &EragSetup::changed);
  connect(m_e2e, &QCheckBox::toggled, this, &EragSetup::changed);
  connect(m_template, &QLineEdit::editingFinished, this, &EragSetup::changed);
  auto defaults = [this] {
    if (m_measuresEdited) return;
    const auto metric = core::DownstreamMetric(m_metric->currentData().toInt());
    m_measures->setText(defaultMeasures(core::isBinaryDownstreamMetric(metric), m_k->value()));
  };
  connect(m_metric, &QComboBox::currentIndexChanged, this, defaults);
  connect(m_k, &QSpinBox::valueChanged, this, defaults);
  m_metric->setCurrentIndex(std::max(0, m_metric->findData(int(core::DownstreamMetric::RougeL))));
  defaults();
  refreshEndpoints();
}

void EragSetup::refreshEndpoints() {
  m_endpoints = {core::eval::offlineReaderEndpoint()};
  for (const auto& e : EndpointListModel::saved())
    if (e.kind == core::llm::EndpointKind::Chat) m_endpoints.push_back(e);
  fillEndpointCombo(m_endpoint, m_endpoints, tr("heuristic, no server"));
}

void EragSetup::refreshRuns() {
  const auto ds = m_workbench->dataset();
  m_datasetLabel->setText(ds ? m_workbench->datasetName() : tr("(none loaded)"));
  const QString previous = m_run->currentText();
  QSignalBlocker block(m_run);
  m_run->clear();
  if (ds) {
    for (std::size_t i = 0; i < ds->runs.size(); ++i) m_run->addItem(q(ds->runs[i].tag), int(i));
    if (!ds->corpus.empty()) {
      m_run->addItem(tr("BM25 (Xapian) over the dataset's corpus, top k"), kBm25Item);
      // The project's saved retrievers, by name: the job runs the one chosen first.
      for (int c = 1; c < retrieverChoiceCount(*m_workbench); ++c) {
        const auto spec = retrieverChoiceSpec(*m_workbench, c);
        m_run->addItem(tr("retriever %1, top k").arg(describeRetrieverChoice(spec)), kBm25Item - c);
        m_run->setItemData(m_run->count() - 1, q(core::describeRetriever(spec)), Qt::ToolTipRole);
      }
    }
  }
  const int keep = m_run->findText(previous);  // the same run after runs were added
  if (keep >= 0) m_run->setCurrentIndex(keep);
  m_saveRun->setEnabled(ds && !ds->runs.empty() && !retrieverSelected());
}

int EragSetup::runChoices() const { return m_run->count(); }
void EragSetup::setRunIndex(int index) {
  m_run->setCurrentIndex(std::max(0, m_run->findData(index)));
}
void EragSetup::setRetrieverBm25() {
  const int item = m_run->findData(kBm25Item);
  if (item >= 0) m_run->setCurrentIndex(item);
}
bool EragSetup::setRetriever(const QString& name) {
  for (int c = 1; c < retrieverChoiceCount(*m_workbench); ++c) {
    if (retrieverName(retrieverChoiceSpec(*m_workbench, c)) != name) continue;
    const int item = m_run->findData(kBm25Item - c);
    if (item < 0) return false;
    m_run->setCurrentIndex(item);
    return true;
  }
  return false;
}
bool EragSetup::retrieverSelected() const {
  return m_run->count() > 0 && m_run->currentData().toInt() <= kBm25Item;
}
core::RetrieverSpec EragSetup::selectedRetriever() const {
  return retrieverChoiceSpec(*m_workbench, eragChoiceOf(m_run->currentData().toInt()));
}
void EragSetup::setEndpointIndex(int index) { m_endpoint->setCurrentIndex(index); }
void EragSetup::setK(int k) { m_k->setValue(k); }
int EragSetup::k() const { return m_k->value(); }
void EragSetup::setMetric(core::DownstreamMetric metric) {
  m_metric->setCurrentIndex(std::max(0, m_metric->findData(int(metric))));
}
void EragSetup::setMeasures(const QString& text) {
  m_measures->setText(text);
  m_measuresEdited = !text.isEmpty();
}
void EragSetup::setEndToEnd(bool on) { m_e2e->setChecked(on); }

core::llm::EndpointConfig EragSetup::endpoint() const {
  const int i = m_endpoint->currentIndex();
  return i >= 0 && std::size_t(i) < m_endpoints.size() ? m_endpoints[std::size_t(i)]
                                                       : core::eval::offlineReaderEndpoint();
}

std::vector<core::MeasureRequest> EragSetup::parsedMeasures(QString* error) const {
  const auto parsed = core::eval::parseEragMeasures(m_measures->text().toStdString());
  if (!parsed.ok()) {
    if (error) *error = q(parsed.error);
    return {};
  }
  return parsed.value;
}

std::optional<core::eval::JobSpec> EragSetup::jobSpec(QString* error) const {
  const auto ds = m_workbench->dataset();
  core::eval::JobSpec spec;
  spec.kind = core::eval::JobKind::Erag;
  spec.withEndToEnd = m_e2e->isChecked();
  if (ds && retrieverSelected()) {
    spec.run.type = core::eval::RunSource::Type::Retriever;
    spec.run.retriever = selectedRetriever();
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
    *error = tr("Aggregation measures: %1")
                 .arg(measureError.isEmpty() ? tr("none given") : measureError);
    return std::nullopt;
  }
  spec.k = std::size_t(m_k->value());
  spec.metric = core::DownstreamMetric(m_metric->currentData().toInt());
  spec.measures = m_measures->text().toStdString();
  spec.templatePath = m_template->text().trimmed().toStdString();  // read by core, on the worker
  spec.endpoint = endpoint();
  spec.limits.concurrency = std::size_t(std::max(1, spec.endpoint.concurrency));
  spec.storeFolder = runsFolder().toStdString();
  spec.frontEnd = "gui";
  return spec;
}

core::eval::ResultOptions EragSetup::resultOptions(
    const std::shared_ptr<const core::Dataset>& dataset) const {
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

}  // namespace ragscope::ui
