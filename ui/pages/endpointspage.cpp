#include "ui/pages/endpointspage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <cstdlib>

#include "core/llm/llmjson.h"
#include "core/llm/providerfactory.h"
#include "core/util/urlredact.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/pages/formwidgets.h"
#include "ui/secrets.h"
#include "ui/style.h"

namespace ragscope::ui {

namespace {

QSpinBox* intSpin(int min, int max) {
  auto* s = new QSpinBox;
  s->setRange(min, max);
  return s;
}

}  // namespace

EndpointsPage::EndpointsPage(QWidget* parent)
    : Page(parent), m_model(new EndpointListModel(this)), m_test(new ConnectionTestJob(this)) {
  setObjectName(QStringLiteral("EndpointsPage"));
  buildUi();
  QString message;
  if (!m_model->load(&message)) emit statusMessage(message);
  connect(m_test, &ConnectionTestJob::finished, this, &EndpointsPage::onTested);
  if (m_model->rowCount() > 0)
    selectRow(0);
  else
    showRow(-1);
}

EndpointsPage::~EndpointsPage() = default;

QIcon EndpointsPage::icon() const { return style()->standardIcon(QStyle::SP_DriveNetIcon); }

void EndpointsPage::buildUi() {
  // Left: the list with its buttons.
  auto* listBox = new QGroupBox(tr("LLM endpoints"));
  m_table = new QTableView;
  m_table->setObjectName(QStringLiteral("EndpointTable"));
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);
  m_table->setWordWrap(false);
  auto* add = new QPushButton(style()->standardIcon(QStyle::SP_FileIcon), tr("Add"));
  m_duplicate = new QPushButton(tr("Duplicate"));
  m_delete = new QPushButton(style()->standardIcon(QStyle::SP_TrashIcon), tr("Delete"));
  connect(add, &QPushButton::clicked, this, &EndpointsPage::addEndpoint);
  connect(m_duplicate, &QPushButton::clicked, this, &EndpointsPage::duplicateSelected);
  connect(m_delete, &QPushButton::clicked, this, &EndpointsPage::deleteSelected);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(add);
  buttons->addWidget(m_duplicate);
  buttons->addWidget(m_delete);
  buttons->addStretch(1);
  auto* listLayout = new QVBoxLayout(listBox);
  listLayout->addWidget(m_table, 1);
  listLayout->addLayout(buttons);
  auto* secretNote =
      new QLabel(tr("Keys are never saved with the endpoints: each endpoint names an "
                    "environment variable or an OS keychain entry that holds its key."));
  secretNote->setWordWrap(true);
  secretNote->setStyleSheet(QStringLiteral("color: palette(mid);"));
  listLayout->addWidget(secretNote);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { showRow(current.isValid() ? current.row() : -1); });

  // Right: the editor and the test result.
  m_editor = new QGroupBox(tr("Endpoint"));
  auto* form = new QFormLayout(m_editor);
  form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  m_name = new QLineEdit;
  m_kind = new QComboBox;
  m_kind->addItem(tr("chat"), int(core::llm::EndpointKind::Chat));
  m_kind->addItem(tr("embeddings"), int(core::llm::EndpointKind::Embeddings));
  m_kind->addItem(tr("rerank"), int(core::llm::EndpointKind::Rerank));
  m_baseUrl = new QLineEdit;
  m_baseUrl->setPlaceholderText(
      tr("http://127.0.0.1:8000/v1, or \"offline\" for the heuristic provider"));
  m_modelCombo = new QComboBox;
  m_modelCombo->setEditable(true);
  m_modelCombo->setInsertPolicy(QComboBox::NoInsert);
  // Model names run long ("meta-llama/Llama-3.1-8B-Instruct"): the field takes the form's width
  // instead of shrinking to its first item.
  m_modelCombo->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  m_modelCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_modelCombo->setMinimumContentsLength(20);
  m_keyEnv = new QLineEdit;
  m_keyEnv->setPlaceholderText(tr("e.g. OPENAI_API_KEY (the variable's name, not the key)"));
  m_keychain = new QLineEdit;
  m_keychain->setPlaceholderText(tr("entry name in the OS keychain (optional)"));
  m_storeKey = new QPushButton(tr("Store key…"));
  m_storeKey->setToolTip(tr("Save a key under this entry name in the OS keychain"));
  connect(m_storeKey, &QPushButton::clicked, this, &EndpointsPage::storeKeyInKeychain);
  auto* keychainRow = new QHBoxLayout;
  keychainRow->addWidget(m_keychain, 1);
  keychainRow->addWidget(m_storeKey);
  m_keyNote = new QLabel;
  // One short line; word wrap inside a form row gets clipped vertically.
  m_keyNote->setWordWrap(false);
  m_keyNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
  connect(m_keyEnv, &QLineEdit::textChanged, this, &EndpointsPage::updateKeyNote);
  connect(m_keychain, &QLineEdit::textChanged, this, &EndpointsPage::updateKeyNote);
  connect(m_baseUrl, &QLineEdit::textChanged, this, &EndpointsPage::updateKeyNote);
  m_temperature = doubleSpin(0.0, 2.0, 2, 0.1);
  m_maxTokens = intSpin(1, 1000000);
  m_timeout = doubleSpin(0.5, 3600.0, 1, 5.0, tr(" s"));
  m_concurrency = intSpin(1, 512);
  m_rpm = doubleSpin(0.0, 1e6, 0, 60.0);
  m_rpm->setSpecialValueText(tr("unlimited"));
  m_priceIn = doubleSpin(0.0, 1000.0, 5, 0.0005, tr(" $"));
  m_priceOut = doubleSpin(0.0, 1000.0, 5, 0.0005, tr(" $"));
  // Batch API prices (core/llm/README.md, "Batch calls"): below zero means unset, shown as "as
  // live", and a batch run is estimated at the live prices.
  m_batchPriceIn = doubleSpin(-0.00001, 1000.0, 5, 0.0005, tr(" $"));
  m_batchPriceOut = doubleSpin(-0.00001, 1000.0, 5, 0.0005, tr(" $"));
  for (QDoubleSpinBox* spin : {m_batchPriceIn, m_batchPriceOut}) {
    spin->setSpecialValueText(tr("as live"));
    spin->setToolTip(
        tr("What a call sent through the Batch API costs (often half the live "
           "price); used by the estimate and the budget of jobs run as batch"));
  }
  m_structured = new QCheckBox(tr("Structured outputs: the server honours a JSON schema"));
  m_structured->setObjectName(QStringLiteral("StructuredOutputsCheck"));
  m_structured->setToolTip(
      tr("Judging then asks for claim lists and verdicts as JSON following a fixed schema "
         "(response_format json_schema) and reads the JSON; off: the replies are read as text "
         "lines. \"Test connection\" checks whether the server honours the schema."));
  form->addRow(tr("Name"), m_name);
  form->addRow(tr("Kind"), m_kind);
  form->addRow(tr("Base URL"), m_baseUrl);
  form->addRow(tr("Model"), m_modelCombo);
  form->addRow(tr("Key: environment variable"), m_keyEnv);
  form->addRow(tr("Key: keychain entry"), keychainRow);
  form->addRow(QString(), m_keyNote);
  form->addRow(tr("Temperature"), m_temperature);
  form->addRow(tr("Max tokens"), m_maxTokens);
  form->addRow(tr("Timeout"), m_timeout);
  form->addRow(tr("Calls in flight"), m_concurrency);
  form->addRow(tr("Requests / minute"), m_rpm);
  form->addRow(tr("Price / 1k prompt tokens"), m_priceIn);
  form->addRow(tr("Price / 1k output tokens"), m_priceOut);
  auto* batchPrices = new QHBoxLayout;
  batchPrices->addWidget(new QLabel(tr("prompt")));
  batchPrices->addWidget(m_batchPriceIn);
  batchPrices->addWidget(new QLabel(tr("output")));
  batchPrices->addWidget(m_batchPriceOut);
  batchPrices->addStretch(1);
  form->addRow(tr("Batch price / 1k tokens"), batchPrices);
  form->addRow(tr("Replies"), m_structured);
  m_apply = new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save changes"));
  m_revert = new QPushButton(tr("Revert"));
  m_testButton =
      new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Test connection"));
  m_testButton->setObjectName(QStringLiteral("TestConnectionButton"));
  connect(m_apply, &QPushButton::clicked, this, &EndpointsPage::applyEdits);
  connect(m_revert, &QPushButton::clicked, this, [this] { showRow(currentRow()); });
  connect(m_testButton, &QPushButton::clicked, this, &EndpointsPage::testConnection);
  auto* editorButtons = new QHBoxLayout;
  editorButtons->addWidget(m_testButton);
  editorButtons->addStretch(1);
  editorButtons->addWidget(m_revert);
  editorButtons->addWidget(m_apply);
  form->addRow(editorButtons);

  auto* testBox = new QGroupBox(tr("Connection test"));
  m_testHeadline = new QLabel(tr("Not tested yet."));
  m_testHeadline->setObjectName(QStringLiteral("TestHeadline"));
  m_testHeadline->setWordWrap(true);
  m_testHeadline->setTextFormat(Qt::PlainText);  // both quote the server: never HTML
  m_testHeadline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont bold = m_testHeadline->font();
  bold.setBold(true);
  m_testHeadline->setFont(bold);
  m_testDetail = new QLabel;
  m_testDetail->setWordWrap(true);
  m_testDetail->setTextFormat(Qt::PlainText);
  m_testDetail->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_schemaResult = new QLabel;
  m_schemaResult->setObjectName(QStringLiteral("SchemaProbeResult"));
  m_schemaResult->setWordWrap(true);
  m_schemaResult->setTextFormat(Qt::PlainText);  // quotes the server's reply
  m_schemaResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_models = new QListWidget;
  m_models->setObjectName(QStringLiteral("ModelList"));
  m_models->setToolTip(tr("Double-click a model to use it"));
  connect(m_models, &QListWidget::itemDoubleClicked, this,
          [this](QListWidgetItem* item) { m_modelCombo->setCurrentText(item->text()); });
  auto* testLayout = new QVBoxLayout(testBox);
  testLayout->addWidget(m_testHeadline);
  testLayout->addWidget(m_testDetail);
  testLayout->addWidget(m_schemaResult);
  testLayout->addWidget(new QLabel(tr("Models the server lists (double-click to use):")));
  testLayout->addWidget(m_models, 1);

  auto* right = new QWidget;
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(m_editor);
  rightLayout->addWidget(testBox, 1);

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(listBox);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);
}

int EndpointsPage::currentRow() const {
  const QModelIndex i = m_table->currentIndex();
  return i.isValid() ? i.row() : -1;
}

bool EndpointsPage::selectRow(int row) {
  if (row < 0 || row >= m_model->rowCount()) return false;
  m_table->setCurrentIndex(m_model->index(row, 0));
  m_table->selectRow(row);
  showRow(row);
  return true;
}

void EndpointsPage::setEditorEnabled(bool enabled) {
  m_editor->setEnabled(enabled);
  m_duplicate->setEnabled(enabled);
  m_delete->setEnabled(enabled);
}

void EndpointsPage::showRow(int row) {
  const core::llm::EndpointConfig* c = m_model->endpoint(row);
  setEditorEnabled(c != nullptr);
  const core::llm::EndpointConfig empty;
  const core::llm::EndpointConfig& e = c ? *c : empty;
  m_name->setText(QString::fromStdString(e.name));
  m_kind->setCurrentIndex(std::max(0, m_kind->findData(int(e.kind))));
  m_baseUrl->setText(QString::fromStdString(e.baseUrl));
  m_modelCombo->clear();
  m_modelCombo->setCurrentText(QString::fromStdString(e.model));
  m_keyEnv->setText(QString::fromStdString(e.apiKeyEnv));
  m_keychain->setText(QString::fromStdString(e.keychainEntry));
  m_temperature->setValue(e.temperature);
  m_maxTokens->setValue(e.maxTokens);
  m_timeout->setValue(e.timeoutSeconds);
  m_concurrency->setValue(e.concurrency);
  m_rpm->setValue(e.requestsPerMinute);
  m_priceIn->setValue(e.pricePer1kInput);
  m_priceOut->setValue(e.pricePer1kOutput);
  m_batchPriceIn->setValue(e.batchPricePer1kInput.value_or(m_batchPriceIn->minimum()));
  m_batchPriceOut->setValue(e.batchPricePer1kOutput.value_or(m_batchPriceOut->minimum()));
  m_structured->setChecked(e.structuredOutputs);
  if (row != m_testedRow) {
    m_testHeadline->setText(tr("Not tested yet."));
    m_testHeadline->setStyleSheet(QString());
    m_testDetail->clear();
    m_schemaResult->clear();
    m_models->clear();
  }
  updateKeyNote();
}

core::llm::EndpointConfig EndpointsPage::editorConfig() const {
  core::llm::EndpointConfig c;
  if (const auto* current = m_model->endpoint(currentRow())) c = *current;  // keeps seed, retries
  c.name = m_name->text().trimmed().toStdString();
  c.kind = core::llm::EndpointKind(m_kind->currentData().toInt());
  c.baseUrl = m_baseUrl->text().trimmed().toStdString();
  c.model = m_modelCombo->currentText().trimmed().toStdString();
  c.apiKeyEnv = m_keyEnv->text().trimmed().toStdString();
  c.keychainEntry = m_keychain->text().trimmed().toStdString();
  c.temperature = m_temperature->value();
  c.maxTokens = m_maxTokens->value();
  c.timeoutSeconds = m_timeout->value();
  c.concurrency = m_concurrency->value();
  c.requestsPerMinute = m_rpm->value();
  c.pricePer1kInput = m_priceIn->value();
  c.pricePer1kOutput = m_priceOut->value();
  auto batchPrice = [](const QDoubleSpinBox* spin) -> std::optional<double> {
    if (spin->value() <= spin->minimum()) return std::nullopt;
    return spin->value();
  };
  c.batchPricePer1kInput = batchPrice(m_batchPriceIn);
  c.batchPricePer1kOutput = batchPrice(m_batchPriceOut);
  c.structuredOutputs = m_structured->isChecked();
  return c;
}

void EndpointsPage::updateKeyNote() {
  const QString env = m_keyEnv->text().trimmed();
  const QString entry = m_keychain->text().trimmed();
  m_storeKey->setEnabled(!entry.isEmpty());
  QString note;
  if (m_baseUrl->text().trimmed() == QLatin1String("offline")) {
    note = tr("The offline provider needs no key.");
  } else if (!entry.isEmpty()) {
    note = env.isEmpty() ? tr("The key is read from the keychain when a job starts.")
                         : tr("The key is read from the keychain; $%1 is used when the keychain "
                              "cannot be read.")
                               .arg(env);
  } else if (!env.isEmpty()) {
    const bool set = !qEnvironmentVariableIsEmpty(env.toLocal8Bit().constData());
    note = set ? tr("$%1 is set in this session.").arg(env)
               : tr("$%1 is not set in this session.").arg(env);
  } else {
    note = tr("No key: requests are sent without Authorization.");
  }
  m_keyNote->setText(note);
}

int EndpointsPage::addEndpoint() {
  core::llm::EndpointConfig c;
  c.name = "local";
  c.baseUrl = "http://127.0.0.1:8000/v1";
  const int row = m_model->add(c);
  m_model->save();
  selectRow(row);
  m_name->setFocus();
  m_name->selectAll();
  emit statusMessage(
      tr("Endpoint %1 added").arg(QString::fromStdString(m_model->endpoint(row)->name)));
  return row;
}

int EndpointsPage::duplicateSelected() {
  const int row = m_model->duplicate(currentRow());
  if (row < 0) return -1;
  m_model->save();
  selectRow(row);
  return row;
}

bool EndpointsPage::deleteSelected() {
  const int row = currentRow();
  if (row < 0) return false;
  const QString name = QString::fromStdString(m_model->endpoint(row)->name);
  m_model->remove(row);
  m_model->save();
  m_testedRow = -1;
  if (m_model->rowCount() > 0)
    selectRow(std::min(row, m_model->rowCount() - 1));
  else
    showRow(-1);
  emit statusMessage(tr("Endpoint %1 deleted").arg(name));
  return true;
}

bool EndpointsPage::applyEdits() {
  const int row = currentRow();
  if (row < 0) return false;
  m_model->replace(row, editorConfig());
  m_model->save();
  showRow(row);  // shows the name as made unique
  emit statusMessage(tr("Endpoint %1 saved").arg(m_name->text()));
  return true;
}

bool EndpointsPage::testConnection() {
  if (m_test->isRunning()) return false;
  const core::llm::EndpointConfig config = editorConfig();
  if (config.baseUrl.empty()) {
    m_testHeadline->setText(tr("Enter a base URL first."));
    return false;
  }
  m_testedRow = currentRow();
  m_testButton->setEnabled(false);
  m_testHeadline->setStyleSheet(QString());
  m_testHeadline->setText(
      tr("Testing %1…").arg(QString::fromStdString(core::shownUrl(config.baseUrl))));
  m_testDetail->clear();
  m_testDetail->setVisible(true);
  m_schemaResult->clear();
  m_models->clear();
  // The keychain read (if any) is asynchronous too; the network part runs on the job's thread.
  Secrets::resolveEndpointKey(config, this, [this](const ResolvedEndpoint& resolved) {
    if (!resolved.ok) {
      ConnectionOutcome failed;
      failed.headline = explainCallError(resolved.message, resolved.config);
      failed.detail = resolved.message;
      onTested(failed);
      return;
    }
    if (!resolved.message.isEmpty()) m_testDetail->setText(resolved.message);
    m_test->start(resolved.config, resolved.transport);
  });
  return true;
}

void EndpointsPage::onTested(const ConnectionOutcome& outcome) {
  m_outcome = outcome;
  m_testButton->setEnabled(true);
  m_testHeadline->setText(outcome.headline);
  setOutcomeStyle(m_testHeadline, outcome.ok);
  QString detail = outcome.detail;
  if (!outcome.ok && outcome.httpStatus > 0 &&
      !detail.contains(QString::number(outcome.httpStatus)))
    detail += tr(" (HTTP %1)").arg(outcome.httpStatus);
  m_testDetail->setText(detail);
  m_testDetail->setVisible(!detail.isEmpty());  // no blank line above the probe's result
  showSchemaProbe(outcome);
  m_models->clear();
  m_models->addItems(outcome.models);
  const QString current = m_modelCombo->currentText();
  m_modelCombo->clear();
  m_modelCombo->addItems(outcome.models);
  m_modelCombo->setCurrentText(current);
  for (int i = 0; i < m_models->count(); ++i)
    if (m_models->item(i)->text() == current) {
      QFont f = m_models->item(i)->font();
      f.setBold(true);
      m_models->item(i)->setFont(f);
      m_models->setCurrentRow(i);
    }
  const QString cell =
      outcome.ok
          ? (outcome.modelsListed ? tr("ok, %1 ms, %n model(s)", "", int(outcome.models.size()))
                                        .arg(outcome.latencyMs, 0, 'f', 0)
                                  : tr("ok, %1 ms").arg(outcome.latencyMs, 0, 'f', 0))
          : outcome.headline;
  m_model->setTestResult(m_testedRow, outcome.ok, cell);
  emit testFinished(outcome.ok);
}

void EndpointsPage::showSchemaProbe(const ConnectionOutcome& outcome) {
  if (outcome.honoursSchema.isEmpty()) {
    m_schemaResult->clear();
    m_schemaResult->setStyleSheet(QString());
    return;
  }
  QString text =
      tr("Honours JSON schema: %1 (%2).").arg(outcome.honoursSchema, outcome.schemaDetail);
  const bool yes = outcome.honoursSchema == QLatin1String("yes");
  const bool no = outcome.honoursSchema == QLatin1String("no");
  if (yes && !m_structured->isChecked())
    text += tr(" Turn on \"Structured outputs\" to judge with schema-bound JSON.");
  if (no && m_structured->isChecked())
    text +=
        tr(" \"Structured outputs\" is on: replies that are not the schema's JSON will be "
           "unparsed.");
  m_schemaResult->setText(text);
  if (yes || no)
    setOutcomeStyle(m_schemaResult, yes);
  else
    m_schemaResult->setStyleSheet(QString());
}

void EndpointsPage::storeKeyInKeychain() {
  const QString entry = m_keychain->text().trimmed();
  if (entry.isEmpty()) return;
  bool ok = false;
  QString key = QInputDialog::getText(this, tr("Store API key"),
                                      tr("API key for keychain entry \"%1\":").arg(entry),
                                      QLineEdit::Password, QString(), &ok);
  if (!ok || key.isEmpty()) return;
  Secrets::writeKey(entry, key, this, [this](bool stored, const QString& message) {
    m_keyNote->setText(message);
    setErrorStyle(m_keyNote, !stored);
    emit statusMessage(message);
  });
  key.fill(QLatin1Char('\0'));
}

}  // namespace ragscope::ui
