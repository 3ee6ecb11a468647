// The evaluation-job layer (core/eval/api/job.h) seen from both front ends: the same eRAG +
// end-to-end job started from the CLI and from the eRAG page writes the same run record and the
// same per-query values (demo, and Docugami with BM25); a store made in the GUI is saved into a
// project and shows again when the project is reopened; a GUI-made store whose process is killed
// mid-run is finished by `ragscope-cli resume` without re-sending a committed call; a store of
// the GUI's first record layout still opens, matches its dataset and resumes.

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <nlohmann/json.hpp>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/eval/api/job.h"
#include "core/eval/reports/projectruns.h"
#include "core/store/project.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"
#include "ui/jobs/runjob.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/pages/eragpage.h"
#include "ui/preferences.h"
#include "ui/workbench.h"

using namespace ragscope;
using nlohmann::json;

namespace {

constexpr int kJobTimeoutMs = 240000;
const char* kSec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";

QString demoFile(const char* name) {
  return QDir(QStringLiteral(RAGSCOPE_SOURCE_DIR "/resources/demo"))
      .absoluteFilePath(QString::fromLatin1(name));
}

// The demo files an eRAG run needs: passages, questions with gold answers, and a run.
ui::RecentDataset demoSpec() {
  ui::RecentDataset spec;
  spec.name = QStringLiteral("demo for jobs");
  for (const char* f : {"collection.tsv", "demo-kilt.jsonl", "run-good.trec"})
    spec.parts.push_back({demoFile(f), {}});
  return spec;
}

bool load(ui::Workbench& wb, const ui::RecentDataset& spec) {
  QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
  if (!wb.openDataset(spec)) return false;
  if (loaded.isEmpty() && !loaded.wait(kJobTimeoutMs)) return false;
  return loaded.front().at(0).toBool() && wb.dataset();
}

// The run record of a store as JSON, without what legitimately differs between two runs of the
// same job: timestamps and the front end that started it.
json comparableRecord(const std::filesystem::path& path) {
  core::store::RunStore store;
  std::string err;
  if (!store.open(path, &err)) return {{"error", err}};
  const auto r = store.run();
  json settings = r.settings;
  settings.erase("front_end");
  return {{"kind", r.kind},
          {"settings", settings},
          {"template_text", r.templateText},
          {"template_hash", r.templateHash},
          {"endpoint", r.endpoint},
          {"status", r.status}};
}

std::string frontEnd(const std::filesystem::path& path) {
  core::store::RunStore store;
  std::string err;
  return store.open(path, &err) ? store.run().settings.value("front_end", std::string()) : err;
}

// Runs the page's eRAG + end-to-end job; the two stores it wrote.
bool runPage(ui::EragPage& page, bool bm25,
             std::pair<std::filesystem::path, std::filesystem::path>& stores) {
  if (bm25)
    page.setRetrieverBm25();
  else
    page.setRunIndex(0);
  page.setK(5);
  page.setEndpointIndex(0);
  page.setMetric(core::DownstreamMetric::RougeL);
  page.setMeasures(QStringLiteral("P_5,success_5"));
  page.setEndToEnd(true);
  QSignalSpy finished(&page, &ui::EragPage::finished);
  if (!page.start() || !finished.wait(kJobTimeoutMs) || !finished.front().at(0).toBool()) {
    qWarning() << page.statusLabel()->text();
    return false;
  }
  const auto* r = page.results();
  if (!r || !r->erag || !r->e2e) return false;
  stores = {r->eragStore, r->e2eStore};
  return true;
}

void comparePerQuery(const json& a, const json& b) {
  QCOMPARE(a.size(), b.size());
  for (const auto& [qid, values] : a.items()) {
    QVERIFY2(b.contains(qid), qid.c_str());
    QCOMPARE(QString::fromStdString(values.dump()), QString::fromStdString(b[qid].dump()));
  }
}

// Child mode: the GUI's eRAG page runs a job against `serverUrl` and never exits on its own; the
// parent kills it mid-run (SIGKILL), as a crash or a power cut would.
int runChild(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("ragscope-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_jobs_child"));
  ui::setRunsFolderOverride(QString::fromLocal8Bit(argv[2]));
  core::llm::EndpointConfig ep;
  ep.name = "slow local";
  ep.baseUrl = argv[3];
  ep.model = "test-model";
  ep.concurrency = 2;
  ui::Preferences::llmEndpoints.set(ui::EndpointListModel::toJsonText({ep}));
  ui::Workbench wb;
  if (!load(wb, demoSpec())) return 3;
  ui::EragPage page(&wb);
  page.setRunIndex(0);
  page.setEndpointIndex(1);
  page.setEndToEnd(false);
  if (!page.start()) return 4;
  return app.exec();
}

}  // namespace

class TestJobs : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void cliAndPageWriteTheSameRun_data();
  void cliAndPageWriteTheSameRun();
  void guiRunReopensWithItsProject();
  void killedGuiRunResumesFromTheCli();
  void firstLayoutGuiStoresStillWork();

 private:
  QTemporaryDir m_dir;
};

void TestJobs::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("ragscope-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_jobs"));
  QSettings().clear();
  QVERIFY(m_dir.isValid());
  // The response cache, BM25 indexes of read-only data and run stores stay in this folder; the
  // CLI children inherit the cache location, so both front ends choose the same index folder.
  qputenv("XDG_CACHE_HOME", m_dir.filePath(QStringLiteral("cache")).toLocal8Bit());
  ui::setRunsFolderOverride(m_dir.filePath(QStringLiteral("runs")));
}

void TestJobs::cliAndPageWriteTheSameRun_data() {
  QTest::addColumn<bool>("docugami");
  QTest::newRow("demo, run file") << false;
  QTest::newRow("docugami, bm25") << true;
}

void TestJobs::cliAndPageWriteTheSameRun() {
  QFETCH(bool, docugami);
  ui::RecentDataset spec = demoSpec();
  QStringList cliInputs;
  if (docugami) {
    RAGSCOPE_REQUIRE_DATA("docugami/KG-RAG-datasets/sec-10-q/data/v1/qna_data.csv");
    const QString data = QString::fromStdString(test::dataPath(kSec10q).string());
    spec.name = QStringLiteral("docugami 10-Q");
    spec.parts = {{data, QStringLiteral("docugami")}};
    cliInputs = {"--dataset", data, "--format", "docugami", "--retriever", "bm25"};
  } else {
    for (const auto& p : spec.parts) cliInputs << "--dataset" << p.path;
    cliInputs << "--run" << demoFile("run-good.trec");
  }
  ui::Workbench wb;
  QVERIFY(load(wb, spec));
  ui::EragPage page(&wb);
  std::pair<std::filesystem::path, std::filesystem::path> gui;
  QVERIFY(runPage(page, docugami, gui));

  QTemporaryDir dir;
  const QString eragStore = dir.filePath(QStringLiteral("erag.db")),
                e2eStore = dir.filePath(QStringLiteral("e2e.db"));
  const auto cli = test::runCli(QStringList{"erag"} + cliInputs +
                                QStringList{"--k", "5", "--metric", "rouge-l", "--measures",
                                            "P_5,success_5", "--with-e2e", "--store", eragStore,
                                            "--e2e-store", e2eStore, "--json", "--quiet"});
  QVERIFY2(cli.exitCode == 0, cli.err.constData());

  // One record, whoever started the job.
  for (const auto& [g, c] : {std::pair{gui.first, eragStore}, std::pair{gui.second, e2eStore}}) {
    const json a = comparableRecord(g), b = comparableRecord(c.toStdString());
    QVERIFY2(a == b, qPrintable(QStringLiteral("GUI:\n%1\nCLI:\n%2")
                                    .arg(QString::fromStdString(a.dump(1)).left(3000),
                                         QString::fromStdString(b.dump(1)).left(3000))));
    QCOMPARE(a["settings"]["record_version"].get<int>(), core::eval::kRunRecordVersion);
    QCOMPARE(frontEnd(g), std::string("gui"));
    QCOMPARE(frontEnd(c.toStdString()), std::string("cli"));
  }
  // The same per-query values: what the CLI printed and what the page shows.
  const json printed = json::parse(cli.out.toStdString());
  const auto* shown = page.results();
  comparePerQuery(core::eval::eragScoresJson(*shown->erag)["per_query"],
                  printed["erag"]["per_query"]);
  comparePerQuery(core::eval::e2eScoresJson(*shown->e2e)["per_query"], printed["e2e"]["per_query"]);
  QCOMPARE(printed["erag"]["per_query"].size(), docugami ? std::size_t(195) : std::size_t(29));
}

void TestJobs::guiRunReopensWithItsProject() {
  QTemporaryDir dir;
  std::pair<std::filesystem::path, std::filesystem::path> stores;
  const QString projectFile = dir.filePath(QStringLiteral("mine.ragscope.json"));
  {
    ui::Workbench wb;
    QVERIFY(load(wb, demoSpec()));
    ui::EragPage page(&wb);
    QVERIFY(runPage(page, false, stores));
    QSignalSpy saved(&wb, &ui::Workbench::projectSaved);
    QVERIFY(wb.saveProject(projectFile));
    QVERIFY(saved.wait(30000));
    QVERIFY2(saved.front().at(0).toBool(), qPrintable(saved.front().at(1).toString()));
  }
  // The project lists both stores...
  const auto project = core::readProject(projectFile.toStdString());
  QVERIFY(project.report.ok() && !project.report.hasErrors());
  QCOMPARE(project.value.runStores.size(), std::size_t(2));
  // ...and reopening it shows the eRAG run (with its end-to-end run) on the eRAG page.
  ui::Workbench wb;
  QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
  ui::EragPage page(&wb);
  QSignalSpy shown(&page, &ui::EragPage::finished);
  QVERIFY(wb.openProject(projectFile));
  QVERIFY(shown.wait(60000));
  QVERIFY2(shown.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  QVERIFY(page.results());
  QCOMPARE(page.results()->eragStore, stores.first);
  QCOMPARE(page.results()->e2eStore, stores.second);
  QCOMPARE(page.results()->erag->aggregate.qids.size(), std::size_t(29));
}

void TestJobs::killedGuiRunResumesFromTheCli() {
  testserver::Options options;
  options.latencyMs = 150;
  testserver::TestServer server(options);
  QVERIFY(server.start());
  QTemporaryDir runs;
  QProcess child;
  child.setProcessChannelMode(QProcess::ForwardedChannels);
  child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--child-erag"), runs.path(),
                                                        QString::fromStdString(server.baseUrl())});
  QVERIFY(child.waitForStarted());
  // Wait until the GUI's store has some committed calls, then kill the process mid-run.
  std::filesystem::path store;
  QTRY_VERIFY_WITH_TIMEOUT(
      [&] {
        for (const auto& e :
             QDir(runs.path()).entryInfoList({QStringLiteral("*.db")}, QDir::Files)) {
          core::store::RunStore s;
          std::string err;
          if (s.open(e.absoluteFilePath().toStdString(), &err) && s.counts().done >= 10) {
            store = e.absoluteFilePath().toStdString();
            return true;
          }
        }
        return false;
      }(),
      60000);
  ::kill(pid_t(child.processId()), SIGKILL);
  QVERIFY(child.waitForFinished(10000));
  core::store::RunCounts before;
  {
    core::store::RunStore s;
    std::string err;
    QVERIFY2(s.open(store, &err), err.c_str());
    QCOMPARE(QString::fromStdString(s.run().status),
             QStringLiteral("running"));  // killed, not stopped
    QCOMPARE(QString::fromStdString(s.run().settings.value("front_end", std::string())),
             QStringLiteral("gui"));
    before = s.counts();
    QVERIFY(before.done < before.total);
  }
  // Calls in flight at the kill reach the server's count when its reply is due.
  QTRY_VERIFY_WITH_TIMEOUT(server.inFlight() == 0, 10000);
  const std::size_t sentBefore = server.requestCount();
  const auto resumed =
      test::runCliText({"resume", QString::fromStdString(store.string()), "--quiet"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
  core::store::RunStore s;
  std::string err;
  QVERIFY(s.open(store, &err));
  const auto after = s.counts();
  QCOMPARE(after.done, after.total);
  // Only the calls without a committed result were sent again.
  QCOMPARE(server.requestCount() - sentBefore, after.total - before.done);
  QVERIFY2(resumed.out.contains(QStringLiteral("eRAG:")),
           qPrintable(resumed.out));  // scores follow the run
}

void TestJobs::firstLayoutGuiStoresStillWork() {
  // The GUI's first record layout named the dataset, not its files; build such a store from a
  // run of today's, as an earlier version wrote it.
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("old-gui.db"));
  ui::Workbench wb;
  QVERIFY(load(wb, demoSpec()));
  const auto ds = wb.dataset();
  core::eval::JobSpec spec;
  spec.kind = core::eval::JobKind::Erag;
  spec.run.type = core::eval::RunSource::Type::DatasetRun;
  spec.endpoint = core::eval::offlineReaderEndpoint();
  auto plan = core::eval::planJob(spec, *ds);
  QVERIFY2(plan.ok(), plan.error.c_str());
  auto& record = plan.stages.front().record;
  json old = json::object();
  for (const char* key :
       {"job", "k", "metric", "measures", "template_source", "concurrency", "budget_usd", "plan",
        "queries", "missing_documents", "queries_without_gold", "system"})
    old[key] = record.settings[key];
  old["dataset"] = ds->name;
  old["run"] = {{"name", "bm25-tuned"}, {"source", demoFile("run-good.trec").toStdString()}};
  old["started_from"] = "gui";
  record.settings = old;
  {
    core::store::RunStore store;
    std::string err;
    QVERIFY2(store.create(path.toStdString(), record, &err), err.c_str());
    QVERIFY2(store.addItems(plan.stages.front().items, &err), err.c_str());
  }
  // It matches its dataset by name, as the project's runs are paired with the loaded dataset...
  const auto pair = core::eval::storedRunsForDataset({path.toStdString()}, ds->parts, ds->name);
  QVERIFY(pair.erag);
  QVERIFY(
      !core::eval::storedRunsForDataset({path.toStdString()}, ds->parts, "another dataset").erag);
  // ...resumes (nothing was run yet) and then displays.
  const auto resumed = test::runCliText({"resume", path, "--quiet"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
  ui::EragPage page(&wb);
  QSignalSpy shown(&page, &ui::EragPage::finished);
  QVERIFY(page.openStores(path));
  QVERIFY(shown.wait(60000));
  QVERIFY2(shown.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  QCOMPARE(page.results()->erag->aggregate.qids.size(), std::size_t(29));
  // The shipped demo stores (CLI records of the first layout) still open on the page as well.
  QSignalSpy again(&page, &ui::EragPage::finished);
  QVERIFY(page.openStores(demoFile("runs/erag-good.db"), demoFile("runs/e2e-good.db")));
  QVERIFY(again.wait(60000));
  QVERIFY2(again.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  QVERIFY(page.results()->correlation.has_value());
}

int main(int argc, char** argv) {
  if (argc >= 4 && qstrcmp(argv[1], "--child-erag") == 0) return runChild(argc, argv);
  QApplication app(argc, argv);
  TestJobs test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_jobs.moc"
