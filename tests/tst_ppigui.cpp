// Prediction-powered estimates in the workbench (ui/pages/ppisummary.h): the Claims summary's
// judge-only, human-only and PPI++ columns on a copy of the demo project, updated live as labels
// are added through the workbench's LabelBook, the statistics panel's human-labels lines, and the
// eRAG summary against human document labels. Screenshots go to $RAGSCOPE_SHOTS (when set).

#include <QDir>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <memory>

#include "core/eval/api/job.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/label.h"
#include "ui/labelbook.h"
#include "ui/pages/claimsresultsview.h"
#include "ui/pages/eragresultsview.h"
#include "ui/pages/ppisummary.h"
#include "ui/pages/statspanel.h"
#include "ui/workbench.h"

using namespace ragscope;
namespace fs = std::filesystem;

namespace {

constexpr int kWaitMs = 30000;

// The demo project copied to `dir` (tests never write into the repository).
QString copyDemo(const QTemporaryDir& dir) {
  const fs::path from = fs::path(RAGSCOPE_SOURCE_DIR) / "resources/demo";
  fs::copy(from, dir.path().toStdString(), fs::copy_options::recursive);
  return dir.filePath(QStringLiteral("demo.ragscope.json"));
}

bool openProject(ui::Workbench& wb, const QString& file) {
  QSignalSpy finished(&wb, &ui::Workbench::loadFinished);
  if (!wb.openProject(file)) return false;
  if (finished.isEmpty() && !finished.wait(kWaitMs)) return false;
  return finished.front().at(0).toBool();
}

core::labels::Label claimLabel(const std::string& qid, const std::string& item,
                               const std::string& value, const std::string& who) {
  core::labels::Label l;
  l.target = {core::labels::TargetKind::Claim, "runs/claims-offline.db", qid, item};
  l.value = value;
  l.annotator = who;
  return l;
}

// The row of `metric` in a PPI table, or -1.
int rowOf(const QStandardItemModel* m, const QString& metric) {
  for (int r = 0; r < m->rowCount(); ++r)
    if (m->item(r, 0)->text() == metric) return r;
  return -1;
}

QString cell(const QStandardItemModel* m, const QString& metric, int column) {
  const int r = rowOf(m, metric);
  return r < 0 ? QString() : m->item(r, column)->text();
}

void shoot(QWidget* w, const char* name) {
  const QString dir = qEnvironmentVariable("RAGSCOPE_SHOTS");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(dir + "/" + name));
}

}  // namespace

class TestPpiGui : public QObject {
  Q_OBJECT

 private slots:
  void claimsSummaryFollowsLabels();
  void eragSummaryFollowsLabels();
};

void TestPpiGui::claimsSummaryFollowsLabels() {
  QTemporaryDir dir;
  const QString project = copyDemo(dir);
  ui::Workbench wb;
  QVERIFY(openProject(wb, project));
  ui::LabelBook* book = wb.labelBook();
  QCOMPARE(book->storePath(), dir.filePath(QStringLiteral("demo.ragscope.labels.db")));

  const QString store = dir.filePath(QStringLiteral("runs/claims-offline.db"));
  core::stats::BootstrapOptions bootstrap;
  bootstrap.resamples = 200;
  auto report = std::make_shared<const core::eval::JudgeReport>(
      core::eval::readJudgeReport(store.toStdString(), bootstrap));
  QVERIFY2(report->error.empty(), report->error.c_str());
  ui::ClaimsResultsView view;
  view.resize(1180, 760);
  view.setLabelBook(book);
  view.setReport(report, store);
  view.show();
  auto* ppi = view.ppiSummary()->model();

  // No label yet: the judge's figures over claims, nothing human. The demo's offline judge found
  // 12 of its 18 response claims supported by the chunks: 0.6667 +- 1.96 sqrt((2/9)/18)
  // = 0.6667 +- 0.2178.
  QCOMPARE(cell(ppi, "faithfulness", 1), QStringLiteral("0 / 18"));
  QCOMPARE(cell(ppi, "faithfulness", 2), QStringLiteral("0.6667  [0.4489, 0.8844]"));
  QCOMPARE(cell(ppi, "faithfulness", 3), QStringLiteral("–"));
  QCOMPARE(cell(ppi, "faithfulness", 4), QStringLiteral("no labels yet"));
  QCOMPARE(cell(ppi, "coverage", 1), QStringLiteral("0 / 15"));

  // Four labels, added as the inspector adds them (through the book, in the background):
  //   q01 response:0 judge supported, human supported; q04 response:1 unsupported / supported;
  //   q12 response:1 supported / unsupported; q13 response:1 unsupported / unsupported.
  // Y = 1 1 0 0, f = 1 0 1 0: cov_L(Y, f) = 0, so PPI++ takes lambda = 0 and its estimate and
  // interval are the human-only ones: 0.5 +- 1.96 * sqrt(0.25 / 4) = [0.0100, 0.9900].
  QSignalSpy changed(book, &ui::LabelBook::labelsChanged);
  book->add({claimLabel("q01", "response:0", "supported", "ana"),
             claimLabel("q04", "response:1", "supported", "ana"),
             claimLabel("q12", "response:1", "unsupported", "ana"),
             claimLabel("q13", "response:1", "unsupported", "ana")});
  QTRY_COMPARE_WITH_TIMEOUT(cell(ppi, "faithfulness", 1), QStringLiteral("4 / 18"), kWaitMs);
  QCOMPARE(cell(ppi, "faithfulness", 3), QStringLiteral("0.5000  [0.0100, 0.9900]"));
  QCOMPARE(cell(ppi, "faithfulness", 4), QStringLiteral("0.5000  [0.0100, 0.9900]"));
  QCOMPARE(cell(ppi, "faithfulness", 5), QStringLiteral("0.000"));
  QCOMPARE(cell(ppi, "faithfulness", 2), QStringLiteral("0.6667  [0.4489, 0.8844]"));
  // Verdicts against the chunks are no truth for correctness (response claims vs the gold
  // answer): it stays unlabelled (issue 35, item 10), and the note says why.
  QCOMPARE(cell(ppi, "correctness", 1), QStringLiteral("0 / 18"));
  QCOMPARE(cell(ppi, "correctness", 4), QStringLiteral("no labels yet"));
  QVERIFY2(view.ppiSummary()->note()->text().contains(
               "labelled claim(s) judged against another premise count for that premise's "
               "metric only"),
           qPrintable(view.ppiSummary()->note()->text()));

  // The statistics panel of faithfulness shows the same three lines.
  QVERIFY(view.openStatistics(0));
  QVERIFY(view.statsPanel()->humanLabels()->isVisible());
  QVERIFY2(view.statsPanel()->humanLabels()->text().contains("4 of 18"),
           qPrintable(view.statsPanel()->humanLabels()->text()));
  QVERIFY(view.statsPanel()->humanLabels()->text().contains("0.6667  [0.4489, 0.8844]"));

  // A second annotator and more claims: the table follows at once.
  book->add({claimLabel("q04", "response:1", "supported", "bob"),
             claimLabel("q12", "response:1", "supported", "bob"),
             claimLabel("q16", "response:1", "supported", "ana"),
             claimLabel("q19", "response:1", "unsupported", "ana"),
             claimLabel("q20", "response:0", "supported", "ana"),
             claimLabel("q04", "response:0", "supported", "ana"),
             claimLabel("q01", "gold:0", "supported", "ana"),
             claimLabel("q19", "gold:2", "supported", "ana"),
             claimLabel("q20", "gold:0", "unsupported", "ana")});
  QTRY_COMPARE_WITH_TIMEOUT(cell(ppi, "faithfulness", 1), QStringLiteral("8 / 18"), kWaitMs);
  QTRY_COMPARE_WITH_TIMEOUT(cell(ppi, "coverage", 1), QStringLiteral("3 / 15"), kWaitMs);
  // q12 response:1 now has ana's 0 and bob's 1: Y = 0.5. Y over the 8 labelled claims:
  // 1 1 0.5 0 1 0 1 1 (query order) = 5.5 / 8 = 0.6875.
  QVERIFY2(cell(ppi, "faithfulness", 3).startsWith("0.6875"),
           qPrintable(cell(ppi, "faithfulness", 3)));
  // The panel follows the labels too.
  QTRY_VERIFY_WITH_TIMEOUT(view.statsPanel()->humanLabels()->text().contains("8 of 18"), kWaitMs);
  view.tabs()->setCurrentIndex(0);
  QTest::qWait(50);
  shoot(&view, "claims_summary_ppi.png");
}

void TestPpiGui::eragSummaryFollowsLabels() {
  QTemporaryDir dir;
  const QString project = copyDemo(dir);
  ui::Workbench wb;
  QVERIFY(openProject(wb, project));
  ui::LabelBook* book = wb.labelBook();
  core::eval::ResultOptions options;
  options.bootstrap.resamples = 200;
  const fs::path erag = dir.filePath(QStringLiteral("runs/erag-good.db")).toStdString();
  auto results = std::make_shared<const core::eval::EvaluationResults>(
      core::eval::readEvaluation(erag, {}, options));
  QVERIFY2(results->error.empty() && results->erag, results->error.c_str());
  ui::EragResultsView view;
  view.resize(1100, 700);
  view.setLabelBook(book);
  view.setResults(results, nullptr);
  view.show();
  auto* ppi = view.ppiSummary()->model();
  QCOMPARE(ppi->rowCount(), 1);
  const auto& first = results->erag->queries.front();
  QVERIFY(first.docIds.size() >= 2);
  const int items = ppi->item(0, 1)->text().section(" / ", 1).toInt();
  QVERIFY(items > 0);
  // Two documents of the first query graded by a person: 1 and 0.
  auto grade = [&](const std::string& doc, const char* value) {
    core::labels::Label l;
    l.target = {core::labels::TargetKind::EragDoc, "runs/erag-good.db", first.qid, doc};
    l.value = value;
    l.annotator = "ana";
    return l;
  };
  book->add({grade(first.docIds[0], "1"), grade(first.docIds[1], "0")});
  QTRY_COMPARE_WITH_TIMEOUT(ppi->item(0, 1)->text(), QStringLiteral("2 / %1").arg(items), kWaitMs);
  // human only: 1 and 0, mean 0.5 +- 1.96 * sqrt(0.25 / 2) = [-0.1930, 1.1930]
  QCOMPARE(ppi->item(0, 3)->text(), QStringLiteral("0.5000  [-0.1930, 1.1930]"));
  shoot(&view, "erag_summary_ppi.png");
}

QTEST_MAIN(TestPpiGui)
#include "tst_ppigui.moc"
