#include "ui/pages/retrieverspage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <cstdlib>

#include "core/retrieval/requesttemplate.h"
#include "core/retrieval/retrievejob.h"
#include "ui/jobs/retrieverjob.h"
#include "ui/pages/formwidgets.h"
#include "ui/retrievertrust.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

using Kind = core::RetrieverSpec::Kind;

QString kindLabel(Kind kind) {
  switch (kind) {
    case Kind::Bm25:
      return QObject::tr("BM25 (embedded, Xapian)");
    case Kind::Elasticsearch:
      return QObject::tr("Elasticsearch / OpenSearch");
    case Kind::Http:
      return QObject::tr("HTTP JSON service");
    case Kind::Dense:
      return QObject::tr("Dense (embeddings + FAISS)");
    case Kind::Hybrid:
      return QObject::tr("Hybrid (fused runs of other retrievers)");
  }
  return {};
}

// A retriever's name as runs and member lists show it: its name, else its kind's.
std::string displayName(const core::RetrieverSpec& spec) {
  return spec.name.empty() ? core::retrieverKindName(spec.kind) : spec.name;
}

// The combo entry whose data is `value` (else the first).
void selectData(QComboBox* combo, const QString& value) {
  combo->setCurrentIndex(std::max(0, combo->findData(value)));
}

// BM25 and dense search the dataset's own corpus; a hybrid does when a member does.
bool searchesCorpus(const core::RetrieverSpec& spec) {
  return spec.kind == Kind::Bm25 || spec.kind == Kind::Dense ||
         std::any_of(spec.members.begin(), spec.members.end(), searchesCorpus);
}

// "offline", or an http(s) URL: anything else is refused before it reaches the engine.
bool isEndpointUrl(const std::string& url) {
  return url == "offline" || url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

// A small editor for a JSON request template.
QPlainTextEdit* templateEdit(const QString& placeholder) {
  auto* e = new QPlainTextEdit;
  e->setPlaceholderText(placeholder);
  e->setTabChangesFocus(true);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  e->setFont(mono);
  e->setFixedHeight(4 * QFontMetrics(mono).lineSpacing() + 12);
  return e;
}

QString rowLabel(const core::RetrieverSpec& spec) {
  const QString name = spec.name.empty() ? q(core::retrieverKindName(spec.kind)) : q(spec.name);
  return QStringLiteral("%1 — %2").arg(name, q(core::describeRetriever(spec)));
}

// A name not yet in the list: "bm25", "bm25-2", ...
std::string freshName(const std::vector<core::RetrieverSpec>& list, const std::string& base) {
  auto taken = [&](const std::string& n) {
    return std::any_of(list.begin(), list.end(),
                       [&](const core::RetrieverSpec& s) { return s.name == n; });
  };
  if (!taken(base)) return base;
  for (int i = 2;; ++i)
    if (!taken(base + "-" + std::to_string(i))) return base + "-" + std::to_string(i);
}

}  // namespace

RetrieversPage::RetrieversPage(Workbench* workbench, QWidget* parent)
    : Page(parent), m_workbench(workbench), m_job(new RetrieverJob(this)) {
  setObjectName(QStringLiteral("RetrieversPage"));
  buildUi();
  connect(m_job, &RetrieverJob::tested, this, &RetrieversPage::onTested);
  connect(m_job, &RetrieverJob::progress, this,
          [this](RetrieverJob::Phase phase, quint64 done, quint64 total) {
            if (phase != RetrieverJob::Phase::Retrieve)  // a test's index build or embedding
              showRetrieverProgress(nullptr, m_testHeadline, phase, done, total);
          });
  connect(m_workbench, &Workbench::retrieversChanged, this, &RetrieversPage::refreshList);
  connect(m_workbench, &Workbench::datasetChanged, this, [this] {
    const auto ds = m_workbench->dataset();
    if (ds && !ds->queries.empty()) m_query->setPlaceholderText(q(ds->queries.front().text));
  });
  refreshList();
}

RetrieversPage::~RetrieversPage() = default;

QIcon RetrieversPage::icon() const {
  return style()->standardIcon(QStyle::SP_FileDialogContentsView);
}

void RetrieversPage::buildUi() {
  auto* listBox = new QGroupBox(tr("Retrievers"));
  m_list = new QListWidget;
  m_list->setObjectName(QStringLiteral("RetrieverList"));
  auto* addBm25 = new QPushButton(tr("Add BM25"));
  auto* addEs = new QPushButton(tr("Add OpenSearch"));
  addEs->setToolTip(tr("An Elasticsearch or OpenSearch index, searched with a match query"));
  auto* addHttp = new QPushButton(tr("Add HTTP"));
  addHttp->setToolTip(
      tr("A JSON service: POST {\"query\", \"k\"} -> [{\"id\", \"score\", \"text\"}]"));
  auto* addDense = new QPushButton(tr("Add dense"));
  addDense->setObjectName(QStringLiteral("AddDenseButton"));
  addDense->setToolTip(
      tr("Embeds the corpus through an embeddings endpoint (or offline, a hashed bag of words) "
         "and searches it with FAISS"));
  auto* addHybrid = new QPushButton(tr("Add hybrid"));
  addHybrid->setObjectName(QStringLiteral("AddHybridButton"));
  addHybrid->setToolTip(tr("Fuses the runs of two or more saved retrievers (RRF by default)"));
  m_delete = new QPushButton(style()->standardIcon(QStyle::SP_TrashIcon), tr("Delete"));
  connect(addBm25, &QPushButton::clicked, this, [this] { addRetriever(Kind::Bm25); });
  connect(addEs, &QPushButton::clicked, this, [this] { addRetriever(Kind::Elasticsearch); });
  connect(addHttp, &QPushButton::clicked, this, [this] { addRetriever(Kind::Http); });
  connect(addDense, &QPushButton::clicked, this, [this] { addRetriever(Kind::Dense); });
  connect(addHybrid, &QPushButton::clicked, this, [this] { addRetriever(Kind::Hybrid); });
  connect(m_delete, &QPushButton::clicked, this, &RetrieversPage::deleteSelected);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(addBm25);
  buttons->addWidget(addEs);
  buttons->addWidget(addHttp);
  buttons->addWidget(addDense);
  buttons->addWidget(addHybrid);
  buttons->addStretch(1);
  buttons->addWidget(m_delete);
  auto* note =
      new QLabel(tr("Saved with the project. Keys are never saved: a retriever names the "
                    "environment variable that holds its key. Run them over the dataset from "
                    "the Retrieval, eRAG or Claims page."));
  note->setWordWrap(true);
  note->setStyleSheet(QStringLiteral("color: palette(mid);"));
  auto* listLayout = new QVBoxLayout(listBox);
  listLayout->addWidget(m_list, 1);
  listLayout->addLayout(buttons);
  listLayout->addWidget(note);
  connect(m_list, &QListWidget::currentRowChanged, this, &RetrieversPage::showRow);

  auto* editorBox = new QGroupBox(tr("Retriever"));
  m_editor = editorBox;
  auto* form = new QFormLayout(editorBox);
  form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  m_name = new QLineEdit;
  m_name->setObjectName(QStringLiteral("RetrieverName"));
  m_name->setPlaceholderText(tr("run tag and label, e.g. bm25-anserini"));
  m_kind = new QLabel;
  form->addRow(tr("Name"), m_name);
  form->addRow(tr("Kind"), m_kind);

  m_forms = new QStackedWidget;
  {  // BM25
    auto* w = new QWidget;
    auto* f = new QFormLayout(w);
    f->setContentsMargins(0, 0, 0, 0);
    m_k1 = doubleSpin(0.0, 10.0, 2, 0.1);
    m_k1->setToolTip(
        tr("Xapian's default 1.0; Robertson's classic 1.2; Anserini's MS MARCO setting 0.9"));
    m_b = doubleSpin(0.0, 1.0, 2, 0.05);
    m_b->setToolTip(tr("Xapian's default 0.5; classic 0.75; Anserini's MS MARCO setting 0.4"));
    m_stemming = new QCheckBox(tr("English stemming (Porter2) of documents and queries"));
    m_indexDir = new QLineEdit;
    m_indexDir->setObjectName(QStringLiteral("Bm25IndexDir"));
    m_indexDir->setPlaceholderText(tr("default: beside the dataset (else the user cache)"));
    m_rebuild = new QCheckBox(tr("Rebuild the index on the next run, even when it matches"));
    f->addRow(tr("k1"), m_k1);
    f->addRow(tr("b"), m_b);
    f->addRow(QString(), m_stemming);
    f->addRow(tr("Index folder"), m_indexDir);
    // Typed by the user: their own folder, no longer the project file's (read only).
    connect(m_indexDir, &QLineEdit::textEdited, this, [this] { m_indexDirFromFile = false; });
    f->addRow(QString(), m_rebuild);
    auto* indexNote =
        new QLabel(tr("An index built with other analysis settings or another corpus is "
                      "rebuilt, never reused; k1 and b apply at query time."));
    indexNote->setWordWrap(true);
    indexNote->setStyleSheet(QStringLiteral("color: palette(mid);"));
    f->addRow(QString(), indexNote);
    m_forms->addWidget(w);
  }
  {  // Elasticsearch / OpenSearch
    auto* w = new QWidget;
    auto* f = new QFormLayout(w);
    f->setContentsMargins(0, 0, 0, 0);
    m_esUrl = new QLineEdit;
    m_esUrl->setObjectName(QStringLiteral("EsUrl"));
    m_esUrl->setPlaceholderText(tr("index URL, e.g. http://localhost:9200/msmarco"));
    m_esFields = new QLineEdit;
    m_esFields->setPlaceholderText(tr("text (several, comma-separated: a multi_match query)"));
    m_esIdField = new QLineEdit;
    m_esIdField->setPlaceholderText(
        tr("_source field with the document id (default: the hit's _id)"));
    m_esTextField = new QLineEdit;
    m_esTextField->setPlaceholderText(tr("_source field shown as the document's text (optional)"));
    m_esKeyEnv = new QLineEdit;
    m_esKeyEnv->setPlaceholderText(tr("e.g. ES_API_KEY (the variable's name, not the key)"));
    m_esTimeout = doubleSpin(0.1, 3600.0, 1, 5.0, tr(" s"));
    m_esTemplate =
        templateEdit(tr("optional: the whole _search body, e.g.\n"
                        "{\"size\": {{k}}, \"query\": {\"match\": {\"body\": {{query}}}}}\n"
                        "(empty: a match query on the fields above)"));
    m_esTemplate->setObjectName(QStringLiteral("EsQueryTemplate"));
    f->addRow(tr("Index URL"), m_esUrl);
    f->addRow(tr("Fields matched"), m_esFields);
    f->addRow(tr("Id field"), m_esIdField);
    f->addRow(tr("Text field"), m_esTextField);
    f->addRow(tr("Query template"), m_esTemplate);
    m_esKeychain = new QLineEdit;
    m_esKeychain->setPlaceholderText(
        tr("entry name in the OS keychain (optional; the Endpoints page stores keys)"));
    f->addRow(tr("Key: environment variable"), m_esKeyEnv);
    f->addRow(tr("Key: keychain entry"), m_esKeychain);
    f->addRow(tr("Timeout"), m_esTimeout);
    // kNN (issue 36): the query is embedded here and searched on a vector field.
    m_esKnnField = new QLineEdit;
    m_esKnnField->setObjectName(QStringLiteral("EsKnnField"));
    m_esKnnField->setPlaceholderText(
        tr("dense_vector / knn_vector field for a kNN search (empty: full-text match)"));
    m_esEmbedUrl = new QLineEdit;
    m_esEmbedUrl->setPlaceholderText(
        tr("embeddings endpoint for the queries, e.g. "
           "http://127.0.0.1:8000/v1"));
    m_esEmbedModel = new QLineEdit;
    m_esEmbedModel->setPlaceholderText(tr("the model that embedded the indexed vectors"));
    m_esEmbedKeyEnv = new QLineEdit;
    m_esEmbedKeyEnv->setPlaceholderText(tr("the embedder's key variable (optional)"));
    m_esFlavour = new QComboBox;
    m_esFlavour->addItem(tr("detect from GET /"), QString());
    m_esFlavour->addItem(tr("Elasticsearch 8 (knn section)"), QStringLiteral("elasticsearch"));
    m_esFlavour->addItem(tr("OpenSearch (knn query)"), QStringLiteral("opensearch"));
    m_esCandidates = new QSpinBox;
    m_esCandidates->setRange(0, 10000);
    m_esCandidates->setSpecialValueText(tr("max(100, 2k)"));
    m_esCandidates->setToolTip(tr("Elasticsearch num_candidates: candidates per shard"));
    auto* knnRow = new QHBoxLayout;
    knnRow->addWidget(m_esKnnField, 1);
    knnRow->addWidget(m_esFlavour);
    f->addRow(tr("kNN field"), knnRow);
    auto* embedRow = new QHBoxLayout;
    embedRow->addWidget(m_esEmbedUrl, 2);
    embedRow->addWidget(m_esEmbedModel, 1);
    f->addRow(tr("Query embedder, model"), embedRow);
    auto* embedKeyRow = new QHBoxLayout;
    embedKeyRow->addWidget(m_esEmbedKeyEnv, 1);
    embedKeyRow->addWidget(new QLabel(tr("candidates")));
    embedKeyRow->addWidget(m_esCandidates);
    f->addRow(tr("Embedder key variable"), embedKeyRow);
    m_forms->addWidget(w);
    connect(m_esKeyEnv, &QLineEdit::textChanged, this, &RetrieversPage::updateKeyNote);
  }
  {  // HTTP
    auto* w = new QWidget;
    auto* f = new QFormLayout(w);
    f->setContentsMargins(0, 0, 0, 0);
    m_httpUrl = new QLineEdit;
    m_httpUrl->setObjectName(QStringLiteral("HttpUrl"));
    m_httpUrl->setPlaceholderText(tr("e.g. http://localhost:8080/retrieve"));
    m_httpKeyEnv = new QLineEdit;
    m_httpKeyEnv->setPlaceholderText(
        tr("token variable, sent as Authorization: Bearer (optional)"));
    m_httpTimeout = doubleSpin(0.1, 3600.0, 1, 5.0, tr(" s"));
    m_httpTemplate = templateEdit(
        tr("optional request body, e.g. {\"q\": {{query}}, \"top_k\": {{k}}}\n"
           "(empty: {\"query\": {{query}}, \"k\": {{k}}}; {{query}} brings its quotes)"));
    m_httpTemplate->setObjectName(QStringLiteral("HttpRequestTemplate"));
    m_resultsPath = new QLineEdit;
    m_resultsPath->setPlaceholderText(
        tr("dot path to the results array (empty: the reply, or its \"results\")"));
    m_idPath = new QLineEdit;
    m_idPath->setPlaceholderText(tr("(the result itself)"));
    m_scorePath = new QLineEdit;
    m_scorePath->setPlaceholderText(tr("(none: list order)"));
    m_textPath = new QLineEdit;
    m_textPath->setPlaceholderText(tr("(none)"));
    auto* paths = new QHBoxLayout;
    for (auto [label, edit] :
         {std::pair{tr("id"), m_idPath}, {tr("score"), m_scorePath}, {tr("text"), m_textPath}}) {
      paths->addWidget(new QLabel(label));
      paths->addWidget(edit, 1);
    }
    f->addRow(tr("URL"), m_httpUrl);
    f->addRow(tr("Request template"), m_httpTemplate);
    f->addRow(tr("Results path"), m_resultsPath);
    f->addRow(tr("Paths in a result"), paths);
    m_httpKeychain = new QLineEdit;
    m_httpKeychain->setPlaceholderText(
        tr("entry name in the OS keychain (optional; the Endpoints page stores keys)"));
    f->addRow(tr("Key: environment variable"), m_httpKeyEnv);
    f->addRow(tr("Key: keychain entry"), m_httpKeychain);
    f->addRow(tr("Timeout"), m_httpTimeout);
    m_forms->addWidget(w);
    connect(m_httpKeyEnv, &QLineEdit::textChanged, this, &RetrieversPage::updateKeyNote);
  }
  {  // Dense (issue 36; core/retrieval/README.md, "Dense retrieval")
    auto* w = new QWidget;
    auto* f = new QFormLayout(w);
    f->setContentsMargins(0, 0, 0, 0);
    m_denseUrl = new QLineEdit;
    m_denseUrl->setObjectName(QStringLiteral("DenseUrl"));
    m_denseUrl->setPlaceholderText(
        tr("embeddings endpoint, e.g. http://127.0.0.1:8000/v1 (vLLM, TEI, Ollama, OpenAI), or "
           "offline"));
    m_denseUrl->setToolTip(
        tr("\"offline\": a deterministic hashed bag of words, no server "
           "(for the demo and tests)"));
    m_denseModel = new QLineEdit;
    m_denseModel->setObjectName(QStringLiteral("DenseModel"));
    m_denseModel->setPlaceholderText(tr("e.g. intfloat/e5-base-v2, BAAI/bge-large-en-v1.5"));
    m_queryPrefix = new QLineEdit;
    m_queryPrefix->setPlaceholderText(tr("e5: \"query: \"; bge: an instruction (optional)"));
    m_docPrefix = new QLineEdit;
    m_docPrefix->setPlaceholderText(tr("e5: \"passage: \" (optional)"));
    m_embedBatch = new QSpinBox;
    m_embedBatch->setRange(1, 4096);
    m_embedBatch->setSuffix(tr(" texts per request"));
    m_ann = new QComboBox;
    m_ann->setObjectName(QStringLiteral("DenseAnn"));
    m_ann->addItem(
        tr("auto (flat up to %L1 documents, HNSW above)").arg(qulonglong(core::kFlatDefaultLimit)),
        QString());
    m_ann->addItem(tr("flat (exact inner product)"), QStringLiteral("flat"));
    m_ann->addItem(tr("HNSW (graph, approximate)"), QStringLiteral("hnsw"));
    m_ann->addItem(tr("IVF-PQ (compressed, for corpora too big for float32)"),
                   QStringLiteral("ivfpq"));
    m_denseIndexDir = new QLineEdit;
    m_denseIndexDir->setPlaceholderText(tr("default: beside the dataset (else the user cache)"));
    m_denseRebuild =
        new QCheckBox(tr("Rebuild the index on the next run (stored vectors are "
                         "reused)"));
    m_denseKeyEnv = new QLineEdit;
    m_denseKeyEnv->setPlaceholderText(tr("e.g. OPENAI_API_KEY (the variable's name, not the key)"));
    m_denseKeychain = new QLineEdit;
    m_denseKeychain->setPlaceholderText(
        tr("entry name in the OS keychain (optional; the Endpoints page stores keys)"));
    m_denseTimeout = doubleSpin(0.1, 3600.0, 1, 5.0, tr(" s"));
    f->addRow(tr("Endpoint URL"), m_denseUrl);
    f->addRow(tr("Model"), m_denseModel);
    f->addRow(tr("Query prefix"), m_queryPrefix);
    f->addRow(tr("Document prefix"), m_docPrefix);
    f->addRow(tr("Embed batch"), m_embedBatch);
    f->addRow(tr("Index kind"), m_ann);
    f->addRow(tr("Index folder"), m_denseIndexDir);
    connect(m_denseIndexDir, &QLineEdit::textEdited, this, [this] { m_indexDirFromFile = false; });
    f->addRow(QString(), m_denseRebuild);
    f->addRow(tr("Key: environment variable"), m_denseKeyEnv);
    f->addRow(tr("Key: keychain entry"), m_denseKeychain);
    f->addRow(tr("Timeout"), m_denseTimeout);
    auto* denseNote = new QLabel(
        tr("The first run embeds the corpus (progress in the Jobs dock; cancel keeps what was "
           "embedded) and builds the index; later runs embed only the queries. Another model, "
           "prefix or corpus rebuilds the index, never reuses it."));
    denseNote->setWordWrap(true);
    denseNote->setStyleSheet(QStringLiteral("color: palette(mid);"));
    f->addRow(QString(), denseNote);
    m_forms->addWidget(w);
    connect(m_denseKeyEnv, &QLineEdit::textChanged, this, &RetrieversPage::updateKeyNote);
  }
  {  // Hybrid (issue 36; core/retrieval/README.md, "Fusion")
    auto* w = new QWidget;
    auto* f = new QFormLayout(w);
    f->setContentsMargins(0, 0, 0, 0);
    m_members = new QListWidget;
    m_members->setObjectName(QStringLiteral("HybridMembers"));
    m_members->setToolTip(
        tr("Check the saved retrievers to fuse, in this order (the order of the weights). The "
           "hybrid keeps a copy of each as it is when you save."));
    m_members->setMaximumHeight(6 * m_members->fontMetrics().lineSpacing() + 12);
    m_fusion = new QComboBox;
    m_fusion->setObjectName(QStringLiteral("HybridFusion"));
    m_fusion->addItem(tr("RRF: sum of 1 / (k + rank)"), QStringLiteral("rrf"));
    m_fusion->addItem(tr("CombSUM: sum of scores"), QStringLiteral("combsum"));
    m_fusion->addItem(tr("CombMNZ: CombSUM x runs holding the document"),
                      QStringLiteral("combmnz"));
    m_fusion->addItem(tr("Weighted sum"), QStringLiteral("wsum"));
    m_norm = new QComboBox;
    m_norm->addItem(tr("min-max (ranx's default)"), QStringLiteral("min-max"));
    m_norm->addItem(tr("none"), QStringLiteral("none"));
    m_norm->addItem(tr("max"), QStringLiteral("max"));
    m_norm->addItem(tr("sum"), QStringLiteral("sum"));
    m_norm->addItem(tr("z-score (zmuv)"), QStringLiteral("zmuv"));
    m_norm->setToolTip(
        tr("Applied to each run's scores before CombSUM, CombMNZ and weighted sum; "
           "RRF uses ranks only"));
    m_weights = new QLineEdit;
    m_weights->setObjectName(QStringLiteral("HybridWeights"));
    m_weights->setPlaceholderText(tr("one per checked member, in order, e.g. 0.3, 0.7"));
    m_rrfK = doubleSpin(0.0, 100000.0, 1, 10.0);
    m_fusionDepth = new QSpinBox;
    m_fusionDepth->setRange(0, 100000);
    m_fusionDepth->setSpecialValueText(tr("the run's depth"));
    m_fusionDepth->setToolTip(
        tr("Documents each member retrieves at least per query before fusion"));
    f->addRow(tr("Members"), m_members);
    f->addRow(tr("Fusion"), m_fusion);
    f->addRow(tr("Normalisation"), m_norm);
    f->addRow(tr("Weights"), m_weights);
    f->addRow(tr("RRF k"), m_rrfK);
    f->addRow(tr("Member depth"), m_fusionDepth);
    m_forms->addWidget(w);
    connect(m_fusion, &QComboBox::currentIndexChanged, this, &RetrieversPage::updateFusionFields);
  }
  form->addRow(m_forms);
  m_keyNote = new QLabel;
  form->addRow(QString(), m_keyNote);
  auto* apply =
      new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save changes"));
  auto* revert = new QPushButton(tr("Revert"));
  connect(apply, &QPushButton::clicked, this, &RetrieversPage::applyEdits);
  connect(revert, &QPushButton::clicked, this, [this] { showRow(currentRow()); });
  auto* editorButtons = new QHBoxLayout;
  editorButtons->addStretch(1);
  editorButtons->addWidget(revert);
  editorButtons->addWidget(apply);
  form->addRow(editorButtons);

  auto* testBox = new QGroupBox(tr("Test with one query"));
  m_query = new QLineEdit;
  m_query->setObjectName(QStringLiteral("RetrieverTestQuery"));
  m_testK = new QSpinBox;
  m_testK->setRange(1, 1000);
  m_testK->setValue(10);
  m_testK->setPrefix(tr("top "));
  m_testButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Test"));
  m_testButton->setObjectName(QStringLiteral("RetrieverTestButton"));
  m_cancelTest = new QPushButton(tr("Cancel"));
  m_cancelTest->setEnabled(false);
  connect(m_testButton, &QPushButton::clicked, this, [this] { test(); });
  connect(m_query, &QLineEdit::returnPressed, this, [this] { test(); });
  connect(m_cancelTest, &QPushButton::clicked, m_job, &RetrieverJob::cancel);
  auto* queryRow = new QHBoxLayout;
  queryRow->addWidget(m_query, 1);
  queryRow->addWidget(m_testK);
  queryRow->addWidget(m_testButton);
  queryRow->addWidget(m_cancelTest);
  m_testHeadline = new QLabel(tr("Not tested yet."));
  m_testHeadline->setObjectName(QStringLiteral("RetrieverTestHeadline"));
  m_testHeadline->setWordWrap(true);
  m_testHeadline->setTextFormat(Qt::PlainText);  // quotes the service's replies: never HTML
  m_testHeadline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont bold = m_testHeadline->font();
  bold.setBold(true);
  m_testHeadline->setFont(bold);
  m_hits = new QTableWidget(0, 4);
  m_hits->setObjectName(QStringLiteral("RetrieverHits"));
  m_hits->setHorizontalHeaderLabels({tr("Rank"), tr("Document"), tr("Score"), tr("Text")});
  m_hits->verticalHeader()->hide();
  m_hits->horizontalHeader()->setStretchLastSection(true);
  m_hits->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_hits->setWordWrap(false);
  auto* testLayout = new QVBoxLayout(testBox);
  testLayout->addLayout(queryRow);
  testLayout->addWidget(m_testHeadline);
  testLayout->addWidget(m_hits, 1);

  auto* right = new QWidget;
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(editorBox);
  rightLayout->addWidget(testBox, 1);
  auto* splitter = new QSplitter;
  splitter->addWidget(listBox);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(splitter);
}

void RetrieversPage::refreshList() {
  const int row = m_list->currentRow();
  const auto& specs = m_workbench->retrievers();
  const QSignalBlocker block(m_list);
  m_list->clear();
  for (const auto& s : specs) m_list->addItem(rowLabel(s));
  const int keep = std::min(row < 0 ? 0 : row, int(specs.size()) - 1);
  m_list->setCurrentRow(keep);
  showRow(keep);
}

int RetrieversPage::currentRow() const { return m_list->currentRow(); }

bool RetrieversPage::selectRow(int row) {
  if (row < 0 || row >= m_list->count()) return false;
  m_list->setCurrentRow(row);
  return true;
}

int RetrieversPage::addRetriever(Kind kind) {
  auto specs = m_workbench->retrievers();
  core::RetrieverSpec spec;
  spec.kind = kind;
  spec.name = freshName(specs, core::retrieverKindName(kind));
  if (kind == Kind::Http) spec.url = "http://127.0.0.1:8080/retrieve";
  if (kind == Kind::Elasticsearch) spec.url = "http://127.0.0.1:9200/index";
  if (kind == Kind::Dense) spec.url = "offline";  // works at once, no server; point it elsewhere
  if (kind == Kind::Hybrid)  // the first two others, fused by RRF: a working start
    for (const auto& other : specs)
      if (other.kind != Kind::Hybrid && spec.members.size() < 2) spec.members.push_back(other);
  specs.push_back(spec);
  m_workbench->setRetrievers(std::move(specs));
  const int row = m_list->count() - 1;
  selectRow(row);
  return row;
}

bool RetrieversPage::deleteSelected() {
  const int row = currentRow();
  auto specs = m_workbench->retrievers();
  if (row < 0 || row >= int(specs.size())) return false;
  specs.erase(specs.begin() + row);
  m_workbench->setRetrievers(std::move(specs));
  return true;
}

void RetrieversPage::showRow(int row) {
  if (row != m_shownRow && !m_job->isRunning()) {  // another retriever: the last test was not its
    m_hits->setRowCount(0);
    m_testHeadline->setText(tr("Not tested yet."));
  }
  m_shownRow = row;
  const auto& specs = m_workbench->retrievers();
  const bool valid = row >= 0 && row < int(specs.size());
  m_editor->setEnabled(valid);
  m_delete->setEnabled(valid);
  m_testButton->setEnabled(valid && !m_job->isRunning());
  if (valid) setEditorSpec(specs[std::size_t(row)]);
}

void RetrieversPage::setEditorSpec(const core::RetrieverSpec& spec) {
  m_name->setText(q(spec.name));
  m_kind->setText(kindLabel(spec.kind));
  m_kind->setProperty("kind", int(spec.kind));
  m_forms->setCurrentIndex(int(spec.kind));
  // The editor as tall as the kind's own form (the stack would take its tallest page's height
  // and spread a short form's rows over it); the test box below gets the rest.
  for (int i = 0; i < m_forms->count(); ++i)
    m_forms->widget(i)->setSizePolicy(QSizePolicy::Preferred, i == m_forms->currentIndex()
                                                                  ? QSizePolicy::Preferred
                                                                  : QSizePolicy::Ignored);
  m_forms->updateGeometry();
  m_k1->setValue(spec.bm25.k1);
  m_b->setValue(spec.bm25.b);
  m_stemming->setChecked(spec.stemming);
  m_indexDir->setText(q(spec.indexDir.string()));
  m_indexDirFromFile = spec.indexDirFromFile;
  m_rebuild->setChecked(spec.rebuild);
  const QString url = q(spec.url);
  m_esUrl->setText(spec.kind == Kind::Elasticsearch ? url : QString());
  m_httpUrl->setText(spec.kind == Kind::Http ? url : QString());
  QStringList fields;
  for (const auto& f : spec.fields) fields << q(f);
  m_esFields->setText(fields.join(QStringLiteral(", ")));
  m_esIdField->setText(q(spec.idField));
  m_esTextField->setText(q(spec.textField));
  m_esKeyEnv->setText(spec.kind == Kind::Elasticsearch ? q(spec.apiKeyEnv) : QString());
  m_httpKeyEnv->setText(spec.kind == Kind::Http ? q(spec.apiKeyEnv) : QString());
  m_esKeychain->setText(spec.kind == Kind::Elasticsearch ? q(spec.keychainEntry) : QString());
  m_httpKeychain->setText(spec.kind == Kind::Http ? q(spec.keychainEntry) : QString());
  m_esTimeout->setValue(double(spec.timeoutMs) / 1000.0);
  m_httpTimeout->setValue(double(spec.timeoutMs) / 1000.0);
  m_esTemplate->setPlainText(spec.kind == Kind::Elasticsearch ? q(spec.requestTemplate)
                                                              : QString());
  m_httpTemplate->setPlainText(spec.kind == Kind::Http ? q(spec.requestTemplate) : QString());
  m_resultsPath->setText(q(spec.reply.results));
  m_idPath->setText(q(spec.reply.id));
  m_scorePath->setText(q(spec.reply.score));
  m_textPath->setText(q(spec.reply.text));
  const bool es = spec.kind == Kind::Elasticsearch;
  m_esKnnField->setText(es ? q(spec.esKnnField) : QString());
  m_esEmbedUrl->setText(es ? q(spec.embedUrl) : QString());
  m_esEmbedModel->setText(es ? q(spec.embedModel) : QString());
  m_esEmbedKeyEnv->setText(es ? q(spec.embedApiKeyEnv) : QString());
  selectData(m_esFlavour, es ? q(spec.esFlavour) : QString());
  m_esCandidates->setValue(int(std::min<std::size_t>(spec.numCandidates, 10000)));
  const bool dense = spec.kind == Kind::Dense;
  m_denseUrl->setText(dense ? url : QString());
  m_denseModel->setText(dense ? q(spec.embedModel) : QString());
  m_denseKeyEnv->setText(dense ? q(spec.apiKeyEnv) : QString());
  m_denseKeychain->setText(dense ? q(spec.keychainEntry) : QString());
  m_queryPrefix->setText(q(spec.queryPrefix));
  m_docPrefix->setText(q(spec.docPrefix));
  m_embedBatch->setValue(int(std::clamp<std::size_t>(spec.embedBatch, 1, 4096)));
  selectData(m_ann, spec.ann ? q(core::annKindName(*spec.ann)) : QString());
  m_denseIndexDir->setText(dense ? q(spec.indexDir.string()) : QString());
  m_denseRebuild->setChecked(dense && spec.rebuild);
  m_denseTimeout->setValue(double(spec.timeoutMs) / 1000.0);
  fillMembers(spec);
  selectData(m_fusion, q(core::fusionMethodName(spec.fusion.method)));
  selectData(m_norm, q(core::scoreNormName(spec.fusion.norm)));
  QStringList weights;
  for (double w : spec.fusion.weights) weights << QString::number(w, 'g', 17);
  m_weights->setText(weights.join(QStringLiteral(", ")));
  m_rrfK->setValue(spec.fusion.rrfK);
  m_fusionDepth->setValue(int(std::min<std::size_t>(spec.fusion.depth, 100000)));
  updateFusionFields();
  updateKeyNote();
}

void RetrieversPage::fillMembers(const core::RetrieverSpec& spec) {
  m_members->clear();
  m_memberSpecs.clear();
  const auto& project = m_workbench->retrievers();
  const int self = currentRow();
  // The project's retriever called `name`, other than the one edited (hybrids do not nest).
  auto saved = [&](const std::string& name) -> const core::RetrieverSpec* {
    for (int i = 0; i < int(project.size()); ++i)
      if (i != self && project[std::size_t(i)].kind != Kind::Hybrid &&
          displayName(project[std::size_t(i)]) == name)
        return &project[std::size_t(i)];
    return nullptr;
  };
  auto add = [&](const core::RetrieverSpec& member, bool checked, const QString& note) {
    auto* item = new QListWidgetItem(rowLabel(member) + note);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    item->setData(Qt::UserRole, q(displayName(member)));
    m_members->addItem(item);
    m_memberSpecs.push_back(member);
  };
  std::vector<std::string> listed;
  if (spec.kind == Kind::Hybrid) {
    for (const auto& member : spec.members) {
      const core::RetrieverSpec* current = saved(displayName(member));
      // The saved retriever of that name is what a save copies; a member no longer in the
      // project (deleted, renamed, or from a project file) keeps its stored copy.
      if (current)
        add(*current, true,
            retrieverSpecToJson(*current) == retrieverSpecToJson(member)
                ? QString()
                : tr("  (changed since the hybrid was saved: saving copies it again)"));
      else
        add(member, true, tr("  (copy kept in this hybrid)"));
      listed.push_back(displayName(member));
    }
  }
  for (int i = 0; i < int(project.size()); ++i) {
    const auto& other = project[std::size_t(i)];
    if (i == self || other.kind == Kind::Hybrid) continue;
    if (std::find(listed.begin(), listed.end(), displayName(other)) != listed.end()) continue;
    add(other, false, QString());
    listed.push_back(displayName(other));
  }
}

void RetrieversPage::updateFusionFields() {
  const QString method = m_fusion->currentData().toString();
  m_weights->setEnabled(method == QLatin1String("wsum"));
  m_rrfK->setEnabled(method == QLatin1String("rrf"));
  m_norm->setEnabled(method != QLatin1String("rrf"));
}

core::RetrieverSpec RetrieversPage::editorSpec() const {
  core::RetrieverSpec spec;
  spec.kind = Kind(m_kind->property("kind").toInt());
  spec.name = m_name->text().trimmed().toStdString();
  switch (spec.kind) {
    case Kind::Bm25:
      spec.bm25.k1 = m_k1->value();
      spec.bm25.b = m_b->value();
      spec.stemming = m_stemming->isChecked();
      spec.indexDir = m_indexDir->text().trimmed().toStdString();
      spec.indexDirFromFile = m_indexDirFromFile && !spec.indexDir.empty();
      spec.rebuild = m_rebuild->isChecked();
      break;
    case Kind::Elasticsearch: {
      spec.url = m_esUrl->text().trimmed().toStdString();
      spec.fields.clear();
      for (const QString& f : m_esFields->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!f.trimmed().isEmpty()) spec.fields.push_back(f.trimmed().toStdString());
      if (spec.fields.empty()) spec.fields = {"text"};
      spec.idField = m_esIdField->text().trimmed().toStdString();
      spec.textField = m_esTextField->text().trimmed().toStdString();
      spec.apiKeyEnv = m_esKeyEnv->text().trimmed().toStdString();
      spec.keychainEntry = m_esKeychain->text().trimmed().toStdString();
      spec.timeoutMs = long(m_esTimeout->value() * 1000.0);
      spec.requestTemplate = m_esTemplate->toPlainText().trimmed().toStdString();
      spec.esKnnField = m_esKnnField->text().trimmed().toStdString();
      spec.embedUrl = m_esEmbedUrl->text().trimmed().toStdString();
      spec.embedModel = m_esEmbedModel->text().trimmed().toStdString();
      spec.embedApiKeyEnv = m_esEmbedKeyEnv->text().trimmed().toStdString();
      spec.esFlavour = m_esFlavour->currentData().toString().toStdString();
      spec.numCandidates = std::size_t(m_esCandidates->value());
      break;
    }
    case Kind::Dense:
      spec.url = m_denseUrl->text().trimmed().toStdString();
      spec.embedModel = m_denseModel->text().trimmed().toStdString();
      spec.apiKeyEnv = m_denseKeyEnv->text().trimmed().toStdString();
      spec.keychainEntry = m_denseKeychain->text().trimmed().toStdString();
      // Prefixes are kept as typed: "query: " ends in the space the model was trained with.
      spec.queryPrefix = m_queryPrefix->text().toStdString();
      spec.docPrefix = m_docPrefix->text().toStdString();
      spec.embedBatch = std::size_t(m_embedBatch->value());
      spec.ann = core::annKindFromName(m_ann->currentData().toString().toStdString());
      spec.indexDir = m_denseIndexDir->text().trimmed().toStdString();
      spec.indexDirFromFile = m_indexDirFromFile && !spec.indexDir.empty();
      spec.rebuild = m_denseRebuild->isChecked();
      spec.timeoutMs = long(m_denseTimeout->value() * 1000.0);
      break;
    case Kind::Hybrid: {
      for (int i = 0; i < m_members->count(); ++i)
        if (m_members->item(i)->checkState() == Qt::Checked)
          spec.members.push_back(m_memberSpecs[std::size_t(i)]);
      spec.fusion.method =
          core::fusionMethodFromName(m_fusion->currentData().toString().toStdString())
              .value_or(core::FusionMethod::Rrf);
      spec.fusion.norm = core::scoreNormFromName(m_norm->currentData().toString().toStdString())
                             .value_or(core::ScoreNorm::MinMax);
      if (spec.fusion.method == core::FusionMethod::WeightedSum)
        for (const QString& w : m_weights->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
          bool ok = false;
          const double v = w.trimmed().toDouble(&ok);
          // Unreadable: NaN, which problemOf() names (fusionOptionsProblem refuses non-finite).
          spec.fusion.weights.push_back(ok ? v : std::nan(""));
        }
      spec.fusion.rrfK = m_rrfK->value();
      spec.fusion.depth = std::size_t(m_fusionDepth->value());
      break;
    }
    case Kind::Http:
      spec.url = m_httpUrl->text().trimmed().toStdString();
      spec.apiKeyEnv = m_httpKeyEnv->text().trimmed().toStdString();
      spec.keychainEntry = m_httpKeychain->text().trimmed().toStdString();
      spec.timeoutMs = long(m_httpTimeout->value() * 1000.0);
      spec.requestTemplate = m_httpTemplate->toPlainText().trimmed().toStdString();
      spec.reply.results = m_resultsPath->text().trimmed().toStdString();
      spec.reply.id = m_idPath->text().trimmed().toStdString();
      spec.reply.score = m_scorePath->text().trimmed().toStdString();
      spec.reply.text = m_textPath->text().trimmed().toStdString();
      break;
  }
  return spec;
}

bool RetrieversPage::applyEdits() {
  const int row = currentRow();
  auto specs = m_workbench->retrievers();
  if (row < 0 || row >= int(specs.size())) return false;
  core::RetrieverSpec spec = editorSpec();
  if (const QString problem = problemOf(spec); !problem.isEmpty()) {
    m_testHeadline->setText(problem);
    return false;
  }
  // Configured here by this machine's user: its queries (and key) may go to its URL.
  trustRetriever(spec);
  specs[std::size_t(row)] = std::move(spec);
  m_workbench->setRetrievers(std::move(specs));
  return true;
}

QString RetrieversPage::problemOf(const core::RetrieverSpec& spec) const {
  const bool remote = spec.kind == Kind::Elasticsearch || spec.kind == Kind::Http;
  if (remote && spec.url.empty()) return tr("A URL is needed.");
  if (spec.kind == Kind::Dense && spec.url.empty())
    return tr("An embeddings endpoint URL is needed (or offline).");
  if (spec.kind == Kind::Dense && !isEndpointUrl(spec.url))
    return tr(
        "Not saved: the endpoint URL must start with http:// or https:// (or be "
        "offline).");
  if (std::string why;
      !spec.requestTemplate.empty() && !core::checkRequestTemplate(spec.requestTemplate, &why))
    return tr("Not saved: %1.").arg(q(why));
  if (spec.kind == Kind::Elasticsearch && !spec.esKnnField.empty()) {
    if (spec.embedUrl.empty()) return tr("Not saved: a kNN search needs the query embedder's URL.");
    if (!isEndpointUrl(spec.embedUrl))
      return tr(
          "Not saved: the query embedder's URL must start with http:// or https:// (or be "
          "offline).");
  }
  if (spec.kind == Kind::Hybrid) {
    if (spec.members.size() < 2)
      return tr("Not saved: a hybrid fuses at least two retrievers; check two or more members.");
    if (const std::string why = core::fusionOptionsProblem(spec.fusion, spec.members.size());
        !why.empty())
      return tr("Not saved: %1.").arg(q(why));
  }
  // Whatever else the project file would refuse on reading, refused now.
  std::string why;
  if (!core::retrieverSpecFromJson(core::retrieverSpecToJson(spec), &why))
    return tr("Not saved: %1.").arg(q(why));
  return {};
}

void RetrieversPage::updateKeyNote() {
  const Kind kind = Kind(m_kind->property("kind").toInt());
  const QLineEdit* field = kind == Kind::Http    ? m_httpKeyEnv
                           : kind == Kind::Dense ? m_denseKeyEnv
                                                 : m_esKeyEnv;
  const QString var = field->text().trimmed();
  if (kind == Kind::Bm25 || kind == Kind::Hybrid || var.isEmpty()) {
    m_keyNote->clear();
    return;
  }
  m_keyNote->setText(std::getenv(var.toLocal8Bit().constData())
                         ? tr("$%1 is set in this session.").arg(var)
                         : tr("$%1 is not set in this session.").arg(var));
}

bool RetrieversPage::isTesting() const { return m_job->isRunning(); }

bool RetrieversPage::test(const QString& query) {
  if (m_job->isRunning() || currentRow() < 0) return false;
  if (!query.isEmpty()) m_query->setText(query);
  const auto ds = m_workbench->dataset();
  const core::RetrieverSpec spec = editorSpec();
  QString text = m_query->text().trimmed();
  if (text.isEmpty() && ds && !ds->queries.empty()) text = q(ds->queries.front().text);
  if (text.isEmpty()) {
    m_testHeadline->setText(tr("Type a query (or open a dataset: its first query is used)."));
    return false;
  }
  if (searchesCorpus(spec) && (!ds || ds->corpus.empty())) {
    m_testHeadline->setText(
        spec.kind == Kind::Bm25
            ? tr("BM25 searches the dataset's corpus: open a dataset with documents first.")
            : tr("%1 searches the dataset's corpus: open a dataset with documents first.")
                  .arg(q(displayName(spec))));
    return false;
  }
  QString why;
  if (!confirmRetriever(this, spec, &why)) {
    m_testHeadline->setText(why);
    return false;
  }
  m_testButton->setEnabled(false);
  m_cancelTest->setEnabled(true);
  m_hits->setRowCount(0);
  m_testHeadline->setText(tr("Searching…"));
  const auto dataset = ds ? ds : std::make_shared<const core::Dataset>();
  resolveRetrieverKey(
      spec, this,
      [this, spec, dataset, text](bool ok, std::function<std::string()> key,
                                  const QString& message) {
        if (!ok) {
          m_testButton->setEnabled(currentRow() >= 0);
          m_cancelTest->setEnabled(false);
          m_testHeadline->setText(tr("Not tested: %1").arg(message));
          emit tested(false);
          return;
        }
        m_job->test(spec, dataset,
                    dataset->parts.empty() ? std::filesystem::path() : dataset->parts.front().path,
                    text, m_testK->value(), std::move(key));
      });
  return true;
}

void RetrieversPage::onTested(const std::shared_ptr<const core::RetrieverProbe>& probe) {
  m_testButton->setEnabled(currentRow() >= 0);
  m_cancelTest->setEnabled(false);
  if (probe->cancelled) {
    m_testHeadline->setText(tr("Cancelled."));
    emit tested(false);
    return;
  }
  if (!probe->ok) {
    m_testHeadline->setText(tr("Failed: %1").arg(q(probe->error)));
    emit tested(false);
    return;
  }
  QString index;
  if (!probe->index.dir.empty())
    index = probe->index.reused ? tr(" (index reused: %1)").arg(q(probe->index.dir.string()))
                                : tr(" (index built in %1 s: %2)")
                                      .arg(probe->index.buildSeconds, 0, 'f', 1)
                                      .arg(q(probe->index.dir.string()));
  for (const auto& note : probe->notes)  // a project's index folder left alone
    index += QStringLiteral("; ") + q(note);
  const QString hits =
      probe->hits.size() == 1 ? tr("1 hit") : tr("%1 hits").arg(probe->hits.size());
  m_testHeadline->setText(tr("%1 in %2 ms%3").arg(hits).arg(probe->searchMs, 0, 'f', 1).arg(index));
  m_hits->setRowCount(int(probe->hits.size()));
  for (int i = 0; i < int(probe->hits.size()); ++i) {
    const auto& h = probe->hits[std::size_t(i)];
    m_hits->setItem(i, 0, new QTableWidgetItem(QString::number(i + 1)));
    m_hits->setItem(i, 1, new QTableWidgetItem(q(h.id)));
    m_hits->setItem(i, 2, new QTableWidgetItem(QString::number(h.score, 'g', 6)));
    QString text = q(h.text).simplified();
    if (text.size() > 300) text = text.left(300) + QChar(0x2026);
    m_hits->setItem(i, 3, new QTableWidgetItem(text));
  }
  m_hits->resizeColumnsToContents();
  emit tested(true);
}

}  // namespace ragscope::ui
