#include "ui/pages/datasetpage.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>
#include <map>

#include "ui/models/documentlistmodel.h"
#include "ui/models/querytablemodel.h"
#include "ui/pages/querydetail.h"
#include "ui/preferences.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

QString formatBytes(quint64 bytes) {
  return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeSIFormat);
}

// Fixed row heights let the view compute positions arithmetically: a million rows scroll as
// smoothly as a hundred.
void setUpLargeTable(QTableView* view) {
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->setSortingEnabled(true);
  view->setTextElideMode(Qt::ElideRight);
  view->verticalHeader()->hide();
  view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
  view->horizontalHeader()->setHighlightSections(false);
  view->horizontalHeader()->setSortIndicatorShown(true);
}

// Keeps a table's `fill` column as wide as the viewport leaves it, also when the viewport later
// changes width (a vertical scroll bar appearing, the splitter or window moving): sized once at
// load, the last columns ended up clipped behind a horizontal scroll bar.
class FillColumn : public QObject {
 public:
  FillColumn(QTableView* view, int column) : QObject(view), m_view(view), m_column(column) {
    setObjectName(QStringLiteral("fillColumn"));
    view->viewport()->installEventFilter(this);
  }
  void setColumn(int column) { m_column = column; }
  void fit() {
    auto* header = m_view->horizontalHeader();
    int used = 0;
    for (int c = 0; c < header->count(); ++c)
      if (c != m_column && !header->isSectionHidden(c)) used += header->sectionSize(c);
    header->resizeSection(m_column, std::max(240, m_view->viewport()->width() - used - 4));
  }
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Resize) fit();
    return QObject::eventFilter(watched, event);
  }

 private:
  QTableView* m_view;
  int m_column;
};

// Column widths from the first rows (a million-row model is never measured whole); columns without
// any data are hidden. `fill` takes the width the others leave in the viewport.
template <class Model>
void fitColumns(QTableView* view, const Model* model, int fill, const std::map<int, int>& caps) {
  const QFontMetrics fm = view->fontMetrics();
  auto* header = view->horizontalHeader();
  const int rows = std::min(model->rowCount(), 300);
  for (int c = 0; c < model->columnCount(); ++c) {
    const bool hidden = model->isColumnEmpty(c);
    view->setColumnHidden(c, hidden);
    if (hidden || c == fill) continue;
    int width = fm.horizontalAdvance(model->headerData(c, Qt::Horizontal).toString()) + 30;
    for (int r = 0; r < rows; ++r)
      width = std::max(width, fm.horizontalAdvance(model->index(r, c).data().toString()) + 14);
    const auto cap = caps.find(c);
    width = std::min(width, cap == caps.end() ? 280 : cap->second);
    header->resizeSection(c, width);
  }
  auto* filler = dynamic_cast<FillColumn*>(
      view->findChild<QObject*>(QStringLiteral("fillColumn"), Qt::FindDirectChildrenOnly));
  if (!filler) filler = new FillColumn(view, fill);
  filler->setColumn(fill);
  filler->fit();
}

QLabel* mutedLabel() {
  auto* label = new QLabel;
  QPalette pal = label->palette();
  pal.setColor(QPalette::WindowText, QColor(0x5f, 0x5f, 0x5f));
  label->setPalette(pal);
  return label;
}

}  // namespace

DatasetPage::DatasetPage(Workbench* workbench, QWidget* parent)
    : Page(parent),
      m_workbench(workbench),
      m_name(new QLabel(tr("No dataset"))),
      m_summary(mutedLabel()),
      m_projectDatasets(new QComboBox),
      m_onError(new QComboBox),
      m_progress(new QProgressBar),
      m_cancel(new QPushButton(tr("Cancel"))),
      m_open(new QToolButton),
      m_tabs(new QTabWidget),
      m_queryModel(new QueryTableModel(this)),
      m_queryProxy(new QueryFilterProxyModel(this)),
      m_filterTimer(new QTimer(this)),
      m_docModel(new DocumentListModel(this)),
      m_docProxy(new DocumentFilterProxyModel(this)),
      m_docFilterTimer(new QTimer(this)) {
  setObjectName(QStringLiteral("DatasetPage"));
  QFont nameFont = m_name->font();
  nameFont.setPointSizeF(nameFont.pointSizeF() * 1.3);
  nameFont.setBold(true);
  m_name->setFont(nameFont);
  m_summary->setText(tr("Open a dataset file, a folder bundle or a project (File menu)."));

  // Header: name + summary, project dataset switcher, load progress, open button.
  m_projectDatasets->setToolTip(tr("Datasets of the open project"));
  m_projectDatasets->hide();
  m_onError->addItem(tr("Skip bad records"), int(core::OnError::Skip));
  m_onError->addItem(tr("Stop at first error"), int(core::OnError::Stop));
  m_onError->setToolTip(tr("What a load does with a malformed record: skip it (and list it under "
                           "Issues) or stop"));
  m_progress->setMinimumWidth(220);
  m_progress->setTextVisible(true);
  m_progress->hide();
  m_cancel->hide();
  m_open->setText(tr("Open"));
  m_open->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
  m_open->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_open->setPopupMode(QToolButton::InstantPopup);
  auto* openMenu = new QMenu(m_open);
  openMenu->addAction(tr("Dataset files…"), this, &DatasetPage::chooseFiles);
  openMenu->addAction(tr("Dataset folder…"), this, &DatasetPage::chooseFolder);
  openMenu->addAction(tr("Project…"), this, &DatasetPage::chooseProject);
  m_open->setMenu(openMenu);

  auto* titleBox = new QVBoxLayout;
  titleBox->setSpacing(2);
  titleBox->addWidget(m_name);
  titleBox->addWidget(m_summary);
  auto* header = new QHBoxLayout;
  header->addLayout(titleBox, 1);
  header->addWidget(m_projectDatasets);
  header->addWidget(m_progress);
  header->addWidget(m_cancel);
  header->addWidget(m_onError);
  header->addWidget(m_open);

  m_tabs->addTab(buildQueriesTab(), tr("Queries"));
  m_tabs->addTab(buildCorpusTab(), tr("Corpus"));
  m_tabs->addTab(buildRunsTab(), tr("Runs"));
  m_tabs->setDocumentMode(true);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 0);
  layout->addLayout(header);
  layout->addWidget(m_tabs, 1);

  connect(m_cancel, &QPushButton::clicked, m_workbench, &Workbench::cancelLoad);
  connect(m_onError, &QComboBox::currentIndexChanged, this, [this] {
    m_workbench->setOnError(core::OnError(m_onError->currentData().toInt()));
  });
  connect(m_projectDatasets, &QComboBox::activated, this, [this] {
    m_workbench->openProjectDataset(m_projectDatasets->currentText());
  });
  connect(m_workbench, &Workbench::datasetChanged, this, &DatasetPage::onDatasetChanged);
  connect(m_workbench, &Workbench::projectSaved, this, &DatasetPage::onProjectSaved);
  connect(m_workbench, &Workbench::loadStarted, this, &DatasetPage::onLoadStarted);
  connect(m_workbench, &Workbench::loadProgress, this, &DatasetPage::onLoadProgress);
  connect(m_workbench, &Workbench::loadFinished, this, &DatasetPage::onLoadFinished);
  connect(m_workbench, &Workbench::projectChanged, this, &DatasetPage::onProjectChanged);
}

DatasetPage::~DatasetPage() = default;

QIcon DatasetPage::icon() const { return style()->standardIcon(QStyle::SP_FileDialogDetailedView); }

QWidget* DatasetPage::buildQueriesTab() {
  m_queryProxy->setSourceModel(m_queryModel);
  m_queryFilter = new QLineEdit;
  m_queryFilter->setPlaceholderText(tr("Filter queries by id or text"));
  m_queryFilter->setClearButtonEnabled(true);
  m_flaggedOnly = new QCheckBox(tr("Flagged only"));
  m_queryCount = mutedLabel();

  m_queryView = new QTableView;
  m_queryView->setObjectName(QStringLiteral("QueryTable"));
  setUpLargeTable(m_queryView);
  m_queryView->setModel(m_queryProxy);
  m_queryView->sortByColumn(-1, Qt::AscendingOrder);  // file order until the user sorts
  m_queryView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

  m_detail = new QTextBrowser;
  m_detail->setObjectName(QStringLiteral("QueryDetail"));
  m_detail->setOpenLinks(false);
  m_detail->setPlaceholderText(tr("Select a query to see its gold answers, provenance and judged "
                                  "documents."));
  connect(m_detail, &QTextBrowser::anchorClicked, this, &DatasetPage::openLink);

  m_filterTimer->setSingleShot(true);
  m_filterTimer->setInterval(200);
  connect(m_queryFilter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
  connect(m_filterTimer, &QTimer::timeout, this,
          [this] { setQueryFilter(m_queryFilter->text()); });
  connect(m_flaggedOnly, &QCheckBox::toggled, this, [this](bool on) {
    m_queryProxy->setFlaggedOnly(on);
    updateQueryCount();
  });
  connect(m_queryView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &DatasetPage::showQueryDetail);

  auto* left = new QWidget;
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(m_queryFilter, 1);
  filterRow->addWidget(m_flaggedOnly);
  filterRow->addWidget(m_queryCount);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 6, 0, 0);
  leftLayout->addLayout(filterRow);
  leftLayout->addWidget(m_queryView, 1);

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("QuerySplitter"));
  splitter->addWidget(left);
  splitter->addWidget(m_detail);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setSizes({800, 460});
  return splitter;
}

QWidget* DatasetPage::buildCorpusTab() {
  m_docProxy->setSourceModel(m_docModel);
  m_docFilter = new QLineEdit;
  m_docFilter->setPlaceholderText(tr("Filter documents by id, title or source file"));
  m_docFilter->setClearButtonEnabled(true);
  m_docCount = mutedLabel();

  m_docView = new QTableView;
  m_docView->setObjectName(QStringLiteral("DocumentTable"));
  setUpLargeTable(m_docView);
  m_docView->setModel(m_docProxy);
  m_docView->sortByColumn(-1, Qt::AscendingOrder);
  m_docView->horizontalHeader()->setStretchLastSection(true);

  m_docHeading = new QLabel;
  m_docHeading->setWordWrap(true);
  m_docHeading->setTextFormat(Qt::RichText);
  m_docHeading->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_docText = new QPlainTextEdit;
  m_docText->setObjectName(QStringLiteral("DocumentText"));
  m_docText->setReadOnly(true);
  m_docText->setPlaceholderText(tr("Select a document to read its text."));

  m_docFilterTimer->setSingleShot(true);
  m_docFilterTimer->setInterval(200);
  connect(m_docFilter, &QLineEdit::textChanged, m_docFilterTimer, qOverload<>(&QTimer::start));
  connect(m_docFilterTimer, &QTimer::timeout, this, [this] {
    m_docProxy->setFilterText(m_docFilter->text());
    updateDocCount();
  });
  connect(m_docView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &DatasetPage::showDocumentText);

  auto* left = new QWidget;
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(m_docFilter, 1);
  filterRow->addWidget(m_docCount);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 6, 0, 0);
  leftLayout->addLayout(filterRow);
  leftLayout->addWidget(m_docView, 1);

  auto* right = new QWidget;
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 6, 0, 0);
  rightLayout->addWidget(m_docHeading);
  rightLayout->addWidget(m_docText, 1);

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("CorpusSplitter"));
  splitter->addWidget(left);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({640, 620});
  return splitter;
}

QWidget* DatasetPage::buildRunsTab() {
  m_runs = new QTreeWidget;
  m_runs->setRootIsDecorated(false);
  m_runs->setAlternatingRowColors(true);
  m_runs->setHeaderLabels({tr("Run tag"), tr("Queries"), tr("Entries"), tr("Queries with "
                                                                            "judgments"),
                           tr("File")});
  m_runs->header()->resizeSection(0, 200);
  return m_runs;
}

bool DatasetPage::openPaths(const QStringList& paths, const QStringList& formats, bool askFormats) {
  if (paths.isEmpty()) return false;
  // A single project file opens the project.
  if (paths.size() == 1 && paths.front().endsWith(QLatin1String(".ragscope.json")))
    return m_workbench->openProject(paths.front());

  RecentDataset spec;
  for (qsizetype i = 0; i < paths.size(); ++i) {
    QString format = formats.size() == 1 ? formats.front() : formats.value(i);
    // Undetectable and not asked: left empty, the Workbench lists it under Issues.
    const std::filesystem::path path = paths[i].toStdString();
    if (format.isEmpty() && askFormats && !core::detectFormat(path) && !core::isBundleFolder(path)) {
      format = askFormat(paths[i]);
      if (format.isEmpty()) return false;  // the user cancelled
    }
    spec.parts.push_back({QFileInfo(paths[i]).absoluteFilePath(), format});
  }
  Preferences::lastFolder.set(QFileInfo(paths.front()).absolutePath());
  return m_workbench->openDataset(spec);
}

QString DatasetPage::askFormat(const QString& path) {
  QStringList names;
  for (core::Format f : core::allFormats()) names << QString::fromUtf8(core::formatName(f).data());
  bool ok = false;
  const QString chosen = QInputDialog::getItem(
      this, tr("Choose the format"),
      tr("The format of %1 could not be detected.\nRead it as:").arg(QFileInfo(path).fileName()),
      names, 0, false, &ok);
  return ok ? chosen : QString();
}

void DatasetPage::chooseFiles() {
  const QStringList files = QFileDialog::getOpenFileNames(
      this, tr("Open dataset files"), Preferences::lastFolder.get(),
      tr("Dataset files (*.jsonl *.json *.tsv *.txt *.csv *.qrels *.run);;All files (*)"));
  if (!files.isEmpty()) openPaths(files);
}

void DatasetPage::chooseFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a dataset folder"),
                                                        Preferences::lastFolder.get());
  if (!dir.isEmpty()) openPaths({dir});
}

void DatasetPage::chooseProject() {
  const QString file = QFileDialog::getOpenFileName(
      this, tr("Open project"), Preferences::lastFolder.get(),
      tr("ragscope projects (*.ragscope.json);;JSON (*.json)"));
  if (file.isEmpty()) return;
  Preferences::lastFolder.set(QFileInfo(file).absolutePath());
  m_workbench->openProject(file);
}

void DatasetPage::saveProject() {
  const QString current = m_workbench->projectFile();
  if (current.isEmpty()) return saveProjectAs();
  m_saveRequested = m_workbench->saveProject(current);  // onProjectSaved reports
}

void DatasetPage::onProjectSaved(bool ok, const QString& fileOrError) {
  if (!std::exchange(m_saveRequested, false)) return;
  if (ok)
    emit statusMessage(tr("Project saved to %1").arg(fileOrError));
  else
    QMessageBox::warning(this, tr("Save project"), fileOrError);
}

void DatasetPage::saveProjectAs() {
  const QString start =
      m_workbench->projectFile().isEmpty()
          ? QDir(Preferences::lastFolder.get()).filePath(QStringLiteral("untitled.ragscope.json"))
          : m_workbench->projectFile();
  QString file = QFileDialog::getSaveFileName(this, tr("Save project as"), start,
                                              tr("ragscope projects (*.ragscope.json)"));
  if (file.isEmpty()) return;
  if (!file.endsWith(QLatin1String(".ragscope.json"))) {
    if (file.endsWith(QLatin1String(".json"))) file.chop(5);
    file += QLatin1String(".ragscope.json");
  }
  Preferences::lastFolder.set(QFileInfo(file).absolutePath());
  m_saveRequested = m_workbench->saveProject(file);  // onProjectSaved reports
}

void DatasetPage::onLoadStarted(const QString& name) {
  m_progress->setRange(0, 0);  // busy until the first progress report
  m_progress->setFormat(tr("Loading %1…").arg(name));
  m_progress->show();
  m_cancel->show();
  m_cancel->setEnabled(true);
  emit statusMessage(tr("Loading %1…").arg(name));
}

void DatasetPage::onLoadProgress(quint64 done, quint64 total) {
  if (total > 0) {
    m_progress->setRange(0, 1000);
    m_progress->setValue(int(std::min<quint64>(1000, done * 1000 / total)));
    m_progress->setFormat(tr("%p% (%1 of %2)").arg(formatBytes(done), formatBytes(total)));
  } else {
    m_progress->setRange(0, 0);
    m_progress->setFormat(formatBytes(done));
  }
}

void DatasetPage::onLoadFinished(bool, const QString& message) {
  m_progress->hide();
  m_cancel->hide();
  emit statusMessage(message);
}

void DatasetPage::onProjectChanged() {
  const auto& project = m_workbench->project();
  m_projectDatasets->clear();
  if (project)
    for (const auto& ds : project->datasets) m_projectDatasets->addItem(QString::fromStdString(ds.name));
  m_projectDatasets->setVisible(project && project->datasets.size() > 1);
  m_projectDatasets->setCurrentText(m_workbench->datasetName());
}

void DatasetPage::onDatasetChanged() {
  const auto dataset = m_workbench->dataset();
  m_exampleIndex.clear();
  if (dataset)
    for (std::size_t i = 0; i < dataset->examples.size(); ++i)
      m_exampleIndex.emplace(dataset->examples[i].id, i);

  m_queryModel->setDataset(dataset);
  m_docModel->setDataset(dataset);
  m_detail->clear();
  m_docText->clear();
  m_docHeading->clear();
  m_queryView->sortByColumn(-1, Qt::AscendingOrder);
  m_docView->sortByColumn(-1, Qt::AscendingOrder);
  m_queryProxy->invalidate();
  m_docProxy->invalidate();

  m_name->setText(m_workbench->datasetName());
  const int projectIndex = m_projectDatasets->findText(m_workbench->datasetName());
  if (projectIndex >= 0) m_projectDatasets->setCurrentIndex(projectIndex);
  if (!dataset) return;

  QStringList facts;
  facts << tr("%L1 queries").arg(dataset->queries.size());
  facts << tr("%L1 documents").arg(dataset->corpus.size());
  facts << tr("%L1 judgments").arg(dataset->qrels.judgmentCount());
  facts << tr("%n run(s)", nullptr, int(dataset->runs.size()));
  if (!dataset->examples.empty()) facts << tr("%L1 examples").arg(dataset->examples.size());
  facts << tr("%n file(s)", nullptr, int(dataset->parts.size()));
  m_summary->setText(facts.join(QStringLiteral(" · ")));
  m_summary->setToolTip([&] {
    QStringList lines;
    for (const auto& part : dataset->parts) lines << QString::fromStdString(part.path.string());
    return lines.join(QLatin1Char('\n'));
  }());

  m_tabs->setTabText(queriesTab(), tr("Queries (%L1)").arg(dataset->queries.size()));
  m_tabs->setTabText(corpusTab(), tr("Corpus (%L1)").arg(dataset->corpus.size()));
  m_tabs->setTabText(runsTab(), tr("Runs (%1)").arg(dataset->runs.size()));
  // Land on something non-empty.
  if (dataset->queries.empty() && !dataset->corpus.empty()) m_tabs->setCurrentIndex(corpusTab());
  else if (dataset->queries.empty() && dataset->corpus.empty() && !dataset->runs.empty())
    m_tabs->setCurrentIndex(runsTab());
  else m_tabs->setCurrentIndex(queriesTab());

  m_runs->clear();
  for (const auto& run : dataset->runs) {
    std::size_t judged = 0;
    for (const auto& r : run.rankings) judged += dataset->qrels.byQuery.count(r.queryId);
    auto* item = new QTreeWidgetItem(m_runs);
    item->setText(0, QString::fromStdString(run.tag));
    item->setText(1, QLocale().toString(qulonglong(run.rankings.size())));
    item->setText(2, QLocale().toString(qulonglong(run.entryCount())));
    item->setText(3, QLocale().toString(qulonglong(judged)));
    item->setText(4, QString::fromStdString(run.source));
    for (int c = 1; c <= 3; ++c) item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
  }

  for (int c = 0; c < m_runs->columnCount(); ++c) m_runs->resizeColumnToContents(c);

  fitColumns(m_queryView, m_queryModel, QueryTableModel::Text,
             {{QueryTableModel::Id, 220}, {QueryTableModel::Answers, 170}, {QueryTableModel::Task, 150},
              {QueryTableModel::Flags, 220}});
  fitColumns(m_docView, m_docModel, DocumentListModel::Preview,
             {{DocumentListModel::Id, 240}, {DocumentListModel::Title, 220},
              {DocumentListModel::Source, 180}});
  updateQueryCount();
  updateDocCount();
  if (m_queryProxy->rowCount() > 0) m_queryView->selectRow(0);
  if (m_docProxy->rowCount() > 0) m_docView->selectRow(0);
}

void DatasetPage::setQueryFilter(const QString& text) {
  m_filterTimer->stop();
  if (m_queryFilter->text() != text) {
    const QSignalBlocker block(m_queryFilter);
    m_queryFilter->setText(text);
  }
  m_queryProxy->setFilterText(text);
  updateQueryCount();
}

void DatasetPage::updateQueryCount() {
  const int shown = m_queryProxy->rowCount();
  const int total = m_queryModel->rowCount();
  m_queryCount->setText(shown == total ? tr("%L1 queries").arg(total)
                                       : tr("%L1 of %L2").arg(shown).arg(total));
}

void DatasetPage::updateDocCount() {
  const int shown = m_docProxy->rowCount();
  const int total = m_docModel->rowCount();
  m_docCount->setText(shown == total ? tr("%L1 documents").arg(total)
                                     : tr("%L1 of %L2").arg(shown).arg(total));
}

void DatasetPage::showQueryDetail() {
  const QModelIndex current = m_queryView->currentIndex();
  const auto dataset = m_workbench->dataset();
  if (!current.isValid() || !dataset) {
    m_detail->clear();
    return;
  }
  const int row = m_queryProxy->mapToSource(current).row();
  const core::Query* q = m_queryModel->query(row);
  if (!q) return;
  m_detail->setHtml(queryDetailHtml(*dataset, *q, m_exampleIndex));
}

void DatasetPage::showDocumentText() {
  const QModelIndex current = m_docView->currentIndex();
  const core::Document* doc =
      current.isValid() ? m_docModel->document(m_docProxy->mapToSource(current).row()) : nullptr;
  if (!doc) {
    m_docHeading->clear();
    m_docText->clear();
    return;
  }
  m_docHeading->setText(documentHeadingHtml(*doc));
  m_docText->setPlainText(QString::fromStdString(doc->fullText()));
}

bool DatasetPage::selectQueryRow(int datasetRow) {
  if (!m_queryModel->query(datasetRow)) return false;
  QModelIndex proxyIndex = m_queryProxy->mapFromSource(m_queryModel->index(datasetRow, 0));
  if (!proxyIndex.isValid()) {
    // The filter hides it: clear the filter rather than refuse the jump.
    m_flaggedOnly->setChecked(false);
    setQueryFilter(QString());
    proxyIndex = m_queryProxy->mapFromSource(m_queryModel->index(datasetRow, 0));
  }
  if (!proxyIndex.isValid()) return false;
  m_tabs->setCurrentIndex(queriesTab());
  m_queryView->setCurrentIndex(proxyIndex);
  m_queryView->selectRow(proxyIndex.row());
  m_queryView->scrollTo(proxyIndex, QAbstractItemView::PositionAtCenter);
  return true;
}

bool DatasetPage::showDocument(const std::string& id) {
  const int row = m_docModel->rowForId(id);
  if (row < 0) return false;
  QModelIndex proxyIndex = m_docProxy->mapFromSource(m_docModel->index(row, 0));
  if (!proxyIndex.isValid()) {
    m_docFilter->clear();
    m_docProxy->setFilterText(QString());
    updateDocCount();
    proxyIndex = m_docProxy->mapFromSource(m_docModel->index(row, 0));
  }
  m_tabs->setCurrentIndex(corpusTab());
  m_docView->setCurrentIndex(proxyIndex);
  m_docView->selectRow(proxyIndex.row());
  m_docView->scrollTo(proxyIndex, QAbstractItemView::PositionAtCenter);
  return true;
}

bool DatasetPage::showRecord(const core::Diagnostic& d) {
  const QString file = QString::fromStdString(d.file);
  if (m_workbench->isQueryFile(file)) {
    const int row = m_queryModel->rowForLine(d.line);
    if (row >= 0 && selectQueryRow(row)) {
      const core::Query* q = m_queryModel->query(row);
      emit statusMessage(q->line == d.line
                             ? tr("Query %1 (line %2)").arg(QString::fromStdString(q->id)).arg(q->line)
                             : tr("Line %1 was not loaded; nearest record: query %2 (line %3)")
                                   .arg(d.line)
                                   .arg(QString::fromStdString(q->id))
                                   .arg(q->line));
      return true;
    }
  }
  // Corpus files (PDFs, collections): show the document named by the file, if any.
  if (showDocument(QFileInfo(file).fileName().toStdString())) return true;
  emit statusMessage(tr("No record to show for %1").arg(QString::fromStdString(d.toString())));
  return false;
}

void DatasetPage::openLink(const QUrl& url) {
  const std::string id = documentIdFromLink(url.toString());
  if (id.empty()) return;
  if (!showDocument(id))
    emit statusMessage(tr("Document %1 is not in the loaded corpus").arg(QString::fromStdString(id)));
}

}  // namespace ragscope::ui
