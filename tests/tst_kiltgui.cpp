// The workbench's KILT page (ui/pages/kiltview.h): a dataset with a KILT task file, its knowledge
// source and a "kilt-predictions" part is evaluated by itself; the summary shows KILT's three
// groups (hand-computed below), the per-item table sorts and filters, and the detail sets the
// guess's provenance beside the gold's with the knowledge source's text. Screenshots go to
// $RAGSCOPE_SCREENSHOT_DIR when it is set.

#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <fstream>

#include "common/testdata.h"
#include "ui/pages/kiltview.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

constexpr int kTimeoutMs = 60000;

void shoot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& text) {
  const QString path = dir.filePath(name);
  std::ofstream(path.toStdString(), std::ios::binary) << text;
  return path;
}

// The summary row of a metric: its mean and CI cells.
QString summaryCell(QTableWidget* t, const QString& metric, int column) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 1) && t->item(r, 1)->text() == metric)
      return t->item(r, column) ? t->item(r, column)->text() : QString();
  return QStringLiteral("(no row %1)").arg(metric);
}

}  // namespace

class TestKiltGui : public QObject {
  Q_OBJECT

 private slots:
  // Three items, scored by hand as KILT does:
  //   q1 "Paris" = gold "Paris"; pages [100, 200], gold {100}: R = 1, top-1 = 100, Rprec 1.
  //      accuracy 1, em 1, f1 1; KILT-* = the same.
  //   q2 "Shakespeare" vs "William Shakespeare": em 0, f1 = 2PR/(P+R) with P 1, R 1/2 = 2/3;
  //      pages [100, 200], gold {200}: top-1 = 100, Rprec 0, so KILT-f1 0.
  //   q3 "supports" vs "SUPPORTS": accuracy 0 (KILT's strict equality), em 1 (normalised);
  //      page 300 = gold: Rprec 1, KILT-em 1, KILT-accuracy 0.
  // Means: accuracy 1/3, em 2/3, f1 (1 + 2/3 + 1)/3 = 8/9, Rprec 2/3, KILT-em 2/3,
  // KILT-accuracy 1/3, KILT-f1 2/3.
  void datasetWithPredictions() {
    QTemporaryDir dir;
    const QString gold = writeFile(
        dir, "toy-dev-kilt.jsonl",
        R"({"id": "q1", "input": "Where is the Eiffel Tower?", "output": [{"answer": "Paris", "provenance": [{"wikipedia_id": "100", "title": "Eiffel Tower", "start_paragraph_id": 1, "end_paragraph_id": 1}]}]}
{"id": "q2", "input": "Who wrote Hamlet?", "output": [{"answer": "William Shakespeare", "provenance": [{"wikipedia_id": "200", "title": "Hamlet", "start_paragraph_id": 1, "end_paragraph_id": 1}]}]}
{"id": "q3", "input": "Water is wet.", "output": [{"answer": "SUPPORTS", "provenance": [{"wikipedia_id": "300", "title": "Water", "start_paragraph_id": 1, "end_paragraph_id": 1}]}]}
)");
    const QString source = writeFile(
        dir, "kilt_knowledgesource.json",
        R"({"_id": "a", "wikipedia_id": "100", "wikipedia_title": "Eiffel Tower", "text": ["Eiffel Tower\n", "The Eiffel Tower is a wrought-iron lattice tower in Paris.\n"], "anchors": [], "categories": "", "history": {}}
{"_id": "b", "wikipedia_id": "200", "wikipedia_title": "Hamlet", "text": ["Hamlet\n", "Hamlet is a tragedy written by William Shakespeare.\n"], "anchors": [], "categories": "", "history": {}}
{"_id": "c", "wikipedia_id": "300", "wikipedia_title": "Water", "text": ["Water\n", "Water is a liquid that makes things wet.\n"], "anchors": [], "categories": "", "history": {}}
)");
    const QString guess = writeFile(
        dir, "toy-predictions.jsonl",
        R"({"id": "q1", "output": [{"answer": "Paris", "provenance": [{"wikipedia_id": "100", "title": "Eiffel Tower"}, {"wikipedia_id": "200", "title": "Hamlet"}]}]}
{"id": "q2", "output": [{"answer": "Shakespeare", "provenance": [{"wikipedia_id": "100"}, {"wikipedia_id": "200"}]}]}
{"id": "q3", "output": [{"answer": "supports", "provenance": [{"wikipedia_id": "300", "title": "Water"}]}]}
)");

    ui::Workbench wb;
    ui::KiltView view(&wb);
    view.resize(1400, 900);
    QSignalSpy finished(&view, &ui::KiltView::evaluationFinished);
    ui::RecentDataset spec;
    spec.name = QStringLiteral("toy KILT");
    spec.parts = {{gold, QStringLiteral("kilt")},
                  {source, QStringLiteral("kilt-knowledge-source")},
                  {guess, QStringLiteral("kilt-predictions")}};
    QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
    QVERIFY(wb.openDataset(spec));
    QVERIFY(loaded.wait(kTimeoutMs));
    QVERIFY(loaded.front().at(0).toBool());
    // The page took both files from the dataset and evaluated them by itself.
    QVERIFY(finished.count() > 0 || finished.wait(kTimeoutMs));
    QVERIFY2(finished.front().at(0).toBool(), qPrintable(view.statusText()));

    const auto* e = view.evaluation();
    QVERIFY(e);
    QCOMPARE(e->n(), std::size_t(3));
    auto mean = [&](const char* name) {
      return e->metrics[std::size_t(e->metricIndex(name))].mean;
    };
    QVERIFY(qAbs(mean("accuracy") - 1.0 / 3) < 1e-12);
    QVERIFY(qAbs(mean("em") - 2.0 / 3) < 1e-12);
    QVERIFY(qAbs(mean("f1") - 8.0 / 9) < 1e-12);
    QVERIFY(qAbs(mean("Rprec") - 2.0 / 3) < 1e-12);
    QVERIFY(qAbs(mean("KILT-em") - 2.0 / 3) < 1e-12);
    QVERIFY(qAbs(mean("KILT-accuracy") - 1.0 / 3) < 1e-12);
    QVERIFY(qAbs(mean("KILT-f1") - 2.0 / 3) < 1e-12);
    QTableWidget* summary = view.summaryTable();
    QCOMPARE(summaryCell(summary, "f1", 2), QStringLiteral("0.8889"));
    QCOMPARE(summaryCell(summary, "KILT-em", 2), QStringLiteral("0.6667"));
    QVERIFY(summaryCell(summary, "em", 3).startsWith('['));  // a CI (B = 1000 by default)
    QCOMPARE(summaryCell(summary, "em", 4), QStringLiteral("3"));

    // Sorting by KILT-f1 descending puts q1 (1) first, then q3 (1 - gate open, f1 1), q2 last.
    QTableView* table = view.itemTable();
    QCOMPARE(table->model()->rowCount(), 3);
    const int kiltF1Column = 4 + e->metricIndex("KILT-f1");
    table->sortByColumn(kiltF1Column, Qt::DescendingOrder);
    QCOMPARE(table->model()->index(2, 0).data().toString(), QStringLiteral("q2"));
    // Filtering by a page title keeps the items naming that page (q1's guess and q2), then by
    // a word of one question only its item.
    view.setFilterText(QStringLiteral("hamlet"));
    QCOMPARE(table->model()->rowCount(), 2);
    view.setFilterText(QStringLiteral("wrote"));
    QCOMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, 0).data().toString(), QStringLiteral("q2"));
    QSignalSpy shown(&view, &ui::KiltView::detailShown);
    view.selectRow(0);
    QVERIFY(shown.wait(10000));
    const QString detail = view.detail()->toPlainText();
    QVERIFY2(detail.contains("William Shakespeare") && detail.contains("Shakespeare"),
             qPrintable(detail));
    // Gold paragraph 1 of page 200, read from the knowledge source; the guess's page 200 is
    // marked as a gold page.
    QVERIFY2(detail.contains("Hamlet is a tragedy written by William Shakespeare."),
             qPrintable(detail));
    QVERIFY(detail.contains(QStringLiteral("✓ gold page")));
    view.setFilterText(QString());
    QCOMPARE(table->model()->rowCount(), 3);
    table->sortByColumn(0, Qt::AscendingOrder);
    view.selectRow(0);
    QVERIFY(shown.wait(10000));
    QVERIFY(view.detail()->toPlainText().contains("wrought-iron lattice tower"));
    shoot(&view, QStringLiteral("kilt-view"));
  }

  // A run of the dataset written as KILT predictions from the page ("From a run…"), then
  // scored. Gold pages: q1 100, q2 200, q3 300. The run ranks q1: 200, 100; q2: 200; q3: 999.
  // Page-level R-precision (R = 1): q1 0 (top-1 is 200), q2 1, q3 0 -> 1/3; success_rate@5:
  // q1 and q2 find their page -> 2/3; no answers, so em 0 and every KILT-score 0.
  void predictionsFromARun() {
    QTemporaryDir dir;
    const QString gold = writeFile(
        dir, "toy-dev-kilt.jsonl",
        R"({"id": "q1", "input": "Where is the Eiffel Tower?", "output": [{"answer": "Paris", "provenance": [{"wikipedia_id": "100"}]}]}
{"id": "q2", "input": "Who wrote Hamlet?", "output": [{"answer": "William Shakespeare", "provenance": [{"wikipedia_id": "200"}]}]}
{"id": "q3", "input": "Water is wet.", "output": [{"answer": "SUPPORTS", "provenance": [{"wikipedia_id": "300"}]}]}
)");
    const QString run = writeFile(dir, "bm25.trec",
                                  "q1 Q0 200 1 2.0 bm25\nq1 Q0 100 2 1.0 bm25\n"
                                  "q2 Q0 200 1 3.0 bm25\nq3 Q0 999 1 1.5 bm25\n");
    ui::Workbench wb;
    ui::KiltView view(&wb);
    QSignalSpy finished(&view, &ui::KiltView::evaluationFinished);
    ui::RecentDataset spec;
    spec.name = QStringLiteral("toy KILT with a run");
    spec.parts = {{gold, QStringLiteral("kilt")}, {run, QStringLiteral("trec-run")}};
    QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
    QVERIFY(wb.openDataset(spec));
    QVERIFY(loaded.wait(kTimeoutMs));
    QVERIFY(loaded.front().at(0).toBool());
    QVERIFY(wb.dataset() && wb.dataset()->runs.size() == 1);
    view.setResamples(0);
    const QString out = dir.filePath("bm25.kilt-predictions.jsonl");
    QVERIFY(view.writePredictionsFromRun(0, out));
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY2(finished.back().at(0).toBool(), qPrintable(view.statusText()));
    QVERIFY(QFileInfo::exists(out));
    QCOMPARE(summaryCell(view.summaryTable(), "Rprec", 2), QStringLiteral("0.3333"));
    QCOMPARE(summaryCell(view.summaryTable(), "success_rate@5", 2), QStringLiteral("0.6667"));
    QCOMPARE(summaryCell(view.summaryTable(), "em", 2), QStringLiteral("0.0000"));
    QCOMPARE(summaryCell(view.summaryTable(), "KILT-em", 2), QStringLiteral("0.0000"));
  }

  // KILT's own fixture chosen on the page, with the paragraph rank keys: the figures of
  // KILT's test_eval_downstream (KILT-em 1/3, em 2/3) whatever the retrieval keys.
  void fixtureChosenOnPage() {
    RAGSCOPE_REQUIRE_DATA("kilt/tests/test_data/gold1.jsonl");
    ui::Workbench wb;
    ui::KiltView view(&wb);
    QSignalSpy finished(&view, &ui::KiltView::evaluationFinished);
    view.setFiles(QString::fromStdString(test::dataPath("kilt/tests/test_data/gold1.jsonl")),
                  QString::fromStdString(test::dataPath("kilt/tests/test_data/guess1_1.jsonl")));
    view.setRankKeys(2);
    view.setResamples(0);
    QVERIFY(view.evaluate());
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(finished.front().at(0).toBool());
    QCOMPARE(summaryCell(view.summaryTable(), "KILT-em", 2), QStringLiteral("0.3333"));
    QCOMPARE(summaryCell(view.summaryTable(), "em", 2), QStringLiteral("0.6667"));
    QCOMPARE(summaryCell(view.summaryTable(), "em", 3), QStringLiteral("–"));  // B = 0

    // A file that is not there: an error in the status, no crash, the old result kept.
    view.setFiles(QStringLiteral("/nonexistent/gold.jsonl"), QStringLiteral("/nonexistent/g"));
    QVERIFY(view.evaluate());
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(!finished.back().at(0).toBool());
    QVERIFY(view.statusText().contains("Cannot evaluate"));
  }
};

QTEST_MAIN(TestKiltGui)
#include "tst_kiltgui.moc"
