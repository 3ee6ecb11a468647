// The retrieval-evaluation page: background evaluation of several runs, the summary table, the
// per-query table (sorting, filtering) and the ranked-list drill-down (grade colours), checked
// against the published TREC DL figures and values counted independently from the files; the
// Conventions box; document-level evaluation of chunk runs on the claim-level notebook's example.

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QDir>
#include <QFont>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyle>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "common/testdata.h"
#include "core/store/project.h"
#include "ui/models/evalsummarymodel.h"
#include "ui/models/perqueryevalmodel.h"
#include "ui/models/rankedlistmodel.h"
#include "ui/pages/retrievalpage.h"
#include "ui/pages/runlisteditor.h"
#include "ui/preferences.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

const char* kDl19Qrels = "msmarco_trecdl/qrels/qrels.dl19-passage.txt";
const char* kBm25 = "msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt";
const char* kSplade =
    "msmarco_trecdl/runs/rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl19.txt";
const char* kAda2 = "msmarco_trecdl/runs/rank_llm/OPEN_AI_ADA2/trec_results_dl19.txt";

QString path(const char* rel) { return QString::fromStdString(test::dataPath(rel).string()); }

// Finds a column by header text.
int columnOf(const QAbstractItemModel* model, const QString& name) {
  for (int c = 0; c < model->columnCount(); ++c)
    if (model->headerData(c, Qt::Horizontal).toString() == name) return c;
  return -1;
}

// Evaluates and waits; false when the evaluation did not start, finish or succeed.
bool evaluateAndWait(ui::RetrievalPage& page) {
  QSignalSpy finished(&page, &ui::RetrievalPage::evaluationFinished);
  if (!page.evaluate()) return false;
  if (!finished.wait(60000)) return false;
  return finished.first().first().toBool();
}

bool writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

void saveScreenshot(QWidget& widget, const QString& name) {
  const QByteArray dir = qgetenv("RAGSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  // A retrieval page is shown with its summary's CIs, not the "…" of the running bootstrap.
  if (auto* page = qobject_cast<ui::RetrievalPage*>(&widget);
      page && page->summaryStatisticsPending()) {
    QSignalSpy ready(page, &ui::RetrievalPage::summaryStatisticsReady);
    QVERIFY(ready.wait(60000));
  }
  QVERIFY(widget.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name));
}

}  // namespace

class TestRetrievalPage : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void threeDl19RunsSideBySide();
  void irMeasuresNamesInMeasureField();
  void badRunFileIsReported();
  void perQuerySortsAndFilters();
  void conventionsBoxNamesSettings();
  void drillDownColoursGrades();
  void documentLevelNotebookExample();
  void documentLevelWithGoldDocuments();
  void documentLevelDocugami();
  void runListEditorKeepsFilesAndChoosesChecked();
};

void TestRetrievalPage::initTestCase() {
  // Loading a dataset records it in the recent list: never in the user's settings.
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("ragscope-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_retrievalpage"));
}

void TestRetrievalPage::threeDl19RunsSideBySide() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  page.resize(1400, 900);
  page.setInputs(path(kDl19Qrels), {path(kBm25), path(kSplade), path(kAda2)});
  page.setMeasures(QStringLiteral("ndcg_cut.10 map recall.100"));
  page.setRelevanceLevel(2);
  QSignalSpy finished(&page, &ui::RetrievalPage::evaluationFinished);
  QVERIFY(page.evaluate());
  QVERIFY(page.isRunning());  // runs in the background: evaluate() returned at once
  QVERIFY(finished.wait(60000));
  QCOMPARE(finished.first().first().toBool(), true);

  const QAbstractItemModel* summary = page.summaryView()->model();
  QAbstractItemModelTester tester(const_cast<QAbstractItemModel*>(summary),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(summary->rowCount(), 3);
  const int ndcg = columnOf(summary, QStringLiteral("ndcg_cut_10"));
  const int map = columnOf(summary, QStringLiteral("map"));
  const int recall = columnOf(summary, QStringLiteral("recall_100"));
  QVERIFY(ndcg > 0 && map > 0 && recall > 0);
  // The published TREC DL figures: nDCG@10 uses all grades (the level does not apply), AP and R@100
  // use -l 2.
  const QStringList expectedNdcg = {QStringLiteral("0.5058"), QStringLiteral("0.7308"),
                                    QStringLiteral("0.7035")};
  const QStringList expectedMap = {QStringLiteral("0.2476"), QStringLiteral("0.4464"),
                                   QStringLiteral("0.4151")};
  const QStringList expectedRecall = {QStringLiteral("0.4910"), QStringLiteral("0.6390"),
                                      QStringLiteral("0.6235")};
  for (int row = 0; row < 3; ++row) {
    QCOMPARE(summary->index(row, ndcg).data().toString(), expectedNdcg[row]);
    QCOMPARE(summary->index(row, map).data().toString(), expectedMap[row]);
    QCOMPARE(summary->index(row, recall).data().toString(), expectedRecall[row]);
  }

  // The CI columns: filled in by the background bootstrap, each interval shown whole (a column
  // sized while it showed "…" would elide them), and the same numbers `ragscope-cli eval` prints.
  if (page.summaryStatisticsPending()) {
    QSignalSpy ready(&page, &ui::RetrievalPage::summaryStatisticsReady);
    QVERIFY(ready.wait(60000));
  }
  const QTableView* view = page.summaryView();
  const int margin =
      2 * (view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1);
  int intervalColumns = 0;
  for (int c = 0; c < summary->columnCount(); ++c) {
    if (!summary->headerData(c, Qt::Horizontal).toString().endsWith(QLatin1String("95% CI")))
      continue;
    ++intervalColumns;
    for (int row = 0; row < 3; ++row) {
      const QString text = summary->index(row, c).data().toString();
      QVERIFY2(text.startsWith(QLatin1Char('[')) && text.endsWith(QLatin1Char(']')),
               qPrintable(text));
      QVERIFY2(view->columnWidth(c) >= view->fontMetrics().horizontalAdvance(text) + margin,
               qPrintable(QStringLiteral("column %1 is %2 px, \"%3\" needs %4")
                              .arg(c)
                              .arg(view->columnWidth(c))
                              .arg(text)
                              .arg(view->fontMetrics().horizontalAdvance(text) + margin)));
    }
  }
  QCOMPARE(intervalColumns, 3);
  QProcess cli;
  cli.start(QStringLiteral(RAGSCOPE_CLI_PATH),
            {"eval", "--format", "json", "-l", "2", "-m", "ndcg_cut.10", "-m", "map", "-m",
             "recall.100", path(kDl19Qrels), path(kBm25), path(kSplade), path(kAda2)});
  QVERIFY(cli.waitForFinished(120000));
  QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
  const QJsonArray rows =
      QJsonDocument::fromJson(cli.readAllStandardOutput()).object().value("rows").toArray();
  QCOMPARE(rows.size(), 3);  // `all` rows only (no -q), in run order
  for (int row = 0; row < 3; ++row)
    for (const QString& measure :
         {QStringLiteral("ndcg_cut_10"), QStringLiteral("map"), QStringLiteral("recall_100")}) {
      const QJsonObject m = rows[row].toObject().value(measure).toObject();
      const QString expected =
          ui::formatInterval({m.value("ci_low").toDouble(), m.value("ci_high").toDouble()});
      QCOMPARE(summary->index(row, columnOf(summary, measure + QStringLiteral(" 95% CI")))
                   .data()
                   .toString(),
               expected);
    }

  // For the README and the issue: RAGSCOPE_SCREENSHOT_DIR=dir saves what this test shows.
  if (const QByteArray dir = qgetenv("RAGSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
    QVERIFY(page.showQuery(1, QStringLiteral("1037798")));
    QVERIFY(page.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/retrieval-dl19.png")));
  }

  // Per-query table: 43 judged queries of the first run, with counts.
  const QAbstractItemModel* perQuery = page.perQueryView()->model();
  QAbstractItemModelTester perQueryTester(const_cast<QAbstractItemModel*>(perQuery),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(perQuery->rowCount(), 43);
  // Drill down: query 1037798's BM25 ranking has 100 documents, grades shown.
  QVERIFY(page.showQuery(0, QStringLiteral("1037798")));
  const QAbstractItemModel* ranked = page.rankedView()->model();
  QCOMPARE(ranked->rowCount(), 100);
  QCOMPARE(ranked->index(0, ui::RankedListModel::Rank).data().toString(), QStringLiteral("1"));
  int judged = 0, unjudged = 0;
  for (int r = 0; r < ranked->rowCount(); ++r) {
    const QString grade = ranked->index(r, ui::RankedListModel::Grade).data().toString();
    if (grade == QLatin1String("unjudged"))
      ++unjudged;
    else
      ++judged;
  }
  QVERIFY(judged > 0);
  QCOMPARE(judged + unjudged, 100);
  // Ranks follow trec_eval's order: scores never increase down the list.
  double previous = 1e300;
  for (int r = 0; r < ranked->rowCount(); ++r) {
    const double s =
        ranked->index(r, ui::RankedListModel::Score).data(ui::RankedListModel::SortRole).toDouble();
    QVERIFY(s <= previous);
    previous = s;
  }
}

void TestRetrievalPage::badRunFileIsReported() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("bad.run"));
  QFile f(bad);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("19335 Q0 d1 1 3.5 tag\n19335 Q0 d2 2\n");
  f.close();
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  page.setInputs(path(kDl19Qrels), {bad});
  QSignalSpy finished(&page, &ui::RetrievalPage::evaluationFinished);
  QVERIFY(page.evaluate());
  QVERIFY(finished.wait(30000));
  QCOMPARE(finished.first().first().toBool(), false);
  bool named = false;
  for (const auto& d : page.outcome().report.diagnostics)
    if (d.line == 2 && d.file.find("bad.run") != std::string::npos) named = true;
  QVERIFY2(named, "the malformed line 2 is reported with its file and line");
}

// The measure field takes ir_measures names: nDCG@10, AP and R@100 are trec_eval's ndcg_cut_10,
// map and recall_100 (the published BM25 figures at -l 2); one trec_eval cannot express is refused.
void TestRetrievalPage::irMeasuresNamesInMeasureField() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  page.setInputs(path(kDl19Qrels), {path(kBm25)});
  page.setMeasures(QStringLiteral("nDCG@10 AP R@100"));
  page.setRelevanceLevel(2);
  QVERIFY(evaluateAndWait(page));
  const QAbstractItemModel* summary = page.summaryView()->model();
  QCOMPARE(summary->index(0, columnOf(summary, QStringLiteral("ndcg_cut_10"))).data().toString(),
           QStringLiteral("0.5058"));
  QCOMPARE(summary->index(0, columnOf(summary, QStringLiteral("map"))).data().toString(),
           QStringLiteral("0.2476"));
  QCOMPARE(summary->index(0, columnOf(summary, QStringLiteral("recall_100"))).data().toString(),
           QStringLiteral("0.4910"));
  if (const QString shots = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR"); !shots.isEmpty()) {
    page.resize(1400, 900);
    page.setMeasures(QStringLiteral("nDCG@10 AP R@100 P(rel=3)@10 RR@10 Judged@10 infAP rbp"));
    QVERIFY(evaluateAndWait(page));
    QVERIFY(page.grab().save(QDir(shots).filePath(QStringLiteral("retrieval-ir-measures.png"))));
  }
  page.setMeasures(QStringLiteral("nDCG(dcg=exp-log2)@10"));
  QVERIFY(!page.evaluate());
}

void TestRetrievalPage::perQuerySortsAndFilters() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  page.setInputs(path(kDl19Qrels), {path(kBm25)});
  page.setMeasures(QStringLiteral("P.10"));
  page.setRelevanceLevel(2);
  QVERIFY(evaluateAndWait(page));
  QTableView* view = page.perQueryView();
  const QAbstractItemModel* model = view->model();
  QCOMPARE(model->rowCount(), 43);
  const int p10 = columnOf(model, QStringLiteral("P_10"));
  QVERIFY(p10 > 0);

  // P@10 at level 2 of each of the 43 queries, computed from the qrels and run files by a separate
  // script (score descending, docno descending on ties), sorted descending.
  const QList<double> expected = {1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.6, 0.6, 0.6,
                                  0.5, 0.5, 0.5, 0.5, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4,
                                  0.4, 0.4, 0.3, 0.3, 0.3, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2,
                                  0.2, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.0, 0.0};
  view->sortByColumn(p10, Qt::DescendingOrder);
  for (int r = 0; r < model->rowCount(); ++r)
    QCOMPARE(model->index(r, p10).data().toString(), QString::number(expected[r], 'f', 4));
  view->sortByColumn(p10, Qt::AscendingOrder);
  for (int r = 0; r < model->rowCount(); ++r)
    QCOMPARE(model->index(r, p10).data().toString(),
             QString::number(expected[expected.size() - 1 - r], 'f', 4));
  // Ties keep a numeric sort, not a text one: the last ascending row is a 1.0000.
  QCOMPARE(model->index(42, p10).data().toString(), QStringLiteral("1.0000"));

  // Filtering by qid: 9 of DL19's 43 judged query ids contain "10".
  page.queryFilterEdit()->setText(QStringLiteral("10"));
  QCOMPARE(model->rowCount(), 9);
  QSet<QString> shown;
  for (int r = 0; r < model->rowCount(); ++r) shown << model->index(r, 0).data().toString();
  QCOMPARE(shown, (QSet<QString>{"104861", "130510", "855410", "1037798", "1063750", "1103812",
                                 "1106007", "1110199", "1124210"}));
  page.queryFilterEdit()->setText(QStringLiteral("156493"));
  QCOMPARE(model->rowCount(), 1);
  QCOMPARE(model->index(0, p10).data().toString(),
           QStringLiteral("1.0000"));  // the script's best query
  page.queryFilterEdit()->clear();
  QCOMPARE(model->rowCount(), 43);
}

void TestRetrievalPage::conventionsBoxNamesSettings() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  // Before any evaluation the defaults are stated.
  QString text = page.conventionsView()->toPlainText();
  QVERIFY2(text.contains(QStringLiteral("ties by docno descending")), qPrintable(text));
  QVERIFY(text.contains(QStringLiteral("qrels grade >= 1")));
  QVERIFY(text.contains(QStringLiteral("absent from the run are skipped")));
  QVERIFY(!text.contains(QStringLiteral("cut at depth")));

  page.setInputs(path(kDl19Qrels), {path(kBm25)});
  page.setMeasures(QStringLiteral("map"));
  page.setRelevanceLevel(2);
  page.setComplete(true);
  page.setMaxDepth(50);
  QVERIFY(evaluateAndWait(page));
  text = page.conventionsView()->toPlainText();
  QVERIFY2(text.contains(QStringLiteral("sorted by score descending, ties by docno descending")),
           qPrintable(text));
  QVERIFY(text.contains(QStringLiteral("rank column is ignored")));
  QVERIFY(text.contains(QStringLiteral("qrels grade >= 2")));
  QVERIFY(text.contains(QStringLiteral("Rankings cut at depth 50 after sorting.")));
  QVERIFY(text.contains(QStringLiteral("count as 0 (trec_eval -c)")));
  QVERIFY(text.contains(QStringLiteral("43 queries averaged")));  // the BM25 run covers all 43
  QVERIFY(!text.contains(QStringLiteral("Document level")));
}

void TestRetrievalPage::drillDownColoursGrades() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  page.resize(1400, 900);
  page.setInputs(path(kDl19Qrels), {path(kBm25)});
  page.setMeasures(QStringLiteral("ndcg_cut.10"));
  page.setRelevanceLevel(2);
  QVERIFY(evaluateAndWait(page));
  // Query 1037798's BM25 top 100 holds grades 0, 1, 2 and 3 and 61 unjudged passages (counted
  // from the files).
  QVERIFY(page.showQuery(0, QStringLiteral("1037798")));
  const QAbstractItemModel* ranked = page.rankedView()->model();
  QCOMPARE(ranked->rowCount(), 100);
  QMap<QString, QSet<QRgb>> backgrounds;  // grade text -> colours seen
  int unjudged = 0;
  for (int r = 0; r < ranked->rowCount(); ++r) {
    const QModelIndex grade = ranked->index(r, ui::RankedListModel::Grade);
    const QVariant bg = grade.data(Qt::BackgroundRole);
    if (grade.data().toString() == QLatin1String("unjudged")) {
      ++unjudged;
      QVERIFY(!bg.isValid());  // no grade colour...
      QVERIFY(ranked->index(r, ui::RankedListModel::DocId)
                  .data(Qt::FontRole)
                  .value<QFont>()
                  .italic());  // ...marked
      continue;
    }
    QVERIFY(bg.isValid());
    backgrounds[grade.data().toString()] << bg.value<QBrush>().color().rgb();
  }
  QCOMPARE(unjudged, 61);
  // Grades are shown with the level applied, and each grade has one colour of its own.
  QCOMPARE(backgrounds.keys(), (QList<QString>{"0", "1", "2 relevant", "3 relevant"}));
  QSet<QRgb> distinct;
  for (const auto& colours : backgrounds) {
    QCOMPARE(colours.size(), 1);
    distinct += colours;
  }
  QCOMPARE(distinct.size(), 4);
  // Relevant grades are green, grade 0 red.
  const QColor g0 = QColor::fromRgb(*backgrounds["0"].begin());
  const QColor g3 = QColor::fromRgb(*backgrounds["3 relevant"].begin());
  QVERIFY(g3.green() > g3.red());
  QVERIFY(g0.red() > g0.green());
  saveScreenshot(page, QStringLiteral("retrieval-drilldown-grades.png"));
}

void TestRetrievalPage::documentLevelNotebookExample() {
  // The claim-level notebook (core/metrics/README.md, "Document level"): retrieved chunks of [2022
  // Q3 AAPL, 2023 Q1 MSFT, 2023 Q1 AAPL] (a second 2022 Q3 AAPL chunk too, which must not count
  // twice), gold [2022 Q3 AAPL, 2023 Q1 AAPL, 2023 Q2 AAPL, 2023 Q3 AAPL]. Ids hold blanks: written
  // %20-escaped.
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString qrels = dir.filePath(QStringLiteral("gold.qrels"));
  const QString run = dir.filePath(QStringLiteral("chunks.run"));
  QVERIFY(writeFile(qrels,
                    "nb 0 2022%20Q3%20AAPL.pdf 1\nnb 0 2023%20Q1%20AAPL.pdf 1\n"
                    "nb 0 2023%20Q2%20AAPL.pdf 1\nnb 0 2023%20Q3%20AAPL.pdf 1\n"));
  QVERIFY(writeFile(run,
                    "nb Q0 2022%20Q3%20AAPL.pdf#4#0 1 4.0 bm25\n"
                    "nb Q0 2022%20Q3%20AAPL.pdf#5#1 2 3.5 bm25\n"
                    "nb Q0 2023%20Q1%20MSFT.pdf#2#0 3 3.0 bm25\n"
                    "nb Q0 2023%20Q1%20AAPL.pdf#7#3 4 2.0 bm25\n"));
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  page.resize(1400, 800);
  page.setInputs(qrels, {run});
  page.setDocumentLevel(true);
  QVERIFY(evaluateAndWait(page));

  const QAbstractItemModel* summary = page.summaryView()->model();
  QAbstractItemModelTester tester(const_cast<QAbstractItemModel*>(summary),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(summary->rowCount(), 1);
  const int apTrec = columnOf(summary, QStringLiteral("AP (trec_eval)"));
  const int apRetrieved = columnOf(summary, QStringLiteral("AP over retrieved relevant"));
  const int p = columnOf(summary, QStringLiteral("P"));
  const int recall = columnOf(summary, QStringLiteral("recall"));
  QVERIFY(apTrec > 0 && apRetrieved > 0 && p > 0 && recall > 0);
  QCOMPARE(summary->index(0, apTrec).data().toString(), QStringLiteral("0.4167"));  // (1 + 2/3) / 4
  QCOMPARE(summary->index(0, apRetrieved).data().toString(),
           QStringLiteral("0.8333"));                                          // (1 + 2/3) / 2
  QCOMPARE(summary->index(0, p).data().toString(), QStringLiteral("0.6667"));  // 2 of 3 documents
  QCOMPARE(summary->index(0, recall).data().toString(), QStringLiteral("0.5000"));  // 2 of 4 gold
  QVERIFY(
      page.conventionsView()->toPlainText().contains(QStringLiteral("Document level: a chunk id")));

  // The drill-down lists the chunks, each with its document's grade.
  QVERIFY(page.showQuery(0, QStringLiteral("nb")));
  const QAbstractItemModel* ranked = page.rankedView()->model();
  QCOMPARE(ranked->rowCount(), 4);
  QStringList grades;
  for (int r = 0; r < 4; ++r)
    grades << ranked->index(r, ui::RankedListModel::Grade).data().toString();
  // The second chunk of 2022 Q3 AAPL does not count again.
  QCOMPARE(grades, (QStringList{"1 relevant", "not counted: document at rank 1", "unjudged",
                                "1 relevant"}));
  QVERIFY(!ranked->index(1, ui::RankedListModel::Grade).data(Qt::BackgroundRole).isValid());
  saveScreenshot(page, QStringLiteral("retrieval-doclevel.png"));

  // The same run without the option: chunk ids never match document qrels.
  page.setDocumentLevel(false);
  page.setMeasures(QStringLiteral("map"));
  QVERIFY(evaluateAndWait(page));
  QCOMPARE(summary->index(0, columnOf(summary, QStringLiteral("map"))).data().toString(),
           QStringLiteral("0.0000"));
}

void TestRetrievalPage::documentLevelWithGoldDocuments() {
  // A dataset whose queries name gold documents (the demo's KILT provenance; Docugami's SOURCE(S)
  // line works alike) offers them as document-level qrels. Expected values computed from
  // demo-kilt.jsonl and the two run files by a separate script: 28 queries with provenance.
  const auto demo = core::findDemoProject();
  QVERIFY(demo.has_value());
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  QSignalSpy loaded(&workbench, &ui::Workbench::datasetChanged);
  QVERIFY(workbench.openProject(QString::fromStdString(demo->string())));
  QVERIFY(loaded.wait(30000));
  QVERIFY(page.useGoldDocuments());
  page.setDocumentLevel(true);
  QVERIFY(evaluateAndWait(page));
  const QAbstractItemModel* summary = page.summaryView()->model();
  QCOMPARE(summary->rowCount(), 2);  // the dataset's two runs
  const QStringList columns = {"n", "P", "recall", "AP (trec_eval)", "AP over retrieved relevant"};
  const QList<QStringList> expected = {{"28", "0.1518", "1.0000", "0.8980", "0.8980"},   // run-good
                                       {"28", "0.0524", "0.7619", "0.4088", "0.4107"}};  // run-weak
  for (int row = 0; row < 2; ++row)
    for (int c = 0; c < columns.size(); ++c) {
      const int column = columnOf(summary, columns[c]);
      QVERIFY2(column >= 0, qPrintable(columns[c]));
      QCOMPARE(summary->index(row, column).data().toString(), expected[row][c]);
    }
}

void TestRetrievalPage::documentLevelDocugami() {
  // The real case: Docugami's questions loaded with their PDFs, a BM25 run of 5 chunks per
  // question made by the CLI, the questions' gold documents as qrels. The figures are those the
  // CLI and tst_retrievers measure for the same run.
  const char* kSec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString csv = path(kSec10q) + QStringLiteral("/qna_data.csv");
  const QString run = dir.filePath(QStringLiteral("bm25.trec"));
  QProcess cli;
  cli.start(QStringLiteral(RAGSCOPE_CLI_PATH),
            {"retrieve", "--dataset", csv, "--retriever", "bm25", "--index", dir.filePath("idx"),
             "--k", "5", "--out", run});
  QVERIFY(cli.waitForFinished(120000));
  QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());

  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  page.resize(1400, 900);
  QSignalSpy loaded(&workbench, &ui::Workbench::datasetChanged);
  ui::RecentDataset spec;
  spec.parts.push_back({csv, QStringLiteral("docugami")});
  QVERIFY(workbench.openDataset(spec));
  QVERIFY(loaded.wait(120000));
  page.setInputs(QString(), {run});
  QVERIFY(page.useGoldDocuments());
  page.setDocumentLevel(true);
  QVERIFY(evaluateAndWait(page));
  const QAbstractItemModel* summary = page.summaryView()->model();
  QCOMPARE(summary->rowCount(), 1);
  QCOMPARE(summary->index(0, columnOf(summary, "n")).data().toString(), QStringLiteral("193"));
  QCOMPARE(summary->index(0, columnOf(summary, "recall")).data().toString(),
           QStringLiteral("0.4953"));
  QCOMPARE(summary->index(0, columnOf(summary, "P")).data().toString(), QStringLiteral("0.2029"));
  QCOMPARE(summary->index(0, columnOf(summary, "AP (trec_eval)")).data().toString(),
           QStringLiteral("0.3421"));
  QCOMPARE(summary->index(0, columnOf(summary, "AP over retrieved relevant")).data().toString(),
           QStringLiteral("0.3792"));
  // Drill-down: chunks with their document's grade, text from the PDFs.
  QVERIFY(page.showQuery(0, page.perQueryView()->model()->index(0, 0).data().toString()));
  QCOMPARE(page.rankedView()->model()->rowCount(), 5);
  saveScreenshot(page, QStringLiteral("retrieval-doclevel-docugami.png"));
}

// The "Runs:" editor both the Evaluation and Qrels agreement tabs use: a dataset change replaces
// the dataset's runs (first, checked) and keeps the added files as the user left them; Remove
// drops selected files only; chosen() lists the checked runs in list order.
void TestRetrievalPage::runListEditorKeepsFilesAndChoosesChecked() {
  ui::RunListEditor editor(6);
  core::Dataset first;
  first.runs.resize(2);
  first.runs[0].tag = "bm25";
  first.runs[0].source = "/runs/bm25.txt";
  first.runs[0].rankings.resize(3);
  first.runs[1].tag = "splade";
  first.runs[1].source = "/runs/splade.txt";
  editor.setDatasetRuns(&first);
  editor.addRunFiles({QStringLiteral("/a/BM25/run.txt"), QStringLiteral("/a/ADA2/run.txt")});
  QListWidget* list = editor.list();
  QCOMPARE(list->count(), 4);
  QCOMPARE(list->item(0)->text(), QStringLiteral("bm25 (dataset, 3 queries)"));
  QCOMPARE(list->item(2)->text(), QStringLiteral("BM25/run.txt"));
  list->item(0)->setCheckState(Qt::Unchecked);
  list->item(2)->setCheckState(Qt::Unchecked);
  auto chosen = editor.chosen();
  QCOMPARE(chosen.datasetRuns, (std::vector<std::size_t>{1}));
  QCOMPARE(chosen.files, QStringList{QStringLiteral("/a/ADA2/run.txt")});

  core::Dataset second;
  second.runs.resize(1);
  second.runs[0].tag = "dense";
  editor.setDatasetRuns(&second);
  QCOMPARE(list->count(), 3);
  QCOMPARE(list->item(0)->text(), QStringLiteral("dense (dataset, 0 queries)"));
  QCOMPARE(list->item(1)->checkState(), Qt::Unchecked);  // the user's choice survives
  chosen = editor.chosen();
  QCOMPARE(chosen.datasetRuns, (std::vector<std::size_t>{0}));
  QCOMPARE(chosen.files, QStringList{QStringLiteral("/a/ADA2/run.txt")});

  // Remove with the dataset run and the first file selected: only the file goes.
  list->setSelectionMode(QAbstractItemView::MultiSelection);
  list->item(0)->setSelected(true);
  list->item(1)->setSelected(true);
  QPushButton* remove = nullptr;
  for (QPushButton* b : editor.findChildren<QPushButton*>())
    if (b->text() == QStringLiteral("Remove")) remove = b;
  QVERIFY(remove);
  remove->click();
  QCOMPARE(list->count(), 2);
  QCOMPARE(list->item(1)->text(), QStringLiteral("ADA2/run.txt"));

  editor.setDatasetRuns(nullptr);
  QCOMPARE(list->count(), 1);
  chosen = editor.chosen();
  QVERIFY(chosen.datasetRuns.empty());
  QCOMPARE(chosen.files, QStringList{QStringLiteral("/a/ADA2/run.txt")});
}

QTEST_MAIN(TestRetrievalPage)
#include "tst_retrievalpage.moc"
