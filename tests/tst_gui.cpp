// GUI tests: the models under QAbstractItemModelTester, the dataset page loading in the background,
// the Issues dock's jump-to-record, the query filter, recent datasets, the --self-test smoke test
// and every real dataset format opened through the page.

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/data/dataset.h"
#include "core/data/loaders.h"
#include "ui/issuesdock.h"
#include "ui/mainwindow.h"
#include "ui/models/diagnosticsmodel.h"
#include "ui/models/documentlistmodel.h"
#include "ui/models/naturalsort.h"
#include "ui/models/querytablemodel.h"
#include "ui/pages/datasetpage.h"
#include "ui/pages/documenttextview.h"
#include "ui/pages/querydetail.h"
#include "ui/preferences.h"
#include "ui/reportdialog.h"
#include "ui/viewexport.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

constexpr int kLoadTimeoutMs = 180000;

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A small dataset built by hand: ids that sort differently as text and as numbers, a non-ASCII
// query, gold answers with provenance, judgments and a corpus.
std::shared_ptr<const core::Dataset> handDataset() {
  auto ds = std::make_shared<core::Dataset>();
  auto addQuery = [&](std::string id, std::string text, std::uint64_t line) {
    core::Query q;
    q.id = std::move(id);
    q.text = std::move(text);
    q.line = line;
    ds->queries.push_back(std::move(q));
  };
  addQuery("2", "What is BM25?", 1);
  addQuery("10", "Ranking with an Étude of CRLF files", 2);
  addQuery("1", "Who wrote trec_eval", 3);
  addQuery("q1", "Dense retrieval and bm25 hybrids", 5);
  core::GoldOutput gold;
  gold.answer = "A ranking function";
  gold.hasAnswer = true;
  gold.provenance.push_back({"d1", "Okapi BM25", "Section::::Abstract.", 1, 2});
  ds->queries[0].gold.push_back(gold);
  ds->queries[2].flags.push_back("no SOURCE(S) line");
  ds->qrels.byQuery["2"] = {{"d1", 2, 1}, {"d2", 0, 2}};
  ds->corpus.add({"d1", "Okapi BM25", "BM25 is a <ranking> function & more.", "", 0, -1, {}});
  ds->corpus.add({"d2", "", "Unrelated text.", "file.pdf", 3, 0, {}});
  return ds;
}

QStringList idsShown(const ui::QueryFilterProxyModel& proxy, const ui::QueryTableModel& model) {
  QStringList ids;
  for (int r = 0; r < proxy.rowCount(); ++r)
    ids << QString::fromStdString(model.query(proxy.mapToSource(proxy.index(r, 0)).row())->id);
  return ids;
}

bool writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// Opens paths through the page and waits for the background load to finish.
bool openAndWait(ui::MainWindow& window, const QStringList& paths, const QStringList& formats,
                 bool* ok = nullptr) {
  QSignalSpy finished(window.workbench(), &ui::Workbench::loadFinished);
  if (!window.datasetPage()->openPaths(paths, formats, false)) return false;
  if (finished.isEmpty() && !finished.wait(kLoadTimeoutMs)) return false;
  if (ok) *ok = finished.front().at(0).toBool();
  return true;
}

// Saves the project (off the GUI thread) and waits for the outcome; prints the error on failure.
bool saveAndWait(ui::Workbench* wb, const QString& file) {
  QSignalSpy saved(wb, &ui::Workbench::projectSaved);
  if (!wb->saveProject(file)) return false;
  if (saved.isEmpty() && !saved.wait(10000)) return false;
  if (!saved.front().at(0).toBool()) qWarning("%s", qPrintable(saved.front().at(1).toString()));
  return saved.front().at(0).toBool();
}

}  // namespace

class TestGui : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void modelsPassTester();
  void documentsLeftInTheirFile();
  void naturalIdOrder();
  void queryFilter_data();
  void queryFilter();
  void sortsIdsNumerically();
  void detailPaneEscapesAndShowsProvenance();
  void detailPaneShowsProvenanceParagraphs();
  void pageLoadsInBackground();
  void cancelKeepsPreviousDataset();
  void issuesDockJumpsToRecord();
  void recentDatasetsRemembered();
  void projectSaveAndReopen();
  void windowStateRestored();
  void millionRowsStayCheap();
  void selfTestSmoke();
  void selfTestSameRunTwice();
  void selfTestExitsAfterAnEarlyFailure();
  void headlessDemo();
  void reportDialogWritesWhatTheCliWrites();
  void exportViewAsShown();
  void pdfHoldsTheSummaryNumbers();
  void pdfShowsHostileTextLiterally();
  void realDatasets_data();
  void realDatasets();
};

void TestGui::initTestCase() {
  // Never touch the user's settings.
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("ragscope-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_gui"));
  QSettings().clear();
}

void TestGui::modelsPassTester() {
  const auto ds = handDataset();
  ui::QueryTableModel queries;
  ui::QueryFilterProxyModel queryProxy;
  queryProxy.setSourceModel(&queries);
  ui::DocumentListModel docs;
  ui::DocumentFilterProxyModel docProxy;
  docProxy.setSourceModel(&docs);
  ui::DiagnosticsModel diags;
  const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
  QAbstractItemModelTester t1(&queries, mode), t2(&queryProxy, mode), t3(&docs, mode),
      t4(&docProxy, mode), t5(&diags, mode);

  queries.setDataset(ds);
  docs.setDataset(ds);
  QCOMPARE(queries.rowCount(), 4);
  QCOMPARE(queries.columnCount(), int(ui::QueryTableModel::ColumnCount));
  QCOMPARE(docs.rowCount(), 2);
  queryProxy.setFilterText(QStringLiteral("bm25"));
  queryProxy.sort(ui::QueryTableModel::Judged, Qt::DescendingOrder);
  queryProxy.setFilterText(QString());
  queryProxy.setFlaggedOnly(true);
  QCOMPARE(queryProxy.rowCount(), 1);
  queryProxy.setFlaggedOnly(false);
  docProxy.setFilterText(QStringLiteral("file.pdf"));
  QCOMPARE(docProxy.rowCount(), 1);
  docProxy.sort(ui::DocumentListModel::Page);
  queries.setDataset(nullptr);
  docs.setDataset(nullptr);
  QCOMPARE(queryProxy.rowCount(), 0);

  core::Diagnostic d;
  d.file = "/tmp/x.tsv";
  d.line = 3;
  d.field = "record";
  d.problem = "missing tab";
  diags.setDiagnostics({d});
  d.severity = core::Severity::Warning;
  diags.append({d, d});
  QCOMPARE(diags.rowCount(), 3);
  QCOMPARE(diags.errorCount(), 1);
  QCOMPARE(diags.warningCount(), 2);
  QCOMPARE(diags.index(0, ui::DiagnosticsModel::File).data().toString(), QStringLiteral("x.tsv"));
  diags.clear();
  QCOMPARE(diags.rowCount(), 0);
}

// A big collection's passages stay in the file (LoadOptions::textInFileFrom): the document list
// shows their length and text read from it, sorts by length, and keeps its order when asked to
// sort by text (which would read every passage many times on the GUI thread).
void TestGui::documentsLeftInTheirFile() {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("collection.tsv"));
  {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("p1\tzebra crossing at noon\np2\tant\np3\tmiddle length text\n");
  }
  auto ds = std::make_shared<core::Dataset>();
  core::LoadOptions o;
  o.textInFileFrom = 0;
  QVERIFY(core::loadMsmarcoCollection(path.toStdString(), *ds, o).ok());
  QVERIFY(ds->corpus.at(0).stored.file);
  ui::DocumentListModel docs;
  ui::DocumentFilterProxyModel proxy;
  proxy.setSourceModel(&docs);
  QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
  docs.setDataset(ds);
  QCOMPARE(docs.index(0, ui::DocumentListModel::Chars).data().toULongLong(), 22ull);
  QCOMPARE(docs.index(1, ui::DocumentListModel::Preview).data().toString(), QStringLiteral("ant"));
  QCOMPARE(docs.index(2, ui::DocumentListModel::Preview).data(Qt::ToolTipRole).toString(),
           QStringLiteral("middle length text"));
  proxy.sort(ui::DocumentListModel::Chars);
  QCOMPARE(proxy.index(0, ui::DocumentListModel::Id).data().toString(), QStringLiteral("p2"));
  QCOMPARE(proxy.index(2, ui::DocumentListModel::Id).data().toString(), QStringLiteral("p1"));
  proxy.sort(ui::DocumentListModel::Preview);
  QCOMPARE(proxy.index(0, ui::DocumentListModel::Id).data().toString(), QStringLiteral("p1"));
  QCOMPARE(proxy.index(1, ui::DocumentListModel::Id).data().toString(), QStringLiteral("p2"));
}

void TestGui::naturalIdOrder() {
  // Table rows sort ids as people read them; byte order would put q10 before q2.
  const QStringList ids{"q10", "Q1", "q2", "104861", "1037798", "r100", "r9", "q002x"};
  QStringList sorted = ids;
  std::sort(sorted.begin(), sorted.end(), [](const QString& a, const QString& b) {
    return ui::naturalSortKey(a) < ui::naturalSortKey(b);
  });
  QCOMPARE(sorted, (QStringList{"104861", "1037798", "Q1", "q2", "q002x", "q10", "r9", "r100"}));
  QCOMPARE(ui::naturalSortKey("q007"), ui::naturalSortKey("q7"));  // leading zeros do not count
}

void TestGui::queryFilter_data() {
  QTest::addColumn<QString>("filter");
  QTest::addColumn<QStringList>("ids");
  QTest::newRow("empty keeps all") << QString() << QStringList{"2", "10", "1", "q1"};
  QTest::newRow("ascii, any case, text") << "BM25" << QStringList{"2", "q1"};
  QTest::newRow("non-ascii, other case") << QStringLiteral("éTUDE") << QStringList{"10"};
  QTest::newRow("id substring") << "q1" << QStringList{"q1"};
  QTest::newRow("id digits and text") << "1" << QStringList{"10", "1", "q1"};
  QTest::newRow("surrounding spaces ignored") << "  trec_eval " << QStringList{"1"};
  QTest::newRow("no match") << "zzz" << QStringList{};
}

void TestGui::queryFilter() {
  QFETCH(QString, filter);
  QFETCH(QStringList, ids);
  ui::QueryTableModel model;
  ui::QueryFilterProxyModel proxy;
  proxy.setSourceModel(&model);
  model.setDataset(handDataset());
  proxy.setFilterText(filter);
  QCOMPARE(idsShown(proxy, model), ids);
}

void TestGui::sortsIdsNumerically() {
  ui::QueryTableModel model;
  ui::QueryFilterProxyModel proxy;
  proxy.setSourceModel(&model);
  model.setDataset(handDataset());
  proxy.sort(ui::QueryTableModel::Id, Qt::AscendingOrder);
  QCOMPARE(idsShown(proxy, model), (QStringList{"1", "2", "10", "q1"}));
  proxy.setFilterText(QStringLiteral("1"));  // filtering keeps the sort order
  QCOMPARE(idsShown(proxy, model), (QStringList{"1", "10", "q1"}));
  proxy.setFilterText(QString());
  proxy.sort(ui::QueryTableModel::Judged, Qt::DescendingOrder);
  QCOMPARE(idsShown(proxy, model).front(), QStringLiteral("2"));  // the only judged query
  QCOMPARE(model.rowForLine(4), 2);  // line 4 lies in the record starting at line 3
  QCOMPARE(model.rowForLine(5), 3);
  QCOMPARE(model.rowForLine(0), -1);
}

void TestGui::detailPaneEscapesAndShowsProvenance() {
  const auto ds = handDataset();
  QTextBrowser browser;
  browser.setHtml(ui::queryDetailHtml(*ds, ds->queries[0], {}));
  const QString text = browser.toPlainText();
  QVERIFY(text.contains(QStringLiteral("What is BM25?")));
  QVERIFY(text.contains(QStringLiteral("A ranking function")));
  QVERIFY(text.contains(QStringLiteral("Okapi BM25")));
  QVERIFY(text.contains(QStringLiteral("paragraphs 1–2")));
  // The corpus text is shown, escaped (the '<ranking>' is text, not a tag).
  QVERIFY(text.contains(QStringLiteral("BM25 is a <ranking> function & more.")));
  QVERIFY(text.contains(QStringLiteral("Judged documents (2)")));
  QVERIFY(text.contains(QStringLiteral("grade 2")));
}

// KILT provenance names paragraphs (0-based) and, optionally, the evidence's first and last
// character in them (code points, end exclusive): the detail pane shows exactly that text of the
// page, and the document pane numbers a KILT page's paragraphs the same way.
void TestGui::detailPaneShowsProvenanceParagraphs() {
  auto ds = std::make_shared<core::Dataset>();
  ds->parts.push_back({"kilt_knowledgesource.json", core::Format::KiltKnowledgeSource});
  ds->corpus.add({"7",
                  "Z\u00fcrich",
                  "Z\u00fcrich\nZ\u00fcrich is a city on the Limmat.\nIt has 400,000 "
                  "people.\nSection::::History.",
                  "",
                  0,
                  -1,
                  {}});
  auto query = [&](std::string id, core::Provenance p) {
    core::Query q;
    q.id = std::move(id);
    q.text = "Where?";
    core::GoldOutput g;
    g.provenance.push_back(std::move(p));
    q.gold.push_back(std::move(g));
    ds->queries.push_back(std::move(q));
  };
  // From code point 10 of paragraph 1 (byte 11: "ü" is two bytes) to code point 6 of paragraph 2.
  query("cut", {"7", "Z\u00fcrich", "", 1, 2, 10, 6});
  query("one", {"7", "", "", 3, 3, 11, -1});
  query("whole", {"7", "", "", 1, 1, -1, -1});
  query("outside", {"7", "", "", 4, 5, -1, -1});
  auto detail = [&](std::size_t i) {
    QTextBrowser browser;
    browser.setHtml(ui::queryDetailHtml(*ds, ds->queries[i], {}));
    return browser.toPlainText();
  };
  const QString cut = detail(0);
  QVERIFY2(cut.contains(QStringLiteral("\u2026a city on the Limmat.\nIt has\u2026")),
           qPrintable(cut));
  QVERIFY(cut.contains(
      QStringLiteral("from character 10 of paragraph 1 to character 6 of paragraph 2")));
  QVERIFY(!cut.contains(QStringLiteral("400,000")));
  const QString one = detail(1);
  QVERIFY2(one.contains(QStringLiteral("\u2026History.")), qPrintable(one));
  QVERIFY(one.contains(QStringLiteral("paragraph 3 \u00b7 characters 11\u2013\u2026")));
  const QString whole = detail(2);
  QVERIFY(whole.contains(QStringLiteral("Z\u00fcrich is a city on the Limmat.")));
  QVERIFY(!whole.contains(QStringLiteral("400,000")));
  QVERIFY(detail(3).contains(
      QStringLiteral("paragraphs 4\u20135 not in the page (it has 4, numbered from 0)")));

  const auto content = ui::DocumentTextView::read(*ds->corpus.find("7"), true);
  QCOMPARE(content.text, QString::fromStdString(ds->corpus.at(0).text));
  QCOMPARE(content.paragraphStarts, (std::vector<int>{0, 1, 2, 3}));
  QCOMPARE(content.characters, std::size_t(81));
  ui::DocumentTextView view;
  view.setContent(content);
  QCOMPARE(view.numberedParagraphs(), 4);
  QCOMPARE(view.paragraphAtBlock(2), 2);
  QVERIFY(ui::DocumentTextView::read(ds->corpus.at(0), false).paragraphStarts.empty());
}

void TestGui::pageLoadsInBackground() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString topics = dir.filePath(QStringLiteral("topics.tsv"));
  QVERIFY(writeFile(topics,
                    "101\tfirst question\r\n102\tsecond question about cats\r\n103\tthird\r\n"));
  ui::MainWindow window;
  window.show();
  ui::DatasetPage* page = window.datasetPage();
  QSignalSpy changed(window.workbench(), &ui::Workbench::datasetChanged);
  QSignalSpy started(window.workbench(), &ui::Workbench::loadStarted);
  bool ok = false;
  QVERIFY(openAndWait(window, {topics}, {QStringLiteral("topics-tsv")}, &ok));
  QVERIFY(ok);
  QCOMPARE(started.count(), 1);
  QCOMPARE(changed.count(), 1);
  QCOMPARE(page->queryModel()->rowCount(), 3);
  QVERIFY(page->progressBar()->isHidden());
  QVERIFY(page->selectQueryRow(1));
  QVERIFY(page->detailView()->toPlainText().contains(QStringLiteral("second question about cats")));
  page->setQueryFilter(QStringLiteral("CATS"));
  QCOMPARE(page->queryProxy()->rowCount(), 1);
  page->setQueryFilter(QString());
  QCOMPARE(page->queryProxy()->rowCount(), 3);
}

void TestGui::cancelKeepsPreviousDataset() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString small = dir.filePath(QStringLiteral("small.tsv"));
  QVERIFY(writeFile(small, "1\tone\n"));
  // ~40 MB: the loader reports progress every few MB, so a cancel is seen long before the end.
  const QString big = dir.filePath(QStringLiteral("big.tsv"));
  {
    QFile f(big);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QByteArray chunk;
    for (int i = 0; i < 10000; ++i)
      chunk +=
          QByteArray::number(i) + "\tsome fairly long query text to make the file big enough\n";
    for (int k = 0; k < 60; ++k) QVERIFY(f.write(chunk) == chunk.size());
  }
  ui::MainWindow window;
  bool ok = false;
  QVERIFY(openAndWait(window, {small}, {QStringLiteral("topics-tsv")}, &ok));
  QVERIFY(ok);
  const auto before = window.workbench()->dataset();

  QSignalSpy finished(window.workbench(), &ui::Workbench::loadFinished);
  QVERIFY(window.datasetPage()->openPaths({big}, {QStringLiteral("topics-tsv")}, false));
  QVERIFY(window.workbench()->isLoading());
  QVERIFY(window.datasetPage()->cancelButton()->isVisibleTo(&window));
  window.datasetPage()->cancelButton()->click();
  QVERIFY(finished.wait(kLoadTimeoutMs));
  QCOMPARE(finished.front().at(0).toBool(), false);
  QCOMPARE(window.workbench()->dataset(), before);
  QCOMPARE(window.datasetPage()->queryModel()->rowCount(), 1);
}

void TestGui::issuesDockJumpsToRecord() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString topics = dir.filePath(QStringLiteral("topics.tsv"));
  // Line 3 has no TAB: a malformed record the loader skips and reports.
  QVERIFY(
      writeFile(topics, "1\tfirst\n2\tsecond\nbroken line without a tab\n4\tfourth\n5\tfifth\n"));
  ui::MainWindow window;
  window.show();
  window.workbench()->setOnError(core::OnError::Skip);
  bool ok = false;
  QVERIFY(openAndWait(window, {topics}, {QStringLiteral("topics-tsv")}, &ok));
  QVERIFY(ok);
  ui::DatasetPage* page = window.datasetPage();
  QCOMPARE(page->queryModel()->rowCount(), 4);

  ui::IssuesDock* dock = window.issuesDock();
  QVERIFY(dock->model()->rowCount() >= 1);
  QVERIFY(dock->isVisibleTo(&window));  // problems bring the dock up
  const core::Diagnostic* d = dock->model()->diagnostic(0);
  QCOMPARE(d->line, quint64(3));
  QVERIFY(!dock->summary().isEmpty());

  // Filter the table so the target row is hidden: the jump must still find it.
  page->setQueryFilter(QStringLiteral("fifth"));
  QSignalSpy jumped(dock, &ui::IssuesDock::jumpRequested);
  dock->activateRow(0);
  QCOMPARE(jumped.count(), 1);
  const QModelIndex current = page->queryView()->currentIndex();
  QVERIFY(current.isValid());
  const int row = page->queryProxy()->mapToSource(current).row();
  // Line 3 was skipped: the record shown is the last one before it (query 2, line 2).
  QCOMPARE(QString::fromStdString(page->queryModel()->query(row)->id), QStringLiteral("2"));
  QCOMPARE(page->queryProxy()->rowCount(), 4);
}

void TestGui::recentDatasetsRemembered() {
  ui::Preferences::clearRecentDatasets();
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString a = dir.filePath(QStringLiteral("a.tsv"));
  const QString b = dir.filePath(QStringLiteral("b.qrels"));
  QVERIFY(writeFile(a, "1\tone\n"));
  QVERIFY(writeFile(b, "1 0 d1 1\n"));
  {
    ui::MainWindow window;
    bool ok = false;
    QVERIFY(openAndWait(window, {a}, {QStringLiteral("topics-tsv")}, &ok));
    QVERIFY(ok);
    QVERIFY(openAndWait(window, {a, b},
                        {QStringLiteral("topics-tsv"), QStringLiteral("trec-qrels")}, &ok));
    QVERIFY(ok);
    QVERIFY(openAndWait(window, {a}, {QStringLiteral("topics-tsv")}, &ok));  // moves to the top
    QVERIFY(ok);
    window.close();
  }
  const auto recent = ui::Preferences::recentDatasets();
  QCOMPARE(recent.size(), 2);
  QCOMPARE(recent[0].parts.size(), 1);
  QCOMPARE(recent[0].parts[0].path, a);
  QCOMPARE(recent[0].parts[0].format, QStringLiteral("topics-tsv"));
  QCOMPARE(recent[1].parts.size(), 2);
  QCOMPARE(recent[1].parts[1].format, QStringLiteral("trec-qrels"));
  QVERIFY(!ui::Preferences::windowGeometry.get().isEmpty());

  // A new window offers them under File > Recent datasets and reopens one.
  ui::MainWindow again;
  QMenu* recentMenu = nullptr;
  for (QAction* top : again.menuBar()->actions())
    if (top->menu())
      for (QAction* item : top->menu()->actions())
        if (item->menu() && item->text().contains(QStringLiteral("Recent")))
          recentMenu = item->menu();
  QVERIFY(recentMenu);
  emit recentMenu->aboutToShow();
  QAction* first = recentMenu->actions().value(0);
  QVERIFY(first && first->isEnabled());
  QCOMPARE(first->text(), QStringLiteral("a.tsv"));
  QSignalSpy finished(again.workbench(), &ui::Workbench::loadFinished);
  first->trigger();
  QVERIFY(finished.wait(kLoadTimeoutMs));
  QCOMPARE(again.datasetPage()->queryModel()->rowCount(), 1);
}

void TestGui::projectSaveAndReopen() {
  const QStringList rel = {"msmarco_trecdl/topics/topics.dl19-passage.txt",
                           "msmarco_trecdl/qrels/qrels.dl19-passage.txt",
                           "msmarco_trecdl/runs/run.msmarco-v1-passage.bm25-default.dl19.txt"};
  const QStringList formats = {"topics-tsv", "trec-qrels", "trec-run"};
  QStringList absolute;
  for (const QString& p : rel) {
    RAGSCOPE_REQUIRE_DATA(p.toStdString());
    absolute << QString::fromStdString(test::dataPath(p.toStdString()).string());
  }
  ui::Preferences::clearRecentDatasets();
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString projectFile = dir.filePath(QStringLiteral("dl19.ragscope.json"));
  {
    ui::MainWindow window;
    // Nothing to save before a dataset is loaded.
    QAction* save = window.findChild<QAction*>(QStringLiteral("actionSaveProject"));
    QAction* saveAs = window.findChild<QAction*>(QStringLiteral("actionSaveProjectAs"));
    QVERIFY(save && saveAs);
    QVERIFY(!save->isEnabled() && !saveAs->isEnabled());
    bool ok = false;
    QVERIFY(openAndWait(window, absolute, formats, &ok));
    QVERIFY(ok);
    QVERIFY(save->isEnabled() && saveAs->isEnabled());
    QVERIFY(window.workbench()->projectFile().isEmpty());
    QVERIFY(saveAndWait(window.workbench(), projectFile));
    QCOMPARE(window.workbench()->projectFile(), projectFile);
    window.close();
  }

  // The file: one dataset of three parts, each path relative to the project's folder, formats kept.
  QFile f(projectFile);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
  QCOMPARE(root["version"].toInt(), 1);
  QCOMPARE(root["name"].toString(), QStringLiteral("dl19"));
  const QJsonArray datasets = root["datasets"].toArray();
  QCOMPARE(datasets.size(), 1);
  const QJsonArray parts = datasets[0].toObject()["parts"].toArray();
  QCOMPARE(parts.size(), 3);
  for (int i = 0; i < 3; ++i) {
    const QString path = parts[i].toObject()["path"].toString();
    QVERIFY2(QDir::isRelativePath(path), qPrintable(path));
    QCOMPARE(QFileInfo(QDir(dir.path()).filePath(path)).canonicalFilePath(),
             QFileInfo(absolute[i]).canonicalFilePath());
    QCOMPARE(parts[i].toObject()["format"].toString(), formats[i]);
  }

  // Remembered: the project heads the recent list, and a fresh window reopens it from there.
  const auto recent = ui::Preferences::recentDatasets();
  QVERIFY(!recent.isEmpty());
  QCOMPARE(recent.front().project, projectFile);
  ui::MainWindow again;
  QMenu* recentMenu = nullptr;
  for (QAction* top : again.menuBar()->actions())
    if (top->menu())
      for (QAction* item : top->menu()->actions())
        if (item->menu() && item->text().contains(QStringLiteral("Recent")))
          recentMenu = item->menu();
  QVERIFY(recentMenu);
  emit recentMenu->aboutToShow();
  QAction* first = recentMenu->actions().value(0);
  QVERIFY(first && first->text().contains(QStringLiteral("dl19.ragscope.json")));
  QSignalSpy finished(again.workbench(), &ui::Workbench::loadFinished);
  first->trigger();
  QVERIFY(finished.wait(kLoadTimeoutMs));
  QVERIFY(finished.front().at(0).toBool());
  auto checkDl19 = [&](const ui::MainWindow& w) {
    const auto ds = w.workbench()->dataset();
    QVERIFY(ds);
    QCOMPARE(int(ds->queries.size()), 43);
    QCOMPARE(int(ds->qrels.judgmentCount()), 9260);
    QCOMPARE(int(ds->qrels.byQuery.size()), 43);
    QCOMPARE(int(ds->runs.size()), 1);
    QCOMPARE(int(ds->runs[0].entryCount()), 43000);
    QCOMPARE(int(ds->parts.size()), 3);
    for (int i = 0; i < 3; ++i) {
      QVERIFY(ds->parts[std::size_t(i)].format.has_value());
      QCOMPARE(QString::fromUtf8(core::formatName(*ds->parts[std::size_t(i)].format).data()),
               formats[i]);
    }
    QCOMPARE(w.datasetPage()->queryModel()->rowCount(), 43);
  };
  checkDl19(again);
  QCOMPARE(again.workbench()->projectFile(), projectFile);

  // Save As into another folder rebases the relative paths; opening the copy gives the same bundle.
  QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("elsewhere/deeper")));
  const QString copy = dir.filePath(QStringLiteral("elsewhere/deeper/copy.ragscope.json"));
  QVERIFY(saveAndWait(again.workbench(), copy));
  ui::MainWindow third;
  bool ok = false;
  QVERIFY(openAndWait(third, {copy}, {}, &ok));
  QVERIFY(ok);
  checkDl19(third);
  QCOMPARE(third.workbench()->project()->datasets.size(),
           std::size_t{1});  // saved twice, one entry
}

void TestGui::windowStateRestored() {
  // The dock layout (which dock, where, shown or not) comes back, not only the geometry.
  ui::Preferences::windowState.set({});
  {
    ui::MainWindow window;
    window.show();
    QVERIFY(window.issuesDock()->isHidden());  // first run: out of the way
    window.addDockWidget(Qt::RightDockWidgetArea, window.issuesDock());
    window.issuesDock()->show();
    auto* jobs = window.findChild<QDockWidget*>(QStringLiteral("JobsDock"));
    QVERIFY(jobs);
    window.addDockWidget(Qt::LeftDockWidgetArea, jobs);
    jobs->show();
    window.close();
  }
  {
    ui::MainWindow window;
    window.show();
    auto* jobs = window.findChild<QDockWidget*>(QStringLiteral("JobsDock"));
    QCOMPARE(window.dockWidgetArea(window.issuesDock()), Qt::RightDockWidgetArea);
    QVERIFY(window.issuesDock()->isVisible());
    QCOMPARE(window.dockWidgetArea(jobs), Qt::LeftDockWidgetArea);
    QVERIFY(jobs->isVisible());
    jobs->hide();
    window.close();
  }
  ui::MainWindow window;
  window.show();
  QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("JobsDock"))->isHidden());
  QVERIFY(window.issuesDock()->isVisible());
}

void TestGui::millionRowsStayCheap() {
  // A million queries in the real page widgets: fixed row heights make scrolling arithmetic, the
  // filter and sort compare core strings. Times are printed; bounds are loose (shared CI cores).
  auto ds = std::make_shared<core::Dataset>();
  constexpr int kRows = 1000000;
  ds->queries.resize(kRows);
  for (int i = 0; i < kRows; ++i) {
    auto& q = ds->queries[std::size_t(i)];
    q.id = std::to_string(kRows - i);
    q.text = (i % 1000 == 0) ? "needle q" : "query text";  // short: no heap per row
    q.line = std::uint64_t(i + 1);
  }
  ui::QueryTableModel model;
  ui::QueryFilterProxyModel proxy;
  proxy.setSourceModel(&model);
  QTableView view;
  view.verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view.verticalHeader()->setDefaultSectionSize(22);
  view.setModel(&proxy);
  view.resize(900, 600);
  view.show();
  QElapsedTimer timer;
  timer.start();
  model.setDataset(ds);
  const qint64 resetMs = timer.restart();
  view.scrollToBottom();
  view.repaint();
  view.scrollTo(proxy.index(kRows / 2, 0));
  view.repaint();
  const qint64 scrollMs = timer.restart();
  proxy.setFilterText(QStringLiteral("NEEDLE"));
  const qint64 filterMs = timer.restart();
  QCOMPARE(proxy.rowCount(), kRows / 1000);
  proxy.setFilterText(QString());
  timer.restart();
  proxy.sort(ui::QueryTableModel::Id, Qt::AscendingOrder);
  const qint64 sortMs = timer.restart();
  QCOMPARE(model.query(proxy.mapToSource(proxy.index(0, 0)).row())->id, std::string("1"));
  qInfo("1M rows: reset %lld ms, scroll+paint %lld ms, filter %lld ms, sort by id %lld ms", resetMs,
        scrollMs, filterMs, sortMs);
  QVERIFY(scrollMs < 2000);
  QVERIFY(filterMs < 10000);
}

// File > Report… on the demo project: the JSON is byte for byte what `ragscope-cli report`
// writes for the same project (one collector, one writer), the PDF is written, and a write
// cancelled at once writes nothing.
void TestGui::reportDialogWritesWhatTheCliWrites() {
  QTemporaryDir dir;
  const std::filesystem::path root = dir.path().toStdString();
  std::filesystem::copy(test::sourceRoot() / "resources/demo", root / "demo",
                        std::filesystem::copy_options::recursive);
  const QString project = QString::fromStdString((root / "demo/demo.ragscope.json").string());
  ui::MainWindow window;
  QSignalSpy finished(window.workbench(), &ui::Workbench::loadFinished);
  QVERIFY(window.workbench()->openProject(project));
  QVERIFY(!finished.isEmpty() || finished.wait(kLoadTimeoutMs));
  QVERIFY(window.findChild<QAction*>(QStringLiteral("actionReport")));

  ui::ReportDialog dialog(window.workbench(), &window);
  dialog.setOpenWhenDone(false);
  dialog.setResamples(200);
  QCOMPARE(dialog.findChild<QListWidget*>(QStringLiteral("reportSources"))->count(),
           6);  // retrieval + 5 stores
  const QString json = dir.path() + "/gui.json";
  dialog.setOutput(json, QStringLiteral("json"));
  QSignalSpy written(&dialog, &ui::ReportDialog::written);
  QVERIFY(dialog.write());
  QVERIFY(written.wait(kLoadTimeoutMs));
  QVERIFY2(written.front().at(0).toBool(), qPrintable(dialog.statusText()));
  QProcess cli;
  cli.start(QStringLiteral(RAGSCOPE_CLI_PATH),
            {"report", "--project", project, "--B", "200", "--out", dir.path() + "/cli.json"});
  QVERIFY(cli.waitForFinished(kLoadTimeoutMs) && cli.exitCode() == 0);
  QFile a(json), b(dir.path() + "/cli.json");
  QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
  const QByteArray gui = a.readAll();
  QVERIFY(gui.size() > 10000);
  const QByteArray cliBytes = b.readAll();
  QVERIFY(gui == cliBytes);

  const QString pdf = dir.path() + "/gui.pdf";
  dialog.setOutput(pdf, QStringLiteral("pdf"));
  dialog.setSections({"settings", "charts", "lowest", "claims", "comparisons"});  // no appendix
  written.clear();
  QVERIFY(dialog.write());
  if (const QString shots = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR"); !shots.isEmpty()) {
    QDir().mkpath(shots);
    dialog.show();
    QVERIFY(dialog.grab().save(QDir(shots).filePath("report-dialog.png")));
  }
  QVERIFY(written.wait(kLoadTimeoutMs));
  QVERIFY2(written.front().at(0).toBool(), qPrintable(dialog.statusText()));
  QFile p(pdf);
  QVERIFY(p.open(QIODevice::ReadOnly) && p.read(5) == "%PDF-");
  QProcess text;
  text.start("pdftotext", {pdf, "-"});
  QVERIFY(text.waitForFinished(60000) && text.exitCode() == 0);
  const QString pages = QString::fromUtf8(text.readAllStandardOutput());
  QVERIFY(pages.contains("Paired comparisons"));
  QVERIFY(!pages.contains("Method appendix"));

  // Cancelled as soon as it starts: reported, nothing written.
  const QString cancelled = dir.path() + "/cancelled.pdf";
  dialog.setOutput(cancelled, QStringLiteral("pdf"));
  dialog.setResamples(100000);
  written.clear();
  QVERIFY(dialog.write());
  dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Close)->click();
  QVERIFY(written.wait(kLoadTimeoutMs));
  QCOMPARE(written.front().at(0).toBool(), false);
  QVERIFY2(dialog.statusText().startsWith("Cancelled"), qPrintable(dialog.statusText()));
  QVERIFY(!QFile::exists(cancelled));
}

// File > Export view…: the table as the user sees it (sorted, filtered), text neutralised, numbers
// as numbers; JSON keyed by the headers.
void TestGui::exportViewAsShown() {
  QStandardItemModel model(0, 2);
  model.setHorizontalHeaderLabels({"qid", "map"});
  const std::vector<std::pair<QString, double>> rows = {
      {"q2", 0.25}, {"=HYPERLINK(\"x\")", 0.5}, {"q1", 0.125}};
  for (const auto& [id, v] : rows) {
    auto* value = new QStandardItem;
    value->setData(v, Qt::EditRole);
    model.appendRow({new QStandardItem(id), value});
  }
  QSortFilterProxyModel sorted;
  sorted.setSourceModel(&model);
  sorted.setFilterFixedString("q");  // the formula row contains no "q": filtered out as on screen
  sorted.setFilterKeyColumn(0);
  sorted.sort(0);
  QWidget page;
  auto* layout = new QVBoxLayout(&page);
  auto* view = new QTableView(&page);
  view->setModel(&sorted);
  layout->addWidget(view);
  page.show();
  QVERIFY(QTest::qWaitForWindowExposed(&page));
  QCOMPARE(ui::exportableView(&page), static_cast<QAbstractItemView*>(view));
  QTemporaryDir dir;
  bool ok = false;
  QString message;
  QVERIFY(ui::exportPageView(&page, &page, dir.path() + "/t.csv", [&](bool o, const QString& m) {
    ok = o;
    message = m;
  }));
  QTRY_VERIFY_WITH_TIMEOUT(!message.isEmpty(), 10000);
  QVERIFY2(ok, qPrintable(message));
  QCOMPARE(QByteArray::fromStdString(readText((dir.path() + "/t.csv").toStdString())),
           QByteArray("qid,map\r\nq1,0.125\r\nq2,0.25\r\n"));
  // Unfiltered, as JSON: the formula is kept as text (JSON is not a spreadsheet).
  sorted.setFilterFixedString(QString());
  message.clear();
  QVERIFY(ui::exportPageView(&page, &page, dir.path() + "/t.json", [&](bool o, const QString& m) {
    ok = o;
    message = m;
  }));
  QTRY_VERIFY_WITH_TIMEOUT(!message.isEmpty(), 10000);
  const auto j = nlohmann::json::parse(readText((dir.path() + "/t.json").toStdString()));
  QCOMPARE(j.size(), std::size_t{3});
  QCOMPARE(j[0]["qid"].get<std::string>(), std::string("=HYPERLINK(\"x\")"));
  QCOMPARE(j[0]["map"].get<double>(), 0.5);
  // A page without a table: said so, nothing written.
  QWidget empty;
  QVERIFY(
      !ui::exportPageView(&empty, &empty, dir.path() + "/none.csv", [&](bool o, const QString& m) {
        ok = o;
        message = m;
      }));
  QVERIFY(!ok && message.contains("no table"));
  QVERIFY(!QFile::exists(dir.path() + "/none.csv"));
}

// pdftotext of the demo project's PDF holds every summary mean of the JSON export, as the table
// prints it (four decimals), and the page count in its footers.
void TestGui::pdfHoldsTheSummaryNumbers() {
  QTemporaryDir dir;
  const std::filesystem::path project = std::filesystem::path(dir.path().toStdString()) / "demo";
  std::filesystem::copy(ragscope::test::sourceRoot() / "resources/demo", project,
                        std::filesystem::copy_options::recursive);
  const QString projectFile = QString::fromStdString((project / "demo.ragscope.json").string());
  const QString pdf = dir.path() + "/demo.pdf", json = dir.path() + "/demo.json";
  auto r =
      ragscope::test::runCliText({"report", "--project", projectFile, "--B", "200", "--out", pdf});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  r = ragscope::test::runCliText({"report", "--project", projectFile, "--B", "200", "--out", json});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QProcess text;
  text.start("pdftotext", {"-layout", pdf, "-"});
  QVERIFY(text.waitForFinished(60000) && text.exitCode() == 0);
  const QString pages = QString::fromUtf8(text.readAllStandardOutput());
  const auto j = nlohmann::json::parse(readText(json.toStdString()));
  int checked = 0;
  for (const auto& run : j["runs"]) {
    QVERIFY2(pages.contains(QString::fromStdString(run["name"].get<std::string>())),
             run["name"].dump().c_str());
    for (const auto& m : run["summary"]) {
      if (m["mean"].is_null()) continue;
      const QString mean = QString::number(m["mean"].get<double>(), 'f', 4);
      const QString metric = QString::fromStdString(m["metric"].get<std::string>());
      // The row: the metric's name, then its mean.
      const QRegularExpression row(QRegularExpression::escape(metric) + "\\s+" +
                                   QRegularExpression::escape(mean));
      QVERIFY2(pages.contains(row), qPrintable(metric + " " + mean));
      ++checked;
    }
  }
  QVERIFY(checked >= 70);  // 2 x 28 retrieval, 2 x 2 eRAG, 2 end-to-end, 16 claim metrics
  QProcess info;
  info.start("pdfinfo", {pdf});
  QVERIFY(info.waitForFinished(60000));
  const auto count =
      QRegularExpression("Pages:\\s+(\\d+)").match(QString::fromUtf8(info.readAllStandardOutput()));
  QVERIFY(count.hasMatch());
  QVERIFY(pages.contains(QString("page %1 of %1").arg(count.captured(1))));
  QVERIFY(pages.contains("Method appendix"));
  QVERIFY(pages.contains("Lowest-scoring queries by map"));
}

// A judging run over answers full of markup and formulas: the PDF shows them as the text they are.
void TestGui::pdfShowsHostileTextLiterally() {
  QTemporaryDir dir;
  const std::filesystem::path root = dir.path().toStdString();
  nlohmann::json line = {{"id", "<b>q1</b>"},
                         {"question", "What does the plant do?"},
                         {"contexts", {"The plant treats water for the city. It opened in 1973."}},
                         {"response",
                          "The plant sells tickets to <script>alert('x')</script> visitors. "
                          "=HYPERLINK(\"http://evil.example\",\"click\") is the plant's web page."},
                         {"reference", "The plant treats water."}};
  std::ofstream(root / "hostile.jsonl") << line.dump() << "\n";
  const QString store = QString::fromStdString((root / "judge.db").string());
  auto r = ragscope::test::runCliText(
      {"judge", "--dataset", QString::fromStdString((root / "hostile.jsonl").string()), "--format",
       "rag-jsonl", "--judge", "offline", "--store", store, "--quiet"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const QString pdf = dir.path() + "/hostile.pdf";
  r = ragscope::test::runCliText({"report", "--store", store, "--out", pdf});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QProcess text;
  text.start("pdftotext", {pdf, "-"});
  QVERIFY(text.waitForFinished(60000) && text.exitCode() == 0);
  // Table cells wrap: the text is compared with the line breaks taken out.
  const QString pages = QString::fromUtf8(text.readAllStandardOutput()).remove('\n');
  QVERIFY2(pages.contains("<script>alert('x')</script>"), qPrintable(pages.left(3000)));
  QVERIFY(pages.contains("=HYPERLINK(\"http://evil.example\""));
  QVERIFY(pages.contains("<b>q1</b>"));
}

void TestGui::selfTestSmoke() {
  QProcess gui;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("QT_QPA_PLATFORM"));  // --self-test must choose offscreen itself
  gui.setProcessEnvironment(env);
  gui.start(QStringLiteral(RAGSCOPE_GUI_PATH), {QStringLiteral("--self-test")});
  QVERIFY2(gui.waitForStarted(), qPrintable(gui.errorString()));
  QVERIFY(gui.waitForFinished(kLoadTimeoutMs));
  const QByteArray out = gui.readAllStandardOutput();
  QVERIFY2(gui.exitStatus() == QProcess::NormalExit, out.constData());
  QVERIFY2(gui.exitCode() == 0, (out + gui.readAllStandardError()).constData());
  QVERIFY(out.contains("All checks passed."));
}

void TestGui::selfTestSameRunTwice() {
  // Issue 12, item 7: the same run file opened twice beside qrels once freed the run names'
  // memory while the compare page still read it ("malloc(): unaligned tcache chunk detected").
  // glibc's checks make such a use after free abort here rather than pass by luck.
  const QString demo = QStringLiteral(RAGSCOPE_SOURCE_DIR "/resources/demo/");
  QProcess gui;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("QT_QPA_PLATFORM"));
  env.insert(QStringLiteral("MALLOC_CHECK_"), QStringLiteral("3"));
  env.insert(QStringLiteral("MALLOC_PERTURB_"), QStringLiteral("165"));
  gui.setProcessEnvironment(env);
  gui.start(
      QStringLiteral(RAGSCOPE_GUI_PATH),
      {QStringLiteral("--self-test"), QStringLiteral("--open"), demo + QStringLiteral("qrels.txt"),
       QStringLiteral("--open"), demo + QStringLiteral("run-good.trec"), QStringLiteral("--open"),
       demo + QStringLiteral("run-good.trec")});
  QVERIFY2(gui.waitForStarted(), qPrintable(gui.errorString()));
  QVERIFY(gui.waitForFinished(kLoadTimeoutMs));
  const QByteArray out = gui.readAllStandardOutput() + gui.readAllStandardError();
  QVERIFY2(gui.exitStatus() == QProcess::NormalExit, out.constData());
  QVERIFY2(gui.exitCode() == 0, out.constData());
}

void TestGui::selfTestExitsAfterAnEarlyFailure() {
  // Issue 12, item 9: a project that fails to load fails the tour before the event loop runs;
  // the self-test said "Some checks FAILED." and then never exited.
  QTemporaryDir dir;
  const QString project = dir.filePath(QStringLiteral("v2.ragscope.json"));
  QFile f(project);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(R"({"version": 2, "name": "x", "datasets": []})");
  f.close();
  QProcess gui;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("QT_QPA_PLATFORM"));
  gui.setProcessEnvironment(env);
  gui.start(QStringLiteral(RAGSCOPE_GUI_PATH),
            {QStringLiteral("--self-test"), QStringLiteral("--open"), project});
  QVERIFY2(gui.waitForStarted(), qPrintable(gui.errorString()));
  const bool exited = gui.waitForFinished(30000);
  if (!exited) gui.kill();
  QVERIFY2(exited, "the self-test did not exit after its failure");
  const QByteArray out = gui.readAllStandardOutput();
  QVERIFY2(out.contains("Some checks FAILED."), out.constData());
  QCOMPARE(gui.exitCode(), 1);
}

void TestGui::headlessDemo() {
  // What scripts/demo does on a machine without a display: `ragscope --demo` with no DISPLAY,
  // WAYLAND_DISPLAY or QT_QPA_PLATFORM must pick offscreen itself, tour the views, write the
  // screenshots it announces under ./ragscope-demo-output and exit 0.
  QTemporaryDir work;
  QVERIFY(work.isValid());
  QProcess gui;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
    env.remove(QString::fromLatin1(name));
  // Its settings go to a throwaway home, never the user's.
  env.insert(QStringLiteral("HOME"), work.path());
  env.insert(QStringLiteral("XDG_CONFIG_HOME"), work.filePath(QStringLiteral("config")));
  gui.setProcessEnvironment(env);
  gui.setWorkingDirectory(work.path());
  gui.start(QStringLiteral(RAGSCOPE_GUI_PATH), {QStringLiteral("--demo")});
  QVERIFY2(gui.waitForStarted(), qPrintable(gui.errorString()));
  QVERIFY(gui.waitForFinished(kLoadTimeoutMs));
  const QString out = QString::fromUtf8(gui.readAllStandardOutput());
  const QString err = QString::fromUtf8(gui.readAllStandardError());
  QVERIFY2(gui.exitStatus() == QProcess::NormalExit, qPrintable(out + err));
  QVERIFY2(gui.exitCode() == 0, qPrintable(out + err));
  QVERIFY2(out.contains(QStringLiteral("ragscope demo (headless, offscreen)")), qPrintable(out));
  QVERIFY(out.contains(QStringLiteral("All checks passed.")));

  // The announced screenshots: the indented lines after "Screenshots written:".
  const QStringList lines = out.split(QLatin1Char('\n'));
  const qsizetype heading = lines.indexOf(QStringLiteral("Screenshots written:"));
  QVERIFY2(heading >= 0, qPrintable(out));
  QStringList shots;
  for (qsizetype i = heading + 1; i < lines.size() && lines[i].startsWith(QStringLiteral("  "));
       ++i)
    shots << lines[i].trimmed();
  QVERIFY2(shots.size() >= 5, qPrintable(out));  // dataset, corpus, runs, retrieval, ...
  const QString outputDir = QDir(work.path()).filePath(QStringLiteral("ragscope-demo-output"));
  for (const QString& shot : shots) {
    const QFileInfo info(shot);
    QVERIFY2(info.isFile(), qPrintable(shot));
    QCOMPARE(info.absolutePath(),
             QFileInfo(outputDir).absoluteFilePath());  // in the working folder
    QFile f(shot);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY2(f.read(8) == QByteArray("\x89PNG\r\n\x1a\n", 8), qPrintable(shot));
    const QImage image(shot);
    QVERIFY2(!image.isNull() && image.width() >= 400 && image.height() >= 300, qPrintable(shot));
    // Not a blank frame: a rendered page has many colours.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height() && colours.size() < 16; y += 7)
      for (int x = 0; x < image.width() && colours.size() < 16; x += 7)
        colours << image.pixel(x, y);
    QVERIFY2(colours.size() >= 16, qPrintable(shot));
  }
}

void TestGui::realDatasets_data() {
  QTest::addColumn<QStringList>("paths");  // relative to the shared data folder
  QTest::addColumn<QStringList>("formats");
  QTest::addColumn<int>("queries");
  QTest::addColumn<int>("documents");  // -1: at least one
  QTest::addColumn<int>("judgments");
  QTest::addColumn<int>("runs");
  QTest::addColumn<int>("examples");

  QTest::newRow("hotpotqa dev kilt") << QStringList{"kilt/dev_full/hotpotqa-dev-kilt.jsonl"}
                                     << QStringList{"kilt"} << 5600 << 0 << 0 << 0 << 0;
  QTest::newRow("dl19 topics + qrels + bm25 run")
      << QStringList{"msmarco_trecdl/topics/topics.dl19-passage.txt",
                     "msmarco_trecdl/qrels/qrels.dl19-passage.txt",
                     "msmarco_trecdl/runs/run.msmarco-v1-passage.bm25-default.dl19.txt"}
      << QStringList{"topics-tsv", "trec-qrels", "trec-run"} << 43 << 0 << 9260 << 1 << 0;
  QTest::newRow("docugami qna_data.csv with PDFs")
      << QStringList{"docugami/KG-RAG-datasets/sec-10-q/data/v1"} << QStringList{"docugami"} << 195
      << -1 << 0 << 0 << 0;
  // 2 items whose 7 retrieved contexts name 4 distinct doc_ids: the corpus.
  QTest::newRow("ragchecker json") << QStringList{"ragchecker/examples/checking_inputs.json"}
                                   << QStringList{"ragchecker"} << 2 << 4 << 0 << 0 << 2;
  // rank_llm JSON: 43 queries, a run of 4,300 hits, and their 4,297 distinct passages as the
  // corpus.
  QTest::newRow("rank_llm json dl19")
      << QStringList{"msmarco_trecdl/runs/rank_llm/BM25/retrieve_results_dl19.json"}
      << QStringList{"rank-llm-json"} << 43 << 4297 << 0 << 1 << 0;
  QTest::newRow("topics rag25 jsonl")
      << QStringList{"msmarco_trecdl/topics/topics.rag25.test.jsonl"} << QStringList{"topics-jsonl"}
      << 105 << 0 << 0 << 0 << 0;
  QTest::newRow("wow dev kilt") << QStringList{"kilt/dev_full/wow-dev-kilt.jsonl"}
                                << QStringList{"kilt"} << 3054 << 0 << 0 << 0 << 0;
  QTest::newRow("msmarco collection subset")
      << QStringList{"msmarco_trecdl/collection_subset/collection.dl19-bm25top100.tsv"}
      << QStringList{"msmarco-collection"} << 0 << 4297 << 0 << 0 << 0;
}

void TestGui::realDatasets() {
  QFETCH(QStringList, paths);
  QFETCH(QStringList, formats);
  QFETCH(int, queries);
  QFETCH(int, documents);
  QFETCH(int, judgments);
  QFETCH(int, runs);
  QFETCH(int, examples);
  QStringList absolute;
  for (const QString& p : paths) {
    RAGSCOPE_REQUIRE_DATA(p.toStdString());
    absolute << QString::fromStdString(test::dataPath(p.toStdString()).string());
  }
  {
    ui::MainWindow window;
    window.show();
    bool ok = false;
    QVERIFY(openAndWait(window, absolute, formats, &ok));
    QVERIFY(ok);
    const auto ds = window.workbench()->dataset();
    QVERIFY(ds);
    ui::DatasetPage* page = window.datasetPage();
    QCOMPARE(int(ds->queries.size()), queries);
    QCOMPARE(page->queryModel()->rowCount(), queries);
    if (documents >= 0)
      QCOMPARE(int(ds->corpus.size()), documents);
    else
      QVERIFY(ds->corpus.size() > 0);
    QCOMPARE(page->documentModel()->rowCount(), int(ds->corpus.size()));
    QCOMPARE(int(ds->qrels.judgmentCount()), judgments);
    QCOMPARE(int(ds->runs.size()), runs);
    QCOMPARE(int(ds->examples.size()), examples);
    QCOMPARE(window.issuesDock()->model()->rowCount(),
             int(window.workbench()->report().diagnostics.size()));
    QCOMPARE(window.workbench()->report().errors, std::uint64_t(0));
    if (queries > 0) {
      // The query text column takes what the others leave: every column is on screen (no
      // horizontal scrolling to the last ones) unless the text column is at its minimum.
      window.resize(1400, 900);
      QTest::qWait(50);
      const QTableView* view = page->queryView();
      const QHeaderView* header = view->horizontalHeader();
      QVERIFY2(header->length() <= view->viewport()->width() ||
                   header->sectionSize(ui::QueryTableModel::Text) <= 240,
               qPrintable(QStringLiteral("columns %1 px in a %2 px viewport")
                              .arg(header->length())
                              .arg(view->viewport()->width())));
      QVERIFY(page->selectQueryRow(queries - 1));
      QVERIFY(!page->detailView()->toPlainText().isEmpty());
    }
    if (!ds->corpus.empty()) {
      QVERIFY(page->showDocument(ds->corpus.at(ds->corpus.size() - 1).id));
      QVERIFY(!page->documentText()->toPlainText().isEmpty());
    }
    window.close();
  }
}

QTEST_MAIN(TestGui)
#include "tst_gui.moc"
