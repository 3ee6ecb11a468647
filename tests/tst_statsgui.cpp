// The statistics GUI: charts (render and export at small and large sizes), the retrieval page's
// summary with CIs and its statistics panel, the compare page on the three TREC DL19 runs and the
// contrastive page on DL19 split by BM25 nDCG@10. Screenshots go to RAGSCOPE_SCREENSHOT_DIR.

#include <QAbstractItemModelTester>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/testdata.h"
#include "core/stats/bootstrap.h"
#include "core/stats/contrastive.h"
#include "core/stats/paired.h"
#include "ui/charts/chartwidget.h"
#include "ui/models/comparisonmodel.h"
#include "ui/models/evalsummarymodel.h"
#include "ui/models/querysetmodel.h"
#include "ui/pages/comparepage.h"
#include "ui/pages/contrastivepage.h"
#include "ui/pages/retrievalpage.h"
#include "ui/pages/statspanel.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

const char* kDl19Qrels = "msmarco_trecdl/qrels/qrels.dl19-passage.txt";
const char* kBm25 = "msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt";
const char* kSplade =
    "msmarco_trecdl/runs/rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl19.txt";
const char* kAda2 = "msmarco_trecdl/runs/rank_llm/OPEN_AI_ADA2/trec_results_dl19.txt";

QString path(const char* rel) { return QString::fromStdString(test::dataPath(rel).string()); }

QString screenshotDir() { return QString::fromLocal8Bit(qgetenv("RAGSCOPE_SCREENSHOT_DIR")); }

void saveShot(QWidget* w, const QString& name) {
  const QString dir = screenshotDir();
  if (dir.isEmpty()) return;
  QVERIFY(w->grab().save(dir + QLatin1Char('/') + name));
}

int columnOf(const QAbstractItemModel* model, const QString& name) {
  for (int c = 0; c < model->columnCount(); ++c)
    if (model->headerData(c, Qt::Horizontal).toString() == name) return c;
  return -1;
}

// Pixels that are not (near) white: a rendered chart draws a good share of its area.
double inkShare(const QImage& image) {
  qint64 ink = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (qGray(image.pixel(x, y)) < 235) ++ink;
  return double(ink) / double(image.width() * image.height());
}

std::vector<double> syntheticValues(std::size_t n, double shift) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::fmod(0.37 * double(i * i) + shift, 1.0);
  return v;
}

// Evaluates the three DL19 runs (nDCG@10, MAP, R@100 at level 2) on a retrieval page.
bool evaluateDl19(ui::RetrievalPage& page) {
  page.setInputs(path(kDl19Qrels), {path(kBm25), path(kSplade), path(kAda2)});
  page.setMeasures(QStringLiteral("ndcg_cut.10 map recall.100"));
  page.setRelevanceLevel(2);
  QSignalSpy finished(&page, &ui::RetrievalPage::evaluationFinished);
  if (!page.evaluate() || !finished.wait(60000)) return false;
  return finished.first().first().toBool();
}

}  // namespace

class TestStatsGui : public QObject {
  Q_OBJECT

 private slots:
  void chartsRenderAndExport_data();
  void chartsRenderAndExport();
  void chartStyledForItsOnScreenSize();
  void retrievalSummaryShowsCiAndN();
  void statsPanelVeraSettingOneClick();
  void compareDl19Runs();
  void compareFromPerQueryFiles();
  void contrastiveDl19TopVsBottom();
};

void TestStatsGui::chartsRenderAndExport_data() {
  QTest::addColumn<int>("kind");
  QTest::addColumn<QSize>("size");
  const QSize small(300, 200), large(1600, 1000);
  const char* names[] = {"bootstrap", "overlay", "paired", "scatter"};
  for (int k = 0; k < 4; ++k) {
    QTest::newRow(QByteArray(names[k]).append("-small").constData()) << k << small;
    QTest::newRow(QByteArray(names[k]).append("-large").constData()) << k << large;
  }
}

void TestStatsGui::chartsRenderAndExport() {
  QFETCH(int, kind);
  QFETCH(QSize, size);
  namespace stats = core::stats;
  const std::vector<double> a = syntheticValues(43, 0.1), b = syntheticValues(43, 0.35);
  ui::charts::ChartSpec spec;
  if (kind == 0) {
    stats::BootstrapOptions o;
    o.resamples = 2000;
    const auto r = stats::bootstrap(a, o);
    spec = ui::charts::BootstrapChart{QStringLiteral("Bootstrap of mean nDCG@10"),
                                      QStringLiteral("mean nDCG@10"),
                                      r.distribution,
                                      r.mean,
                                      r.ci.low,
                                      r.ci.high,
                                      r.level,
                                      0};
  } else if (kind == 1) {
    std::vector<stats::NamedSample> sets = {{"top", a}, {"bottom", b}};
    stats::ContrastiveOptions o;
    o.bootstrap.resamples = 500;
    o.bootstrap.sampleSize = 50;
    o.permutations = 500;
    const auto r = stats::contrastive(sets, o);
    QVERIFY(r.ok());
    ui::charts::OverlayChart overlay;
    overlay.title = QStringLiteral("Contrastive");
    overlay.valueTitle = QStringLiteral("mean nDCG@10");
    for (const auto& g : r.groups)
      overlay.groups.push_back({QString::fromStdString(g.name), g.bootstrap.distribution,
                                g.bootstrap.mean, g.bootstrap.ci.low, g.bootstrap.ci.high,
                                g.bootstrap.n});
    spec = overlay;
  } else if (kind == 2) {
    ui::charts::PairedDifferenceChart p;
    p.title = QStringLiteral("A vs B");
    p.valueTitle = QStringLiteral("nDCG@10 difference (A − B)");
    for (std::size_t i = 0; i < a.size(); ++i) {
      p.qids.push_back(QString::number(i));
      p.differences.push_back(a[i] - b[i]);
    }
    p.meanDiff =
        std::accumulate(p.differences.begin(), p.differences.end(), 0.0) / double(a.size());
    p.ciLow = p.meanDiff - 0.05;
    p.ciHigh = p.meanDiff + 0.05;
    spec = p;
  } else {
    ui::charts::ScatterChart s;
    s.xTitle = QStringLiteral("A nDCG@10");
    s.yTitle = QStringLiteral("B nDCG@10");
    s.x = a;
    s.y = b;
    s.tau = 0.1;
    s.rho = 0.2;
    for (std::size_t i = 0; i < a.size(); ++i) s.qids.push_back(QString::number(i));
    spec = s;
  }
  ui::charts::ChartWidget widget;
  widget.resize(640, 420);
  widget.setSpec(spec);
  QVERIFY(!widget.isEmpty());
  const QImage image = widget.renderImage(size);
  QCOMPARE(image.size(), size);
  const double ink = inkShare(image);
  QVERIFY2(ink > 0.01 && ink < 0.9, qPrintable(QStringLiteral("ink share %1").arg(ink)));

  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("chart.png"));
  const QString svg = dir.filePath(QStringLiteral("chart.svg"));
  QVERIFY(widget.savePng(png, size));
  QVERIFY(widget.saveSvg(svg, size));
  QImage reread(png);
  QCOMPARE(reread.size(), size);
  QFile svgFile(svg);
  QVERIFY(svgFile.open(QIODevice::ReadOnly));
  const QByteArray svgText = svgFile.readAll();
  QVERIFY(svgText.contains("<svg"));
  QVERIFY(svgText.size() > 2000);
  if (!screenshotDir().isEmpty())
    image.save(screenshotDir() +
               QStringLiteral("/chart-%1.png").arg(QString::fromLatin1(QTest::currentDataTag())));
}

void TestStatsGui::chartStyledForItsOnScreenSize() {
  // A chart set while the placeholder shows (how every page fills its charts) is styled for the
  // widget's size, not the hidden view's stale one: on a large chart, legend and readable fonts.
  ui::charts::ChartWidget widget;
  widget.resize(900, 500);
  widget.show();
  QVERIFY(QTest::qWaitForWindowExposed(&widget));
  core::stats::BootstrapOptions o;
  o.resamples = 500;
  const auto r = core::stats::bootstrap(syntheticValues(43, 0.1), o);
  widget.setSpec(ui::charts::BootstrapChart{QStringLiteral("Bootstrap of mean nDCG@10"),
                                            QStringLiteral("mean nDCG@10"), r.distribution, r.mean,
                                            r.ci.low, r.ci.high, r.level, 0});
  QCOMPARE(widget.builtSize(), QSize(900, 500));
  // Restyled when resized across the small-picture threshold (the legend goes or comes), even
  // where fonts and tick counts stay the same.
  widget.resize(510, 400);
  QTRY_COMPARE(widget.builtSize(), QSize(510, 400));
  widget.resize(530, 400);
  QTRY_COMPARE(widget.builtSize(), QSize(530, 400));
}

void TestStatsGui::retrievalSummaryShowsCiAndN() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  ui::Workbench workbench;
  ui::RetrievalPage page(&workbench);
  page.resize(1500, 950);
  QSignalSpy published(&workbench, &ui::Workbench::evaluationChanged);
  QSignalSpy ready(&page, &ui::RetrievalPage::summaryStatisticsReady);
  QVERIFY(evaluateDl19(page));
  QCOMPARE(published.count(), 1);
  QVERIFY(workbench.evaluation() != nullptr);
  if (ready.isEmpty()) QVERIFY(ready.wait(60000));

  const QAbstractItemModel* summary = page.summaryView()->model();
  QAbstractItemModelTester tester(const_cast<QAbstractItemModel*>(summary),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  const int n = columnOf(summary, QStringLiteral("n"));
  const int ndcg = columnOf(summary, QStringLiteral("ndcg_cut_10"));
  const int ci = columnOf(summary, QStringLiteral("ndcg_cut_10 95% CI"));
  QVERIFY(n > 0 && ndcg > 0 && ci > 0);
  const QStringList expectedNdcg = {QStringLiteral("0.5058"), QStringLiteral("0.7308"),
                                    QStringLiteral("0.7035")};
  for (int row = 0; row < 3; ++row) {
    QCOMPARE(summary->index(row, n).data().toString(), QStringLiteral("43"));
    QCOMPARE(summary->index(row, ndcg).data().toString(), expectedNdcg[row]);
    // "[low, high]" around the mean, and equal to the engine's bootstrap of the same values.
    const QString text = summary->index(row, ci).data().toString();
    QVERIFY2(text.startsWith(QLatin1Char('[')) && text.endsWith(QLatin1Char(']')),
             qPrintable(text));
    const QStringList parts = text.mid(1, text.size() - 2).split(QStringLiteral(", "));
    QCOMPARE(parts.size(), 2);
    const double lo = parts[0].toDouble(), hi = parts[1].toDouble();
    const double mean = expectedNdcg[row].toDouble();
    QVERIFY(lo < mean && mean < hi);
    QVERIFY(hi - lo > 0.05 && hi - lo < 0.3);  // 43 queries: roughly +-2 SE of ~0.03-0.04
    const auto& result = page.outcome().results[std::size_t(row)];
    std::vector<double> values;
    for (const auto& q : result.queries)
      values.push_back(q.values[*result.columnIndex("ndcg_cut_10")]);
    core::stats::BootstrapOptions o;
    const auto expected = core::stats::bootstrap(values, o);
    QCOMPARE(parts[0], QString::number(expected.ci.low, 'f', 4));
    QCOMPARE(parts[1], QString::number(expected.ci.high, 'f', 4));
  }

  // Selecting the SPLADE nDCG@10 cell opens the statistics panel with its bootstrap.
  ui::StatsPanel* panel = page.statsPanel();
  QSignalSpy computed(panel, &ui::StatsPanel::computed);
  page.summaryView()->setCurrentIndex(summary->index(1, ndcg));
  QVERIFY(panel->isVisible() || !page.isVisible());
  QCOMPARE(panel->measure(), QStringLiteral("ndcg_cut_10"));
  QVERIFY(computed.wait(60000));
  QCOMPARE(computed.first().first().toBool(), true);
  QCOMPARE(panel->result().n, std::size_t(43));
  QCOMPARE(panel->result().distribution.size(), std::size_t(10000));
  QCOMPARE(QString::number(panel->result().observedMean, 'f', 4), expectedNdcg[1]);
  QVERIFY(!panel->chart()->isEmpty());
  page.show();
  QVERIFY(QTest::qWaitForWindowExposed(&page));
  saveShot(&page, QStringLiteral("retrieval-summary-ci.png"));
  if (!screenshotDir().isEmpty()) {
    QVERIFY(panel->chart()->savePng(screenshotDir() + QStringLiteral("/bootstrap-histogram.png"),
                                    {900, 560}));
    QVERIFY(panel->chart()->savePng(
        screenshotDir() + QStringLiteral("/bootstrap-histogram-small.png"), {300, 200}));
  }
}

void TestStatsGui::statsPanelVeraSettingOneClick() {
  ui::StatsPanel panel;
  panel.resize(520, 620);
  const std::vector<double> values = syntheticValues(120, 0.1);
  std::vector<std::string> qids;
  for (std::size_t i = 0; i < values.size(); ++i) qids.push_back(std::to_string(i));
  QSignalSpy computed(&panel, &ui::StatsPanel::computed);

  // The default: B = 10,000 resamples of size s = n.
  panel.setSample(QStringLiteral("synthetic"), QStringLiteral("P_5"), qids, values);
  QVERIFY(computed.wait(60000));
  QVERIFY(computed.takeFirst().first().toBool());
  QCOMPARE(panel.result().resamples, std::size_t(10000));
  QCOMPARE(panel.result().sampleSize, values.size());
  QCOMPARE(panel.result().distribution.size(), std::size_t(10000));

  // One click: VERA's s = 50, B = 500, the same numbers as the engine gives for them.
  QPushButton* vera = nullptr;
  QPushButton* standard = nullptr;
  for (auto* b : panel.findChildren<QPushButton*>()) {
    if (b->text().startsWith(QStringLiteral("VERA"))) vera = b;
    if (b->text() == QStringLiteral("Default")) standard = b;
  }
  QVERIFY(vera && standard);
  QVERIFY(vera->text().contains(QStringLiteral("s = 50")) &&
          vera->text().contains(QStringLiteral("B = 500")));
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  QTest::mouseClick(vera, Qt::LeftButton);
  QVERIFY(computed.wait(60000));
  QVERIFY(computed.takeFirst().first().toBool());
  core::stats::BootstrapOptions o;
  o.resamples = 500;
  o.sampleSize = 50;
  const auto expected = core::stats::bootstrap(values, o);
  QCOMPARE(panel.result().resamples, std::size_t(500));
  QCOMPARE(panel.result().sampleSize, std::size_t(50));
  QCOMPARE(panel.result().n, values.size());
  QCOMPARE(panel.result().distribution.size(), std::size_t(500));
  QCOMPARE(panel.result().ci.low, expected.ci.low);
  QCOMPARE(panel.result().ci.high, expected.ci.high);
  QCOMPARE(panel.result().variance, expected.variance);
  QVERIFY(panel.summaryText().contains(QStringLiteral("s = 50")));
  QVERIFY(!panel.chart()->isEmpty());
  saveShot(&panel, QStringLiteral("stats-panel-vera.png"));

  // And back to the default.
  QTest::mouseClick(standard, Qt::LeftButton);
  QVERIFY(computed.wait(60000));
  QVERIFY(computed.takeFirst().first().toBool());
  QCOMPARE(panel.result().resamples, std::size_t(10000));
  QCOMPARE(panel.result().sampleSize, values.size());
}

void TestStatsGui::compareDl19Runs() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  ui::Workbench workbench;
  ui::RetrievalPage retrieval(&workbench);
  ui::ComparePage page(&workbench);
  page.resize(1500, 1000);
  QVERIFY(evaluateDl19(retrieval));
  QCOMPARE(page.runNames().size(), 3);  // taken from the workbench's evaluation
  page.setRunsChecked({});
  page.setMeasuresChecked({QStringLiteral("ndcg_cut_10"), QStringLiteral("map")});
  QSignalSpy finished(&page, &ui::ComparePage::comparisonFinished);
  QVERIFY(page.compare());
  QVERIFY(page.isRunning());
  QVERIFY(finished.wait(120000));
  QCOMPARE(finished.first().first().toBool(), true);

  ui::ComparisonModel* model = page.model();
  QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester proxyTester(page.table()->model(),
                                       QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model->rowCount(), 6);  // 3 pairs x 2 measures
  int spladeBm25 = -1;
  for (int r = 0; r < model->rowCount(); ++r) {
    const ui::ComparisonRow& row = *model->rowAt(r);
    QCOMPARE(row.paired.n, std::size_t(43));
    QVERIFY(row.paired.meanDiff >= 0.0);  // the better run is A
    // Holm never lowers a p-value.
    QVERIFY(row.pHolm >= row.paired.randomization.p);
    QVERIFY(row.pTHolm >= row.paired.ttest.p);
    QCOMPARE(int(row.paired.wins + row.paired.ties + row.paired.losses), 43);
    if (row.measure == QLatin1String("ndcg_cut_10") && row.runA.contains(QLatin1String("SPLADE")) &&
        row.runB.contains(QLatin1String("BM25")))
      spladeBm25 = r;
  }
  QVERIFY(spladeBm25 >= 0);
  const ui::ComparisonRow& row = *model->rowAt(spladeBm25);
  // the figures published with the TREC DL runs mean: SPLADE++ 0.7308, BM25 0.5058.
  QCOMPARE(QString::number(row.paired.meanA, 'f', 4), QStringLiteral("0.7308"));
  QCOMPARE(QString::number(row.paired.meanB, 'f', 4), QStringLiteral("0.5058"));
  QCOMPARE(QString::number(row.paired.meanDiff, 'f', 4), QStringLiteral("0.2250"));
  QVERIFY(row.paired.randomization.p < 0.05);
  QVERIFY(row.pHolm < 0.05);
  QVERIFY(row.paired.ci.low > 0.0);
  // The same figures straight from the engine on the same aligned values.
  const auto direct = core::stats::comparePaired(row.a, row.b);
  QCOMPARE(direct.randomization.p, row.paired.randomization.p);
  QCOMPARE(direct.ci.low, row.paired.ci.low);
  QVERIFY(model->index(spladeBm25, ui::ComparisonModel::PHolm)
              .data()
              .toString()
              .endsWith(QLatin1String("*")));

  QVERIFY(page.selectRow(spladeBm25));
  QVERIFY(!page.pairedChart()->isEmpty());
  QVERIFY(!page.scatterChart()->isEmpty());
  page.show();
  QVERIFY(QTest::qWaitForWindowExposed(&page));
  // All six comparisons are on screen, none behind a scroll bar.
  QTRY_COMPARE(page.table()->verticalScrollBar()->maximum(), 0);  // after delayed layouts
  saveShot(&page, QStringLiteral("compare-dl19.png"));
}

void TestStatsGui::compareFromPerQueryFiles() {
  // trec_eval -q files written here: three queries, two runs; A wins every query.
  QTemporaryDir dir;
  auto write = [&](const QString& name, const QByteArray& text) {
    QFile f(dir.filePath(name));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
  };
  write(QStringLiteral("a.q"),
        "runid                 \tall\tA\nndcg_cut_10           \tq1\t0.9000\n"
        "ndcg_cut_10           \tq2\t0.8000\nndcg_cut_10           \tq3\t0.7000\n"
        "ndcg_cut_10           \tall\t0.8000\n");
  write(QStringLiteral("b.q"),
        "ndcg_cut_10\tq1\t0.5000\nndcg_cut_10\tq2\t0.6000\nndcg_cut_10\tq3\t0.2000\n"
        "ndcg_cut_10\tq4\t0.3000\n");
  ui::Workbench workbench;
  ui::ComparePage page(&workbench);
  QSignalSpy added(&page, &ui::ComparePage::perQueryFilesAdded);
  page.addPerQueryFiles({dir.filePath(QStringLiteral("a.q")), dir.filePath(QStringLiteral("b.q"))});
  QVERIFY(added.wait(10000));  // read off the GUI thread
  QVERIFY(added.front().at(0).toBool());
  QCOMPARE(page.runNames().size(), 2);
  // A file without per-query values is reported, not added.
  write(QStringLiteral("empty.q"), "runid\tall\tX\n");
  page.addPerQueryFiles({dir.filePath(QStringLiteral("empty.q"))});
  QVERIFY(added.wait(10000));
  QVERIFY(!added.back().at(0).toBool());
  QCOMPARE(page.runNames().size(), 2);
  QSignalSpy finished(&page, &ui::ComparePage::comparisonFinished);
  QVERIFY(page.compare());
  QVERIFY(finished.wait(30000));
  QCOMPARE(page.model()->rowCount(), 1);
  const ui::ComparisonRow& row = *page.model()->rowAt(0);
  QCOMPARE(row.paired.n, std::size_t(3));  // q4 only in b: left out and reported
  QCOMPARE(row.paired.unaligned(), std::size_t(1));
  QCOMPARE(QString::number(row.paired.meanDiff, 'f', 4),
           QStringLiteral("0.3667"));  // (0.4+0.2+0.5)/3
  QCOMPARE(int(row.paired.wins), 3);
  // Exact sign-flip test: all 3 differences positive, 2 of 8 sign vectors as extreme.
  QCOMPARE(row.paired.randomization.p, 0.25);
}

void TestStatsGui::contrastiveDl19TopVsBottom() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  ui::Workbench workbench;
  ui::RetrievalPage retrieval(&workbench);
  ui::ContrastivePage page(&workbench);
  page.resize(1500, 1000);
  QVERIFY(evaluateDl19(retrieval));
  const QStringList runs = page.runNames();
  QCOMPARE(runs.size(), 3);
  const int bm25 =
      int(std::find_if(runs.begin(), runs.end(),
                       [](const QString& n) { return n.contains(QLatin1String("BM25")); }) -
          runs.begin());
  QVERIFY(bm25 < 3);
  QVERIFY(page.setSource(bm25, QStringLiteral("ndcg_cut_10")));
  ui::QuerySetModel* queries = page.queryModel();
  QAbstractItemModelTester tester(queries, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(queries->rowCount(), 43);
  QVERIFY(page.splitByHalves(bm25, QStringLiteral("ndcg_cut_10"), QStringLiteral("top half"),
                             QStringLiteral("bottom half")));
  QCOMPARE(queries->countOf(QStringLiteral("top half")), std::size_t(22));
  QCOMPARE(queries->countOf(QStringLiteral("bottom half")), std::size_t(21));
  // Every top-half value is at least every bottom-half value.
  const auto top = queries->valuesOf(QStringLiteral("top half"));
  const auto bottom = queries->valuesOf(QStringLiteral("bottom half"));
  QVERIFY(*std::min_element(top.begin(), top.end()) >=
          *std::max_element(bottom.begin(), bottom.end()));

  page.useVeraSetting();
  page.setPermutations(10000);
  QSignalSpy finished(&page, &ui::ContrastivePage::analysisFinished);
  QVERIFY(page.analyse());
  QVERIFY(finished.wait(120000));
  QCOMPARE(finished.first().first().toBool(), true);
  const auto& r = page.result();
  QCOMPARE(r.groups.size(), std::size_t(2));
  for (const auto& g : r.groups) {
    QCOMPARE(g.bootstrap.distribution.size(), std::size_t(500));
    QCOMPARE(g.bootstrap.sampleSize, std::size_t(50));
  }
  QCOMPARE(r.pairs.size(), std::size_t(1));
  const auto& p = r.pairs.front();
  QCOMPARE(r.groups[p.first].name, std::string("top half"));
  QVERIFY(p.meanDiff > 0.0);
  QVERIFY(p.ci.low > 0.0);  // the CI excludes 0
  QVERIFY(p.pPermutation < 0.001);
  // The difference of means is the plain difference of the two sets' means.
  const double expected = core::stats::meanOf(top) - core::stats::meanOf(bottom);
  QVERIFY(std::abs(p.meanDiff - expected) < 1e-12);
  QVERIFY(!page.chart()->isEmpty());
  page.show();
  QVERIFY(QTest::qWaitForWindowExposed(&page));
  // The query table shows its columns whole (no horizontal scrolling to read a split value), and
  // a tiny p reads "p < 0.0001", not "p = < 0.0001".
  QTRY_VERIFY2(page.queryView()->horizontalScrollBar()->maximum() == 0,
               qPrintable(QStringLiteral("table %1 viewport %2 header %3 min %4")
                              .arg(page.queryView()->width())
                              .arg(page.queryView()->viewport()->width())
                              .arg(page.queryView()->horizontalHeader()->length())
                              .arg(page.queryView()->minimumWidth())));
  // Queries listed by id, ascending in reading order (DL19's numeric ids by value), until the
  // analyst sorts otherwise.
  const QAbstractItemModel* shown = page.queryView()->model();
  for (int row = 1; row < shown->rowCount(); ++row)
    QVERIFY(shown->index(row - 1, ui::QuerySetModel::Qid).data().toString().toLongLong() <
            shown->index(row, ui::QuerySetModel::Qid).data().toString().toLongLong());
  QVERIFY2(page.statusText().contains(QLatin1String("permutation p < 0.0001")),
           qPrintable(page.statusText()));
  saveShot(&page, QStringLiteral("contrastive-dl19.png"));
  if (!screenshotDir().isEmpty())
    QVERIFY(page.chart()->savePng(screenshotDir() + QStringLiteral("/contrastive-overlay.png"),
                                  {1100, 650}));

  // A set from a file of ids: three queries, one unknown id reported, not silently used.
  QTemporaryDir dir;
  QFile ids(dir.filePath(QStringLiteral("ids.txt")));
  QVERIFY(ids.open(QIODevice::WriteOnly));
  ids.write("# hand-picked\n1037798 comment\n104861\nnot-a-query\n");
  ids.close();
  page.clearSets();
  QCOMPARE(page.loadSetFile(ids.fileName(), QStringLiteral("picked")), 2);
  QCOMPARE(queries->countOf(QStringLiteral("picked")), std::size_t(2));
  page.assignQueries({QStringLiteral("1063750"), QStringLiteral("1103812")},
                     QStringLiteral("others"));
  QCOMPARE(queries->sets(), (QStringList{QStringLiteral("picked"), QStringLiteral("others")}));
}

QTEST_MAIN(TestStatsGui)
#include "tst_statsgui.moc"
