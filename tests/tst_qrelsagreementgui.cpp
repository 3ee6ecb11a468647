// The Retrieval page's "Qrels agreement" tab (ui/pages/qrelsagreementview.h): two hand-made qrels
// files and three runs, the figures and both confusion matrices checked against values computed
// by hand below, the heatmap's colours, the system orderings; the same numbers as core's
// functions and as `ragscope-cli qrels-agreement --json` (the saved JSON is the CLI's document);
// the dataset's qrels and runs as the defaults; problems of a file shown as file:line: field.

#include <QAbstractItemModelTester>
#include <QDir>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/cli.h"
#include "common/files.h"
#include "core/data/loaders.h"
#include "core/trecrag/qrelsagreement.h"
#include "ui/delegates/heatmapdelegate.h"
#include "ui/models/heatmapmodel.h"
#include "ui/models/systemagreementmodel.h"
#include "ui/pages/qrelsagreementview.h"
#include "ui/pages/retrievalpage.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

constexpr int kTimeoutMs = 60000;

// Hand-made qrels (rows A, columns B in every matrix below).
//   shared pairs (A -> B): q1 d1 3->3, q1 d2 2->3, q1 d3 0->0, q1 d4 1->2,
//                          q2 d1 2->2, q2 d5 0->1, q2 d6 3->3             n = 7
//   only A: q2 d7, q3 d8 (2 pairs; query q3 only in A); only B: q2 d9, q4 d1 (q4 only in B)
//   4x4 confusion: A0 (1 1 0 0), A1 (0 0 1 0), A2 (0 0 1 1), A3 (0 0 0 2)
//   p_o = 4/7 = 0.5714; marginals A (2 1 2 2), B (1 1 2 3);
//   p_e = (2*1 + 1*1 + 2*2 + 2*3) / 49 = 13/49; kappa = (28/49 - 13/49) / (36/49) = 15/36 = 0.4167
//   binary at 2: A<2 = {q1 d3, q1 d4, q2 d5} -> B (<2, >=2) = (2, 1); A>=2 -> (0, 4)
//   p_o = 6/7 = 0.8571; marginals A (3 4), B (2 5); p_e = (6 + 20) / 49 = 26/49;
//   kappa = (42/49 - 26/49) / (23/49) = 16/23 = 0.6957
const char* kQrelsA =
    "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 0\nq1 0 d4 1\n"
    "q2 0 d1 2\nq2 0 d5 0\nq2 0 d6 3\nq2 0 d7 1\n"
    "q3 0 d8 2\n";
const char* kQrelsB =
    "q1 0 d1 3\nq1 0 d2 3\nq1 0 d3 0\nq1 0 d4 2\n"
    "q2 0 d1 2\nq2 0 d5 1\nq2 0 d6 3\nq2 0 d9 2\n"
    "q4 0 d1 1\n";
// P@2 at -l 2 over q1 and q2 (the queries both judge; relevant: A q1 {d1 d2}, q2 {d1 d6};
// B q1 {d1 d2 d4}, q2 {d1 d6 d9}):
//   r1: q1 [d2 d1] A 1, B 1; q2 [d5 d7] A 0, B 0 -> A 0.5, B 0.5 (its q3, 0, is not averaged)
//   r2: q1 [d4 d1] A .5, B 1; q2 [d9 d5] A 0, B .5 -> A 0.25, B 0.75
//   r3: q1 [d3 d10] 0, 0; q2 [d5 d7] 0, 0       -> A 0, B 0
//   ranks A: r1 1, r2 2, r3 3; B: r2 1, r1 2, r3 3
//   tau-b: (r1, r2) discordant, (r1, r3) and (r2, r3) concordant -> (2 - 1) / 3 = 0.3333
//   rho: d = (-1, 1, 0), 1 - 6 * 2 / (3 * 8) = 0.5; swaps: r1 1 -> 2, r2 2 -> 1 (r3 kept its rank)
const char* kRun1 =
    "q1 Q0 d2 1 2.0 r1\nq1 Q0 d1 2 1.0 r1\nq2 Q0 d5 1 2.0 r1\nq2 Q0 d7 2 1.0 r1\n"
    "q3 Q0 d1 1 2.0 r1\nq3 Q0 d2 2 1.0 r1\n";
const char* kRun2 = "q1 Q0 d4 1 2.0 r2\nq1 Q0 d1 2 1.0 r2\nq2 Q0 d9 1 2.0 r2\nq2 Q0 d5 2 1.0 r2\n";
const char* kRun3 = "q1 Q0 d3 1 2.0 r3\nq1 Q0 d10 2 1.0 r3\nq2 Q0 d5 1 2.0 r3\nq2 Q0 d7 2 1.0 r3\n";

QString cellText(const QTableView* view, int row, int column) {
  return view->model()->index(row, column).data().toString();
}

bool computeAndWait(ui::QrelsAgreementView& view, bool* ok = nullptr) {
  QSignalSpy finished(&view, &ui::QrelsAgreementView::finished);
  if (!view.compute()) return false;
  if (!finished.wait(kTimeoutMs)) return false;
  if (ok) *ok = finished.first().first().toBool();
  return true;
}

}  // namespace

class TestQrelsAgreementGui : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void handComputedFiguresAndHeatmap();
  void datasetQrelsAndRunsAreTheDefaults();
  void fileProblemsAreShown();
  void demoAgainstChangedGrades();

 private:
  QTemporaryDir m_dir;
  QString m_a, m_b, m_r1, m_r2, m_r3;
  QString file(const char* name, const char* text) {
    const QString path = m_dir.filePath(QString::fromLatin1(name));
    test::writeText(path.toStdString(), text);
    return path;
  }
};

void TestQrelsAgreementGui::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("ragscope-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_qrelsagreementgui"));
  QVERIFY(m_dir.isValid());
  m_a = file("nist.qrels", kQrelsA);
  m_b = file("llm.qrels", kQrelsB);
  m_r1 = file("r1.trec", kRun1);
  m_r2 = file("r2.trec", kRun2);
  m_r3 = file("r3.trec", kRun3);
}

void TestQrelsAgreementGui::handComputedFiguresAndHeatmap() {
  ui::Workbench wb;
  ui::RetrievalPage page(&wb);
  page.resize(1400, 900);
  page.show();
  page.showQrelsAgreement();
  ui::QrelsAgreementView& view = *page.qrelsAgreement();
  QVERIFY(view.isVisible());
  view.setQrels(m_a, m_b);
  view.addRunFiles({m_r1, m_r2, m_r3});
  view.setMeasure(QStringLiteral("P_2"));
  bool ok = false;
  QVERIFY(computeAndWait(view, &ok));
  QVERIFY2(ok, qPrintable(view.statusLabel()->text()));

  // Hand values (see kQrelsA).
  QCOMPARE(view.figureText("pairs"), QStringLiteral("7  (only A: 2, only B: 2)"));
  QCOMPARE(view.figureText("queries"), QStringLiteral("2  (only A: 1, only B: 1)"));
  QCOMPARE(view.figureText("kappa"), QStringLiteral("0.4167"));
  QCOMPARE(view.figureText("accuracy"), QStringLiteral("0.5714"));
  QCOMPARE(view.figureText("binary_kappa"), QStringLiteral("0.6957"));
  QCOMPARE(view.figureText("binary_accuracy"), QStringLiteral("0.8571"));
  const QTableView* grades = view.gradesView();
  QAbstractItemModelTester tester(grades->model(),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(grades->model()->rowCount(), 4);
  QCOMPARE(grades->model()->columnCount(), 4);
  const int expected[4][4] = {{1, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 1, 1}, {0, 0, 0, 2}};
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) QCOMPARE(cellText(grades, a, b), QString::number(expected[a][b]));
  QCOMPARE(grades->model()->headerData(2, Qt::Vertical).toString(), QStringLiteral("A: 2"));
  QCOMPARE(grades->model()->headerData(3, Qt::Horizontal).toString(), QStringLiteral("B: 3"));
  const QTableView* binary = view.binaryView();
  QCOMPARE(cellText(binary, 0, 0), QStringLiteral("2"));
  QCOMPARE(cellText(binary, 0, 1), QStringLiteral("1"));
  QCOMPARE(cellText(binary, 1, 0), QStringLiteral("0"));
  QCOMPARE(cellText(binary, 1, 1), QStringLiteral("4"));

  // The heatmap: each cell's share of its row (A0: 1 of 2 at B0; A1: none at B1; A3: 2 of 2 at B3),
  // painted by the eRAG heatmap's delegate on the white-to-blue scale; every cell visible without
  // scrolling.
  QCOMPARE(grades->model()->index(3, 3).data(ui::HeatmapModel::LabelRole).toDouble(), 1.0);
  QCOMPARE(grades->model()->index(0, 0).data(ui::HeatmapModel::LabelRole).toDouble(), 0.5);
  QCOMPARE(grades->model()->index(1, 1).data(ui::HeatmapModel::LabelRole).toDouble(), 0.0);
  const QImage shot = grades->viewport()->grab().toImage();
  for (const auto& [row, column, share] : {std::tuple{3, 3, 1.0}, {0, 0, 0.5}, {1, 1, 0.0}}) {
    const QRect cell = grades->visualRect(grades->model()->index(row, column));
    QVERIFY(grades->viewport()->rect().contains(cell));
    const QColor painted = shot.pixelColor(cell.topLeft() + QPoint(4, 4));
    QCOMPARE(painted.name(), ui::HeatmapDelegate::shareColour(share).name());
  }

  // Systems (hand values above), in the order given.
  const QTableView* systems = view.systemsView();
  QCOMPARE(systems->model()->rowCount(), 3);
  using M = ui::SystemAgreementModel;
  const QStringList meanA = {"0.5000", "0.2500", "0.0000"}, meanB = {"0.5000", "0.7500", "0.0000"};
  const QStringList rankA = {"1", "2", "3"}, rankB = {"2", "1", "3"};
  for (int r = 0; r < 3; ++r) {
    QCOMPARE(cellText(systems, r, M::Name), QStringLiteral("r%1").arg(r + 1));
    QCOMPARE(cellText(systems, r, M::MeanA), meanA[r]);
    QCOMPARE(cellText(systems, r, M::MeanB), meanB[r]);
    QCOMPARE(cellText(systems, r, M::RankA), rankA[r]);
    QCOMPARE(cellText(systems, r, M::RankB), rankB[r]);
  }
  QVERIFY2(view.figureText("kendall").startsWith(QLatin1String("0.3333 (p = ")),
           qPrintable(view.figureText("kendall")));
  QVERIFY2(view.figureText("spearman").startsWith(QLatin1String("0.5000 (p = ")),
           qPrintable(view.figureText("spearman")));
  QVERIFY2(view.swapsLabel()->text().contains(QStringLiteral("r1: 1 → 2 · r2: 2 → 1")),
           qPrintable(view.swapsLabel()->text()));
  QVERIFY(!view.swapsLabel()->text().contains(QLatin1String("r3")));

  // The same numbers as core's functions on the same files (the view is their wiring).
  const auto a = core::readTrecQrels(m_a.toStdString(), {}).value;
  const auto b = core::readTrecQrels(m_b.toStdString(), {}).value;
  const auto g = core::trecrag::compareGrades(a, b, 2);
  const auto outcome = view.outcome();
  QVERIFY(outcome && outcome->ok());
  QCOMPARE(outcome->grades.kappa, g.kappa);
  QCOMPARE(outcome->grades.binaryKappa, g.binaryKappa);
  QVERIFY(outcome->grades.grades == g.grades);
  QVERIFY(outcome->grades.binary == g.binary);
  QVERIFY(std::abs(g.kappa - 15.0 / 36.0) < 1e-12);
  QVERIFY(std::abs(g.binaryKappa - 16.0 / 23.0) < 1e-12);

  // Saved JSON: the document `ragscope-cli qrels-agreement --json` prints for the same inputs.
  const QString saved = m_dir.filePath(QStringLiteral("agreement.json"));
  QSignalSpy savedSpy(&view, &ui::QrelsAgreementView::saved);
  QVERIFY(view.saveJson(saved));
  QVERIFY(savedSpy.wait(kTimeoutMs));
  QVERIFY2(savedSpy.first().first().toBool(), qPrintable(savedSpy.first().at(1).toString()));
  const auto cli = test::runCli({"qrels-agreement", "--qrels", m_a, "--qrels", m_b, "--run", m_r1,
                                 "--run", m_r2, "--run", m_r3, "--measure", "P_2", "--json"});
  QVERIFY2(cli.exitCode == 0, cli.err.constData());
  const auto fromCli = nlohmann::json::parse(cli.out.toStdString());
  const auto fromGui = nlohmann::json::parse(test::readText(saved.toStdString()));
  QCOMPARE(QString::fromStdString(fromGui.dump()), QString::fromStdString(fromCli.dump()));
  QCOMPARE(fromGui["systems"]["kendall_tau_b"].get<double>(), 1.0 / 3.0);

  // A save over one of the inputs is refused, nothing written.
  QSignalSpy refused(&view, &ui::QrelsAgreementView::saved);
  QVERIFY(!view.saveJson(m_a));
  QCOMPARE(refused.count(), 1);
  QVERIFY(!refused.first().first().toBool());
  QCOMPARE(test::readText(m_a.toStdString()), std::string(kQrelsA));
}

void TestQrelsAgreementGui::datasetQrelsAndRunsAreTheDefaults() {
  ui::Workbench wb;
  ui::RecentDataset spec;
  spec.name = QStringLiteral("hand-made");
  spec.parts = {{m_a, QStringLiteral("trec-qrels")},
                {m_r1, QStringLiteral("trec-run")},
                {m_r2, QStringLiteral("trec-run")},
                {m_r3, QStringLiteral("trec-run")}};
  QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
  QVERIFY(wb.openDataset(spec));
  QVERIFY(loaded.wait(kTimeoutMs));
  QVERIFY(loaded.front().at(0).toBool());
  ui::RetrievalPage page(&wb);
  ui::QrelsAgreementView& view = *page.qrelsAgreement();
  // A = the dataset's qrels (the default choice), B = the file; the dataset's three runs, checked.
  view.setQrels(m_b, m_b);
  view.setQrels(QString(), m_b);
  view.setMeasure(QStringLiteral("P.2"));  // trec_eval's -m spelling of the same column
  bool ok = false;
  QVERIFY(computeAndWait(view, &ok));
  QVERIFY2(ok, qPrintable(view.statusLabel()->text()));
  QCOMPARE(view.figureText("kappa"), QStringLiteral("0.4167"));
  QCOMPARE(view.figureText("binary_kappa"), QStringLiteral("0.6957"));
  QCOMPARE(view.systemsView()->model()->rowCount(), 3);
  QCOMPARE(cellText(view.systemsView(), 1, ui::SystemAgreementModel::MeanB),
           QStringLiteral("0.7500"));
  QVERIFY(view.figureText("kendall").startsWith(QLatin1String("0.3333")));

  // The default level is 2 and the default measure the CLI's: a fresh view says so.
  ui::QrelsAgreementView fresh(&wb);
  bool freshOk = false;
  fresh.setQrels(QString(), m_b);
  QVERIFY(computeAndWait(fresh, &freshOk));
  QVERIFY(freshOk);
  QCOMPARE(fresh.outcome()->grades.level, 2);
  QVERIFY(fresh.outcome()->systems);
  QCOMPARE(fresh.outcome()->systems->measure, std::string("ndcg_cut_20"));
}

void TestQrelsAgreementGui::fileProblemsAreShown() {
  // A grade off the scale (line 3) and a document judged twice (lines 1 and 4): refused as core
  // reports them, file:line: field: problem, and nothing computed.
  const QString bad = file("bad.qrels", "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 4\nq1 0 d1 1\n");
  ui::Workbench wb;
  ui::QrelsAgreementView view(&wb);
  view.setQrels(m_a, bad);
  bool ok = true;
  QVERIFY(computeAndWait(view, &ok));
  QVERIFY(!ok);
  QVERIFY(!view.outcome()->computed);
  const QString problems = view.problemsView()->toPlainText();
  QVERIFY2(problems.contains(bad + QStringLiteral(":3: rel: grade 4 of 'd3' for query 'q1' is "
                                                  "outside the scale 0..3")),
           qPrintable(problems));
  QVERIFY2(problems.contains(bad + QStringLiteral(":4: docno: 'd1' judged twice for query 'q1'")),
           qPrintable(problems));
  QVERIFY(view.statusLabel()->text().contains(bad + QStringLiteral(" cannot be used")));
  QCOMPARE(view.figureText("kappa"), QStringLiteral("–"));
  QCOMPARE(cellText(view.gradesView(), 0, 0), QString());  // blank, not a count of 0

  // A line the reader refuses (three fields): its own diagnostic, with the line.
  const QString broken = file("broken.qrels", "q1 0 d1 3\nq1 0 d2\n");
  view.setQrels(broken, m_b);
  QVERIFY(computeAndWait(view, &ok));
  QVERIFY(!ok);
  QVERIFY2(view.problemsView()->toPlainText().contains(broken + QStringLiteral(":2: ")),
           qPrintable(view.problemsView()->toPlainText()));

  // A run file with an error: the grades are still compared, the run named as unusable.
  const QString badRun = file("bad.trec", "q1 Q0 d1 1 x r\n");
  view.setQrels(m_a, m_b);
  view.addRunFiles({badRun});
  QVERIFY(computeAndWait(view, &ok));
  QVERIFY(!ok);
  QCOMPARE(view.figureText("kappa"), QStringLiteral("0.4167"));
  QVERIFY(view.problemsView()->toPlainText().contains(badRun + QStringLiteral(":1: ")));
  QVERIFY(view.statusLabel()->text().contains(badRun));
}

void TestQrelsAgreementGui::demoAgainstChangedGrades() {
  // The demo's qrels (A, the dataset's) against a copy with some grades changed as an LLM
  // assessor might (B): the figures are core's on the same files, and the page is the README's
  // screenshot (RAGSCOPE_SCREENSHOT_DIR).
  const QString demo = QStringLiteral(RAGSCOPE_SOURCE_DIR "/resources/demo/");
  const std::string qrels = test::readText((demo + QStringLiteral("qrels.txt")).toStdString());
  QVERIFY(!qrels.empty());
  std::string changed;
  std::istringstream lines(qrels);
  std::string qid, iter, doc;
  int grade = 0, line = 0;
  while (lines >> qid >> iter >> doc >> grade) {
    ++line;
    // Relevant passages judged a grade higher or lower, some non-relevant ones as related.
    if (grade == 2 && line % 3 == 0)
      grade = 3;
    else if (grade == 2 && line % 5 == 0)
      grade = 1;
    else if (grade == 1 && line % 2 == 0)
      grade = 2;
    else if (grade == 0 && line % 8 == 0)
      grade = 1;
    changed += qid + " " + iter + " " + doc + " " + std::to_string(grade) + "\n";
  }
  const QString llm = m_dir.filePath(QStringLiteral("llm-assessor.qrels"));
  test::writeText(llm.toStdString(), changed);

  ui::Workbench wb;
  ui::RecentDataset spec;
  spec.name = QStringLiteral("Harbor City demo");
  spec.parts = {{demo + QStringLiteral("topics.tsv"), QStringLiteral("topics-tsv")},
                {demo + QStringLiteral("qrels.txt"), QStringLiteral("trec-qrels")},
                {demo + QStringLiteral("run-good.trec"), QStringLiteral("trec-run")},
                {demo + QStringLiteral("run-weak.trec"), QStringLiteral("trec-run")}};
  QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
  QVERIFY(wb.openDataset(spec));
  QVERIFY(loaded.wait(kTimeoutMs));
  QVERIFY(loaded.front().at(0).toBool());
  ui::RetrievalPage page(&wb);
  page.resize(1400, 860);
  page.show();
  page.showQrelsAgreement();
  ui::QrelsAgreementView& view = *page.qrelsAgreement();
  view.setQrels(QString(), llm);
  bool ok = false;
  QVERIFY(computeAndWait(view, &ok));
  QVERIFY2(ok, qPrintable(view.statusLabel()->text()));
  const auto a = core::readTrecQrels((demo + QStringLiteral("qrels.txt")).toStdString(), {}).value;
  const auto b = core::readTrecQrels(llm.toStdString(), {}).value;
  const auto g = core::trecrag::compareGrades(a, b, 2);
  QCOMPARE(g.shared, std::size_t(225));
  QCOMPARE(view.figureText("kappa"), QString::number(g.kappa, 'f', 4));
  QCOMPARE(view.figureText("binary_kappa"), QString::number(g.binaryKappa, 'f', 4));
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c)
      QCOMPARE(cellText(view.gradesView(), r, c), QString::number(g.grades[r][c]));
  QCOMPARE(view.systemsView()->model()->rowCount(), 2);

  if (const QString dir = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
    QDir().mkpath(dir);
    // The labels' new texts are laid out by posted layout requests: handled before the picture.
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    QVERIFY(page.grab().save(QDir(dir).filePath(QStringLiteral("qrels-agreement.png"))));
  }
}

QTEST_MAIN(TestQrelsAgreementGui)
#include "tst_qrelsagreementgui.moc"
