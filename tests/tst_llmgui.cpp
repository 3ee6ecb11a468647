// The LLM side of the GUI: the endpoints page (persistence without secrets, connection tests
// against a local server), the run job and jobs dock (progress, cancel, resume), and the eRAG page
// on the demo project (heatmap, drill-down, correlation, statistics panel) and on the Docugami 10-Q
// set with BM25 retrieved from the page (compared with ragscope-cli). Screenshots go to
// $RAGSCOPE_SCREENSHOT_DIR when it is set.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
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
#include <cmath>
#include <map>
#include <memory>

#include "common/cli.h"
#include "common/testdata.h"
#include "common/workbenchtest.h"
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
#include "ui/pages/statspanel.h"
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

bool openDemo(ui::Workbench& wb, const QString& project = {}) {
  const auto demo = core::findDemoProject();
  if (!demo && project.isEmpty()) return false;
  QSignalSpy finished(&wb, &ui::Workbench::loadFinished);
  if (!wb.openProject(project.isEmpty() ? QString::fromStdString(demo->string()) : project))
    return false;
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
  void budgetCapPausesTheRun();
  void runListMarksHeuristicRuns();
  void eragPageOnDemo_data();
  void eragPageOnDemo();
  void eragBm25OnDocugamiMatchesCli();
  void demoProjectOpensWithStoredErag();
  void resumeAsksBeforeForeignEndpoint();
  void item01_resumeAsksWhereToWrite();

 private:
  QTemporaryDir m_dir;
};

void TestLlmGui::initTestCase() {
  QVERIFY(test::isolateWorkbenchTest(QStringLiteral("tst_llmgui"), m_dir, 3000));
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
  heat.setRows({{QStringLiteral("q1"),
                 QStringLiteral("?"),
                 {QStringLiteral("d1"), QStringLiteral("d2")},
                 {1.0, std::nullopt}},
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
  QVERIFY2(store.create(runs.filePath(QStringLiteral("one.db")).toStdString(), record, &err),
           err.c_str());
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
  QCOMPARE(list.index(0, ui::RunListModel::Status).data().toString(),
           QStringLiteral("running 50 %"));
}

void TestLlmGui::heatmapColours() {
  const QColor zero = ui::HeatmapDelegate::labelColour(0.0);
  const QColor one = ui::HeatmapDelegate::labelColour(1.0);
  const QColor half = ui::HeatmapDelegate::labelColour(0.5);
  QVERIFY(zero.red() > zero.green());                                          // red-ish
  QVERIFY(one.green() > one.red());                                            // green
  QVERIFY(half.hslHueF() > zero.hslHueF() && half.hslHueF() < one.hslHueF());  // continuous
  QCOMPARE(ui::HeatmapDelegate::labelColour(-3.0), zero);                      // clamped
  const QColor grey = ui::HeatmapDelegate::missingColour();
  QCOMPARE(grey.red(), grey.green());
}

void TestLlmGui::endpointsPersistWithoutSecrets() {
  QSettings().clear();
  const QByteArray marker =
      "sk-test-" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
  qputenv("RAGSCOPE_TEST_SECRET_KEY", marker);

  ui::EndpointsPage page;
  QAbstractItemModelTester tester(page.model(),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
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
  if (scenario == QLatin1String("malformed"))
    server.addRule(testserver::rule(testserver::Behaviour::InvalidJson, -1, "/models"));
  qputenv("RAGSCOPE_TEST_KEY", scenario == QLatin1String("auth") ? "wrong-key" : "right-key");
  qunsetenv("RAGSCOPE_UNSET_KEY");

  ui::EndpointsPage page;
  page.resize(1200, 720);
  page.addEndpoint();
  page.baseUrlEdit()->setText(scenario == QLatin1String("refused")
                                  ? QStringLiteral("http://127.0.0.1:%1/v1").arg(closedPort())
                                  : QString::fromStdString(server.baseUrl()));
  page.modelCombo()->setCurrentText(QStringLiteral("beta"));
  page.apiKeyEnvEdit()->setText(scenario == QLatin1String("unset")
                                    ? QStringLiteral("RAGSCOPE_UNSET_KEY")
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
    QVERIFY(page.model()
                ->index(0, ui::EndpointListModel::LastTest)
                .data()
                .toString()
                .startsWith(QStringLiteral("ok,")));
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
  // The offline reader's run is labelled heuristic in the dock's title and in the runs list.
  QVERIFY2(dock.titleLabel()->text().contains(QStringLiteral("(heuristic)")),
           qPrintable(dock.titleLabel()->text()));
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowCount() >= 1, 10000);
  const int row =
      dock.runs()->rowOf(dock.currentJob() ? dock.currentJob()->storePath() : QString());
  Q_UNUSED(row);
  bool listed = false;
  for (int r = 0; r < dock.runs()->rowCount(); ++r)
    listed = listed || (dock.runs()->row(r)->kind == QLatin1String("generate") &&
                        dock.runs()->index(r, ui::RunListModel::Status).data().toString() ==
                            QLatin1String("done") &&
                        dock.runs()->index(r, ui::RunListModel::Job).data().toString() ==
                            QLatin1String("generate (heuristic)"));
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
  // The store is named on the job's worker, as its first stage starts.
  QTRY_VERIFY_WITH_TIMEOUT(job && !job->storePath().isEmpty(), 10000);
  const QString storePath = job->storePath();
  // Mid-run: some calls done, not all.
  QTRY_VERIFY_WITH_TIMEOUT(job && job->lastProgress().done >= 4, 20000);
  QVERIFY(job->isRunning());
  QVERIFY(dock->statsLabel()->text().contains(QStringLiteral("calls/s")));
  QVERIFY(dock->statsLabel()->text().contains(QStringLiteral("ETA")));
  QVERIFY(dock->progressBar()->value() > 0 &&
          dock->progressBar()->value() < dock->progressBar()->maximum());
  // Tokens and cost as they accrue: the server's usage priced at $0.5 / $1.5 per 1k tokens.
  {
    // The label and the live row show the latest progress the job has delivered.
    const core::eval::Progress p = job->lastProgress();
    QVERIFY(p.promptTokens > 0 && p.completionTokens > 0);
    const double cost = (double(p.promptTokens) * 0.5 + double(p.completionTokens) * 1.5) / 1000.0;
    QVERIFY2(std::fabs(p.costUsd - cost) < 1e-9, qPrintable(QString::number(p.costUsd)));
    const QLocale l;
    const QString stats = dock->statsLabel()->text();
    QVERIFY2(stats.contains(QStringLiteral("tokens %1 in + %2 out")
                                .arg(l.toString(qlonglong(p.promptTokens)),
                                     l.toString(qlonglong(p.completionTokens)))),
             qPrintable(stats));
    QVERIFY2(stats.contains(QStringLiteral("cost $%1 of $100.00 budget").arg(p.costUsd, 0, 'f', 4)),
             qPrintable(stats));
    const int live = dock->runs()->rowOf(storePath);
    QVERIFY(live >= 0);
    QCOMPARE(dock->runs()->index(live, ui::RunListModel::Tokens).data().toString(),
             QStringLiteral("%1 + %2").arg(l.toString(qlonglong(p.promptTokens)),
                                           l.toString(qlonglong(p.completionTokens))));
    QCOMPARE(dock->runs()->index(live, ui::RunListModel::Cost).data().toString(),
             QStringLiteral("$%1").arg(p.costUsd, 0, 'f', 4));
    QCOMPARE(dock->runs()->index(live, ui::RunListModel::Job).data().toString(),
             QStringLiteral("generate"));  // a server
    QVERIFY(!dock->titleLabel()->text().contains(QStringLiteral("heuristic")));
  }
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
  QTRY_VERIFY_WITH_TIMEOUT(!dock->runs()->isRefreshing() && dock->runs()->rowOf(storePath) >= 0,
                           10000);
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

void TestLlmGui::budgetCapPausesTheRun() {
  if (!core::findDemoProject()) QSKIP("demo project not installed");
  QSettings().clear();
  testserver::Options options;
  options.latencyMs = 5;
  testserver::TestServer server(options);
  QVERIFY(server.start());
  ui::Workbench wb;
  QVERIFY(openDemo(wb));
  ui::JobsDock dock(&wb);
  dock.resize(1100, 320);
  QSignalSpy finished(&dock, &ui::JobsDock::jobFinished);
  ui::GenerateSettings settings;
  settings.endpoint.name = "priced local";
  settings.endpoint.baseUrl = server.baseUrl();
  settings.endpoint.model = "test-model";
  settings.endpoint.concurrency = 1;
  settings.endpoint.maxTokens = 64;
  settings.endpoint.pricePer1kInput = 0.5;
  settings.endpoint.pricePer1kOutput = 1.5;
  settings.runIndex = 0;
  settings.k = 3;
  // A few calls' worth: the engine stops before the next call could exceed it.
  settings.budgetUsd = 0.5;
  QVERIFY(dock.startGenerate(settings));
  QPointer<ui::RunJob> job = dock.currentJob();
  QVERIFY(job);
  QVERIFY(finished.wait(kJobTimeoutMs));
  const auto outcome = finished.front().at(0).value<ui::RunJobOutcome>();
  // The store is named on the job's worker; the outcome says which.
  QVERIFY(outcome.result && outcome.result->stages.size() == 1);
  const QString storePath = QString::fromStdString(outcome.result->stages.front().store.string());
  QCOMPARE(outcome.summary.outcome, core::eval::RunOutcome::PausedBudget);
  QVERIFY2(outcome.status.startsWith(QStringLiteral("paused")), qPrintable(outcome.status));
  QVERIFY(outcome.counts.done > 0 && outcome.counts.done < outcome.counts.total);
  QVERIFY(outcome.counts.costUsd > 0.0 && outcome.counts.costUsd <= 0.5);
  QCOMPARE(server.requestCount(), outcome.counts.done);  // nothing started beyond the cap
  // The dock says it paused on the budget, with what was spent.
  const QString stats = dock.statsLabel()->text();
  QVERIFY2(stats.startsWith(QStringLiteral("Paused: the next calls would exceed the $0.50 budget")),
           qPrintable(stats));
  QVERIFY2(stats.contains(QStringLiteral("of $0.50 budget")), qPrintable(stats));
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowOf(storePath) >= 0,
                           10000);
  const int row = dock.runs()->rowOf(storePath);
  QTRY_VERIFY_WITH_TIMEOUT(dock.runs()
                               ->index(row, ui::RunListModel::Status)
                               .data()
                               .toString()
                               .startsWith(QStringLiteral("paused")),
                           10000);
  dock.show();
  QTest::qWait(50);
  shoot(&dock, QStringLiteral("jobs-dock-budget-paused"));
}

void TestLlmGui::runListMarksHeuristicRuns() {
  QTemporaryDir runs;
  std::string err;
  auto make = [&](const QString& file, const std::string& baseUrl) {
    core::store::RunStore store;
    core::store::RunRecord record;
    record.kind = "erag";
    core::llm::EndpointConfig ep;
    ep.name = "x";
    ep.baseUrl = baseUrl;
    record.endpoint = core::llm::toJson(ep);
    core::store::NewItem item;
    item.key = "k:1";
    item.kind = "erag";
    item.requestJson = "{}";
    return store.create(runs.filePath(file).toStdString(), record, &err) &&
           store.addItems({item}, &err);
  };
  QVERIFY2(make(QStringLiteral("offline.db"), "offline"), err.c_str());
  QVERIFY2(make(QStringLiteral("server.db"), "http://127.0.0.1:9/v1"), err.c_str());
  ui::RunListModel list;
  QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QSignalSpy refreshed(&list, &ui::RunListModel::refreshed);
  list.setFolder(runs.path());
  QVERIFY(refreshed.wait(10000));
  QCOMPARE(list.rowCount(), 2);
  const int offline = list.rowOf(runs.filePath(QStringLiteral("offline.db")));
  const int server = list.rowOf(runs.filePath(QStringLiteral("server.db")));
  QVERIFY(offline >= 0 && server >= 0);
  QCOMPARE(list.index(offline, ui::RunListModel::Job).data().toString(),
           QStringLiteral("erag (heuristic)"));
  QVERIFY(list.index(offline, ui::RunListModel::Job)
              .data(Qt::ToolTipRole)
              .toString()
              .contains(QStringLiteral("heuristic")));
  QCOMPARE(list.index(server, ui::RunListModel::Job).data().toString(), QStringLiteral("erag"));
  // A live job of the offline providers is marked before its store is read.
  core::eval::Progress p;
  p.total = 4;
  p.done = 1;
  list.setLive(runs.filePath(QStringLiteral("new.db")), QStringLiteral("e2e"), p, true);
  QCOMPARE(list.index(list.rowOf(runs.filePath(QStringLiteral("new.db"))), ui::RunListModel::Job)
               .data()
               .toString(),
           QStringLiteral("e2e (heuristic)"));
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
  const auto& pq = results->erag->queries[std::size_t(row)];
  QVERIFY(drill.contains(QStringLiteral("Prompt")));
  QVERIFY(
      drill.contains(QStringLiteral("Generated output (offline heuristic reader, not an LLM)")));
  QVERIFY(drill.contains(QString::fromStdString(pq.docIds[std::size_t(rank)])));
  const std::string& output = results->erag->outputs[std::size_t(row)][std::size_t(rank)];
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

  // The summary gives n beside every mean and CI: each eRAG measure and end-to-end.
  {
    const QString summary = page.summaryView()->toPlainText();
    const QStringList tokens =
        summary.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    QVERIFY(tokens.contains(QStringLiteral("n")));
    const auto measuresShown = results->erag->aggregate.measures.size() + 1;
    QVERIFY2(std::size_t(tokens.count(QString::number(withGold))) >= measuresShown + 1,
             qPrintable(summary));  // + "N queries"
  }

  // Selecting a measure column of the per-query table opens the statistics panel on it.
  {
    ui::StatsPanel* panel = page.statsPanel();
    QVERIFY(!panel->isVisible());
    page.resultTabs()->setCurrentIndex(1);
    QSignalSpy computed(panel, &ui::StatsPanel::computed);
    const QAbstractItemModel* perQuery = page.perQueryView()->model();
    page.perQueryView()->setCurrentIndex(perQuery->index(0, 2));  // the first eRAG measure
    QVERIFY(panel->isVisible());
    QCOMPARE(panel->measure(), QString::fromStdString(results->erag->aggregate.measures.front()));
    QVERIFY(computed.wait(60000));
    QVERIFY(computed.takeFirst().first().toBool());
    QCOMPARE(panel->result().n, results->erag->aggregate.qids.size());
    QCOMPARE(panel->result().resamples, std::size_t(ui::StatsPanel::kDefaultResamples));
    QCOMPARE(panel->result().sampleSize, panel->result().n);  // s = n
    QVERIFY(std::fabs(panel->result().observedMean - results->erag->aggregate.means.front()) <
            1e-12);
    QVERIFY(!panel->chart()->isEmpty());
    panel->useVeraSetting();  // the button's slot
    QVERIFY(computed.wait(60000));
    QVERIFY(computed.takeFirst().first().toBool());
    QCOMPARE(panel->result().resamples, std::size_t(500));
    QCOMPARE(panel->result().sampleSize, std::size_t(50));
    QTest::qWait(50);
    shoot(&page,
          QStringLiteral("erag-stats-panel-%1").arg(QString::fromLatin1(QTest::currentDataTag())));
    // The end-to-end column too.
    const int e2eColumn = 2 + int(results->erag->aggregate.measures.size());
    QVERIFY(page.openStatistics(e2eColumn));
    QCOMPARE(panel->measure(), QString::fromStdString(results->e2e->metricKey));
    QVERIFY(computed.wait(60000));
    QCOMPARE(panel->result().n, results->e2e->values.size());
    QVERIFY(!page.openStatistics(0));  // the query id: no measure
    panel->useDefaultSetting();
    QVERIFY(computed.wait(60000));
    panel->setVisible(false);
  }
  QVERIFY(page.correlationView()->model()->rowCount() >= 2);  // contains-answer and eRAG at least
  QVERIFY(!page.scatter()->isEmpty());
  page.resultTabs()->setCurrentIndex(page.correlationTab());
  QTest::qWait(50);
  shoot(&page,
        QStringLiteral("erag-correlation-%1").arg(QString::fromLatin1(QTest::currentDataTag())));
  page.resultTabs()->setCurrentIndex(0);
  QTest::qWait(20);
  shoot(&page, QStringLiteral("erag-summary-%1").arg(QString::fromLatin1(QTest::currentDataTag())));

  // The stores alone reproduce the results.
  QSignalSpy reopened(&page, &ui::EragPage::finished);
  const QString eragStore = QString::fromStdString(results->eragStore.string()),
                e2eStore = QString::fromStdString(results->e2eStore.string());
  const double mean = results->erag->aggregate.means.front();
  QVERIFY(page.openStores(eragStore, e2eStore));
  QVERIFY(reopened.wait(kJobTimeoutMs));
  QVERIFY(reopened.front().at(0).toBool());
  QCOMPARE(page.results()->erag->aggregate.means.front(), mean);
  QCOMPARE(page.heatmap()->rowCount(), int(withGold));
}

void TestLlmGui::eragBm25OnDocugamiMatchesCli() {
  const char* kSec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";
  RAGSCOPE_REQUIRE_DATA("docugami/KG-RAG-datasets/sec-10-q/data/v1/qna_data.csv");
  QSettings().clear();
  QElapsedTimer clock;
  clock.start();
  const QString data = QString::fromStdString(test::dataPath(kSec10q).string());
  ui::Workbench wb;
  ui::RecentDataset spec;
  spec.name = QStringLiteral("docugami 10-Q");
  spec.parts = {{data, QStringLiteral("docugami")}};
  QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
  QVERIFY(wb.openDataset(spec));
  QVERIFY(loaded.wait(kLoadTimeoutMs));
  QVERIFY2(loaded.front().at(0).toBool(), qPrintable(loaded.front().at(1).toString()));
  const auto basis = wb.dataset();
  QCOMPARE(basis->queries.size(), std::size_t(195));
  QVERIFY(!basis->corpus.empty());
  const std::size_t runsBefore = basis->runs.size();

  // BM25 top 5 from the page, then eRAG and end-to-end with the offline reader and ROUGE-L.
  ui::EragPage page(&wb);
  page.resize(1360, 820);
  page.show();
  page.setRetrieverBm25();
  QVERIFY(page.retrieverSelected());
  page.setK(5);
  page.setEndpointIndex(0);
  page.setMetric(core::DownstreamMetric::RougeL);
  page.setMeasures(QStringLiteral("P_5, success_5"));
  page.setEndToEnd(true);
  QSignalSpy retrieved(&page, &ui::EragPage::retrieved);
  QSignalSpy finished(&page, &ui::EragPage::finished);
  QVERIFY(page.start());
  QVERIFY(page.isRunning());
  QVERIFY(page.progressBar()->isVisible());
  QVERIFY(retrieved.wait(kJobTimeoutMs));
  QVERIFY2(retrieved.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));

  // The run joined the loaded dataset: every page sees it.
  const auto ds = wb.dataset();
  QVERIFY(ds != basis);
  QCOMPARE(ds->runs.size(), runsBefore + 1);
  const core::Run& bm25 = ds->runs.back();
  QCOMPARE(QString::fromStdString(bm25.tag), QStringLiteral("bm25-top5"));
  QCOMPARE(bm25.rankings.size(), std::size_t(195));
  for (const auto& r : bm25.rankings) QVERIFY(!r.entries.empty() && r.entries.size() <= 5);
  QVERIFY2(page.runNoteLabel()->text().contains(QStringLiteral("index built in")),
           qPrintable(page.runNoteLabel()->text()));
  // The data folder is read-only: the index goes to the user's cache (this test's), never into it.
  QVERIFY(!QFileInfo::exists(data + QStringLiteral(".ragscope-index")));
  QVERIFY2(page.runNoteLabel()->text().contains(m_dir.filePath(QStringLiteral("cache"))),
           qPrintable(page.runNoteLabel()->text()));

  QVERIFY(finished.wait(kJobTimeoutMs));
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  const auto* results = page.results();
  QVERIFY(results && results->e2e && results->correlation);
  QCOMPARE(results->erag->aggregate.qids.size(), std::size_t(195));
  QCOMPARE(results->e2e->qids.size(), std::size_t(195));

  // The correlation table: eRAG P_5 against end-to-end over all 195 questions.
  const QAbstractItemModel* corr = page.correlationView()->model();
  bool sawErag = false;
  for (int r = 0; r < corr->rowCount(); ++r) {
    if (corr->index(r, 0).data().toString() != QLatin1String("eRAG (rouge-l)")) continue;
    if (corr->index(r, 1).data().toString() != QLatin1String("P_5")) continue;
    QCOMPARE(corr->index(r, 2).data().toString(), QStringLiteral("195"));
    sawErag = true;
  }
  QVERIFY(sawErag);
  page.resultTabs()->setCurrentIndex(page.correlationTab());
  QTest::qWait(50);
  shoot(&page, QStringLiteral("erag-bm25-docugami-correlation"));

  // The run saves as a TREC file.
  QTemporaryDir dir;
  QSignalSpy saved(&page, &ui::EragPage::runSaved);
  QVERIFY(page.saveRun(int(ds->runs.size()) - 1, dir.filePath(QStringLiteral("bm25.trec"))));
  QVERIFY(saved.wait(10000));
  QVERIFY2(saved.front().at(0).toBool(), qPrintable(saved.front().at(1).toString()));
  QFile trec(dir.filePath(QStringLiteral("bm25.trec")));
  QVERIFY(trec.open(QIODevice::ReadOnly));
  std::size_t lines = 0;
  while (!trec.atEnd())
    if (!trec.readLine().trimmed().isEmpty()) ++lines;
  QCOMPARE(lines, bm25.entryCount());

  // The same pipeline through ragscope-cli gives the same value for every question.
  const QStringList inputs = {
      "--dataset",   data,    "--format", "docugami",
      "--retriever", "bm25",  "--index",  dir.filePath(QStringLiteral("index")),
      "--k",         "5",     "--metric", "rouge-l",
      "--quiet",     "--json"};
  auto cli = [&](const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(RAGSCOPE_CLI_PATH), args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
      qWarning("%s", p.readAllStandardError().constData());
      return nlohmann::json();
    }
    return nlohmann::json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
  };
  const auto erag = cli(QStringList{"erag"} + inputs +
                        QStringList{"--measures", "P_5,success_5", "--store",
                                    dir.filePath(QStringLiteral("erag.db"))});
  QVERIFY(erag.is_object() && erag.contains("per_query"));
  const auto e2e = cli(QStringList{"e2e"} + inputs +
                       QStringList{"--store", dir.filePath(QStringLiteral("e2e.db"))});
  QVERIFY(e2e.is_object() && e2e.contains("per_query"));
  QCOMPARE(erag["per_query"].size(), std::size_t(195));
  QCOMPARE(e2e["per_query"].size(), std::size_t(195));
  const auto& a = results->erag->aggregate;
  const auto p5 = a.measureIndex("P_5");
  const auto s5 = a.measureIndex("success_5");
  QVERIFY(p5 && s5);
  for (std::size_t i = 0; i < a.qids.size(); ++i) {
    const auto& row = erag["per_query"][a.qids[i]];
    QVERIFY2(std::fabs(row["P_5"].get<double>() - a.values[*p5][i]) < 1e-12, a.qids[i].c_str());
    QVERIFY2(std::fabs(row["success_5"].get<double>() - a.values[*s5][i]) < 1e-12,
             a.qids[i].c_str());
  }
  for (std::size_t i = 0; i < results->e2e->qids.size(); ++i)
    QVERIFY2(std::fabs(e2e["per_query"][results->e2e->qids[i]].get<double>() -
                       results->e2e->values[i]) < 1e-12,
             results->e2e->qids[i].c_str());
  QVERIFY(std::fabs(erag["mean"]["P_5"].get<double>() - a.means[*p5]) < 1e-12);
  // A figure for the note, not an assertion: timings belong to the benchmarks (a loaded or
  // sanitized machine takes longer without anything being wrong).
  qInfo("Docugami GUI pipeline (load, BM25, eRAG, e2e, two CLI runs) in %.1f s",
        double(clock.elapsed()) / 1000.0);

  // Retrieving again reuses the index: the corpus is unchanged.
  page.setRetrieverBm25();
  page.setEndToEnd(false);
  retrieved.clear();
  finished.clear();
  QVERIFY(page.start());
  QVERIFY(retrieved.wait(kJobTimeoutMs));
  QVERIFY(retrieved.front().at(0).toBool());
  QVERIFY2(page.runNoteLabel()->text().contains(QStringLiteral("index reused from")),
           qPrintable(page.runNoteLabel()->text()));
  QCOMPARE(wb.dataset()->runs.size(), runsBefore + 1);  // the same tag replaces the first run
  QVERIFY(finished.wait(kJobTimeoutMs));

  // Cancelled at once: nothing is added and the page is ready again.
  const auto before = wb.dataset();
  page.setK(3);
  page.setRetrieverBm25();
  retrieved.clear();
  QVERIFY(page.start());
  page.cancel();
  QVERIFY(retrieved.wait(kJobTimeoutMs));
  QVERIFY(!retrieved.front().at(0).toBool());
  QVERIFY2(page.statusLabel()->text().contains(QStringLiteral("cancelled")),
           qPrintable(page.statusLabel()->text()));
  QCOMPARE(wb.dataset(), before);
  QVERIFY(!page.isRunning());
  QVERIFY(!page.progressBar()->isVisible());
}

void TestLlmGui::demoProjectOpensWithStoredErag() {
  // The demo project lists its stored eRAG and end-to-end runs: opening it shows them on the eRAG
  // page without running anything, and they hold what a fresh run of the same settings gives.
  const auto demo = core::findDemoProject();
  if (!demo) QSKIP("demo project not installed");
  QSettings().clear();
  ui::Workbench wb;
  ui::EragPage page(&wb);
  QSignalSpy shown(&page, &ui::EragPage::finished);
  const QString demoStore =
      QFileInfo(QString::fromStdString(demo->string())).absolutePath() + "/runs/erag-good.db";
  auto fileHash = [](const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly)
               ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256)
               : QByteArray();
  };
  const QByteArray before = fileHash(demoStore);
  QVERIFY(!before.isEmpty());
  QVERIFY(openDemo(wb));
  QVERIFY(shown.wait(30000));
  QCOMPARE(fileHash(demoStore), before);  // viewing a stored run never writes into it
  QVERIFY(shown.front().at(0).toBool());
  const core::eval::EvaluationResults* res = page.results();
  QVERIFY(res);
  QVERIFY2(res->error.empty(), res->error.c_str());
  QCOMPARE(QString::fromStdString(res->eragStore.filename().string()),
           QStringLiteral("erag-good.db"));
  QCOMPARE(QString::fromStdString(res->e2eStore.filename().string()),
           QStringLiteral("e2e-good.db"));  // the same system's e2e run
  QVERIFY(res->e2e.has_value());
  QVERIFY(res->correlation.has_value());
  QCOMPARE(res->erag->queries.size(), std::size_t{29});
  std::size_t outputs = 0;
  for (const auto& row : res->erag->labels)
    outputs += std::size_t(
        std::count_if(row.begin(), row.end(), [](const auto& l) { return l.has_value(); }));
  QVERIFY(outputs > 100);
  QCOMPARE(res->erag->heuristicOutputs,
           outputs);  // every output is the offline reader's, labelled so

  // A fresh run with the store's settings (offline reader, ROUGE-L, k = 5) gives the same means.
  const QString dir = QFileInfo(QString::fromStdString(demo->string())).absolutePath() + "/";
  QProcess cli;
  cli.start(RAGSCOPE_CLI_PATH, {"erag",
                                "--dataset",
                                dir + "collection.tsv",
                                "--dataset",
                                dir + "demo-kilt.jsonl",
                                "--run",
                                dir + "run-good.trec",
                                "--k",
                                "5",
                                "--metric",
                                "rouge-l",
                                "--measures",
                                "P_5,success_5",
                                "--generator",
                                "offline",
                                "--store",
                                m_dir.filePath("fresh-erag.db"),
                                "--cache",
                                m_dir.filePath("fresh-cache.sqlite"),
                                "--json",
                                "--quiet"});
  QVERIFY(cli.waitForFinished(60000));
  QCOMPARE(cli.exitCode(), 0);
  const auto fresh = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
  const auto stored = core::eval::eragScoresJson(*res->erag);
  for (const char* m : {"P_5", "success_5"})
    QCOMPARE(stored["mean"][m].get<double>(), fresh["mean"][m].get<double>());

  // Issue 12 item 11: viewing opened the stores read-write, which created -wal/-shm files beside
  // them and changed their times. From a read-only copy of the demo, the page shows the same
  // results, and no file of the copy is created, written or touched.
  QTemporaryDir copyDir;
  const QString copy = copyDir.filePath(QStringLiteral("demo"));
  QVERIFY(QDir().mkpath(copy + "/runs"));
  const QString source = QFileInfo(QString::fromStdString(demo->string())).absolutePath();
  for (const QString& sub : {QString(), QStringLiteral("/runs")})
    for (const QString& f : QDir(source + sub).entryList(QDir::Files))
      QVERIFY(QFile::copy(source + sub + "/" + f, copy + sub + "/" + f));
  auto tree = [&] {
    std::map<QString, std::pair<QDateTime, QByteArray>> state;
    QDirIterator it(copy, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
      const QString f = it.next();
      state[f] = {QFileInfo(f).lastModified(), fileHash(f)};
    }
    return state;
  };
  auto setWritable = [&](bool writable) {
    for (const QString& d : {copy, copy + "/runs"}) {
      for (const QString& f : QDir(d).entryList(QDir::Files))
        QFile::setPermissions(
            d + "/" + f,
            writable ? QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther
                     : QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther);
      QFile::setPermissions(d, QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup |
                                   QFile::ExeGroup |
                                   (writable ? QFile::WriteOwner : QFile::Permissions()));
    }
  };
  setWritable(false);
  const auto copyBefore = tree();
  {
    ui::Workbench copyWb;
    ui::EragPage copyPage(&copyWb);
    QSignalSpy copyShown(&copyPage, &ui::EragPage::finished);
    QVERIFY(openDemo(copyWb,
                     copy + "/" + QFileInfo(QString::fromStdString(demo->string())).fileName()));
    QVERIFY(copyShown.wait(30000));
    QVERIFY(copyShown.front().at(0).toBool());
    QVERIFY(copyPage.results() && copyPage.results()->error.empty());
    QCOMPARE(QString::fromStdString(copyPage.results()->eragStore.string()),
             copy + "/runs/erag-good.db");
    QVERIFY(core::eval::eragScoresJson(*copyPage.results()->erag)["mean"] == stored["mean"]);
  }
  const auto copyAfter = tree();
  setWritable(true);
  QCOMPARE(copyAfter.size(), copyBefore.size());  // no -wal, -shm or anything else created
  for (const auto& [file, state] : copyBefore) {
    QVERIFY2(copyAfter.count(file), qPrintable(file));
    QVERIFY2(copyAfter.at(file) == state,
             qPrintable(QStringLiteral("changed by viewing: %1").arg(file)));
  }
}

void TestLlmGui::resumeAsksBeforeForeignEndpoint() {
  // Issue 12 item 6, GUI: a run store from someone else in the runs folder names a server and
  // OPENAI_API_KEY. Resuming it asks first, naming the URL and the key; declined, nothing is sent.
  QSettings().clear();  // no endpoints saved on the Endpoints page
  qputenv("OPENAI_API_KEY", "sk-dummy-gui-test");
  testserver::TestServer server;
  QVERIFY(server.start());
  const QString url = QString::fromStdString(server.baseUrl());
  QDir().mkpath(ui::runsFolder());
  auto foreign = [&](const QString& name) {
    core::store::RunRecord r;
    r.kind = "generate";
    r.settings = {{"record_version", 2}, {"job", "generate"}, {"concurrency", 2}};
    core::llm::EndpointConfig e;
    e.name = "their server";
    e.baseUrl = server.baseUrl();
    e.model = "test-model";
    e.apiKeyEnv = "OPENAI_API_KEY";
    r.endpoint = core::llm::toJson(e);
    std::vector<core::store::NewItem> items;
    for (int i = 0; i < 4; ++i) {
      core::llm::LlmRequest q;
      q.messages.push_back(
          {"user", name.toStdString() + ": a question of the dataset " + std::to_string(i)});
      items.push_back({"gen:q" + std::to_string(i), "generate", core::llm::toJson(q).dump()});
    }
    const QString path = QDir(ui::runsFolder()).filePath(name);
    core::store::RunStore st;
    std::string err;
    if (!st.create(path.toStdString(), r, &err) || !st.addItems(items, &err)) return QString();
    return path;
  };
  const QString theirs = foreign(QStringLiteral("foreign-run.db"));
  QVERIFY(!theirs.isEmpty());
  ui::Workbench wb;
  ui::JobsDock dock(&wb);
  QSignalSpy finished(&dock, &ui::JobsDock::jobFinished);
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowOf(theirs) >= 0, 10000);

  QStringList asked;
  bool answer = false;
  ui::JobsDock::setTrustPrompt([&](QWidget*, const QString& store, const QString& endpoint) {
    asked << endpoint;
    return answer && store == theirs;
  });
  QVERIFY(!dock.resumeRow(dock.runs()->rowOf(theirs)));
  QCOMPARE(asked.size(), 1);
  QVERIFY2(asked.front().contains(url) && asked.front().contains(QStringLiteral("$OPENAI_API_KEY")),
           qPrintable(asked.front()));
  QTest::qWait(300);
  QCOMPARE(server.requestCount(), std::size_t{0});
  QVERIFY(!dock.currentJob());
  QVERIFY2(dock.statsLabel()->text().contains(url) &&
               dock.statsLabel()->text().contains(QStringLiteral("nothing was sent")),
           qPrintable(dock.statsLabel()->text()));

  // Confirmed: resumed with the key, and remembered (the next store naming it is not asked about).
  answer = true;
  QVERIFY(dock.resumeRow(dock.runs()->rowOf(theirs)));
  QCOMPARE(asked.size(), 2);
  QVERIFY(finished.wait(kJobTimeoutMs));
  auto outcome = finished.front().at(0).value<ui::RunJobOutcome>();
  QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
  QCOMPARE(outcome.counts.done, std::size_t{4});
  QCOMPARE(server.requestCount(), std::size_t{4});
  for (const auto& e : server.log())
    QCOMPARE(QString::fromStdString(e.authorization), QStringLiteral("Bearer sk-dummy-gui-test"));
  const QString again = foreign(QStringLiteral("foreign-run-2.db"));
  dock.runs()->setFolder(ui::runsFolder());
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowOf(again) >= 0, 10000);
  finished.clear();
  QVERIFY(dock.resumeRow(dock.runs()->rowOf(again)));
  QCOMPARE(asked.size(), 2);
  QVERIFY(finished.wait(kJobTimeoutMs));
  QCOMPARE(server.requestCount(), std::size_t{8});
  ui::JobsDock::setTrustPrompt({});
}

void TestLlmGui::item01_resumeAsksWhereToWrite() {
  // Issue 24 item 1, GUI: a finished generate store whose settings name a file of the user's as
  // its answers file. Resuming it asks; "write none" writes nothing, a chosen path gets the
  // answers.
  QDir().mkpath(ui::runsFolder());
  const QString demo = QStringLiteral(RAGSCOPE_SOURCE_DIR "/resources/demo/");
  const QString store = QDir(ui::runsFolder()).filePath(QStringLiteral("suggests-out.db"));
  const auto made = test::runCliText({"generate", "--dataset", demo + "topics.tsv", "--dataset",
                                      demo + "collection.tsv", "--run", demo + "run-good.trec",
                                      "--k", "2", "--store", store, "--out",
                                      m_dir.filePath(QStringLiteral("first.jsonl")), "--quiet"});
  QVERIFY2(made.exitCode == 0, qPrintable(made.err));
  const QString victim = m_dir.filePath(QStringLiteral("victim.txt"));
  {
    QFile f(victim);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("precious\n");
  }
  {
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(store.toUtf8().constData(), &db), SQLITE_OK);
    const QByteArray sql =
        "UPDATE run SET settings = json_set(settings, '$.out', '" + victim.toUtf8() + "')";
    QCOMPARE(sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  ui::Workbench wb;
  ui::JobsDock dock(&wb);
  dock.runs()->setFolder(ui::runsFolder());
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowOf(store) >= 0, 10000);
  QSignalSpy finished(&dock, &ui::JobsDock::jobFinished);
  QStringList suggested;
  QString answer;
  ui::JobsDock::setOutputPrompt([&](QWidget*, const QString&, const QString&, const QString& path) {
    suggested << path;
    return answer;
  });
  QVERIFY(dock.resumeRow(dock.runs()->rowOf(store)));
  QVERIFY(finished.wait(kJobTimeoutMs));
  QCOMPARE(suggested, QStringList{victim});
  QFile v(victim);
  QVERIFY(v.open(QIODevice::ReadOnly));
  QCOMPARE(v.readAll(), QByteArray("precious\n"));
  v.close();

  answer = m_dir.filePath(QStringLiteral("chosen.jsonl"));
  finished.clear();
  QTRY_VERIFY_WITH_TIMEOUT(!dock.currentJob() || !dock.currentJob()->isRunning(), 10000);
  QVERIFY(dock.resumeRow(dock.runs()->rowOf(store)));
  QVERIFY(finished.wait(kJobTimeoutMs));
  QFile chosen(answer);
  QVERIFY(chosen.open(QIODevice::ReadOnly));
  QCOMPARE(chosen.readAll().trimmed().split('\n').size(), 29);
  QVERIFY(v.open(QIODevice::ReadOnly));
  QCOMPARE(v.readAll(), QByteArray("precious\n"));
  ui::JobsDock::setOutputPrompt({});
}

QTEST_MAIN(TestLlmGui)
#include "tst_llmgui.moc"
