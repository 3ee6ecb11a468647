// The LLM side of the GUI: the endpoints page (persistence without secrets, connection tests
// against a local server), the run job and jobs dock (progress, cancel, resume), and the eRAG page
// on the demo project (heatmap, drill-down, correlation). Screenshots go to
// $RAGSCOPE_SCREENSHOT_DIR when it is set.

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QRandomGenerator>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <map>
#include <memory>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/llm/llmjson.h"
#include "core/store/project.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"
#include "ui/charts/chartwidget.h"
#include "ui/delegates/heatmapdelegate.h"
#include "ui/jobs/connectiontestjob.h"
#include "ui/jobs/runjob.h"
#include "ui/jobsdock.h"
#include "ui/mainwindow.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/models/heatmapmodel.h"
#include "ui/models/runlistmodel.h"
#include "ui/pages/endpointspage.h"
#include "ui/pages/eragpage.h"
#include "ui/preferences.h"
#include "ui/secrets.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

constexpr int kLoadTimeoutMs = 60000;
constexpr int kJobTimeoutMs = 120000;

QString shotDir() { return qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR"); }

void shoot(QWidget* w, const QString& name) {
  const QString dir = shotDir();
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

// A port nothing listens on: bound by the OS, then released.
int closedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 9;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 9;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);  // bound, never listened on, now released
  return port;
}

bool openDemo(ui::Workbench& wb) {
  const auto demo = core::findDemoProject();
  if (!demo) return false;
  QSignalSpy finished(&wb, &ui::Workbench::loadFinished);
  if (!wb.openProject(QString::fromStdString(demo->string()))) return false;
  if (finished.isEmpty() && !finished.wait(kLoadTimeoutMs)) return false;
  return finished.front().at(0).toBool() && wb.dataset();
}

QByteArray settingsBytes() {
  QSettings settings;
  settings.sync();
  QFile f(settings.fileName());
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestLlmGui : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void modelsPassTester();
  void heatmapColours();
  void endpointsPersistWithoutSecrets();
  void connectionTest_data();
  void connectionTest();
  void keychainFallsBackToEnvironment();
  void generateJobReachesHundredPercent();
  void cancelAndResumeOnSlowServer();
  void eragPageOnDemo_data();
  void eragPageOnDemo();

 private:
  QTemporaryDir m_dir;
};

void TestLlmGui::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("ragscope-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_llmgui"));
  QSettings().clear();
  QVERIFY(m_dir.isValid());
  // The response cache and run stores of this test stay in its temporary folder.
  qputenv("XDG_CACHE_HOME", m_dir.filePath(QStringLiteral("cache")).toLocal8Bit());
  ui::setRunsFolderOverride(m_dir.filePath(QStringLiteral("runs")));
  ui::Secrets::setTimeoutMs(3000);
}

void TestLlmGui::modelsPassTester() {
  ui::EndpointListModel endpoints;
  QAbstractItemModelTester t1(&endpoints, QAbstractItemModelTester::FailureReportingMode::QtTest);
  core::llm::EndpointConfig a;
  a.name = "a";
  a.baseUrl = "offline";
  endpoints.add(a);
  endpoints.add(a);  // renamed "a (2)"
  QCOMPARE(endpoints.endpoint(1)->name, std::string("a (2)"));
  endpoints.duplicate(0);
  endpoints.setTestResult(0, true, QStringLiteral("ok"));
  endpoints.remove(1);
  QCOMPARE(endpoints.rowCount(), 2);

  ui::HeatmapModel heat;
  QAbstractItemModelTester t2(&heat, QAbstractItemModelTester::FailureReportingMode::QtTest);
  heat.setRows({{QStringLiteral("q1"), QStringLiteral("?"), {QStringLiteral("d1"), QStringLiteral("d2")}, {1.0, std::nullopt}},
                {QStringLiteral("q2"), QStringLiteral("?"), {QStringLiteral("d3")}, {0.25}}},
               2);
  QCOMPARE(heat.rowCount(), 2);
  QCOMPARE(heat.columnCount(), 2);
  QVERIFY(!heat.index(0, 1).data(ui::HeatmapModel::LabelRole).isValid());  // missing label
  QCOMPARE(heat.index(1, 0).data(ui::HeatmapModel::LabelRole).toDouble(), 0.25);
  QCOMPARE(heat.rankMean(0), (1.0 + 0.25) / 2);

  QTemporaryDir runs;
  ui::RunListModel list;
  QAbstractItemModelTester t3(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
  core::store::RunStore store;
  std::string err;
  core::store::RunRecord record;
  record.kind = "generate";
  QVERIFY2(store.create(runs.filePath(QStringLiteral("one.db")).toStdString(), record, &err), err.c_str());
  QVERIFY(store.addItems({{"gen:1", "generate", "{}"}, {"gen:2", "generate", "{}"}}, &err));
  QSignalSpy refreshed(&list, &ui::RunListModel::refreshed);
  list.setFolder(runs.path());
  QVERIFY(refreshed.wait(10000));
  QCOMPARE(list.rowCount(), 1);
  QCOMPARE(list.row(0)->counts.total, std::size_t(2));
  QCOMPARE(list.index(0, ui::RunListModel::Status).data().toString(), QStringLiteral("created"));
  core::eval::Progress p;
  p.total = 2;
  p.done = 1;
  list.setLive(runs.filePath(QStringLiteral("new.db")), QStringLiteral("erag"), p);  // new row
  QCOMPARE(list.rowCount(), 2);
  QCOMPARE(list.index(0, ui::RunListModel::Status).data().toString(), QStringLiteral("running 50 %"));
}

void TestLlmGui::heatmapColours() {
  const QColor zero = ui::HeatmapDelegate::labelColour(0.0);
  const QColor one = ui::HeatmapDelegate::labelColour(1.0);
  const QColor half = ui::HeatmapDelegate::labelColour(0.5);
  QVERIFY(zero.red() > zero.green());   // red-ish
  QVERIFY(one.green() > one.red());     // green
  QVERIFY(half.hslHueF() > zero.hslHueF() && half.hslHueF() < one.hslHueF());  // continuous
  QCOMPARE(ui::HeatmapDelegate::labelColour(-3.0), zero);  // clamped
  const QColor grey = ui::HeatmapDelegate::missingColour();
  QCOMPARE(grey.red(), grey.green());
}

void TestLlmGui::endpointsPersistWithoutSecrets() {
  QSettings().clear();
  const QByteArray marker = "sk-test-" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
  qputenv("RAGSCOPE_TEST_SECRET_KEY", marker);

  ui::EndpointsPage page;
  QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(page.model()->rowCount(), 0);
  const int row = page.addEndpoint();
  QCOMPARE(row, 0);
  page.nameEdit()->setText(QStringLiteral("work server"));
  page.baseUrlEdit()->setText(QStringLiteral("http://127.0.0.1:9/v1"));
  page.modelCombo()->setCurrentText(QStringLiteral("gpt-x"));
  page.apiKeyEnvEdit()->setText(QStringLiteral("RAGSCOPE_TEST_SECRET_KEY"));
  page.keychainEdit()->setText(QStringLiteral("ragscope-test-entry"));
  QVERIFY(page.applyEdits());
  QCOMPARE(page.duplicateSelected(), 1);
  QCOMPARE(page.model()->rowCount(), 2);
  QCOMPARE(page.model()->endpoint(1)->name, std::string("work server copy"));
  QCOMPARE(page.model()->endpoint(1)->apiKeyEnv, std::string("RAGSCOPE_TEST_SECRET_KEY"));
  QVERIFY(page.selectRow(1));
  QVERIFY(page.deleteSelected());
  QCOMPARE(page.model()->rowCount(), 1);
  page.addEndpoint();  // "local"
  page.baseUrlEdit()->setText(QStringLiteral("offline"));
  QVERIFY(page.applyEdits());

  // A fresh page reads the same list back.
  ui::EndpointsPage again;
  again.resize(1200, 720);
  QCOMPARE(again.model()->rowCount(), 2);
  const auto& first = *again.model()->endpoint(0);
  QCOMPARE(first.name, std::string("work server"));
  QCOMPARE(first.baseUrl, std::string("http://127.0.0.1:9/v1"));
  QCOMPARE(first.model, std::string("gpt-x"));
  QCOMPARE(first.apiKeyEnv, std::string("RAGSCOPE_TEST_SECRET_KEY"));
  QCOMPARE(first.keychainEntry, std::string("ragscope-test-entry"));
  QCOMPARE(again.model()->endpoint(1)->baseUrl, std::string("offline"));

  // The settings file names the variable and the entry, never the key.
  const QByteArray bytes = settingsBytes();
  QVERIFY(!bytes.isEmpty());
  QVERIFY(bytes.contains("RAGSCOPE_TEST_SECRET_KEY"));
  QVERIFY(bytes.contains("ragscope-test-entry"));
  QVERIFY2(!bytes.contains(marker), "the API key leaked into the settings file");
  shoot(&again, QStringLiteral("endpoints-list"));
}

void TestLlmGui::connectionTest_data() {
  QTest::addColumn<QString>("scenario");
  QTest::addColumn<bool>("ok");
  QTest::addColumn<QString>("headline");
  QTest::addColumn<int>("models");
  QTest::newRow("models listed") << "ok" << true << "Connected in" << 3;
  QTest::newRow("closed port") << "refused" << false << "Connection refused" << 0;
  QTest::newRow("wrong key") << "auth" << false << "Authentication failed" << 0;
  QTest::newRow("key variable unset") << "unset" << false << "is not set" << 0;
  QTest::newRow("no /models: one-token chat") << "nomodels" << true << "one-token chat" << 0;
  QTest::newRow("malformed /models") << "malformed" << false << "Malformed reply" << 0;
}

void TestLlmGui::connectionTest() {
  QFETCH(QString, scenario);
  QFETCH(bool, ok);
  QFETCH(QString, headline);
  QFETCH(int, models);
  QSettings().clear();
  testserver::Options options;
  options.models = {"alpha", "beta", "gamma"};
  options.requiredApiKey = "right-key";
  testserver::TestServer server(options);
  QVERIFY(server.start());
  if (scenario == QLatin1String("nomodels")) {
    testserver::Rule r = testserver::rule(testserver::Behaviour::Status, -1, "/models");
    r.status = 404;
    server.addRule(r);
  }
  if (scenario == QLatin1String("malformed")) server.addRule(testserver::rule(testserver::Behaviour::InvalidJson, -1, "/models"));
  qputenv("RAGSCOPE_TEST_KEY", scenario == QLatin1String("auth") ? "wrong-key" : "right-key");
  qunsetenv("RAGSCOPE_UNSET_KEY");

  ui::EndpointsPage page;
  page.resize(1200, 720);
  page.addEndpoint();
  page.baseUrlEdit()->setText(scenario == QLatin1String("refused")
                                  ? QStringLiteral("http://127.0.0.1:%1/v1").arg(closedPort())
                                  : QString::fromStdString(server.baseUrl()));
  page.modelCombo()->setCurrentText(QStringLiteral("beta"));
  page.apiKeyEnvEdit()->setText(scenario == QLatin1String("unset") ? QStringLiteral("RAGSCOPE_UNSET_KEY")
                                                                   : QStringLiteral("RAGSCOPE_TEST_KEY"));
  page.timeoutSpin()->setValue(5.0);
  QSignalSpy done(&page, &ui::EndpointsPage::testFinished);
  QVERIFY(page.testConnection());
  QVERIFY(done.wait(20000));
  QCOMPARE(done.front().at(0).toBool(), ok);
  QVERIFY2(page.testHeadline()->text().contains(headline), qPrintable(page.testHeadline()->text()));
  QCOMPARE(page.modelList()->count(), models);
  if (scenario == QLatin1String("ok")) {
    QVERIFY(page.lastOutcome().latencyMs > 0.0);
    QVERIFY(page.lastOutcome().modelFound);
    QCOMPARE(page.modelList()->item(1)->text(), QStringLiteral("beta"));
    QVERIFY(page.model()->index(0, ui::EndpointListModel::LastTest).data().toString().startsWith(QStringLiteral("ok,")));
    shoot(&page, QStringLiteral("endpoints-tested"));
  }
  if (scenario == QLatin1String("auth")) {
    QCOMPARE(page.lastOutcome().httpStatus, 401);
    QVERIFY(!page.testDetail()->text().contains(QStringLiteral("wrong-key")));  // never shown
  }
  if (scenario == QLatin1String("refused")) shoot(&page, QStringLiteral("endpoints-refused"));
}

void TestLlmGui::keychainFallsBackToEnvironment() {
  // No keychain service answers in the offscreen test (or the entry does not exist): the read
  // fails with a clear message and the environment variable is used instead.
  testserver::Options options;
  options.requiredApiKey = "env-key";
  testserver::TestServer server(options);
  QVERIFY(server.start());
  qputenv("RAGSCOPE_FALLBACK_KEY", "env-key");
  core::llm::EndpointConfig c;
  c.baseUrl = server.baseUrl();
  c.keychainEntry = "ragscope-test-no-such-entry";
  c.apiKeyEnv = "RAGSCOPE_FALLBACK_KEY";
  bool called = false;
  ui::ResolvedEndpoint resolved;
  QObject context;
  ui::Secrets::resolveEndpointKey(c, &context, [&](const ui::ResolvedEndpoint& r) {
    called = true;
    resolved = r;
  });
  QTRY_VERIFY_WITH_TIMEOUT(called, 10000);
  QVERIFY(resolved.ok);
  QVERIFY2(resolved.message.contains(QStringLiteral("keychain")), qPrintable(resolved.message));
  QVERIFY(resolved.message.contains(QStringLiteral("RAGSCOPE_FALLBACK_KEY")));
  QCOMPARE(resolved.config.apiKeyEnv, std::string("RAGSCOPE_FALLBACK_KEY"));
  const auto outcome = ui::runConnectionTest(resolved.config, resolved.transport);
  QVERIFY2(outcome.ok, qPrintable(outcome.headline));

  // Without a fallback the job cannot start, and says why.
  c.apiKeyEnv.clear();
  called = false;
  ui::Secrets::resolveEndpointKey(c, &context, [&](const ui::ResolvedEndpoint& r) {
    called = true;
    resolved = r;
  });
  QTRY_VERIFY_WITH_TIMEOUT(called, 10000);
  QVERIFY(!resolved.ok);
  QVERIFY(resolved.message.startsWith(QStringLiteral("keychain:")));
}

void TestLlmGui::generateJobReachesHundredPercent() {
  ui::Workbench wb;
  if (!core::findDemoProject()) QSKIP("demo project not installed");
  QVERIFY(openDemo(wb));
  const auto ds = wb.dataset();
  ui::JobsDock dock(&wb);
  QSignalSpy finished(&dock, &ui::JobsDock::jobFinished);
  ui::GenerateSettings settings;
  settings.endpoint.name = "offline reader";
  settings.endpoint.baseUrl = "offline";
  settings.runIndex = 0;
  settings.k = 5;

  QSignalSpy estimated(&dock, &ui::JobsDock::estimateReady);
  QVERIFY(dock.estimateGenerate(settings));
  QVERIFY(estimated.wait(20000));
  const auto estimate = estimated.front().at(0).value<core::eval::Estimate>();
  QCOMPARE(estimate.calls, ds->queries.size());  // one call per query
  QCOMPARE(estimate.costUsd, 0.0);               // offline: free

  QVERIFY(dock.startGenerate(settings));
  QVERIFY(dock.currentJob());
  QVERIFY(finished.wait(kJobTimeoutMs));
  const auto outcome = finished.front().at(0).value<ui::RunJobOutcome>();
  QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
  QCOMPARE(outcome.status, QStringLiteral("done"));
  QCOMPARE(outcome.counts.done, ds->queries.size());
  QCOMPARE(outcome.counts.heuristic, ds->queries.size());
  QCOMPARE(dock.progressBar()->value(), dock.progressBar()->maximum());  // 100 %
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowCount() >= 1, 10000);
  const int row = dock.runs()->rowOf(dock.currentJob() ? dock.currentJob()->storePath() : QString());
  Q_UNUSED(row);
  bool listed = false;
  for (int r = 0; r < dock.runs()->rowCount(); ++r)
    listed = listed || (dock.runs()->row(r)->kind == QLatin1String("generate") &&
                        dock.runs()->index(r, ui::RunListModel::Status).data().toString() == QLatin1String("done"));
  QVERIFY(listed);
}

void TestLlmGui::cancelAndResumeOnSlowServer() {
  if (!core::findDemoProject()) QSKIP("demo project not installed");
  QSettings().clear();
  testserver::Options options;
  options.latencyMs = 250;
  testserver::TestServer server(options);
  QVERIFY(server.start());

  ui::MainWindow window;
  window.resize(1360, 860);
  window.show();
  QVERIFY(openDemo(*window.workbench()));
  auto* dock = window.findChild<ui::JobsDock*>();
  QVERIFY(dock);
  QSignalSpy finished(dock, &ui::JobsDock::jobFinished);
  ui::GenerateSettings settings;
  settings.endpoint.name = "slow local";
  settings.endpoint.baseUrl = server.baseUrl();
  settings.endpoint.model = "test-model";
  settings.endpoint.concurrency = 2;
  settings.endpoint.pricePer1kInput = 0.5;
  settings.endpoint.pricePer1kOutput = 1.5;
  settings.runIndex = 0;
  settings.k = 3;
  settings.budgetUsd = 100.0;
  QVERIFY(dock->startGenerate(settings));
  QPointer<ui::RunJob> job = dock->currentJob();
  QVERIFY(job);
  const QString storePath = job->storePath();
  // Mid-run: some calls done, not all.
  QTRY_VERIFY_WITH_TIMEOUT(job && job->lastProgress().done >= 4, 20000);
  QVERIFY(job->isRunning());
  QVERIFY(dock->statsLabel()->text().contains(QStringLiteral("calls/s")));
  QVERIFY(dock->statsLabel()->text().contains(QStringLiteral("ETA")));
  QVERIFY(dock->progressBar()->value() > 0 && dock->progressBar()->value() < dock->progressBar()->maximum());
  QTest::qWait(50);
  shoot(&window, QStringLiteral("jobs-dock-midrun"));

  QElapsedTimer cancelTimer;
  cancelTimer.start();
  dock->cancelCurrent();
  QVERIFY(finished.wait(10000));
  QVERIFY(cancelTimer.elapsed() < 5000);  // prompt: in-flight calls are aborted
  auto outcome = finished.front().at(0).value<ui::RunJobOutcome>();
  QCOMPARE(outcome.summary.outcome, core::eval::RunOutcome::Cancelled);
  QCOMPARE(outcome.status, QStringLiteral("cancelled"));
  const std::size_t total = outcome.counts.total;
  QVERIFY(outcome.counts.done > 0 && outcome.counts.done < total);
  QVERIFY(dock->statsLabel()->text().contains(QStringLiteral("Cancelled")));

  // Resume from the run list: the calls already done are not repeated.
  QTRY_VERIFY_WITH_TIMEOUT(!dock->runs()->isRefreshing() && dock->runs()->rowOf(storePath) >= 0, 10000);
  QTest::qWait(800);  // the aborted requests finish on the server side (its log) first
  const std::size_t requestsBefore = server.requestCount();
  const std::size_t doneBefore = outcome.counts.done;
  finished.clear();
  QVERIFY(dock->resumeRow(dock->runs()->rowOf(storePath)));
  QVERIFY(finished.wait(kJobTimeoutMs));
  outcome = finished.front().at(0).value<ui::RunJobOutcome>();
  QCOMPARE(outcome.status, QStringLiteral("done"));
  QCOMPARE(outcome.counts.done, total);
  QCOMPARE(server.requestCount() - requestsBefore, total - doneBefore);
  QVERIFY(outcome.counts.costUsd > 0.0);
}

void TestLlmGui::eragPageOnDemo_data() {
  QTest::addColumn<int>("metric");
  QTest::addColumn<QString>("measures");
  QTest::newRow("contains") << int(core::DownstreamMetric::ContainsAnswer) << "P_5, success_1, map";
  QTest::newRow("rouge-l") << int(core::DownstreamMetric::RougeL) << "P_5, success_1";
}

void TestLlmGui::eragPageOnDemo() {
  QFETCH(int, metric);
  QFETCH(QString, measures);
  if (!core::findDemoProject()) QSKIP("demo project not installed");
  QSettings().clear();
  ui::Workbench wb;
  QVERIFY(openDemo(wb));
  const auto ds = wb.dataset();
  QVERIFY(!ds->runs.empty());
  // Independently of the planner: queries with a gold answer, and for each the run's documents
  // that are in the corpus, at most five.
  std::size_t withGold = 0;
  std::size_t cells = 0;
  std::map<std::string, int> docsOf;
  for (const auto& q : ds->queries) {
    if (q.goldAnswers().empty()) continue;
    ++withGold;
    int n = 0;
    if (const core::Ranking* ranking = ds->runs[0].find(q.id))
      for (const auto& e : ranking->entries)
        if (ds->corpus.contains(e.docId())) ++n;
    docsOf[q.id] = std::min(n, 5);
    cells += std::size_t(std::min(n, 5));
  }
  QVERIFY(withGold > 0);

  ui::EragPage page(&wb);
  page.resize(1360, 820);
  page.show();
  page.setRunIndex(0);
  page.setEndpointIndex(0);  // offline reader
  page.setK(5);
  page.setMetric(core::DownstreamMetric(metric));
  page.setMeasures(measures);
  page.setEndToEnd(true);
  QSignalSpy estimated(&page, &ui::EragPage::estimateFinished);
  QVERIFY(page.estimate());
  QVERIFY(estimated.wait(20000));
  QVERIFY2(page.estimateLabel()->text().contains(QStringLiteral("eRAG: %1 calls").arg(cells)),
           qPrintable(page.estimateLabel()->text()));

  QSignalSpy finished(&page, &ui::EragPage::finished);
  QVERIFY(page.start());
  QVERIFY(finished.wait(kJobTimeoutMs));
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  const auto* results = page.results();
  QVERIFY(results);
  QVERIFY(results->e2e.has_value());

  // Heatmap: one row per query with a gold answer, five ranks, every label in [0, 1].
  ui::HeatmapModel* heat = page.heatmap();
  QAbstractItemModelTester tester(heat, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(heat->rowCount(), int(withGold));
  QCOMPARE(heat->columnCount(), 5);
  for (int r = 0; r < heat->rowCount(); ++r)
    for (int c = 0; c < docsOf[heat->row(r)->qid.toStdString()]; ++c) {
      const QVariant v = heat->index(r, c).data(ui::HeatmapModel::LabelRole);
      QVERIFY(v.isValid());  // offline reader: every call has an output
      QVERIFY(v.toDouble() >= 0.0 && v.toDouble() <= 1.0);
      if (core::DownstreamMetric(metric) == core::DownstreamMetric::ContainsAnswer)
        QVERIFY(v.toDouble() == 0.0 || v.toDouble() == 1.0);
    }
  // A cell whose label is 1 when there is one (the more telling drill-down).
  int row = 0, rank = 0;
  for (int r = 0; r < heat->rowCount() && rank == 0 && row == 0; ++r)
    for (int c = 0; c < 5; ++c)
      if (heat->index(r, c).data(ui::HeatmapModel::LabelRole).toDouble() > 0.5) {
        row = r;
        rank = c;
        break;
      }
  page.resultTabs()->setCurrentIndex(page.heatmapTab());
  QVERIFY(page.drillDown(row, rank));
  const QString drill = page.drillView()->toPlainText();
  const auto& pq = results->erag.queries[std::size_t(row)];
  QVERIFY(drill.contains(QStringLiteral("Prompt")));
  QVERIFY(drill.contains(QStringLiteral("Generated output")));
  QVERIFY(drill.contains(QString::fromStdString(pq.docIds[std::size_t(rank)])));
  const std::string& output = results->erag.outputs[std::size_t(row)][std::size_t(rank)];
  QVERIFY(!output.empty());
  QVERIFY(drill.contains(QString::fromStdString(output).left(30)));
  const std::string& prompt = results->prompts[std::size_t(row)][std::size_t(rank)];
  QVERIFY(!prompt.empty());
  // The prompt holds the question and that one document.
  const core::Query* query = nullptr;
  for (const auto& q : ds->queries)
    if (q.id == pq.qid) query = &q;
  QVERIFY(query);
  QVERIFY(prompt.find(query->text) != std::string::npos);
  QVERIFY(drill.contains(QString::fromStdString(query->text)));
  QTest::qWait(50);
  shoot(&page, QStringLiteral("erag-heatmap-%1").arg(QString::fromLatin1(QTest::currentDataTag())));

  // Per query and correlation.
  QCOMPARE(page.perQueryView()->model()->rowCount(), int(withGold));
  QVERIFY(page.correlationView()->model()->rowCount() >= 2);  // contains-answer and eRAG at least
  QVERIFY(!page.scatter()->isEmpty());
  page.resultTabs()->setCurrentIndex(page.correlationTab());
  QTest::qWait(50);
  shoot(&page, QStringLiteral("erag-correlation-%1").arg(QString::fromLatin1(QTest::currentDataTag())));
  page.resultTabs()->setCurrentIndex(0);
  QTest::qWait(20);
  shoot(&page, QStringLiteral("erag-summary-%1").arg(QString::fromLatin1(QTest::currentDataTag())));

  // The stores alone reproduce the results.
  QSignalSpy reopened(&page, &ui::EragPage::finished);
  const QString eragStore = results->eragStore, e2eStore = results->e2eStore;
  const double mean = results->erag.aggregate.means.front();
  QVERIFY(page.openStores(eragStore, e2eStore));
  QVERIFY(reopened.wait(kJobTimeoutMs));
  QVERIFY(reopened.front().at(0).toBool());
  QCOMPARE(page.results()->erag.aggregate.means.front(), mean);
  QCOMPARE(page.heatmap()->rowCount(), int(withGold));
}

QTEST_MAIN(TestLlmGui)
#include "tst_llmgui.moc"
