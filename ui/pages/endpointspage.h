#pragma once
// LLM endpoints (core/llm/README.md): the list of OpenAI-compatible servers (and the offline
// heuristic provider) that generation, eRAG and judging jobs talk to. Add, edit, duplicate, delete;
// the list is saved to the settings as JSON holding where each API key lives (an environment
// variable's name, an OS keychain entry's name), never a key. "Test connection" runs off the GUI
// thread and shows the latency and the server's model list, or what went wrong in plain words,
// and whether a chat endpoint honours a JSON schema (the "Structured outputs" setting's probe,
// core/llm/README.md).

#include <QString>

#include "ui/jobs/connectiontestjob.h"
#include "ui/pages/page.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableView;

namespace ragscope::ui {

class EndpointListModel;

class EndpointsPage : public Page {
  Q_OBJECT
 public:
  explicit EndpointsPage(QWidget* parent = nullptr);
  ~EndpointsPage() override;

  QString title() const override { return tr("Endpoints"); }
  QIcon icon() const override;

  EndpointListModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  int currentRow() const;
  bool selectRow(int row);

  // The editor's fields (scripted use: tests, self-test).
  QLineEdit* nameEdit() const { return m_name; }
  QLineEdit* baseUrlEdit() const { return m_baseUrl; }
  QComboBox* modelCombo() const { return m_modelCombo; }
  QLineEdit* apiKeyEnvEdit() const { return m_keyEnv; }
  QLineEdit* keychainEdit() const { return m_keychain; }
  QDoubleSpinBox* timeoutSpin() const { return m_timeout; }
  QListWidget* modelList() const { return m_models; }
  QLabel* testHeadline() const { return m_testHeadline; }
  QLabel* testDetail() const { return m_testDetail; }
  QCheckBox* structuredCheck() const { return m_structured; }
  QDoubleSpinBox* batchPriceInSpin() const { return m_batchPriceIn; }
  QDoubleSpinBox* batchPriceOutSpin() const { return m_batchPriceOut; }
  QLabel* schemaResult() const { return m_schemaResult; }  // the structured-outputs probe

  // Each of these saves the list at once.
  int addEndpoint();
  int duplicateSelected();
  bool deleteSelected();
  bool applyEdits();  // the editor's values into the selected row
  // Tests the editor's current values (saved or not); testFinished() reports the outcome.
  bool testConnection();
  bool isTesting() const { return m_test->isRunning(); }
  const ConnectionOutcome& lastOutcome() const { return m_outcome; }

 signals:
  void testFinished(bool ok);
  void statusMessage(const QString& message);

 private:
  void buildUi();
  void showRow(int row);
  core::llm::EndpointConfig editorConfig() const;
  void setEditorEnabled(bool enabled);
  void onTested(const ConnectionOutcome& outcome);
  void showSchemaProbe(const ConnectionOutcome& outcome);
  void storeKeyInKeychain();
  void updateKeyNote();

  EndpointListModel* m_model;
  ConnectionTestJob* m_test;
  QTableView* m_table = nullptr;
  QLineEdit* m_name = nullptr;
  QComboBox* m_kind = nullptr;
  QLineEdit* m_baseUrl = nullptr;
  QComboBox* m_modelCombo = nullptr;
  QLineEdit* m_keyEnv = nullptr;
  QLineEdit* m_keychain = nullptr;
  QPushButton* m_storeKey = nullptr;
  QLabel* m_keyNote = nullptr;
  QDoubleSpinBox* m_temperature = nullptr;
  QSpinBox* m_maxTokens = nullptr;
  QDoubleSpinBox* m_timeout = nullptr;
  QSpinBox* m_concurrency = nullptr;
  QDoubleSpinBox* m_rpm = nullptr;
  QDoubleSpinBox* m_priceIn = nullptr;
  QDoubleSpinBox* m_priceOut = nullptr;
  QDoubleSpinBox* m_batchPriceIn = nullptr;
  QDoubleSpinBox* m_batchPriceOut = nullptr;
  QCheckBox* m_structured = nullptr;
  QPushButton* m_apply = nullptr;
  QPushButton* m_revert = nullptr;
  QPushButton* m_testButton = nullptr;
  QPushButton* m_duplicate = nullptr;
  QPushButton* m_delete = nullptr;
  QLabel* m_testHeadline = nullptr;
  QLabel* m_testDetail = nullptr;
  QLabel* m_schemaResult = nullptr;
  QListWidget* m_models = nullptr;
  QWidget* m_editor = nullptr;
  ConnectionOutcome m_outcome;
  int m_testedRow = -1;
};

}  // namespace ragscope::ui
