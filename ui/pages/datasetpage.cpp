#include "ui/pages/datasetpage.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <utility>

#include "ui/labelbook.h"
#include "ui/models/documentlistmodel.h"
#include "ui/models/querytablemodel.h"
#include "ui/pages/corpusbrowser.h"
#include "ui/pages/documenttextview.h"
#include "ui/pages/largetable.h"
#include "ui/pages/querydetail.h"
#include "ui/preferences.h"
#include "ui/style.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

QString formatBytes(quint64 bytes) {
  return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeSIFormat);
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
      m_corpus(new CorpusBrowser) {
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
  m_onError->setToolTip(
      tr("What a load does with a malformed record: skip it (and list it under "
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
  m_tabs->addTab(m_corpus, tr("Corpus"));
  m_tabs->addTab(buildRunsTab(), tr("Runs"));
  m_tabs->setDocumentMode(true);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 0);
  layout->addLayout(header);
  layout->addWidget(m_tabs, 1);

  connect(m_cancel, &QPushButton::clicked, m_workbench, &Workbench::cancelLoad);
  connect(m_onError, &QComboBox::currentIndexChanged, this,
          [this] { m_workbench->setOnError(core::OnError(m_onError->currentData().toInt())); });
  connect(m_projectDatasets, &QComboBox::activated, this,
          [this] { m_workbench->openProjectDataset(m_projectDatasets->currentText()); });
  connect(m_workbench, &Workbench::datasetChanged, this, &DatasetPage::onDatasetChanged);
  connect(m_workbench, &Workbench::projectSaved, this, &DatasetPage::onProjectSaved);
  connect(m_workbench, &Workbench::loadStarted, this, &DatasetPage::onLoadStarted);
  connect(m_workbench, &Workbench::loadProgress, this, &DatasetPage::onLoadProgress);
  connect(m_workbench, &Workbench::loadFinished, this, &DatasetPage::onLoadFinished);
  connect(m_workbench, &Workbench::projectChanged, this, &DatasetPage::onProjectChanged);
  // A human grade given anywhere shows in the detail at once.
  connect(m_workbench->labelBook(), &LabelBook::labelsChanged, this, &DatasetPage::showQueryDetail);
  connect(m_workbench->labelBook(), &LabelBook::labelFailed, this,
          [this](const QString& why) { emit statusMessage(tr("Label not stored: %1").arg(why)); });
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
  m_detail->setPlaceholderText(
      tr("Select a query to see its gold answers, provenance and judged "
         "documents."));
  connect(m_detail, &QTextBrowser::anchorClicked, this, &DatasetPage::openLink);
  m_detail->installEventFilter(this);

  m_filterTimer->setSingleShot(true);
  m_filterTimer->setInterval(200);
  connect(m_queryFilter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
  connect(m_filterTimer, &QTimer::timeout, this, [this] { setQueryFilter(m_queryFilter->text()); });
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

QWidget* DatasetPage::buildRunsTab() {
  m_runs = new QTreeWidget;
  m_runs->setRootIsDecorated(false);
  m_runs->setAlternatingRowColors(true);
  m_runs->setHeaderLabels({tr("Run tag"), tr("Queries"), tr("Entries"),
                           tr("Queries with "
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
    if (format.isEmpty() && askFormats && !core::detectFormat(path) &&
        !core::isBundleFolder(path)) {
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
  const QString file =
      QFileDialog::getOpenFileName(this, tr("Open project"), Preferences::lastFolder.get(),
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
  m_loadingName = name;
  m_progress->setToolTip(QString());
  m_progress->setRange(0, 0);  // busy until the first progress report
  m_progress->setFormat(tr("Loading %1…").arg(name));
  m_progress->show();
  m_cancel->show();
  m_cancel->setEnabled(true);
  emit statusMessage(tr("Loading %1…").arg(name));
}

void DatasetPage::onLoadProgress(quint64 done, quint64 total) {
  if (total > 0 && done >= total - total / 100) {
    // Read (all but the last percent), not done: a big corpus's first open sorts and writes its
    // side index after the scan, seconds for millions of pages with no progress to report; a bar
    // at "99%" all that time looks stuck.
    // A busy bar shows no text: the status bar and the tooltip say what is going on.
    if (m_progress->maximum() != 0) {
      m_progress->setRange(0, 0);
      m_progress->setToolTip(
          tr("%1 read. What remains shows no progress: for a big corpus opened for "
             "the first time, sorting and writing its document index.")
              .arg(formatBytes(total)));
      emit statusMessage(
          tr("Loading %1: %2 read, finishing…").arg(m_loadingName, formatBytes(total)));
    }
  } else if (total > 0) {
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
    for (const auto& ds : project->datasets)
      m_projectDatasets->addItem(QString::fromStdString(ds.name));
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
  m_corpus->setDataset(dataset);
  m_detail->clear();
  m_queryView->sortByColumn(-1, Qt::AscendingOrder);
  m_queryProxy->invalidate();

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
  if (dataset->queries.empty() && !dataset->corpus.empty())
    m_tabs->setCurrentIndex(corpusTab());
  else if (dataset->queries.empty() && dataset->corpus.empty() && !dataset->runs.empty())
    m_tabs->setCurrentIndex(runsTab());
  else
    m_tabs->setCurrentIndex(queriesTab());

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
             {{QueryTableModel::Id, 220},
              {QueryTableModel::Answers, 170},
              {QueryTableModel::Task, 150},
              {QueryTableModel::Flags, 220}});
  updateQueryCount();
  if (m_queryProxy->rowCount() > 0) m_queryView->selectRow(0);
}

void DatasetPage::setQueryFilter(const QString& text) {
  // Not with signals blocked: the box's clear button follows textChanged. The timer it starts is
  // stopped instead.
  if (m_queryFilter->text() != text) m_queryFilter->setText(text);
  m_filterTimer->stop();
  m_queryProxy->setFilterText(text);
  updateQueryCount();
}

void DatasetPage::updateQueryCount() {
  const int shown = m_queryProxy->rowCount();
  const int total = m_queryModel->rowCount();
  m_queryCount->setText(shown == total ? tr("%L1 queries").arg(total)
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
  const LabelBook* book = m_workbench->labelBook();
  const auto labels = book->snapshot();
  QueryDetailOptions options;
  options.labels = labels.get();
  options.labelScope = book->datasetScope();
  options.annotator = book->annotator().toStdString();
  // The same query shown again (a label came in): the reader keeps their place and the document
  // they tabbed to.
  const bool same = m_detail->property("qid").toString() == QString::fromStdString(q->id);
  const int scroll = m_detail->verticalScrollBar()->value();
  const QString anchor = m_detail->textCursor().charFormat().anchorHref();
  m_detail->setHtml(queryDetailHtml(*dataset, *q, m_exampleIndex, options));
  m_detail->setProperty("qid", QString::fromStdString(q->id));
  if (!same) return;
  if (!anchor.isEmpty()) {
    for (QTextBlock b = m_detail->document()->begin(); b.isValid(); b = b.next())
      for (auto it = b.begin(); !it.atEnd(); ++it)
        if (it.fragment().charFormat().anchorHref() == anchor) {
          QTextCursor c(m_detail->document());
          c.setPosition(it.fragment().position());
          c.setPosition(it.fragment().position() + it.fragment().length(), QTextCursor::KeepAnchor);
          m_detail->setTextCursor(c);
          b = m_detail->document()->end().previous();  // found: stop both loops
          break;
        }
  }
  m_detail->verticalScrollBar()->setValue(scroll);
}

bool DatasetPage::gradeDocument(const std::string& docId, int grade) {
  const QModelIndex current = m_queryView->currentIndex();
  if (!current.isValid() || docId.empty() || grade < 0 || grade > 3) return false;
  const core::Query* q = m_queryModel->query(m_queryProxy->mapToSource(current).row());
  LabelBook* book = m_workbench->labelBook();
  if (!q || !book->ensureAnnotator(this)) return false;
  core::labels::Label label;
  label.target = {core::labels::TargetKind::Relevance, book->datasetScope(), q->id, docId};
  label.value = std::to_string(grade);
  book->add(std::move(label));
  return true;
}

bool DatasetPage::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_detail && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    const bool plain =
        !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier));
    if (plain && key->key() >= Qt::Key_0 && key->key() <= Qt::Key_3) {
      // The document whose link has the keyboard focus (Tab walks the links).
      const std::string doc = documentIdFromLink(m_detail->textCursor().charFormat().anchorHref());
      if (!doc.empty()) {
        gradeDocument(doc, key->key() - Qt::Key_0);
        return true;
      }
    }
  }
  return Page::eventFilter(watched, event);
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
  if (!m_corpus->showDocument(id)) return false;
  m_tabs->setCurrentIndex(corpusTab());
  return true;
}

QTableView* DatasetPage::documentView() const { return m_corpus->view(); }
DocumentListModel* DatasetPage::documentModel() const { return m_corpus->model(); }
DocumentFilterProxyModel* DatasetPage::documentProxy() const { return m_corpus->proxy(); }
QPlainTextEdit* DatasetPage::documentText() const { return m_corpus->textView(); }

bool DatasetPage::showRecord(const core::Diagnostic& d) {
  const QString file = QString::fromStdString(d.file);
  if (m_workbench->isQueryFile(file)) {
    const int row = m_queryModel->rowForLine(d.line);
    if (row >= 0 && selectQueryRow(row)) {
      const core::Query* q = m_queryModel->query(row);
      emit statusMessage(
          q->line == d.line
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
  int grade = 0;
  std::string graded;
  if (gradeFromLink(url.toString(), &grade, &graded)) {
    gradeDocument(graded, grade);
    return;
  }
  const std::string id = documentIdFromLink(url.toString());
  if (id.empty()) return;
  if (!showDocument(id))
    emit statusMessage(
        tr("Document %1 is not in the loaded corpus").arg(QString::fromStdString(id)));
}

}  // namespace ragscope::ui
