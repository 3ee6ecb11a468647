// Batch calls in the workbench (ui/jobsdock.*, core/eval/engine/batchrun.h): a generate job started
// "as batch" from the Jobs dock shows its batch's state and counts and imports it when it
// completes; a batch left running survives closing the workbench (its state is read from the store)
// and the next Resume polls the same batch; "Export batch file…" and "Import batch results…" carry
// a run's calls through a file. Screenshots go to $RAGSCOPE_SCREENSHOT_DIR when set.

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "common/cli.h"
#include "common/workbenchtest.h"
#include "core/llm/batchclient.h"
#include "core/store/project.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"
#include "ui/jobs/runjob.h"
#include "ui/jobsdock.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/models/runlistmodel.h"
#include "ui/pages/endpointspage.h"
#include "ui/pages/jobcontrols.h"
#include "ui/secrets.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

constexpr int kJobTimeoutMs = 60000;

void shoot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QTest::qWait(50);  // the labels' new lines laid out before the grab
  QVERIFY(w->grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

bool openDemo(ui::Workbench& wb) {
  const auto demo = core::findDemoProject();
  if (!demo) return false;
  QSignalSpy finished(&wb, &ui::Workbench::loadFinished);
  if (!wb.openProject(QString::fromStdString(demo->string()))) return false;
  if (finished.isEmpty() && !finished.wait(60000)) return false;
  return finished.front().at(0).toBool() && wb.dataset();
}

core::llm::EndpointConfig serverEndpoint(const testserver::TestServer& server) {
  core::llm::EndpointConfig e;
  e.name = "test server";
  e.baseUrl = server.baseUrl();
  e.model = "test-model";
  return e;
}

int rowOfKind(ui::RunListModel& runs, const QString& path) { return runs.rowOf(path); }

}  // namespace

class TestBatchGui : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void asBatchFromTheJobsDock();
  void batchSurvivesReopeningTheWorkbench();
  void exportAndImportBatchFiles();
  void asBatchWhereJobsStart();
  void batchPricesOnTheEndpointsPage();

 private:
  QString runs() const { return m_dir.filePath(QStringLiteral("runs")); }
  QTemporaryDir m_dir;
};

void TestBatchGui::initTestCase() {
  QVERIFY(test::isolateWorkbenchTest(QStringLiteral("tst_batchgui"), m_dir, 3000));
}

void TestBatchGui::asBatchFromTheJobsDock() {
  testserver::TestServer server;
  QVERIFY(server.start());
  testserver::BatchServerOptions timed;
  timed.batchMs = 1500;  // long enough to see the states go by
  server.setBatchOptions(timed);
  ui::Workbench wb;
  if (!core::findDemoProject()) QSKIP("demo project not installed");
  QVERIFY(openDemo(wb));
  ui::JobsDock dock(&wb);
  dock.resize(1300, 420);
  dock.show();
  QSignalSpy finished(&dock, &ui::JobsDock::jobFinished);
  ui::GenerateSettings settings;
  settings.endpoint = serverEndpoint(server);
  settings.runIndex = 0;
  settings.k = 2;
  settings.asBatch = true;
  QVERIFY(dock.startGenerate(settings));
  // The batch's state and counts in the dock while it runs.
  QTRY_VERIFY_WITH_TIMEOUT(dock.statsLabel()->text().startsWith(QStringLiteral("Batch batch_")),
                           kJobTimeoutMs);
  shoot(&dock, QStringLiteral("batch-jobsdock-polling"));
  if (finished.isEmpty()) QVERIFY(finished.wait(kJobTimeoutMs));
  const auto outcome = finished.front().at(0).value<ui::RunJobOutcome>();
  QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
  QCOMPARE(outcome.status, QStringLiteral("done"));
  QCOMPARE(outcome.counts.done, wb.dataset()->queries.size());
  // Imported on completion: one batch, no live chat call.
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{1});
  QCOMPARE(server.chatRequests(), std::size_t{0});
  QCOMPARE(dock.progressBar()->value(), dock.progressBar()->maximum());
  QVERIFY2(dock.statsLabel()->text().contains(QStringLiteral("completed, 29 calls imported")),
           qPrintable(dock.statsLabel()->text()));
  shoot(&dock, QStringLiteral("batch-jobsdock-done"));
}

void TestBatchGui::batchSurvivesReopeningTheWorkbench() {
  if (!core::findDemoProject()) QSKIP("demo project not installed");
  testserver::TestServer server;
  QVERIFY(server.start());
  testserver::BatchServerOptions endless;
  endless.batchMs = 1000000000;  // in progress until the options change
  server.setBatchOptions(endless);
  QString store;
  {
    ui::Workbench wb;
    QVERIFY(openDemo(wb));
    ui::JobsDock dock(&wb);
    QSignalSpy finished(&dock, &ui::JobsDock::jobFinished);
    ui::GenerateSettings settings;
    settings.endpoint = serverEndpoint(server);
    settings.runIndex = 0;
    settings.k = 2;
    settings.asBatch = true;
    QVERIFY(dock.startGenerate(settings));
    QTRY_VERIFY_WITH_TIMEOUT(server.batchCounters().batchPolls >= 1, kJobTimeoutMs);
    QVERIFY(dock.currentJob());
    store = dock.currentJob()->storePath();
    // Closing the workbench stops the job; the batch goes on at the server.
    dock.cancelCurrent();
    if (finished.isEmpty()) QVERIFY(finished.wait(kJobTimeoutMs));
  }
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{1});
  // Reopened: the run list shows the batch from the store.
  ui::Workbench wb;
  QVERIFY(openDemo(wb));
  ui::JobsDock dock(&wb);
  dock.resize(1300, 420);
  dock.show();
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowOf(store) >= 0, 10000);
  const int row = dock.runs()->rowOf(store);
  const QString status = dock.runs()->index(row, ui::RunListModel::Status).data().toString();
  QVERIFY2(status.startsWith(QStringLiteral("batch batch_")) && status.contains("validating"),
           qPrintable(status));
  dock.table()->selectRow(row);
  shoot(&dock, QStringLiteral("batch-jobsdock-reopened"));
  // It completes; Resume polls the same batch and imports it.
  server.setBatchOptions({});
  QSignalSpy finished(&dock, &ui::JobsDock::jobFinished);
  QVERIFY(dock.resumeRow(row));
  QVERIFY(finished.wait(kJobTimeoutMs));
  const auto outcome = finished.front().at(0).value<ui::RunJobOutcome>();
  QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
  QCOMPARE(outcome.status, QStringLiteral("done"));
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{1});
  QCOMPARE(server.chatRequests(), std::size_t{0});
}

void TestBatchGui::exportAndImportBatchFiles() {
  if (!core::findDemoProject()) QSKIP("demo project not installed");
  testserver::TestServer server;
  QVERIFY(server.start());
  // A run planned from the command line with every call pending, in the runs folder.
  const QString store = QDir(runs()).filePath(QStringLiteral("file-route.db"));
  const QString demo = QString::fromStdString(core::findDemoProject()->parent_path().string());
  const auto planned = test::runCliText(
      {"generate", "--dataset", demo + "/topics.tsv", "--dataset", demo + "/collection.tsv",
       "--run", demo + "/run-good.trec", "--k", "2", "--generator",
       QString::fromStdString(server.baseUrl()), "--model", "test-model", "--store", store,
       "--batch-file", m_dir.filePath(QStringLiteral("first.jsonl")), "-q"});
  QVERIFY2(planned.exitCode == 0, qPrintable(planned.err));
  ui::Workbench wb;
  QVERIFY(openDemo(wb));
  ui::JobsDock dock(&wb);
  dock.resize(1300, 420);
  dock.show();
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowOf(store) >= 0, 10000);
  int row = rowOfKind(*dock.runs(), store);
  dock.table()->selectRow(row);

  // Export batch file…: the 29 pending calls, nothing sent.
  const QString file = m_dir.filePath(QStringLiteral("from-gui.jsonl"));
  QSignalSpy finished(&dock, &ui::JobsDock::jobFinished);
  QVERIFY(dock.exportBatchFile(row, file));
  QVERIFY(finished.wait(kJobTimeoutMs));
  QFile f(file);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QByteArray lines = f.readAll();
  QCOMPARE(lines.count('\n'), 29);
  QVERIFY2(dock.statsLabel()->text().contains(QStringLiteral("Wrote 29 call")),
           qPrintable(dock.statsLabel()->text()));
  QCOMPARE(server.requestCount(), std::size_t{0});

  // The file run as a batch elsewhere (here: the test server's Batch API), its output imported.
  core::llm::BatchClient client(serverEndpoint(server));
  std::string err;
  const auto id = client.uploadFile(lines.toStdString(), "from-gui.jsonl", &err);
  QVERIFY2(id, err.c_str());
  const auto batch = client.createBatch(*id, "/v1/chat/completions", &err);
  QVERIFY2(batch && batch->status == "completed", err.c_str());
  const QString results = m_dir.filePath(QStringLiteral("results.jsonl"));
  QVERIFY2(client.downloadFile(batch->outputFileId, results.toStdString(), 1 << 24, &err),
           err.c_str());
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing(), 10000);
  row = dock.runs()->rowOf(store);
  QSignalSpy imported(&dock, &ui::JobsDock::batchImported);
  QVERIFY(dock.importBatchResults(row, {results}));
  QVERIFY(imported.wait(kJobTimeoutMs));
  QVERIFY2(imported.front().at(1).toBool(), qPrintable(imported.front().at(0).toString()));
  QVERIFY2(imported.front().at(0).toString().contains(QStringLiteral("29 answers")),
           qPrintable(imported.front().at(0).toString()));
  QTRY_VERIFY_WITH_TIMEOUT(!dock.runs()->isRefreshing() && dock.runs()->rowOf(store) >= 0, 10000);
  dock.table()->selectRow(dock.runs()->rowOf(store));
  shoot(&dock, QStringLiteral("batch-jobsdock-imported"));
  core::store::RunStore s;
  QVERIFY(s.openReadOnly(store.toStdString(), &err));
  QCOMPARE(s.counts().done, std::size_t{29});
  QCOMPARE(server.chatRequests(), std::size_t{0});
}

void TestBatchGui::asBatchWhereJobsStart() {
  // The pages' job controls (eRAG, Claims): "As batch" beside the budget, off by default.
  ui::JobControls controls(
      {QStringLiteral("Run"), ui::JobControls::WithEstimate | ui::JobControls::WithBudget});
  auto* row = controls.budgetEditor();
  QVERIFY(row);
  auto* box = row->findChild<QCheckBox*>(QStringLiteral("AsBatch"));
  QVERIFY(box);
  QVERIFY(!controls.asBatch());
  box->setChecked(true);
  QVERIFY(controls.asBatch());
  row->resize(620, 32);
  row->show();
  shoot(row, QStringLiteral("batch-jobcontrols-asbatch"));
  // The retriever bars (no budget) have none.
  ui::JobControls compact({QStringLiteral("Run"), ui::JobControls::Compact});
  QVERIFY(!compact.asBatch());
}

// The Endpoints page edits the batch prices: one set (0.0025 $ / 1k prompt tokens), one left "as
// live" (unset, so a batch estimate uses the live output price); both read back from the saved
// list by a new page.
void TestBatchGui::batchPricesOnTheEndpointsPage() {
  {
    ui::EndpointsPage page;
    page.addEndpoint();
    page.nameEdit()->setText(QStringLiteral("batch-priced"));
    page.baseUrlEdit()->setText(QStringLiteral("http://127.0.0.1:9/v1"));
    QCOMPARE(page.batchPriceInSpin()->text(), QStringLiteral("as live"));  // unset by default
    page.batchPriceInSpin()->setValue(0.0025);
    QVERIFY(page.applyEdits());
  }
  ui::EndpointsPage page;
  int row = -1;
  for (int r = 0; r < page.model()->rowCount(); ++r)
    if (page.model()->endpoint(r)->name == "batch-priced") row = r;
  QVERIFY(row >= 0);
  const auto* e = page.model()->endpoint(row);
  QVERIFY(e->batchPricePer1kInput.has_value());
  QCOMPARE(*e->batchPricePer1kInput, 0.0025);
  QVERIFY(!e->batchPricePer1kOutput.has_value());
  QVERIFY(page.selectRow(row));
  QCOMPARE(page.batchPriceOutSpin()->text(), QStringLiteral("as live"));
}

QTEST_MAIN(TestBatchGui)
#include "tst_batchgui.moc"
