// Issue 36 item 3 on the job pages: the eRAG and Claims pages offer every retriever saved in the
// project (the demo's bm25, dense-offline, hybrid-bm25-dense-rrf) beside the built-in BM25 and
// the dataset's runs, and the job runs the one chosen as its first step. The dense run's tag and
// record name the retriever, and its eRAG labels equal those of `ragscope-cli erag` over the same
// run written as a TREC file; the embedding shows in the Jobs dock (calls = ceil(documents /
// batch)). A dense retriever read from a project file sends nothing, key or queries, until it is
// confirmed; once confirmed its key goes with the embedding calls, and Cancel in the Jobs dock
// stops the job during the embedding with nothing added.

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/cli.h"
#include "common/testdata.h"
#include "common/workbenchtest.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"
#include "ui/jobs/runjob.h"
#include "ui/jobsdock.h"
#include "ui/pages/claimspage.h"
#include "ui/pages/claimssetup.h"
#include "ui/pages/eragpage.h"
#include "ui/pages/eragsetup.h"
#include "ui/retrievertrust.h"
#include "ui/secrets.h"
#include "ui/workbench.h"

using namespace ragscope;
namespace fs = std::filesystem;

namespace {

constexpr int kJobTimeoutMs = 120000;

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// The demo project copied into `dir`: a dense index is written beside the corpus, never beside
// the repository's files.
fs::path copyDemo(const fs::path& dir) {
  fs::copy(test::sourceRoot() / "resources" / "demo", dir / "demo", fs::copy_options::recursive);
  return dir / "demo" / "demo.ragscope.json";
}

bool openProject(ui::Workbench& wb, const fs::path& file) {
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QSignalSpy finished(&wb, &ui::Workbench::loadFinished);
  if (!wb.openProject(q(file))) return false;
  if (finished.isEmpty() && !finished.wait(30000)) return false;
  return finished.front().at(0).toBool() && wb.dataset();
}

QStringList comboTexts(const QComboBox* combo) {
  QStringList out;
  for (int i = 0; i < combo->count(); ++i) out << combo->itemText(i);
  return out;
}

const core::Run* runTagged(const core::Dataset& ds, const std::string& tag) {
  for (const auto& r : ds.runs)
    if (r.tag == tag) return &r;
  return nullptr;
}

// The embedding calls of every job's retrieval step as they reach the GUI, with what the Jobs
// dock's line said when each arrived.
struct EmbedWatch {
  quint64 done = 0, total = 0;
  QStringList dockLines;
};
void watchEmbedding(QObject* context, ui::JobsDock& dock, EmbedWatch& watch) {
  QObject::connect(ui::RunJobHub::instance(), &ui::RunJobHub::jobStarted, context,
                   // context by value (this function's variables are gone when a job starts); dock
                   // and watch by reference: the test's own objects, alive for the whole run.
                   [context, &dock, &watch](ui::RunJob* job) {
                     // Connected after the dock's own slot: the dock has shown this report already.
                     QObject::connect(job, &ui::RunJob::retrieveProgress, context,
                                      [&dock, &watch](ui::RunJob::RetrievePhase phase, quint64 done,
                                                      quint64 total) {
                                        if (phase != ui::RunJob::RetrievePhase::Embed) return;
                                        watch.done = done;
                                        watch.total = total;
                                        watch.dockLines << dock.statsLabel()->text();
                                      });
                   });
}

}  // namespace

class TestRetrievalStepGui : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void item03_eragRunsSavedRetriever_data();
  void item03_eragRunsSavedRetriever();
  void item03_claimsRunsSavedRetriever();
  void item03_endpointRetrieverConfirmedFirstAndCancellable();

 private:
  QTemporaryDir m_dir;
};

void TestRetrievalStepGui::initTestCase() {
  QVERIFY(test::isolateWorkbenchTest(QStringLiteral("tst_retrievalstepgui"), m_dir, 3000));
}

void TestRetrievalStepGui::item03_eragRunsSavedRetriever_data() {
  QTest::addColumn<QString>("retriever");
  QTest::addColumn<QString>("kind");
  QTest::newRow("dense") << "dense-offline"
                         << "dense";
  QTest::newRow("hybrid") << "hybrid-bm25-dense-rrf"
                          << "hybrid";
}

void TestRetrievalStepGui::item03_eragRunsSavedRetriever() {
  QFETCH(QString, retriever);
  QFETCH(QString, kind);
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  ui::Workbench wb;
  QVERIFY(openProject(wb, copyDemo(root)));
  const auto basis = wb.dataset();
  QVERIFY(!basis->corpus.empty() && !basis->queries.empty());
  const std::size_t runsBefore = basis->runs.size();

  ui::JobsDock dock(&wb);
  EmbedWatch embed;
  QObject watching;  // ends the watch with this function
  watchEmbedding(&watching, dock, embed);
  ui::EragPage page(&wb);
  page.resize(1360, 820);
  page.show();

  // The run selector: the dataset's runs, the built-in BM25, then every saved retriever by name.
  const QStringList items = comboTexts(page.setup()->runCombo());
  QCOMPARE(items.size(), int(runsBefore) + 1 + int(wb.retrievers().size()));
  for (std::size_t i = 0; i < wb.retrievers().size(); ++i)
    QVERIFY2(
        items[int(runsBefore) + 1 + int(i)].startsWith(
            QStringLiteral("retriever %1: ").arg(QString::fromStdString(wb.retrievers()[i].name))),
        qPrintable(items.join(QLatin1Char('\n'))));
  QVERIFY(!page.setup()->setRetriever(QStringLiteral("no-such-retriever")));
  QVERIFY(page.setRetriever(retriever));
  QVERIFY(page.retrieverSelected());
  page.setK(5);
  page.setEndpointIndex(0);  // the offline reader
  page.setMetric(core::DownstreamMetric::ContainsAnswer);
  page.setMeasures(QStringLiteral("P_5, success_1"));
  page.setEndToEnd(false);

  // The estimate names the retriever chosen.
  QSignalSpy estimated(&page, &ui::EragPage::estimateFinished);
  QVERIFY(page.estimate());
  QVERIFY(!estimated.isEmpty() || estimated.wait(20000));  // the note comes at once
  QVERIFY2(page.estimateLabel()->text().startsWith(
               QStringLiteral("%1 retrieves the top 5 of every query first").arg(retriever)),
           qPrintable(page.estimateLabel()->text()));

  QSignalSpy retrieved(&page, &ui::EragPage::retrieved);
  QSignalSpy finished(&page, &ui::EragPage::finished);
  QVERIFY(page.start());
  QVERIFY(retrieved.wait(kJobTimeoutMs));
  QVERIFY2(retrieved.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  QVERIFY(finished.wait(kJobTimeoutMs));
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));

  // The corpus was embedded (the hybrid's dense member too), one call per batch of 16 passages,
  // and the Jobs dock said so while it ran.
  const quint64 calls = (basis->corpus.size() + 15) / 16;
  QCOMPARE(embed.total, calls);
  QCOMPARE(embed.done, calls);
  QVERIFY(!embed.dockLines.isEmpty());
  QVERIFY2(
      embed.dockLines.back() == QStringLiteral("Embedding the corpus: %1 of %1 calls").arg(calls),
      qPrintable(embed.dockLines.join(QLatin1Char('\n'))));
  QVERIFY2(
      page.runNoteLabel()->text().contains(QStringLiteral("vector index built in %1")
                                               .arg(q(root / "demo"))),  // beside the copied corpus
      qPrintable(page.runNoteLabel()->text()));

  // The run joined the dataset under the retriever's name, and the store's record names it.
  const QString tag = retriever + QStringLiteral("-top5");
  const core::Run* run = runTagged(*wb.dataset(), tag.toStdString());
  QVERIFY(run);
  QCOMPARE(wb.dataset()->runs.size(), runsBefore + 1);
  const auto* results = page.results();
  QVERIFY(results && results->erag);
  core::store::RunStore store;
  std::string error;
  QVERIFY2(store.openReadOnly(results->eragStore, &error), error.c_str());
  const nlohmann::json settings = store.run().settings;
  QCOMPARE(QString::fromStdString(settings["system"].get<std::string>()), tag);
  QCOMPARE(QString::fromStdString(settings["run"]["tag"].get<std::string>()), tag);
  QCOMPARE(QString::fromStdString(settings["run"]["source"].get<std::string>()), kind);
  QCOMPARE(QString::fromStdString(settings["run"]["retriever"]["name"].get<std::string>()),
           retriever);

  // The page as the README shows it: the retriever chosen again, its note, the results below.
  if (const QString dir = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
    QVERIFY(page.setRetriever(retriever));
    estimated.clear();
    QVERIFY(page.estimate());
    QVERIFY(!estimated.isEmpty() || estimated.wait(20000));
    page.resultTabs()->setCurrentIndex(page.heatmapTab());
    QTest::qWait(200);
    QVERIFY(page.grab().save(
        QDir(dir).filePath(QStringLiteral("erag-%1-retriever.png")
                               .arg(QString::fromLatin1(QTest::currentDataTag())))));
  }

  // The same run written as a TREC file, through `ragscope-cli erag --run`: the same labels.
  const fs::path runFile = root / "retrieved.trec";
  QSignalSpy saved(&page, &ui::EragPage::runSaved);
  QVERIFY(page.saveRun(int(wb.dataset()->runs.size()) - 1, q(runFile)));
  QVERIFY(saved.wait(10000));
  QVERIFY2(saved.front().at(0).toBool(), qPrintable(saved.front().at(1).toString()));
  QStringList args = {QStringLiteral("erag")};
  for (const auto& p : basis->parts) args << QStringLiteral("--dataset") << q(p.path);
  const fs::path labelsFile = root / "labels.json";
  args << QStringList{"--run",        q(runFile),    "--k",           "5",       "--metric",
                      "contains",     "--measures",  "P_5,success_1", "--store", q(root / "c.db"),
                      "--labels-out", q(labelsFile), "--quiet",       "--json"};
  const auto cli = test::runCliText(args);
  QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
  std::ifstream in(labelsFile);
  const auto labels = nlohmann::json::parse(in, nullptr, false);
  QVERIFY(labels.is_object());
  const auto& erag = *results->erag;
  QCOMPARE(labels.size(), erag.queries.size());
  std::size_t compared = 0;
  for (std::size_t i = 0; i < erag.queries.size(); ++i) {
    const std::string& qid = erag.queries[i].qid;
    QVERIFY2(labels.contains(qid), qid.c_str());
    const auto& want = labels[qid];
    QCOMPARE(want.size(), erag.labels[i].size());
    for (std::size_t r = 0; r < want.size(); ++r) {
      QVERIFY(erag.labels[i][r].has_value() == !want[r].is_null());
      if (erag.labels[i][r]) QCOMPARE(*erag.labels[i][r], want[r].get<double>());
      ++compared;
    }
  }
  QVERIFY(compared > 0);
}

void TestRetrievalStepGui::item03_claimsRunsSavedRetriever() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  ui::Workbench wb;
  QVERIFY(openProject(wb, copyDemo(root)));
  const std::size_t runsBefore = wb.dataset()->runs.size();
  ui::ClaimsPage page(&wb);
  // The answers selector offers every saved retriever by name.
  const QStringList items = comboTexts(page.setup()->answersCombo());
  for (const auto& spec : wb.retrievers())
    QVERIFY2(items.contains(QStringLiteral("generated from retriever %1, top k")
                                .arg(QString::fromStdString(spec.name))),
             qPrintable(items.join(QLatin1Char('\n'))));
  QVERIFY(page.setRetriever(QStringLiteral("dense-offline")));
  page.setK(3);
  page.setJudgeIndex(0);  // the offline heuristic judge; the generator is the offline reader
  QSignalSpy estimated(&page, &ui::ClaimsPage::estimateFinished);
  QVERIFY(page.estimate());
  QVERIFY(!estimated.isEmpty() || estimated.wait(20000));  // the note comes at once
  QVERIFY2(page.estimateLabel()->text().startsWith(
               QStringLiteral("dense-offline retrieves the top 3 of every query first")),
           qPrintable(page.estimateLabel()->text()));
  QSignalSpy finished(&page, &ui::ClaimsPage::finished);
  QVERIFY(page.start());
  QVERIFY(finished.wait(kJobTimeoutMs));
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  QVERIFY(page.report());
  // The answers were generated from the dense run: the store's record names it.
  core::store::RunStore store;
  std::string error;
  QVERIFY2(store.openReadOnly(page.view()->storePath().toStdString(), &error), error.c_str());
  const nlohmann::json settings = store.run().settings;
  QCOMPARE(settings["run"]["tag"].get<std::string>(), std::string("dense-offline-top3"));
  QCOMPARE(settings["run"]["source"].get<std::string>(), std::string("dense"));
  QCOMPARE(wb.dataset()->runs.size(), runsBefore);  // the Claims page keeps its run to itself
}

void TestRetrievalStepGui::item03_endpointRetrieverConfirmedFirstAndCancellable() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  ui::Workbench wb;
  QVERIFY(openProject(wb, copyDemo(root)));
  const auto basis = wb.dataset();
  QVERIFY(basis->corpus.size() > 16);
  testserver::TestServer server(testserver::Options{});
  // Two embedding requests are answered; the others stall until the job is cancelled.
  server.addRule(testserver::rule(testserver::Behaviour::Normal, 2, "/embeddings"));
  auto stall = testserver::rule(testserver::Behaviour::Slow, -1, "/embeddings");
  stall.stallMs = 60000;
  server.addRule(stall);
  QVERIFY(server.start());

  // A dense retriever as a project file names it (set, not configured on this machine).
  core::RetrieverSpec dense;
  dense.kind = core::RetrieverSpec::Kind::Dense;
  dense.name = "dense-server";
  dense.url = server.baseUrl();
  dense.embedModel = "test-embed";
  dense.docPrefix = "passage: ";
  dense.embedBatch = 8;
  dense.apiKeyEnv = "RAGSCOPE_TEST_STEP_KEY";
  qputenv("RAGSCOPE_TEST_STEP_KEY", "sk-step-secret");
  wb.setRetrievers({dense});

  ui::JobsDock dock(&wb);
  EmbedWatch embed;
  QObject watching;  // ends the watch with this function
  watchEmbedding(&watching, dock, embed);
  ui::EragPage page(&wb);
  QVERIFY(page.setRetriever(QStringLiteral("dense-server")));
  page.setK(5);
  page.setEndpointIndex(0);
  page.setEndToEnd(false);
  // Offscreen nobody can confirm it: nothing starts and nothing reaches the server.
  QVERIFY(!page.start());
  QVERIFY2(page.statusLabel()->text().contains(QStringLiteral("Not sent")),
           qPrintable(page.statusLabel()->text()));
  QVERIFY(!page.isRunning());
  QTest::qWait(100);
  QCOMPARE(server.requestCount(), std::size_t(0));

  // Confirmed (as the Retrievers page's "Save changes" does): the corpus is embedded with the
  // key; Cancel in the Jobs dock once the two answered batches are in.
  ui::trustRetriever(dense);
  QSignalSpy retrieved(&page, &ui::EragPage::retrieved);
  QSignalSpy finished(&page, &ui::EragPage::finished);
  QVERIFY(page.start());
  QTRY_VERIFY_WITH_TIMEOUT(embed.done >= 2, 30000);
  QCOMPARE(embed.total, quint64((basis->corpus.size() + 7) / 8));
  QVERIFY2(embed.dockLines.back().startsWith(QStringLiteral("Embedding the corpus: ")),
           qPrintable(embed.dockLines.join(QLatin1Char('\n'))));
  QVERIFY(dock.progressBar()->value() > 0);
  dock.cancelCurrent();
  QVERIFY(finished.wait(30000));
  QCOMPARE(finished.front().at(0).toBool(), false);
  QCOMPARE(retrieved.size(), 1);
  QCOMPARE(retrieved.front().at(0).toBool(), false);
  QVERIFY2(page.statusLabel()->text().contains(QStringLiteral("cancelled")),
           qPrintable(page.statusLabel()->text()));
  QVERIFY2(dock.statsLabel()->text().startsWith(QStringLiteral("Cancelled during the retrieval")),
           qPrintable(dock.statsLabel()->text()));
  QCOMPARE(wb.dataset(), basis);  // nothing was added
  QVERIFY(!page.isRunning());
  bool keyed = false;
  for (const auto& entry : server.log())
    if (entry.path.ends_with("/embeddings"))
      keyed = keyed || entry.authorization == "Bearer sk-step-secret";
  QVERIFY(keyed);
}

QTEST_MAIN(TestRetrievalStepGui)
#include "tst_retrievalstepgui.moc"
