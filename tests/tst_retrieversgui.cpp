// Retrievers in the workbench (issue 17): configured on the Retrievers page (OpenSearch `_search`,
// the generic HTTP retriever, BM25 with two settings), each tested with one query against the
// project's own test server; run over the demo dataset's queries from the Retrieval page and
// evaluated side by side, with values equal to `ragscope-cli retrieve` + `eval` on the same
// settings; saved in the project without secrets; a key named by a project file not sent until
// confirmed; and the HTTP retriever's faults (500, timeout, bad JSON) recorded per query.
// Issue 36: dense and hybrid retrievers configured on the page (validation, member copies,
// saved and read back), the dense one run offline over the demo (its ranking equal to a
// brute-force inner product of the documented hashed bag of words), its embedding followed in
// the Jobs dock (calls = ceil(documents / batch)), and bm25, dense and hybrid side by side on
// the Retrieval and Compare pages (the hybrid run equal to `ragscope-cli fuse` of its members').

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/cli.h"
#include "common/files.h"
#include "common/testdata.h"
#include "core/data/loaders.h"
#include "core/llm/offline.h"
#include "core/retrieval/corpusembedding.h"
#include "core/retrieval/retrievejob.h"
#include "testserver/testserver.h"
#include "ui/jobs/evaljob.h"
#include "ui/jobs/retrieverjob.h"
#include "ui/jobsdock.h"
#include "ui/pages/comparepage.h"
#include "ui/pages/retrievalpage.h"
#include "ui/pages/retrieverrunbar.h"
#include "ui/pages/retrieverspage.h"
#include "ui/retrievertrust.h"
#include "ui/secrets.h"
#include "ui/workbench.h"

using namespace ragscope;
namespace fs = std::filesystem;
using Kind = core::RetrieverSpec::Kind;
using test::readText;

namespace {

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// The demo project copied into `dir` (tests never write beside the repository's files).
fs::path copyDemo(const fs::path& dir) {
  fs::copy(test::sourceRoot() / "resources" / "demo", dir / "demo", fs::copy_options::recursive);
  return dir / "demo" / "demo.ragscope.json";
}

bool openProject(ui::Workbench& wb, const fs::path& file) {
  QSignalSpy finished(&wb, &ui::Workbench::loadFinished);
  if (!wb.openProject(q(file))) return false;
  if (finished.isEmpty() && !finished.wait(30000)) return false;
  return finished.front().at(0).toBool();
}

bool runAndWait(ui::RetrieverRunBar* bar, int index, int k) {
  QSignalSpy finished(bar, &ui::RetrieverRunBar::finished);
  if (!bar->run(index, k)) return false;
  if (!finished.wait(60000)) return false;
  return finished.front().at(0).toBool();
}

bool evaluateAndWait(ui::RetrievalPage& page) {
  QSignalSpy finished(&page, &ui::RetrievalPage::evaluationFinished);
  if (!page.evaluate()) return false;
  if (!finished.wait(60000)) return false;
  return finished.first().first().toBool();
}

// "measure all value" lines of `ragscope-cli eval`.
std::map<QString, QString> summaryOf(const QString& out) {
  std::map<QString, QString> values;
  static const QRegularExpression line(QStringLiteral("^(\\S+)\\s+all\\s+(\\S+)$"),
                                       QRegularExpression::MultilineOption);
  for (auto it = line.globalMatch(out); it.hasNext();) {
    const auto m = it.next();
    values[m.captured(1)] = m.captured(2);
  }
  return values;
}

void saveScreenshot(QWidget& widget, const QString& name) {
  const QByteArray dir = qgetenv("RAGSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  widget.resize(1400, 860);
  widget.show();
  QTest::qWait(200);
  QVERIFY(widget.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name));
}

}  // namespace

class TestRetrieversGui : public QObject {
  Q_OBJECT

 private slots:
  void configureTestRunCompare();
  void faultsAreRecordedPerQuery();
  void keyFromProjectFileNeedsConfirmation();
  void keychainEntryWithoutKeychain();
  void item04_keylessRetrieverFromProjectNeedsConfirmation();
  void item06_denseAndHybridRetrievers();
  void item06_embeddingCancelledFromJobsDock();
  void projectIndexFolderStaysReadOnlyUntilEdited();
};

void TestRetrieversGui::configureTestRunCompare() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  const fs::path project = copyDemo(root);
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, project));
  wb.setRetrievers({});  // the demo's own (bm25, dense, hybrid) are item06's
  const auto ds = wb.dataset();
  QVERIFY(ds && !ds->corpus.empty() && !ds->queries.empty());
  const std::size_t demoRuns = ds->runs.size();

  // The test server searches the demo's passages.
  testserver::Options so;
  for (const auto& d : ds->corpus.documents()) so.documents.emplace_back(d.id, d.text);
  testserver::TestServer server(so);
  QVERIFY(server.start());
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());

  ui::RetrieversPage page(&wb);
  auto configure = [&](Kind kind, const std::function<void(core::RetrieverSpec&)>& edit) {
    page.addRetriever(kind);
    core::RetrieverSpec spec = page.editorSpec();
    edit(spec);
    page.setEditorSpec(spec);
    return page.applyEdits();
  };
  QVERIFY(configure(Kind::Elasticsearch, [&](core::RetrieverSpec& s) {
    s.name = "opensearch";
    s.url = base + "/docs";
    s.fields = {"text"};
  }));
  QVERIFY(configure(Kind::Http, [&](core::RetrieverSpec& s) {
    s.name = "http-service";
    s.url = base + "/retrieve";
  }));
  QVERIFY(configure(Kind::Bm25, [&](core::RetrieverSpec& s) {
    s.name = "bm25-anserini";
    s.bm25.k1 = 0.9;
    s.bm25.b = 0.4;
  }));
  QVERIFY(configure(Kind::Bm25, [&](core::RetrieverSpec& s) {
    s.name = "bm25-classic";
    s.bm25.k1 = 1.2;
    s.bm25.b = 0.75;
  }));
  QCOMPARE(page.list()->count(), 4);
  QCOMPARE(int(wb.retrievers().size()), 4);

  // "Test": one query, the hits the service returns (ranked by the server's own scoring, known
  // independently through TestServer::search), and the latency.
  const std::string query = ds->queries.front().text;
  for (int row : {0, 1}) {
    QVERIFY(page.selectRow(row));
    QSignalSpy tested(&page, &ui::RetrieversPage::tested);
    QVERIFY(page.test(QString::fromStdString(query)));
    QVERIFY(tested.wait(20000));
    QVERIFY2(tested.first().first().toBool(), qPrintable(page.testHeadline()->text()));
    const auto expected = testserver::TestServer::search(so.documents, query, 10);
    QVERIFY(!expected.empty());
    QCOMPARE(page.hitsTable()->rowCount(), int(expected.size()));
    for (int i = 0; i < int(expected.size()); ++i)
      QCOMPARE(page.hitsTable()->item(i, 1)->text(),
               QString::fromStdString(so.documents[expected[std::size_t(i)].first].first));
    QVERIFY2(page.testHeadline()->text().contains(
                 QRegularExpression(QStringLiteral("\\d+ hits? in [0-9.]+ ms"))),
             qPrintable(page.testHeadline()->text()));
  }
  {  // BM25's test shows the passage text from the corpus.
    QVERIFY(page.selectRow(2));
    QSignalSpy tested(&page, &ui::RetrieversPage::tested);
    QVERIFY(page.test(QString::fromStdString(query)));
    QVERIFY(tested.wait(60000));
    QVERIFY2(tested.first().first().toBool(), qPrintable(page.testHeadline()->text()));
    QVERIFY(page.hitsTable()->rowCount() > 0);
    QVERIFY(!page.hitsTable()->item(0, 3)->text().isEmpty());
  }
  saveScreenshot(page, QStringLiteral("retrievers-page.png"));
  QVERIFY(page.selectRow(1));
  saveScreenshot(page, QStringLiteral("retrievers-http.png"));

  // Every retriever over the demo queries, from the Retrieval page; the runs join the dataset.
  ui::RetrievalPage retrieval(&wb);
  for (int i = 0; i < 4; ++i)
    QVERIFY2(runAndWait(retrieval.retrieverBar(), i, 100),
             qPrintable(retrieval.retrieverBar()->statusLabel()->text()));
  QCOMPARE(wb.dataset()->runs.size(), demoRuns + 4);
  retrieval.setMeasures(QStringLiteral("map ndcg_cut.10 P.5 recall.100"));
  QVERIFY(evaluateAndWait(retrieval));
  const ui::EvalOutcome& outcome = retrieval.outcome();
  QCOMPARE(outcome.results.size(), demoRuns + 4);

  // The same settings through the CLI give the same values.
  QStringList parts;
  for (const auto& p : ds->parts) parts << q(p.path);
  const QString qrels = q(root / "demo" / "qrels.txt");
  struct Cli {
    QString tag;
    QStringList args;
  };
  const std::vector<Cli> cli = {
      {"opensearch",
       {"--retriever", QString::fromStdString("es:" + base + "/docs"), "--field", "text"}},
      {"http-service", {"--retriever", QString::fromStdString("http:" + base + "/retrieve")}},
      {"bm25-anserini", {"--retriever", "bm25", "--bm25-k1", "0.9", "--bm25-b", "0.4"}},
      {"bm25-classic", {"--retriever", "bm25", "--bm25-k1", "1.2", "--bm25-b", "0.75"}},
  };
  std::map<QString, QString> ndcg;
  for (const auto& c : cli) {
    const fs::path out = root / (c.tag.toStdString() + ".trec");
    auto r = test::runCliText(QStringList{"retrieve", "--dataset"} + parts + c.args +
                              QStringList{"--k", "100", "--tag", c.tag, "--out", q(out)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // The GUI's run file is the CLI's, byte for byte.
    const fs::path guiFile = wb.retrievedRunPath(c.tag.toStdString());
    QCOMPARE(QString::fromStdString(readText(guiFile)), QString::fromStdString(readText(out)));
    auto e = test::runCliText(
        {"eval", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.5", "-m", "recall.100", qrels, q(out)});
    QVERIFY2(e.exitCode == 0, qPrintable(e.err));
    const auto expected = summaryOf(e.out);
    QCOMPARE(int(expected.size()), 4);
    const auto it = std::find_if(outcome.runs.begin(), outcome.runs.end(),
                                 [&](const auto& run) { return run->tag == c.tag.toStdString(); });
    QVERIFY2(it != outcome.runs.end(), qPrintable(c.tag));
    const core::EvalResult& result = outcome.results[std::size_t(it - outcome.runs.begin())];
    for (const auto& [measure, value] : expected)
      QCOMPARE(QString::number(result.mean(measure.toStdString()), 'f', 4), value);
    ndcg[c.tag] = expected.at(QStringLiteral("ndcg_cut_10"));
  }
  qInfo("demo nDCG@10: opensearch %s, http %s, bm25 k1=0.9 b=0.4 %s, bm25 k1=1.2 b=0.75 %s",
        qPrintable(ndcg["opensearch"]), qPrintable(ndcg["http-service"]),
        qPrintable(ndcg["bm25-anserini"]), qPrintable(ndcg["bm25-classic"]));
  // The two services rank the same way (the same server scoring behind both APIs).
  QCOMPARE(ndcg["opensearch"], ndcg["http-service"]);
  // Side by side: the evaluation the statistics pages read holds every run.
  QVERIFY(wb.evaluation());
  QCOMPARE(wb.evaluation()->results.size(), demoRuns + 4);
  saveScreenshot(retrieval, QStringLiteral("retrievers-compared.png"));

  // Saved with the project: the retrievers (no secrets) and the runs they made.
  QSignalSpy saved(&wb, &ui::Workbench::projectSaved);
  QVERIFY(wb.saveProject(q(project)));
  QVERIFY(saved.wait(20000));
  QVERIFY(saved.front().at(0).toBool());
  const auto json = nlohmann::json::parse(readText(project));
  QCOMPARE(json.at("retrievers").size(), std::size_t{4});
  QCOMPARE(json["retrievers"][2]["k1"].get<double>(), 0.9);
  QCOMPARE(json["retrievers"][0]["url"].get<std::string>(), base + "/docs");
  const std::string saved0 = json["datasets"][0].dump();
  QVERIFY2(saved0.find("bm25-classic.trec") != std::string::npos, saved0.c_str());
  ui::Workbench reopened;
  reopened.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(reopened, project));
  QCOMPARE(reopened.retrievers().size(), std::size_t{4});
  QCOMPARE(reopened.retrievers()[3].bm25.b, 0.75);
  QCOMPARE(reopened.dataset()->runs.size(), demoRuns + 4);
}

void TestRetrieversGui::faultsAreRecordedPerQuery() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, copyDemo(root)));
  const auto ds = wb.dataset();
  testserver::Options so;
  for (const auto& d : ds->corpus.documents()) so.documents.emplace_back(d.id, d.text);
  testserver::TestServer server(so);
  // The first three queries fail: a 500, a reply that stalls past the timeout, and a body that
  // is not JSON.
  auto failing = [&](testserver::Behaviour b, const std::string& text) {
    auto r = testserver::rule(b, -1, "/retrieve");
    r.bodyContains = nlohmann::json(text).dump();  // as it appears in the request body
    r.stallMs = 3000;
    server.addRule(r);
  };
  failing(testserver::Behaviour::Status, ds->queries[0].text);
  failing(testserver::Behaviour::Slow, ds->queries[1].text);
  failing(testserver::Behaviour::InvalidJson, ds->queries[2].text);
  QVERIFY(server.start());
  core::RetrieverSpec spec;
  spec.kind = Kind::Http;
  spec.name = "flaky";
  spec.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/retrieve";
  spec.timeoutMs = 500;
  ui::trustRetriever(spec);  // configured by this user, as the Retrievers page's "Save" records it
  wb.setRetrievers({spec});
  ui::RetrievalPage retrieval(&wb);
  ui::RetrieverRunBar* bar = retrieval.retrieverBar();
  QVERIFY(runAndWait(bar, 0, 10));  // a run is made from the queries that answered
  const QString status = bar->statusLabel()->text();
  QVERIFY2(status.contains(QStringLiteral("3 queries failed")), qPrintable(status));
  const QStringList errors = bar->statusLabel()->toolTip().split(QLatin1Char('\n'));
  QCOMPARE(errors.size(), 3);
  QVERIFY2(errors[0].startsWith(QString::fromStdString("query " + ds->queries[0].id + ": ")) &&
               errors[0].contains("500"),
           qPrintable(errors[0]));
  QVERIFY2(errors[1].contains(QString::fromStdString(ds->queries[1].id)), qPrintable(errors[1]));
  QVERIFY2(errors[2].contains(QString::fromStdString(ds->queries[2].id)), qPrintable(errors[2]));
  // No empty rankings stand in for them.
  const core::Run& run = wb.dataset()->runs.back();
  QCOMPARE(run.tag, std::string("flaky"));
  for (const auto& r : run.rankings) {
    QVERIFY(!r.entries.empty());
    for (int i = 0; i < 3; ++i) QVERIFY(r.queryId != ds->queries[std::size_t(i)].id);
  }
  std::size_t answering = 0;  // the other queries, with at least one hit from the service
  for (std::size_t i = 3; i < ds->queries.size(); ++i)
    answering += !testserver::TestServer::search(so.documents, ds->queries[i].text, 10).empty();
  QCOMPARE(run.rankings.size(), answering);
  // The answers so far are kept; once the service recovers, only the failed queries are asked.
  QVERIFY(fs::exists(core::retrieveCheckpointPath(wb.retrievedRunPath("flaky"))));
  server.clearRules();
  server.clearLog();
  QVERIFY(runAndWait(bar, 0, 10));
  QCOMPARE(server.requestCount(), std::size_t{3});
  QVERIFY2(
      bar->statusLabel()->text().contains(QStringLiteral("answered by an earlier interrupted run")),
      qPrintable(bar->statusLabel()->text()));
  QVERIFY(!fs::exists(core::retrieveCheckpointPath(wb.retrievedRunPath("flaky"))));
}

void TestRetrieversGui::keyFromProjectFileNeedsConfirmation() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  testserver::Options so;
  so.documents = {{"d1", "harbor water"}};
  testserver::TestServer server(so);
  QVERIFY(server.start());
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/retrieve";
  qputenv("RAGSCOPE_TEST_RETRIEVER_TOKEN", "secret-token-123");
  // A project from elsewhere names the service and the variable holding a key.
  const fs::path project = copyDemo(root);
  auto json = nlohmann::json::parse(readText(project));
  json["retrievers"] = nlohmann::json::array({{{"kind", "http"},
                                               {"name", "theirs"},
                                               {"url", url},
                                               {"api_key_env", "RAGSCOPE_TEST_RETRIEVER_TOKEN"}}});
  std::ofstream(project, std::ios::binary | std::ios::trunc) << json.dump(2);
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, project));
  QCOMPARE(wb.retrievers().size(), std::size_t{1});
  ui::RetrievalPage retrieval(&wb);
  // Offscreen nobody can confirm: refused, nothing sent.
  QVERIFY(!retrieval.retrieverBar()->run(0, 5));
  QVERIFY2(retrieval.retrieverBar()->statusLabel()->text().contains(QStringLiteral("Not sent")),
           qPrintable(retrieval.retrieverBar()->statusLabel()->text()));
  QCOMPARE(server.requestCount(), std::size_t{0});
  // Saved on the Retrievers page by this user: configured here, so the key may go.
  ui::RetrieversPage page(&wb);
  QVERIFY(page.selectRow(0));
  QVERIFY(page.applyEdits());
  QVERIFY(runAndWait(retrieval.retrieverBar(), 0, 5));
  QVERIFY(server.requestCount() > 0);
  QCOMPARE(QString::fromStdString(server.log().front().authorization),
           QStringLiteral("Bearer secret-token-123"));
  // The project file written back holds the variable's name, never the key.
  QSignalSpy saved(&wb, &ui::Workbench::projectSaved);
  QVERIFY(wb.saveProject(q(project)));
  QVERIFY(saved.wait(20000));
  QVERIFY(readText(project).find("secret-token-123") == std::string::npos);
  QVERIFY(readText(project).find("RAGSCOPE_TEST_RETRIEVER_TOKEN") != std::string::npos);
}

void TestRetrieversGui::keychainEntryWithoutKeychain() {
  // No keychain service answers offscreen (or the entry does not exist). With a variable beside
  // the entry the run falls back to it; with the entry alone nothing is sent.
  ui::Secrets::setTimeoutMs(3000);
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, copyDemo(fs::path(tmp.path().toStdString()))));
  wb.setRetrievers({});  // the demo's own are item06's
  testserver::Options so;
  so.documents = {{"d1", "harbor city water authority"}};
  testserver::TestServer server(so);
  QVERIFY(server.start());
  ui::RetrieversPage page(&wb);
  page.addRetriever(Kind::Http);
  core::RetrieverSpec spec = page.editorSpec();
  spec.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/retrieve";
  spec.keychainEntry = "ragscope-test-no-such-entry";
  page.setEditorSpec(spec);
  QVERIFY(page.applyEdits());
  QCOMPARE(wb.retrievers().front().keychainEntry, spec.keychainEntry);
  ui::RetrievalPage retrieval(&wb);
  QVERIFY(!runAndWait(retrieval.retrieverBar(), 0, 5));
  QVERIFY2(
      retrieval.retrieverBar()->statusLabel()->text().startsWith(QStringLiteral("Not started: ")),
      qPrintable(retrieval.retrieverBar()->statusLabel()->text()));
  QCOMPARE(server.requestCount(), std::size_t{0});

  qputenv("RAGSCOPE_TEST_RETRIEVER_FALLBACK", "fallback-token");
  spec.apiKeyEnv = "RAGSCOPE_TEST_RETRIEVER_FALLBACK";
  page.setEditorSpec(spec);
  QVERIFY(page.applyEdits());
  QVERIFY2(runAndWait(retrieval.retrieverBar(), 0, 5),
           qPrintable(retrieval.retrieverBar()->statusLabel()->text()));
  QVERIFY(server.requestCount() > 0);
  QCOMPARE(QString::fromStdString(server.log().front().authorization),
           QStringLiteral("Bearer fallback-token"));
}

// Issue 24 item 4: an es or http retriever named by a project file from elsewhere sends the
// dataset's queries only once this machine's user has confirmed it, key or not; one saved on the
// Retrievers page counts as configured; BM25 is local and needs nothing. Offscreen nobody can
// answer the question, so it declines.
void TestRetrieversGui::item04_keylessRetrieverFromProjectNeedsConfirmation() {
  // The trust registry is written under XDG_CONFIG_HOME: the test's own folder, never ~/.config.
  QVERIFY(qEnvironmentVariableIsSet("XDG_CONFIG_HOME"));
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  testserver::Options so;
  so.documents = {{"d1", "harbor water authority"}};
  testserver::TestServer server(so);
  QVERIFY(server.start());
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  // A project from elsewhere names two services and no key at all.
  const fs::path project = copyDemo(root);
  auto json = nlohmann::json::parse(test::readText(project));
  json["retrievers"] =
      nlohmann::json::array({{{"kind", "http"}, {"name", "theirs"}, {"url", base + "/retrieve"}},
                             {{"kind", "es"}, {"name", "their-es"}, {"url", base + "/index"}}});
  std::ofstream(project, std::ios::binary | std::ios::trunc) << json.dump(2);
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, project));
  QCOMPARE(wb.retrievers().size(), std::size_t{2});
  ui::RetrievalPage retrieval(&wb);
  ui::RetrieverRunBar* bar = retrieval.retrieverBar();

  // Neither runs: no key, but the queries would go to a URL nobody here chose.
  for (int i : {0, 1}) {
    QVERIFY(!bar->run(i, 5));
    const QString status = bar->statusLabel()->text();
    QVERIFY2(status.startsWith(QStringLiteral("Not sent")) &&
                 status.contains(QStringLiteral("(no key)")),
             qPrintable(status));
  }
  // Nor is the Retrievers page's test of the unsaved editor sent.
  ui::RetrieversPage page(&wb);
  QVERIFY(page.selectRow(0));
  QVERIFY(!page.test(QStringLiteral("harbor")));
  QVERIFY2(page.testHeadline()->text().startsWith(QStringLiteral("Not sent")),
           qPrintable(page.testHeadline()->text()));
  QCOMPARE(server.requestCount(), std::size_t{0});

  // Saved on the Retrievers page by this user: configured here, so its queries may go.
  QVERIFY(page.applyEdits());
  QVERIFY2(runAndWait(bar, 0, 5), qPrintable(bar->statusLabel()->text()));
  const std::size_t sent = server.requestCount();
  QVERIFY(sent > 0);
  QString why;
  QVERIFY(ui::confirmRetriever(nullptr, wb.retrievers()[0], &why));
  // The other one is still refused: trust is per URL.
  QVERIFY(!bar->run(1, 5));
  QVERIFY(!ui::confirmRetriever(nullptr, wb.retrievers()[1], &why));
  QVERIFY2(why.contains(QString::fromStdString(base + "/index (no key)")), qPrintable(why));
  QCOMPARE(server.requestCount(), sent);
  // BM25 sends nothing anywhere and is never asked about.
  QVERIFY(ui::confirmRetriever(nullptr, core::RetrieverSpec{}, &why));
}

namespace {

// The run's ranking of `queryId` as (document, score), best first.
std::vector<std::pair<std::string, double>> rankingOf(const core::Run& run,
                                                      const std::string& queryId) {
  std::vector<std::pair<std::string, double>> out;
  if (const core::Ranking* r = run.find(queryId))
    for (const auto& e : r->entries) out.emplace_back(std::string(e.docId()), e.score);
  return out;
}

// Equal as a project file writes them (every field the spec saves).
bool sameSpec(const core::RetrieverSpec& a, const core::RetrieverSpec& b) {
  const auto ja = core::retrieverSpecToJson(a), jb = core::retrieverSpecToJson(b);
  if (ja != jb) qWarning("%s\n!=\n%s", ja.dump().c_str(), jb.dump().c_str());
  return ja == jb;
}

const core::Run* runTagged(const core::Dataset& ds, const std::string& tag) {
  for (const auto& run : ds.runs)
    if (run.tag == tag) return &run;
  return nullptr;
}

}  // namespace

// Issue 36 item 6: dense and hybrid retrievers in the workbench, offline (no server).
void TestRetrieversGui::item06_denseAndHybridRetrievers() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  const fs::path project = copyDemo(root);
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, project));
  const auto ds = wb.dataset();
  QVERIFY(ds && !ds->corpus.empty() && !ds->queries.empty());
  const std::size_t demoRuns = ds->runs.size();

  // The demo brings bm25, a dense retriever over the offline hashed bag of words and their RRF
  // hybrid; none calls a server, so none needs confirming.
  QCOMPARE(wb.retrievers().size(), std::size_t{3});
  QCOMPARE(int(wb.retrievers()[1].kind), int(Kind::Dense));
  QCOMPARE(wb.retrievers()[1].url, std::string("offline"));
  QCOMPARE(int(wb.retrievers()[2].kind), int(Kind::Hybrid));
  QCOMPARE(wb.retrievers()[2].members.size(), std::size_t{2});
  QCOMPARE(int(wb.retrievers()[2].fusion.method), int(core::FusionMethod::Rrf));
  for (const auto& spec : wb.retrievers()) {
    QString why;
    QVERIFY2(ui::confirmRetriever(nullptr, spec, &why), qPrintable(why));
  }

  // Keep the demo's bm25; configure a dense and a hybrid retriever on the page.
  const core::RetrieverSpec bm25 = wb.retrievers()[0];
  wb.setRetrievers({bm25});
  ui::RetrieversPage page(&wb);
  QCOMPARE(page.addRetriever(Kind::Dense), 1);
  auto* denseUrl = page.findChild<QLineEdit*>(QStringLiteral("DenseUrl"));
  QVERIFY(denseUrl);
  QCOMPARE(denseUrl->text(), QStringLiteral("offline"));  // a new one works at once
  denseUrl->setText(QStringLiteral("ftp://127.0.0.1/v1"));
  QVERIFY(!page.applyEdits());
  QVERIFY2(page.testHeadline()->text().contains(QStringLiteral("http:// or https://")),
           qPrintable(page.testHeadline()->text()));
  denseUrl->setText(QStringLiteral("http://127.0.0.1:9/v1"));  // a server needs its model
  QVERIFY(!page.applyEdits());
  QVERIFY2(page.testHeadline()->text().contains(QStringLiteral("embed_model")),
           qPrintable(page.testHeadline()->text()));
  core::RetrieverSpec dense = page.editorSpec();
  dense.name = "dense-e5";
  dense.url = "offline";
  dense.queryPrefix = "query: ";
  dense.docPrefix = "passage: ";
  dense.embedBatch = 8;
  dense.ann = core::AnnKind::Flat;
  page.setEditorSpec(dense);
  QVERIFY2(page.applyEdits(), qPrintable(page.testHeadline()->text()));
  QVERIFY(sameSpec(wb.retrievers()[1], dense));

  QCOMPARE(page.addRetriever(Kind::Hybrid), 2);
  QListWidget* members = page.memberList();
  QCOMPARE(members->count(), 2);  // the other two, hybrids aside; a new hybrid checks both
  QCOMPARE(members->item(0)->checkState(), Qt::Checked);
  QCOMPARE(members->item(1)->checkState(), Qt::Checked);
  members->item(1)->setCheckState(Qt::Unchecked);
  QVERIFY(!page.applyEdits());
  QVERIFY2(page.testHeadline()->text().contains(QStringLiteral("at least two")),
           qPrintable(page.testHeadline()->text()));
  members->item(1)->setCheckState(Qt::Checked);
  auto* fusion = page.findChild<QComboBox*>(QStringLiteral("HybridFusion"));
  auto* weights = page.findChild<QLineEdit*>(QStringLiteral("HybridWeights"));
  QVERIFY(fusion && weights);
  fusion->setCurrentIndex(fusion->findData(QStringLiteral("wsum")));
  QVERIFY(weights->isEnabled());
  weights->setText(QStringLiteral("0.3"));
  QVERIFY(!page.applyEdits());
  QVERIFY2(page.testHeadline()->text().contains(QStringLiteral("one weight per run")),
           qPrintable(page.testHeadline()->text()));
  weights->setText(QStringLiteral("0.3, 0.7"));
  QVERIFY2(page.applyEdits(), qPrintable(page.testHeadline()->text()));
  QCOMPARE(wb.retrievers()[2].fusion.weights, (std::vector<double>{0.3, 0.7}));
  fusion->setCurrentIndex(fusion->findData(QStringLiteral("rrf")));
  QVERIFY(!weights->isEnabled());  // RRF has no weights: they are not saved
  page.findChild<QLineEdit*>(QStringLiteral("RetrieverName"))->setText(QStringLiteral("hybrid"));
  QVERIFY2(page.applyEdits(), qPrintable(page.testHeadline()->text()));
  {
    const core::RetrieverSpec& hybrid = wb.retrievers()[2];
    QCOMPARE(hybrid.name, std::string("hybrid"));
    QCOMPARE(int(hybrid.fusion.method), int(core::FusionMethod::Rrf));
    QVERIFY(hybrid.fusion.weights.empty());
    QCOMPARE(hybrid.fusion.rrfK, core::kDefaultRrfK);
    // Copies of the members as saved, in the list's order.
    QCOMPARE(hybrid.members.size(), std::size_t{2});
    QVERIFY(sameSpec(hybrid.members[0], bm25));
    QVERIFY(sameSpec(hybrid.members[1], dense));
  }
  // Copies, not references: a member changed later leaves the hybrid as it was, and the
  // hybrid's editor says so.
  QVERIFY(page.selectRow(1));
  core::RetrieverSpec changed = dense;
  changed.embedBatch = 4;
  page.setEditorSpec(changed);
  QVERIFY(page.applyEdits());
  QCOMPARE(wb.retrievers()[2].members[1].embedBatch, std::size_t{8});
  QVERIFY(page.selectRow(2));
  QVERIFY2(members->item(1)->text().contains(QStringLiteral("changed since")),
           qPrintable(members->item(1)->text()));
  QVERIFY(!members->item(0)->text().contains(QStringLiteral("changed since")));
  QVERIFY(page.selectRow(1));
  page.setEditorSpec(dense);
  QVERIFY(page.applyEdits());

  // es kNN: the vector field needs the embedder of the queries; saving trusts both endpoints.
  QCOMPARE(page.addRetriever(Kind::Elasticsearch), 3);
  page.findChild<QLineEdit*>(QStringLiteral("EsKnnField"))->setText(QStringLiteral("embedding"));
  QVERIFY(!page.applyEdits());
  QVERIFY2(page.testHeadline()->text().contains(QStringLiteral("query embedder's URL")),
           qPrintable(page.testHeadline()->text()));
  core::RetrieverSpec knn = page.editorSpec();
  knn.embedUrl = "http://127.0.0.1:9/v1";
  knn.embedModel = "e5-small";
  knn.esFlavour = "opensearch";
  knn.numCandidates = 200;
  page.setEditorSpec(knn);
  QVERIFY2(page.applyEdits(), qPrintable(page.testHeadline()->text()));
  QVERIFY(sameSpec(wb.retrievers()[3], knn));
  {
    QString why;
    QVERIFY2(ui::confirmRetriever(nullptr, knn, &why), qPrintable(why));
    // The same search with a query embedder nobody here chose is refused (offscreen nobody can
    // confirm), and so is a hybrid whose second member calls it: every endpoint is checked.
    core::RetrieverSpec other = knn;
    other.embedUrl = "http://127.0.0.1:10/v1";
    QVERIFY(!ui::confirmRetriever(nullptr, other, &why));
    QVERIFY2(why.contains(QStringLiteral("127.0.0.1:10/v1")), qPrintable(why));
    core::RetrieverSpec mixed;
    mixed.kind = Kind::Hybrid;
    mixed.members = {knn, other};
    QVERIFY(!ui::confirmRetriever(nullptr, mixed, &why));
    QVERIFY2(why.contains(QStringLiteral("127.0.0.1:10/v1")), qPrintable(why));
    QVERIFY2(!why.contains(QStringLiteral("127.0.0.1:9/")), qPrintable(why));
  }
  QVERIFY(page.deleteSelected());
  QCOMPARE(wb.retrievers().size(), std::size_t{3});

  // Saved with the project and read back as configured.
  {
    QSignalSpy saved(&wb, &ui::Workbench::projectSaved);
    QVERIFY(wb.saveProject(q(project)));
    QVERIFY(saved.wait(20000));
    QVERIFY(saved.front().at(0).toBool());
    ui::Workbench reopened;
    reopened.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
    QVERIFY(openProject(reopened, project));
    QCOMPARE(reopened.retrievers().size(), std::size_t{3});
    for (std::size_t i = 0; i < 3; ++i)
      QVERIFY(sameSpec(reopened.retrievers()[i], wb.retrievers()[i]));
  }

  // The dense retriever over the demo's queries, offline. Its embedding is followed in the Jobs
  // dock: one call per batch of 8 documents.
  ui::JobsDock dock(&wb);
  ui::RetrievalPage retrieval(&wb);
  QSignalSpy embedding(ui::RetrieverJobHub::instance(), &ui::RetrieverJobHub::embeddingStarted);
  QVERIFY2(runAndWait(retrieval.retrieverBar(), 1, 10),
           qPrintable(retrieval.retrieverBar()->statusLabel()->text()));
  QCOMPARE(embedding.count(), 1);
  ui::RetrieverJob* job = dock.currentRetrieval();
  QVERIFY(job);
  const std::uint64_t calls = (ds->corpus.size() + 7) / 8;
  QCOMPARE(job->lastProgress(ui::RetrieverJob::Phase::Embed),
           std::make_pair(quint64(calls), quint64(calls)));
  QCOMPARE(job->lastProgress(ui::RetrieverJob::Phase::Retrieve),
           std::make_pair(quint64(ds->queries.size()), quint64(ds->queries.size())));
  QVERIFY2(dock.titleLabel()->text().startsWith(QStringLiteral("dense-e5")),
           qPrintable(dock.titleLabel()->text()));
  QCOMPARE(dock.statsLabel()->text(), QStringLiteral("Finished."));
  QVERIFY2(retrieval.retrieverBar()->statusLabel()->text().contains(
               QStringLiteral("corpus embedded (%1 calls sent").arg(calls)),
           qPrintable(retrieval.retrieverBar()->statusLabel()->text()));

  // Its ranking is the brute-force inner product of the documented hashed bag of words
  // (core/llm/offline.h): query prefix + query against document prefix + title + text.
  const core::Run* denseRun = runTagged(*wb.dataset(), "dense-e5");
  QVERIFY(denseRun);
  core::EmbedderSettings settings;
  settings.docPrefix = dense.docPrefix;
  std::vector<std::pair<std::string, std::vector<float>>> docs;
  for (const auto& d : wb.dataset()->corpus.documents())
    docs.emplace_back(d.id, core::llm::offlineEmbedding(core::documentEmbeddingText(settings, d)));
  std::size_t checked = 0;
  for (const auto& query : wb.dataset()->queries) {
    const auto qv = core::llm::offlineEmbedding(dense.queryPrefix + query.text);
    std::map<std::string, double> score;
    std::vector<double> sorted;
    for (const auto& [id, dv] : docs) {
      double dot = 0;
      for (std::size_t i = 0; i < dv.size(); ++i) dot += double(qv[i]) * double(dv[i]);
      score[id] = dot;
      sorted.push_back(dot);
    }
    std::sort(sorted.rbegin(), sorted.rend());
    const auto ranking = rankingOf(*denseRun, query.id);
    QCOMPARE(ranking.size(), std::min<std::size_t>(10, docs.size()));
    for (std::size_t r = 0; r < ranking.size(); ++r) {
      // Each document's score is its inner product, and the r-th score the r-th best (ties may
      // swap documents), to float precision.
      QVERIFY2(std::abs(ranking[r].second - score.at(ranking[r].first)) < 1e-5,
               ranking[r].first.c_str());
      QVERIFY(std::abs(ranking[r].second - sorted[r]) < 1e-5);
    }
    ++checked;
  }
  QCOMPARE(checked, wb.dataset()->queries.size());

  // bm25 and the hybrid too, then side by side: Retrieval and Compare pages.
  QVERIFY2(runAndWait(retrieval.retrieverBar(), 0, 10),
           qPrintable(retrieval.retrieverBar()->statusLabel()->text()));
  QVERIFY2(runAndWait(retrieval.retrieverBar(), 2, 10),
           qPrintable(retrieval.retrieverBar()->statusLabel()->text()));
  QCOMPARE(embedding.count(), 1);  // the hybrid's dense member reused the index: nothing embedded
  QCOMPARE(wb.dataset()->runs.size(), demoRuns + 3);
  // The hybrid's run is `ragscope-cli fuse` of its members' runs (RRF, k = 60).
  const fs::path fused = root / "fused.trec";
  const auto fuse =
      test::runCliText({"fuse", q(wb.retrievedRunPath("bm25")), q(wb.retrievedRunPath("dense-e5")),
                        "--method", "rrf", "--k", "10", "--out", q(fused)});
  QVERIFY2(fuse.exitCode == 0, qPrintable(fuse.err));
  const auto expected = core::readTrecRun(fused, {});
  QVERIFY(expected.report.ok());
  const core::Run* hybridRun = runTagged(*wb.dataset(), "hybrid");
  QVERIFY(hybridRun);
  QCOMPARE(hybridRun->rankings.size(), expected.value.rankings.size());
  for (const auto& r : expected.value.rankings) {
    const auto want = rankingOf(expected.value, r.queryId);
    const auto got = rankingOf(*hybridRun, r.queryId);
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      QVERIFY(std::abs(got[i].second - want[i].second) < 1e-6);
      // Documents differ only where the fused scores tie.
      if (got[i].first != want[i].first) {
        std::size_t j = 0;
        while (j < want.size() && want[j].first != got[i].first) ++j;
        QVERIFY2(j < want.size() && std::abs(want[j].second - want[i].second) < 1e-6,
                 got[i].first.c_str());
      }
    }
  }

  retrieval.setMeasures(QStringLiteral("map ndcg_cut.10 P.5"));
  QVERIFY(evaluateAndWait(retrieval));
  QCOMPARE(retrieval.outcome().results.size(), demoRuns + 3);
  saveScreenshot(retrieval, QStringLiteral("retrievers-dense-compared.png"));
  ui::ComparePage compare(&wb);
  const QStringList names = compare.runNames();
  for (const QString& tag :
       {QStringLiteral("bm25"), QStringLiteral("dense-e5"), QStringLiteral("hybrid")})
    QVERIFY2(names.contains(tag), qPrintable(names.join(QLatin1Char(','))));
  compare.setRunsChecked(
      {QStringLiteral("bm25"), QStringLiteral("dense-e5"), QStringLiteral("hybrid")});
  compare.setMeasuresChecked({QStringLiteral("ndcg_cut_10")});
  compare.setResamples(200);
  compare.setPermutations(200);
  QSignalSpy compared(&compare, &ui::ComparePage::comparisonFinished);
  QVERIFY(compare.compare());
  QVERIFY(compared.wait(60000));
  QVERIFY(compared.front().front().toBool());
  QCOMPARE(compare.model()->rowCount(), 3);  // three pairs on one measure

  // The hybrid's one-query test on the page: its hits are the first query's fused ranking.
  QVERIFY(page.selectRow(2));
  QSignalSpy tested(&page, &ui::RetrieversPage::tested);
  const auto& first = wb.dataset()->queries.front();
  QVERIFY(page.test(QString::fromStdString(first.text)));
  QVERIFY(tested.wait(60000));
  QVERIFY2(tested.first().first().toBool(), qPrintable(page.testHeadline()->text()));
  const auto fusedFirst = rankingOf(*hybridRun, first.id);
  QCOMPARE(page.hitsTable()->rowCount(), int(fusedFirst.size()));
  for (int i = 0; i < page.hitsTable()->rowCount(); ++i)
    QVERIFY(std::abs(page.hitsTable()->item(i, 2)->text().toDouble() -
                     fusedFirst[std::size_t(i)].second) < 1e-5);
  saveScreenshot(page, QStringLiteral("retrievers-dense-hybrid.png"));
  QVERIFY(page.selectRow(1));
  saveScreenshot(page, QStringLiteral("retrievers-dense.png"));
}

// Issue 36 item 6: a dense retriever's corpus embedding, cancelled from the Jobs dock part-way,
// keeps the batches that were answered: the next run sends only the others.
void TestRetrieversGui::item06_embeddingCancelledFromJobsDock() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, copyDemo(root)));
  wb.setRetrievers({});
  const auto ds = wb.dataset();
  QVERIFY(ds && ds->corpus.size() > 16);
  testserver::TestServer server(testserver::Options{});
  // Two embedding requests are answered; the others stall until the job is cancelled.
  server.addRule(testserver::rule(testserver::Behaviour::Normal, 2, "/embeddings"));
  auto stall = testserver::rule(testserver::Behaviour::Slow, -1, "/embeddings");
  stall.stallMs = 60000;
  server.addRule(stall);
  QVERIFY(server.start());

  ui::RetrieversPage page(&wb);
  page.addRetriever(Kind::Dense);
  core::RetrieverSpec spec = page.editorSpec();
  spec.name = "dense-server";
  spec.url = server.baseUrl();
  spec.embedModel = "test-embed";
  spec.docPrefix = "passage: ";
  spec.embedBatch = 8;
  page.setEditorSpec(spec);
  QVERIFY2(page.applyEdits(), qPrintable(page.testHeadline()->text()));  // configured here

  ui::JobsDock dock(&wb);
  ui::RetrievalPage retrieval(&wb);
  ui::RetrieverRunBar* bar = retrieval.retrieverBar();
  QSignalSpy finished(bar, &ui::RetrieverRunBar::finished);
  QVERIFY(bar->run(0, 10));
  // The dock follows the embedding; Cancel there once the two answered batches are in.
  QTRY_VERIFY_WITH_TIMEOUT(
      dock.currentRetrieval() &&
          dock.currentRetrieval()->lastProgress(ui::RetrieverJob::Phase::Embed).first >= 2,
      30000);
  const std::uint64_t calls = (ds->corpus.size() + 7) / 8;
  QCOMPARE(dock.currentRetrieval()->lastProgress(ui::RetrieverJob::Phase::Embed).second,
           quint64(calls));
  QVERIFY(dock.progressBar()->value() > 0);
  dock.cancelCurrent();
  QVERIFY(finished.wait(30000));
  QCOMPARE(finished.front().front().toBool(), false);
  QVERIFY2(dock.statsLabel()->text().startsWith(QStringLiteral("Cancelled.")),
           qPrintable(dock.statsLabel()->text()));
  const std::size_t before = wb.dataset()->runs.size();

  // Run again: only the batches that were never answered are sent.
  server.clearRules();
  server.clearLog();
  QVERIFY2(runAndWait(bar, 0, 10), qPrintable(bar->statusLabel()->text()));
  QCOMPARE(wb.dataset()->runs.size(), before + 1);
  std::size_t documentBatches = 0;
  for (const auto& entry : server.log())
    documentBatches +=
        entry.path.ends_with("/embeddings") && entry.body.find("passage: ") != std::string::npos;
  QCOMPARE(documentBatches, std::size_t(calls - 2));
}

// A project's index folder is only read (core/retrieval/README.md, "Index folders named by a
// file"): the page keeps that mark on the spec it shows, tests and saves, even when another field
// is edited; only the user typing into the folder field makes the folder theirs.
void TestRetrieversGui::projectIndexFolderStaysReadOnlyUntilEdited() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, copyDemo(fs::path(tmp.path().toStdString()))));
  std::string error;
  auto fromFile = core::retrieverSpecFromJson(
      {{"kind", "bm25"}, {"name", "b"}, {"index_dir", "/elsewhere/idx"}}, &error);
  QVERIFY2(fromFile && fromFile->indexDirFromFile, error.c_str());
  wb.setRetrievers({*fromFile});
  ui::RetrieversPage page(&wb);
  QVERIFY(page.selectRow(0));
  QVERIFY(page.editorSpec().indexDirFromFile);
  // Another field edited and saved: the folder is still the file's.
  page.findChild<QLineEdit*>(QStringLiteral("RetrieverName"))->setText(QStringLiteral("b2"));
  QVERIFY(page.applyEdits());
  QCOMPARE(wb.retrievers().front().name, std::string("b2"));
  QVERIFY(wb.retrievers().front().indexDirFromFile);
  QVERIFY(page.selectRow(0));
  // Typed by the user: theirs.
  auto* dir = page.findChild<QLineEdit*>(QStringLiteral("Bm25IndexDir"));
  QVERIFY(dir);
  dir->setText(QStringLiteral("/elsewhere/idx2"));
  QVERIFY(page.editorSpec().indexDirFromFile);  // a change made by code is not the user's
  dir->clear();
  QTest::keyClicks(dir,
                   QString::fromStdString((fs::path(tmp.path().toStdString()) / "mine").string()));
  QVERIFY(!page.editorSpec().indexDirFromFile);
  QVERIFY(page.applyEdits());
  QVERIFY(!wb.retrievers().front().indexDirFromFile);
}

QTEST_MAIN(TestRetrieversGui)
#include "tst_retrieversgui.moc"
