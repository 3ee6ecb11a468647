// The retrieval-evaluation page: background evaluation of several runs, the summary table, the
// per-query table and the ranked-list drill-down, checked against EXPECTED.md's TREC DL figures.

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include "common/testdata.h"
#include "ui/models/evalsummarymodel.h"
#include "ui/models/perqueryevalmodel.h"
#include "ui/models/rankedlistmodel.h"
#include "ui/pages/retrievalpage.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

const char* kDl19Qrels = "msmarco_trecdl/qrels/qrels.dl19-passage.txt";
const char* kBm25 = "msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt";
const char* kSplade = "msmarco_trecdl/runs/rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl19.txt";
const char* kAda2 = "msmarco_trecdl/runs/rank_llm/OPEN_AI_ADA2/trec_results_dl19.txt";

QString path(const char* rel) { return QString::fromStdString(test::dataPath(rel).string()); }

// Finds a column by header text.
int columnOf(const QAbstractItemModel* model, const QString& name) {
  for (int c = 0; c < model->columnCount(); ++c)
    if (model->headerData(c, Qt::Horizontal).toString() == name) return c;
  return -1;
}

}  // namespace

class TestRetrievalPage : public QObject {
  Q_OBJECT

 private slots:
  void threeDl19RunsSideBySide();
  void badRunFileIsReported();
};

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
  // EXPECTED.md: nDCG@10 uses all grades (the level does not apply), AP and R@100 use -l 2.
  const QStringList expectedNdcg = {QStringLiteral("0.5058"), QStringLiteral("0.7308"), QStringLiteral("0.7035")};
  const QStringList expectedMap = {QStringLiteral("0.2476"), QStringLiteral("0.4464"), QStringLiteral("0.4151")};
  const QStringList expectedRecall = {QStringLiteral("0.4910"), QStringLiteral("0.6390"), QStringLiteral("0.6235")};
  for (int row = 0; row < 3; ++row) {
    QCOMPARE(summary->index(row, ndcg).data().toString(), expectedNdcg[row]);
    QCOMPARE(summary->index(row, map).data().toString(), expectedMap[row]);
    QCOMPARE(summary->index(row, recall).data().toString(), expectedRecall[row]);
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
    const double s = ranked->index(r, ui::RankedListModel::Score).data(ui::RankedListModel::SortRole).toDouble();
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

QTEST_MAIN(TestRetrievalPage)
#include "tst_retrievalpage.moc"
