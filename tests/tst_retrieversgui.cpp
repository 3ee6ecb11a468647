// Retrievers in the workbench (issue 17): configured on the Retrievers page (OpenSearch `_search`,
// the generic HTTP retriever, BM25 with two settings), each tested with one query against the
// project's own test server; run over the demo dataset's queries from the Retrieval page and
// evaluated side by side, with values equal to `ragscope-cli retrieve` + `eval` on the same
// settings; saved in the project without secrets; a key named by a project file not sent until
// confirmed; and the HTTP retriever's faults (500, timeout, bad JSON) recorded per query.

#include <QApplication>
#include <QLabel>
#include <QListWidget>
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
#include "core/retrieval/retrievejob.h"
#include "testserver/testserver.h"
#include "ui/jobs/evaljob.h"
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
};

void TestRetrieversGui::configureTestRunCompare() {
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

QTEST_MAIN(TestRetrieversGui)
#include "tst_retrieversgui.moc"
