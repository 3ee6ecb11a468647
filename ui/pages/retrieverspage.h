#pragma once
// Retrievers (issue 17): the project's retrievers beside the LLM endpoints. Embedded BM25 (Xapian:
// k1, b, stemming, index folder, rebuild), Elasticsearch/OpenSearch (index URL, fields, id and text
// fields, key by environment variable; optionally a kNN search on a vector field, issue 36), a
// generic JSON HTTP service (URL, key variable), dense retrieval (an embeddings endpoint or
// "offline", model, prefixes, batch, FAISS index kind) and hybrids (copies of other saved
// retrievers whose runs are fused: RRF, CombSUM, CombMNZ, weighted sum). Each can be tested with
// one query (hits, latency, or the error) off the GUI thread. The list lives in the workbench and
// is saved with the project, without secrets; the pages that choose a run (RetrieverRunBar) run
// them over the dataset.

#include <functional>
#include <memory>
#include <vector>

#include "core/retrieval/retrieverspec.h"
#include "ui/pages/page.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;

namespace ragscope::core {
struct RetrieverProbe;
}

namespace ragscope::ui {

class RetrieverJob;
class Workbench;

class RetrieversPage : public Page {
  Q_OBJECT
 public:
  explicit RetrieversPage(Workbench* workbench, QWidget* parent = nullptr);
  ~RetrieversPage() override;

  QString title() const override { return tr("Retrievers"); }
  QIcon icon() const override;

  // Scripted use (tests, screenshots).
  int addRetriever(core::RetrieverSpec::Kind kind);
  bool selectRow(int row);
  int currentRow() const;
  bool deleteSelected();
  bool applyEdits();                       // the editor's values into the selected retriever
  core::RetrieverSpec editorSpec() const;  // what the editor holds (saved or not)
  void setEditorSpec(const core::RetrieverSpec& spec);
  bool test(const QString& query = {});  // tests the editor's values; tested() reports
  bool isTesting() const;
  QListWidget* list() const { return m_list; }
  QLabel* testHeadline() const { return m_testHeadline; }
  QTableWidget* hitsTable() const { return m_hits; }
  // The hybrid editor's member choices: one checkable row per other saved retriever.
  QListWidget* memberList() const { return m_members; }

 signals:
  void tested(bool ok);

 private:
  void buildUi();
  void refreshList();
  void showRow(int row);
  void onTested(const std::shared_ptr<const core::RetrieverProbe>& probe);
  void updateKeyNote();
  // The hybrid editor's member list for `spec`: its members first (checked, in fusion order),
  // then the project's other non-hybrid retrievers (unchecked).
  void fillMembers(const core::RetrieverSpec& spec);
  void updateFusionFields();
  // Why `spec` cannot be saved ("" when it can), in the page's words.
  QString problemOf(const core::RetrieverSpec& spec) const;

  Workbench* m_workbench;
  RetrieverJob* m_job;
  int m_shownRow = -1;

  QListWidget* m_list = nullptr;
  QPushButton* m_delete = nullptr;
  QWidget* m_editor = nullptr;
  QLineEdit* m_name = nullptr;
  QLabel* m_kind = nullptr;
  QStackedWidget* m_forms = nullptr;
  // bm25
  QDoubleSpinBox* m_k1 = nullptr;
  QDoubleSpinBox* m_b = nullptr;
  QCheckBox* m_stemming = nullptr;
  QLineEdit* m_indexDir = nullptr;
  // The shown spec's index folder came from the project file and the user has not edited it:
  // the spec the editor builds keeps RetrieverSpec::indexDirFromFile (read only).
  bool m_indexDirFromFile = false;
  QCheckBox* m_rebuild = nullptr;
  // es
  QLineEdit* m_esUrl = nullptr;
  QLineEdit* m_esFields = nullptr;
  QLineEdit* m_esIdField = nullptr;
  QLineEdit* m_esTextField = nullptr;
  QLineEdit* m_esKeyEnv = nullptr;
  QLineEdit* m_esKeychain = nullptr;
  QDoubleSpinBox* m_esTimeout = nullptr;
  QPlainTextEdit* m_esTemplate = nullptr;
  QLineEdit* m_esKnnField = nullptr;
  QLineEdit* m_esEmbedUrl = nullptr;
  QLineEdit* m_esEmbedModel = nullptr;
  QLineEdit* m_esEmbedKeyEnv = nullptr;
  QComboBox* m_esFlavour = nullptr;
  QSpinBox* m_esCandidates = nullptr;
  // http
  QLineEdit* m_httpUrl = nullptr;
  QLineEdit* m_httpKeyEnv = nullptr;
  QLineEdit* m_httpKeychain = nullptr;
  QDoubleSpinBox* m_httpTimeout = nullptr;
  QPlainTextEdit* m_httpTemplate = nullptr;
  QLineEdit* m_resultsPath = nullptr;
  QLineEdit* m_idPath = nullptr;
  QLineEdit* m_scorePath = nullptr;
  QLineEdit* m_textPath = nullptr;
  // dense
  QLineEdit* m_denseUrl = nullptr;
  QLineEdit* m_denseModel = nullptr;
  QLineEdit* m_denseKeyEnv = nullptr;
  QLineEdit* m_denseKeychain = nullptr;
  QLineEdit* m_queryPrefix = nullptr;
  QLineEdit* m_docPrefix = nullptr;
  QSpinBox* m_embedBatch = nullptr;
  QComboBox* m_ann = nullptr;
  QLineEdit* m_denseIndexDir = nullptr;
  QCheckBox* m_denseRebuild = nullptr;
  QDoubleSpinBox* m_denseTimeout = nullptr;
  // hybrid: the members' specs by row of m_members (the stored copies and the project's)
  QListWidget* m_members = nullptr;
  std::vector<core::RetrieverSpec> m_memberSpecs;
  QComboBox* m_fusion = nullptr;
  QComboBox* m_norm = nullptr;
  QLineEdit* m_weights = nullptr;
  QDoubleSpinBox* m_rrfK = nullptr;
  QSpinBox* m_fusionDepth = nullptr;
  QLabel* m_keyNote = nullptr;
  // test
  QLineEdit* m_query = nullptr;
  QSpinBox* m_testK = nullptr;
  QPushButton* m_testButton = nullptr;
  QPushButton* m_cancelTest = nullptr;
  QLabel* m_testHeadline = nullptr;
  QTableWidget* m_hits = nullptr;
};

}  // namespace ragscope::ui
