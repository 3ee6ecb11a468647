// Batch calls (core/eval/engine/batchrun.h, core/llm/batchformat.h, `ragscope-cli batch`,
// --batch-file and --batch): the file formats, export after the response cache with bodies
// byte-identical to the live calls (captured at the test server), imports of failed and missing
// lines and of hostile files, the test server's batch states, a process killed while it polls, and
// the Docugami claims run with the claim x chunk matrix (2,925 judge calls) done through the Batch
// API with the same store contents and metrics as the live run.

#include <fcntl.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/files.h"
#include "common/testdata.h"
#include "core/eval/api/job.h"
#include "core/eval/engine/batchrun.h"
#include "core/llm/batchclient.h"
#include "core/llm/batchformat.h"
#include "core/llm/cachingprovider.h"
#include "core/llm/httpprovider.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/openaiformat.h"
#include "core/llm/requestseal.h"
#include "core/llm/responsecache.h"
#include "core/store/runstore.h"
#include "core/util/sqlitedb.h"
#include "core/util/urlredact.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using nlohmann::json;
using ragscope::testserver::TestServer;
namespace fs = std::filesystem;

namespace {

constexpr const char* kSec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";

QString demo(const char* name) {
  return QString::fromStdString((ragscope::test::sourceRoot() / "resources/demo" / name).string());
}

// generate over the demo dataset's 29 questions, two passages each: 29 chat calls.
QStringList generateArgs(const TestServer& server, const QString& store, const QString& cache) {
  return {"generate",
          "--dataset",
          demo("topics.tsv"),
          "--dataset",
          demo("collection.tsv"),
          "--run",
          demo("run-good.trec"),
          "--k",
          "2",
          "--generator",
          QString::fromStdString(server.baseUrl()),
          "--model",
          "test-model",
          "--store",
          store,
          "--cache",
          cache};
}

std::vector<std::string> fileLines(const QString& path) {
  QFile f(path);
  std::vector<std::string> out;
  if (!f.open(QIODevice::ReadOnly)) return out;
  for (const auto& l : f.readAll().split('\n'))
    if (!l.isEmpty()) out.push_back(l.toStdString());
  return out;
}

void writeLines(const QString& path, const std::vector<std::string>& lines) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  for (const auto& l : lines) f.write(QByteArray::fromStdString(l + "\n"));
}

// The body of an input line, cut out of its bytes (batchInputLine embeds it verbatim).
std::string bodyOfInputLine(const std::string& line) {
  const json j = json::parse(line);
  const std::string suffix = ",\"custom_id\":" + json(j["custom_id"].get<std::string>()).dump() +
                             ",\"method\":\"POST\",\"url\":\"/v1/chat/completions\"}";
  if (line.rfind("{\"body\":", 0) != 0 || line.size() < 8 + suffix.size() ||
      line.compare(line.size() - suffix.size(), suffix.size(), suffix) != 0)
    return {};
  return line.substr(8, line.size() - 8 - suffix.size());
}

// A chat reply as the test server's model would give it (its "model" names the one asked).
std::string chatBody(const std::string& content, const std::string& model = "test-model") {
  return json{{"id", "chatcmpl-x"},
              {"object", "chat.completion"},
              {"model", model},
              {"choices", json::array({{{"index", 0},
                                        {"message", {{"role", "assistant"}, {"content", content}}},
                                        {"finish_reason", "stop"}}})},
              {"usage", {{"prompt_tokens", 11}, {"completion_tokens", 3}, {"total_tokens", 14}}}}
      .dump();
}

std::string okLine(const std::string& key, const std::string& content,
                   const std::string& model = "test-model") {
  return json{{"id", "r"},
              {"custom_id", key},
              {"response", {{"status_code", 200}, {"body", json::parse(chatBody(content, model))}}},
              {"error", nullptr}}
      .dump();
}

struct StoreSnapshot {
  std::vector<std::string> rows;  // key, status, attempts, and the result's fields
  store::RunCounts counts;
};

StoreSnapshot snapshot(const QString& path) {
  StoreSnapshot s;
  store::RunStore st;
  std::string err;
  if (!st.openReadOnly(path.toStdString(), &err)) return s;
  std::map<std::string, std::string> results;
  for (const auto& r : st.results())
    results[r.key] = r.result.text + "|" + r.result.error + "|" +
                     std::to_string(r.result.usage.promptTokens) + "|" +
                     std::to_string(r.result.usage.completionTokens) + "|" +
                     std::to_string(r.result.httpStatus) + "|" + (r.result.heuristic ? "h" : "-");
  for (const auto& item : st.items())
    s.rows.push_back(item.key + "|" + item.kind + "|" + item.requestJson + "|" +
                     std::string(store::itemStatusName(item.status)) + "|" +
                     std::to_string(item.attempts) + "|" + results[item.key]);
  s.counts = st.counts();
  return s;
}

std::vector<store::WorkItem> storeItems(const QString& path) {
  store::RunStore st;
  std::string err;
  if (!st.openReadOnly(path.toStdString(), &err)) return {};
  return st.items();
}

// Runs `fn` with XDG_CONFIG_HOME at `config`: a CLI started meanwhile is another machine's user
// (its own trust registry and request seal secret).
template <typename F>
auto asOtherUser(const QString& config, F fn) {
  const QByteArray saved = qgetenv("XDG_CONFIG_HOME");
  qputenv("XDG_CONFIG_HOME", config.toLocal8Bit());
  auto r = fn();
  qputenv("XDG_CONFIG_HOME", saved);
  return r;
}

// XDG_CONFIG_HOME at a fresh folder while alive: this user's trust registry holds nothing from
// the other tests (whose servers may have had the same port).
struct FreshConfigHome {
  explicit FreshConfigHome(const QString& dir) : saved(qgetenv("XDG_CONFIG_HOME")) {
    qputenv("XDG_CONFIG_HOME", dir.toLocal8Bit());
  }
  ~FreshConfigHome() { qputenv("XDG_CONFIG_HOME", saved); }
  QByteArray saved;
};

// The stored answers and errors, by item key.
std::map<std::string, std::string> answersOf(const QString& path) {
  std::map<std::string, std::string> out;
  store::RunStore st;
  std::string err;
  if (!st.openReadOnly(path.toStdString(), &err)) return out;
  for (const auto& r : st.results()) out[r.key] = r.result.text + r.result.error;
  return out;
}

std::uint64_t cacheEntries(const QString& path) {
  llm::ResponseCache cache;
  std::string err;
  return cache.open(path.toStdString(), &err) ? cache.entryCount() : 0;
}

eval::BatchState storedBatchState(const QString& path) {
  store::RunStore st;
  std::string err;
  if (!st.openReadOnly(path.toStdString(), &err)) return {};
  return eval::readBatchState(st);
}

}  // namespace

class TestBatch : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void inputAndOutputLines();
  void exportListsOnlyUncachedCallsWithLiveBodies();
  void failedAndMissingLinesThenRetryErrors();
  void hostileImportsChangeNothing();
  void serverBatchStates();
  void expiredBatchKeepsTheRestPending();
  void killedWhilePollingResumesTheSameBatch();
  void submitStatusCancelFromTheCli();
  void batchPricesInEstimateAndBudget();
  void docugamiClaimsThroughTheBatchApiMatchLive();
  // Issue 35: batch results from elsewhere.
  void foreignBatchOutputNeverEntersTheCache();
  void ownBatchOutputEntersTheCacheOnlyWhenItMatches();
  void completedBatchWithoutResultsIsNeverPaidTwice();
  void downloadsStreamToAPrivateFile();
  void endpointCredentialsAreRedacted();

 private:
  QString path(const QString& name) const { return m_dir.filePath(name); }
  QTemporaryDir m_dir;
};

void TestBatch::initTestCase() {
  QVERIFY(m_dir.isValid());
  // Trusted endpoints and caches of the runs these tests start stay in the temporary folder.
  qputenv("XDG_CONFIG_HOME", path("config").toLocal8Bit());
  qputenv("XDG_CACHE_HOME", path("cache").toLocal8Bit());
}

void TestBatch::inputAndOutputLines() {
  // The body goes in byte for byte, keys sorted around it.
  QCOMPARE(QString::fromStdString(llm::batchInputLine("gen:q1", "/v1/chat/completions",
                                                      R"({"model":"m","temperature":0.0})")),
           QString(R"({"body":{"model":"m","temperature":0.0},"custom_id":"gen:q1",)"
                   R"("method":"POST","url":"/v1/chat/completions"})"));
  QVERIFY(!llm::batchUrl(llm::EndpointKind::Rerank));
  QCOMPARE(QString::fromStdString(*llm::batchUrl(llm::EndpointKind::Embeddings)),
           QString("/v1/embeddings"));

  std::string err;
  auto ok = llm::parseBatchOutputLine(okLine("gen:q1", "Paris."), &err);
  QVERIFY2(ok, err.c_str());
  QVERIFY(ok->succeeded());
  QCOMPARE(llm::parseChatReply(ok->body).text, std::string("Paris."));
  // The model a reply names (it decides whether the answer may enter the cache).
  QCOMPARE(ok->model, std::string("test-model"));
  QVERIFY(llm::replyModelMatches("gpt-4o-mini-2024-07-18", "gpt-4o-mini"));
  QVERIFY(llm::replyModelMatches("test-model", "test-model"));
  QVERIFY(!llm::replyModelMatches("gpt-4o-mini", "gpt-4o"));
  QVERIFY(!llm::replyModelMatches("gpt-4o-mini-x", "gpt-4o-mini"));
  QVERIFY(!llm::replyModelMatches("", "test-model"));
  auto failed = llm::parseBatchOutputLine(
      R"({"custom_id":"a","response":null,"error":{"code":"batch_expired","message":"late"}})",
      &err);
  QVERIFY(failed && !failed->succeeded());
  QCOMPARE(failed->errorCode, std::string("batch_expired"));
  // Wrong types are named.
  const std::pair<const char*, const char*> bad[] = {
      {R"({"custom_id":7,"response":null,"error":{"message":"x"}})", "custom_id"},
      {R"({"custom_id":"a","response":{"status_code":"200","body":{}}})", "response.status_code"},
      {R"({"custom_id":"a","response":{"status_code":200,"body":5}})", "response.body"},
      {R"({"custom_id":"a","response":"ok"})", "response is not an object"},
      {R"({"custom_id":"a","error":{"message":3}})", "error.message"},
      {R"({"custom_id":"a"})", "neither response nor error"},
      {R"([1,2])", "not a JSON object"},
  };
  for (const auto& [line, field] : bad) {
    err.clear();
    QVERIFY2(!llm::parseBatchOutputLine(line, &err), line);
    QVERIFY2(err.find(field) != std::string::npos, (std::string(line) + " -> " + err).c_str());
  }
  // Batch objects: ids that could steer a request path are refused.
  auto batch = llm::parseBatchObject(
      R"({"id":"batch_1","status":"in_progress","request_counts":{"total":5,"completed":2,"failed":1},"output_file_id":null})",
      &err);
  QVERIFY2(batch, err.c_str());
  QCOMPARE(batch->counts.completed, std::int64_t{2});
  QVERIFY(!llm::parseBatchObject(R"({"id":"../files","status":"completed"})", &err));
  QVERIFY(!llm::parseBatchObject(R"({"id":"b","status":"done"})", &err));
  QVERIFY(
      !llm::parseBatchObject(R"({"id":"b","status":"completed","output_file_id":"a/b"})", &err));
}

void TestBatch::exportListsOnlyUncachedCallsWithLiveBodies() {
  TestServer server;
  QVERIFY(server.start());
  const QString store = path("half.db"), cache = path("half-cache.sqlite");
  const auto planned =
      ragscope::test::runCliText(generateArgs(server, store, cache) +
                                 QStringList{"--batch-file", path("all.jsonl"), "--quiet"});
  QVERIFY2(planned.exitCode == 0, qPrintable(planned.err));
  QCOMPARE(server.requestCount(), std::size_t{0});  // planned and written, nothing sent
  QCOMPARE(fileLines(path("all.jsonl")).size(), std::size_t{29});
  auto items = storeItems(store);
  QCOMPARE(items.size(), std::size_t{29});
  for (const auto& item : items) QCOMPARE(item.status, store::ItemStatus::Pending);

  // Half of the calls answered live into the cache (as an earlier run would have).
  {
    llm::ResponseCache responses;
    std::string err;
    QVERIFY2(responses.open(cache.toStdString(), &err), err.c_str());
    llm::EndpointConfig ep;
    ep.baseUrl = server.baseUrl();
    ep.model = "test-model";
    llm::CachingProvider provider(llm::makeHttpProvider(ep), responses);
    for (std::size_t i = 0; i < 14; ++i)
      provider.submit(*llm::requestFromJson(json::parse(items[i].requestJson)),
                      [](llm::LlmResponse r) { QVERIFY(r.status == llm::CallStatus::Ok); });
    provider.waitIdle();
  }
  QCOMPARE(server.chatRequests(), std::size_t{14});
  const auto exported = ragscope::test::runCliText(
      {"batch", "export", store, "--out", path("half.jsonl"), "--quiet"});
  QVERIFY2(exported.exitCode == 0, qPrintable(exported.err + exported.out));
  const auto lines = fileLines(path("half.jsonl"));
  QCOMPARE(lines.size(), std::size_t{15});
  for (std::size_t i = 0; i < lines.size(); ++i)
    QCOMPARE(QString::fromStdString(json::parse(lines[i])["custom_id"].get<std::string>()),
             QString::fromStdString(items[14 + i].key));
  QCOMPARE(server.chatRequests(), std::size_t{14});  // the export sent nothing
  const auto half = snapshot(store);
  QCOMPARE(half.counts.done, std::size_t{14});
  QCOMPARE(half.counts.fromCache, std::size_t{14});

  // The same calls sent live: the server receives exactly the bodies of the exported lines.
  server.clearLog();
  const auto live = ragscope::test::runCliText({"resume", store, "--no-cache", "--quiet"});
  QVERIFY2(live.exitCode == 0, qPrintable(live.err));
  std::set<std::string> sent;
  for (const auto& e : server.log())
    if (e.path == "/v1/chat/completions") sent.insert(e.body);
  QCOMPARE(sent.size(), std::size_t{15});
  for (const auto& line : lines) {
    const std::string body = bodyOfInputLine(line);
    QVERIFY2(!body.empty(), line.c_str());
    QVERIFY2(sent.count(body), ("not byte-identical to a live call: " + body).c_str());
  }
}

void TestBatch::failedAndMissingLinesThenRetryErrors() {
  TestServer server;
  QVERIFY(server.start());
  const QString store = path("partial.db"), cache = path("partial-cache.sqlite");
  const auto planned = ragscope::test::runCliText(
      generateArgs(server, store, cache) + QStringList{"--batch-file", path("p.jsonl"), "-q"});
  QVERIFY2(planned.exitCode == 0, qPrintable(planned.err));
  const auto items = storeItems(store);
  QCOMPARE(items.size(), std::size_t{29});
  // 24 answers, 3 failed lines (an HTTP 500, an error object, a 200 whose body is no chat
  // reply), 2 lines missing; written in reverse order (the order of lines is free).
  std::vector<std::string> out;
  out.push_back(json{
      {"custom_id", items[0].key},
      {"response",
       {{"status_code", 500}, {"body", {{"error", {{"message", "upstream exploded"}}}}}}},
      {"error",
       nullptr}}.dump());
  out.push_back(json{{"custom_id", items[1].key},
                     {"response", nullptr},
                     {"error", {{"code", "server_error"}, {"message", "boom"}}}}
                    .dump());
  out.push_back(json{{"custom_id", items[2].key},
                     {"response", {{"status_code", 200}, {"body", {{"choices", json::array()}}}}}}
                    .dump());
  for (std::size_t i = 5; i < items.size(); ++i)
    out.push_back(okLine(items[i].key, "A" + items[i].key));
  std::reverse(out.begin(), out.end());
  writeLines(path("p-results.jsonl"), out);
  const auto imported =
      ragscope::test::runCliText({"batch", "import", store, path("p-results.jsonl")});
  QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
  QVERIFY2(imported.out.contains("24 answers, 3 failed"), qPrintable(imported.out));
  store::RunStore st;
  std::string err;
  QVERIFY(st.openReadOnly(store.toStdString(), &err));
  auto c = st.counts();
  QCOMPARE(c.done, std::size_t{24});
  QCOMPARE(c.errors, std::size_t{3});
  QCOMPARE(c.pending, std::size_t{2});
  std::map<std::string, store::StoredResult> byKey;
  for (auto& r : st.results()) byKey[r.key] = r;
  QVERIFY(byKey[items[0].key].result.error.find("HTTP 500: upstream exploded") !=
          std::string::npos);
  QVERIFY(byKey[items[1].key].result.error.find("server_error: boom") != std::string::npos);
  QVERIFY(byKey[items[2].key].result.error.find("malformed reply") != std::string::npos);
  QCOMPARE(byKey[items[7].key].result.text, "A" + items[7].key);
  QCOMPARE(byKey[items[7].key].result.usage.promptTokens, std::int64_t{11});
  // The answers entered the response cache as a live answer would.
  {
    llm::ResponseCache responses;
    QVERIFY(responses.open(cache.toStdString(), &err));
    llm::EndpointConfig ep;
    ep.baseUrl = server.baseUrl();
    ep.model = "test-model";
    auto http = llm::makeHttpProvider(ep);
    const auto hit = responses.lookup(
        llm::ResponseCache::key(*http, *llm::requestFromJson(json::parse(items[7].requestJson))));
    QVERIFY(hit);
    QCOMPARE(hit->text, "A" + items[7].key);
  }
  // A second import of the same file changes nothing.
  const auto before = snapshot(store);
  const auto again =
      ragscope::test::runCliText({"batch", "import", store, path("p-results.jsonl")});
  QVERIFY2(again.exitCode == 0, qPrintable(again.err));
  QVERIFY2(again.out.contains("0 answers, 0 failed"), qPrintable(again.out));
  QCOMPARE(snapshot(store).rows, before.rows);

  // resume --retry-errors asks exactly the 3 failed and the 2 pending calls again.
  const auto retried = ragscope::test::runCliText({"resume", store, "--retry-errors", "-q"});
  QVERIFY2(retried.exitCode == 0, qPrintable(retried.err + retried.out));
  QCOMPARE(server.chatRequests(), std::size_t{5});
  std::set<std::string> sentHashes;
  for (const auto& e : server.log()) sentHashes.insert(e.bodyHash);
  llm::EndpointConfig ep;
  ep.baseUrl = server.baseUrl();
  ep.model = "test-model";
  auto http = llm::makeHttpProvider(ep);
  for (std::size_t i = 0; i < 5; ++i)
    QVERIFY(sentHashes.count(TestServer::hashBody(
        http->requestBody(*llm::requestFromJson(json::parse(items[i].requestJson))))));
  QCOMPARE(snapshot(store).counts.done, std::size_t{29});
}

void TestBatch::hostileImportsChangeNothing() {
  TestServer server;
  QVERIFY(server.start());
  const QString store = path("hostile.db");
  const auto planned =
      ragscope::test::runCliText(generateArgs(server, store, path("hostile-cache.sqlite")) +
                                 QStringList{"--batch-file", path("h.jsonl"), "-q"});
  QVERIFY2(planned.exitCode == 0, qPrintable(planned.err));
  const auto items = storeItems(store);
  const auto before = snapshot(store);
  struct Case {
    const char* name;
    std::vector<std::string> lines;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"wrong-type.jsonl",
       {okLine(items[0].key, "fine"),
        R"({"custom_id":")" + items[1].key + R"(","response":{"status_code":"200","body":{}}})"},
       "wrong-type.jsonl:2: not a batch output line: response.status_code"},
      {"other-run.jsonl",
       {okLine(items[0].key, "fine"), okLine("e2e:q01", "from another run")},
       "other-run.jsonl:2: custom_id \"e2e:q01\" is not a call of this run"},
      {"twice.jsonl",
       {okLine(items[0].key, "fine"), okLine(items[0].key, "again")},
       "was already given at"},
      {"not-json.jsonl", {okLine(items[0].key, "fine"), "{\"custom_id\": "}, "not valid JSON"},
  };
  for (const auto& c : cases) {
    writeLines(path(c.name), c.lines);
    const auto r = ragscope::test::runCliText({"batch", "import", store, path(c.name)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(c.message) && r.err.contains("nothing was imported"),
             qPrintable(r.err));
    QCOMPARE(snapshot(store).rows, before.rows);
  }
  // A 1 GB line (a sparse file: no disk used) is refused after a bounded read.
  {
    const std::string huge = path("huge.jsonl").toStdString();
    const int fd = ::open(huge.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    QVERIFY(fd >= 0);
    QCOMPARE(::ftruncate(fd, off_t{1} << 30), 0);
    ::close(fd);
    const auto r = ragscope::test::runCliText({"batch", "import", store, path("huge.jsonl")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("huge.jsonl:1: the line is longer than"), qPrintable(r.err));
    QCOMPARE(snapshot(store).rows, before.rows);
  }
}

void TestBatch::serverBatchStates() {
  TestServer server;
  QVERIFY(server.start());
  llm::EndpointConfig ep;
  ep.baseUrl = server.baseUrl();
  ep.model = "test-model";
  const llm::BatchClient client(ep);
  std::string err;
  std::string lines;
  for (int i = 0; i < 4; ++i)
    lines +=
        llm::batchInputLine("c" + std::to_string(i), "/v1/chat/completions",
                            llm::buildChatBody(ep, {{"user", "question " + std::to_string(i)}})) +
        "\n";
  // A batch that runs "forever" is validating when asked first; a cancel gives cancelling, then
  // cancelled with nothing done.
  ragscope::testserver::BatchServerOptions slow;
  slow.batchMs = 1000000000;
  server.setBatchOptions(slow);
  auto file = client.uploadFile(lines, "calls.jsonl", &err);
  QVERIFY2(file, err.c_str());
  auto batch = client.createBatch(*file, "/v1/chat/completions", &err);
  QVERIFY2(batch, err.c_str());
  QCOMPARE(QString::fromStdString(batch->status), QString("validating"));
  QCOMPARE(batch->counts.total, std::int64_t{4});
  batch = client.cancelBatch(batch->id, &err);
  QCOMPARE(QString::fromStdString(batch->status), QString("cancelling"));
  batch = client.getBatch(batch->id, &err);
  QCOMPARE(QString::fromStdString(batch->status), QString("cancelled"));
  QVERIFY(batch->outputFileId.empty());
  // Completed at once: one line fails (a scripted 503), the other three are answered as live.
  server.setBatchOptions({});
  auto r =
      ragscope::testserver::rule(ragscope::testserver::Behaviour::Status, 1, "/chat/completions");
  r.status = 503;
  r.bodyContains = "question 2";
  server.addRule(r);
  batch = client.createBatch(*file, "/v1/chat/completions", &err);
  QVERIFY2(batch, err.c_str());
  QCOMPARE(QString::fromStdString(batch->status), QString("completed"));
  QCOMPARE(batch->counts.completed, std::int64_t{3});
  QCOMPARE(batch->counts.failed, std::int64_t{1});
  const fs::path outputPath = path("states-output.jsonl").toStdString();
  const fs::path errorsPath = path("states-errors.jsonl").toStdString();
  QVERIFY2(client.downloadFile(batch->outputFileId, outputPath, 1 << 20, &err), err.c_str());
  QVERIFY2(client.downloadFile(batch->errorFileId, errorsPath, 1 << 20, &err), err.c_str());
  const auto output = std::optional<std::string>(ragscope::test::readText(outputPath));
  const auto errors = std::optional<std::string>(ragscope::test::readText(errorsPath));
  std::size_t answered = 0;
  for (const auto& l : QByteArray::fromStdString(*output).split('\n')) {
    if (l.isEmpty()) continue;
    const auto line = llm::parseBatchOutputLine(l.toStdString(), &err);
    QVERIFY(line && line->succeeded());
    const auto reply = llm::parseChatReply(line->body);
    QCOMPARE(reply.text, TestServer::defaultAnswer("question " + line->customId.substr(1)));
    ++answered;
  }
  QCOMPARE(answered, std::size_t{3});
  QVERIFY(errors->find("\"custom_id\":\"c2\"") != std::string::npos);
  QVERIFY(errors->find("\"status_code\":503") != std::string::npos);
  QCOMPARE(server.chatRequests(), std::size_t{0});  // batch lines are not chat requests
  // Expired after 2 lines: the output holds those, the rest is in neither file.
  ragscope::testserver::BatchServerOptions expiring;
  expiring.endState = "expired";
  expiring.expireAfterLines = 2;
  server.setBatchOptions(expiring);
  batch = client.createBatch(*file, "/v1/chat/completions", &err);
  QCOMPARE(QString::fromStdString(batch->status), QString("expired"));
  QCOMPARE(batch->counts.completed + batch->counts.failed, std::int64_t{2});
  // A file that is not batch input lines fails validation, with the line named.
  server.setBatchOptions({});
  auto badFile = client.uploadFile("{\"custom_id\":\"x\"}\n", "bad.jsonl", &err);
  batch = client.createBatch(*badFile, "/v1/chat/completions", &err);
  QCOMPARE(QString::fromStdString(batch->status), QString("failed"));
  QVERIFY(!batch->errors.empty() && batch->errors.front().find("line 1") != std::string::npos);
  // A batch in progress walks validating -> in_progress -> finalizing -> completed, in order.
  ragscope::testserver::BatchServerOptions timed;
  timed.batchMs = 300;
  server.setBatchOptions(timed);
  batch = client.createBatch(*file, "/v1/chat/completions", &err);
  const std::vector<std::string> order = {"validating", "in_progress", "finalizing", "completed"};
  std::size_t at = 0;
  std::set<std::string> seen;
  while (batch && batch->status != "completed") {
    const auto pos = std::find(order.begin(), order.end(), batch->status) - order.begin();
    QVERIFY2(static_cast<std::size_t>(pos) >= at, batch->status.c_str());
    at = static_cast<std::size_t>(pos);
    seen.insert(batch->status);
    QTest::qWait(5);
    batch = client.getBatch(batch->id, &err);
  }
  QVERIFY(batch);
  QVERIFY(seen.count("validating"));
  // Unknown ids are 404s, named.
  QVERIFY(!client.getBatch("batch_999", &err));
  QVERIFY2(err.find("404") != std::string::npos, err.c_str());
}

void TestBatch::expiredBatchKeepsTheRestPending() {
  TestServer server;
  QVERIFY(server.start());
  ragscope::testserver::BatchServerOptions expiring;
  expiring.endState = "expired";
  expiring.expireAfterLines = 10;
  server.setBatchOptions(expiring);
  const QString store = path("expired.db");
  const auto first =
      ragscope::test::runCliText(generateArgs(server, store, path("expired-cache.sqlite")) +
                                 QStringList{"--batch", "--batch-poll", "0.05", "-q"});
  QCOMPARE(first.exitCode, 1);  // stopped short, resumable
  QVERIFY2(first.out.contains("calls are left pending"), qPrintable(first.out));
  auto s = snapshot(store);
  QCOMPARE(s.counts.done, std::size_t{10});
  QCOMPARE(s.counts.pending, std::size_t{19});
  // The rest goes in a second batch on resume (the run continues through the Batch API).
  server.setBatchOptions({});
  const auto resumed = ragscope::test::runCliText({"resume", store, "--batch-poll", "0.05", "-q"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
  QCOMPARE(snapshot(store).counts.done, std::size_t{29});
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{2});
  const auto files = server.uploadedBatchFiles();
  QCOMPARE(files.size(), std::size_t{2});
  QCOMPARE(QByteArray::fromStdString(files[1]).count('\n'), 19);
  QCOMPARE(server.chatRequests(), std::size_t{0});
}

void TestBatch::killedWhilePollingResumesTheSameBatch() {
  TestServer server;
  QVERIFY(server.start());
  ragscope::testserver::BatchServerOptions slow;
  slow.batchMs = 4000;
  server.setBatchOptions(slow);
  const QString store = path("killed.db");
  QProcess cli;
  cli.start(RAGSCOPE_CLI_PATH, generateArgs(server, store, path("killed-cache.sqlite")) +
                                   QStringList{"--batch", "--batch-poll", "0.1", "-q"});
  QVERIFY(cli.waitForStarted());
  QElapsedTimer timer;
  timer.start();
  while (server.batchCounters().batchPolls < 3 && timer.elapsed() < 60000 &&
         cli.state() == QProcess::Running)
    QTest::qWait(10);
  QCOMPARE(cli.state(), QProcess::Running);
  cli.kill();  // SIGKILL while it polls
  QVERIFY(cli.waitForFinished(10000));
  const auto state = storedBatchState(store);
  QCOMPARE(state.batches.size(), std::size_t{1});
  QVERIFY(!state.batches.front().imported);
  const std::string id = state.batches.front().id;
  QCOMPARE(snapshot(store).counts.done, std::size_t{0});

  const auto resumed = ragscope::test::runCliText({"resume", store, "--batch-poll", "0.1"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
  QVERIFY2(resumed.err.contains(QString::fromStdString("batch " + id)), qPrintable(resumed.err));
  // One batch created in all, counted at the server; nothing sent live.
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{1});
  QCOMPARE(server.batchCounters().filesUploaded, std::size_t{1});
  QCOMPARE(server.chatRequests(), std::size_t{0});
  const auto after = storedBatchState(store);
  QCOMPARE(after.batches.size(), std::size_t{1});
  QCOMPARE(after.batches.front().id, id);
  QVERIFY(after.batches.front().imported);
  QCOMPARE(snapshot(store).counts.done, std::size_t{29});
}

void TestBatch::submitStatusCancelFromTheCli() {
  TestServer server;
  QVERIFY(server.start());
  ragscope::testserver::BatchServerOptions slow;
  slow.batchMs = 1000000000;  // stays in progress until cancelled
  server.setBatchOptions(slow);
  const QString store = path("submitted.db");
  const auto planned =
      ragscope::test::runCliText(generateArgs(server, store, path("submitted-cache.sqlite")) +
                                 QStringList{"--batch-file", path("s.jsonl"), "-q"});
  QVERIFY2(planned.exitCode == 0, qPrintable(planned.err));
  const auto submitted = ragscope::test::runCliText({"batch", "submit", store, "-q"});
  QVERIFY2(submitted.exitCode == 0, qPrintable(submitted.err + submitted.out));
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{1});
  const std::string id = storedBatchState(store).batches.at(0).id;
  const auto status = ragscope::test::runCliText({"batch", "status", store});
  QVERIFY2(status.exitCode == 0, qPrintable(status.err));
  QVERIFY2(status.out.contains(QString::fromStdString(id + "  validating  29 calls")),
           qPrintable(status.out));
  // An export now would pay for these calls twice: refused while the batch is open.
  const auto exported =
      ragscope::test::runCliText({"batch", "export", store, "--out", path("again.jsonl")});
  QCOMPARE(exported.exitCode, 2);
  QVERIFY2(exported.err.contains("is not imported yet"), qPrintable(exported.err));
  const auto cancelled = ragscope::test::runCliText({"batch", "cancel", store});
  QVERIFY2(cancelled.exitCode == 0 && cancelled.out.contains("cancelling"),
           qPrintable(cancelled.err + cancelled.out));
  QCOMPARE(server.batchCounters().batchesCancelled, std::size_t{1});
  // resume polls the cancelled batch, imports what it holds (nothing), leaves the rest pending.
  const auto resumed = ragscope::test::runCliText({"resume", store, "--batch-poll", "0.05"});
  QCOMPARE(resumed.exitCode, 1);
  QVERIFY2(resumed.out.contains("29 calls are left pending"), qPrintable(resumed.out));
  QCOMPARE(snapshot(store).counts.pending, std::size_t{29});
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{1});
  QCOMPARE(server.chatRequests(), std::size_t{0});
}

void TestBatch::batchPricesInEstimateAndBudget() {
  TestServer server;
  QVERIFY(server.start());
  const QStringList priced = {"--price-in",       "2",  "--price-out",       "4",
                              "--batch-price-in", "1",  "--batch-price-out", "2",
                              "--max-tokens",     "100"};
  auto estimate = [&](const QStringList& extra) {
    const auto r = ragscope::test::runCliText(
        generateArgs(server, path("never.db"), path("est-cache.sqlite")) + priced + extra +
        QStringList{"--estimate", "-q"});
    const auto at = r.out.indexOf("cost            $");
    return r.out.mid(at + 17, r.out.indexOf(' ', at + 17) - at - 17).toDouble();
  };
  const double live = estimate({});
  const double batch = estimate({"--batch"});
  QVERIFY(live > 0);
  // Every price halved: the estimate halves (prompt tokens x 1 + 100 completion tokens x 2 per
  // call per 1k, against x 2 and x 4).
  QCOMPARE(batch, live / 2);
  // A budget below the batch's bound: nothing is submitted.
  const auto paused = ragscope::test::runCliText(
      generateArgs(server, path("budget.db"), path("budget-cache.sqlite")) + priced +
      QStringList{"--batch", "--budget", QString::number(batch / 2), "-q"});
  QCOMPARE(paused.exitCode, 1);
  QVERIFY2(paused.out.contains("paused: budget") && paused.out.contains("nothing was submitted"),
           qPrintable(paused.out));
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{0});
  QCOMPARE(server.requestCount(), std::size_t{0});
}

void TestBatch::docugamiClaimsThroughTheBatchApiMatchLive() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  // The judge is scripted with ragscope's offline heuristics (as ragscope-testserver
  // --offline-answers), so live and batch replies are the same by construction.
  ragscope::testserver::Options options;
  options.answer = [](const std::string& prompt) {
    return llm::offlineAnswer(llm::OfflineRole::Auto, prompt);
  };
  TestServer server(options);
  QVERIFY(server.start());
  auto judgeArgs = [&](const QString& name) {
    return QStringList{"judge",
                       "--dataset",
                       QString::fromStdString(ragscope::test::dataPath(kSec10q).string()),
                       "--retriever",
                       "bm25",
                       "--k",
                       "5",
                       "--metrics",
                       "notebook",
                       "--judge",
                       QString::fromStdString(server.baseUrl()),
                       "--judge-model",
                       "test-model",
                       "--store",
                       path(name + ".db"),
                       "--cache",
                       path(name + "-cache.sqlite"),
                       "--claims-out",
                       path(name + "-claims.json"),
                       "--json",
                       "--quiet"};
  };
  QElapsedTimer timer;
  timer.start();
  const auto live = ragscope::test::runCli(judgeArgs("docugami-live"));
  QVERIFY2(live.exitCode == 0, live.err.constData());
  const qint64 liveMs = timer.restart();
  const std::size_t liveRequests = server.chatRequests();
  // 2,925 judge calls (195 answers: 2 extractions, faithfulness, correctness, coverage and the
  // 5 x 2 claim x chunk premises each), of which some ask the same as another (the same claims
  // against the same chunk): the response cache answers those, live and batch alike.
  std::set<std::string> distinct;
  std::size_t judgeCalls = 0;
  for (const auto& item : storeItems(path("docugami-live.db"))) {
    if (item.key.rfind("gen:", 0) == 0) continue;  // the offline reader's answers
    ++judgeCalls;
    distinct.insert(item.requestJson);
  }
  QCOMPARE(judgeCalls, std::size_t{2925});
  QVERIFY(liveRequests >= distinct.size());

  const auto batch = ragscope::test::runCli(judgeArgs("docugami-batch") +
                                            QStringList{"--batch", "--batch-poll", "0.05"});
  QVERIFY2(batch.exitCode == 0, batch.err.constData());
  const qint64 batchMs = timer.elapsed();
  qInfo("Docugami claims run, 2,925 judge calls: live %lld ms, through the Batch API %lld ms",
        static_cast<long long>(liveMs), static_cast<long long>(batchMs));
  // Zero chat requests outside the batches; one batch per phase (claim extraction, verdicts).
  QCOMPARE(server.chatRequests(), liveRequests);
  const auto counters = server.batchCounters();
  QCOMPARE(counters.linesRun, distinct.size());
  QCOMPARE(counters.batchesCreated, std::size_t{2});

  // The same metrics ...
  json a = json::parse(live.out.toStdString()), b = json::parse(batch.out.toStdString());
  for (json* j : {&a, &b}) {
    j->erase("run");
    j->erase("claims_out");
  }
  QCOMPARE(a["n"].get<int>(), 195);
  QVERIFY(a == b);
  // ... the same store contents (keys, requests, statuses, replies, tokens) ...
  const auto liveStore = snapshot(path("docugami-live.db"));
  const auto batchStore = snapshot(path("docugami-batch.db"));
  QCOMPARE(liveStore.rows.size(), std::size_t{195 + 2925});
  QCOMPARE(batchStore.rows.size(), liveStore.rows.size());
  // By key: the items' order in the table follows when each phase was planned, which differs
  // (the batch route plans both extractions before its first batch).
  auto liveRows = liveStore.rows, batchRows = batchStore.rows;
  std::sort(liveRows.begin(), liveRows.end());
  std::sort(batchRows.begin(), batchRows.end());
  for (std::size_t i = 0; i < liveRows.size(); ++i)
    QVERIFY2(
        liveRows[i] == batchRows[i],
        (liveRows[i].substr(0, 60) + " ... " +
         liveRows[i].substr(liveRows[i].size() - std::min<std::size_t>(300, liveRows[i].size())) +
         "\nbatch: " +
         batchRows[i].substr(batchRows[i].size() - std::min<std::size_t>(300, batchRows[i].size())))
            .c_str());
  QCOMPARE(batchStore.counts.promptTokens, liveStore.counts.promptTokens);
  QCOMPARE(batchStore.counts.completionTokens, liveStore.counts.completionTokens);
  // ... and the same claims file.
  QFile fa(path("docugami-live-claims.json")), fb(path("docugami-batch-claims.json"));
  QVERIFY(fa.open(QIODevice::ReadOnly) && fb.open(QIODevice::ReadOnly));
  QVERIFY(json::parse(fa.readAll().toStdString()) == json::parse(fb.readAll().toStdString()));
}

void TestBatch::foreignBatchOutputNeverEntersTheCache() {
  const FreshConfigHome here(path("config-foreign-test"));
  {
    // This user has sealed batches of their own: a secret of their own, not the other machine's.
    std::string err;
    QVERIFY2(llm::RequestSeal::load(llm::RequestSeal::defaultPath(), true, &err), err.c_str());
  }
  TestServer server;
  QVERIFY(server.start());
  // The cache every run of this user shares (a store names it as the default path would).
  const QString cache = path("shared-cache.sqlite");
  // Two stores made on another machine for this server and model, their calls written out there.
  for (const QString name : {"foreign-a", "foreign-b"}) {
    const auto made = asOtherUser(path("elsewhere"), [&] {
      return ragscope::test::runCliText(generateArgs(server, path(name + ".db"), cache) +
                                        QStringList{"--batch-file", path(name + ".jsonl"), "-q"});
    });
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
  }
  // An output file with a planted answer for every call, naming the model asked.
  const auto items = storeItems(path("foreign-a.db"));
  QCOMPARE(items.size(), std::size_t{29});
  std::vector<std::string> planted;
  for (const auto& item : items) planted.push_back(okLine(item.key, "PLANTED " + item.key));
  writeLines(path("planted.jsonl"), planted);

  // The endpoint is not confirmed here: the answers enter that store only, and the note names the
  // endpoint and the way to confirm it.
  const auto a =
      ragscope::test::runCliText({"batch", "import", path("foreign-a.db"), path("planted.jsonl")});
  QVERIFY2(a.exitCode == 0, qPrintable(a.err));
  QVERIFY2(a.out.contains("29 answers"), qPrintable(a.out));
  QVERIFY2(a.err.contains("29 answers entered this run only, not the shared response cache") &&
               a.err.contains(QString::fromStdString(server.baseUrl())) &&
               a.err.contains("--trust-endpoint"),
           qPrintable(a.err));
  QCOMPARE(snapshot(path("foreign-a.db")).counts.done, std::size_t{29});
  // Confirmed here, but its calls were sealed on the other machine: the store only, again.
  const auto b = ragscope::test::runCliText(
      {"batch", "import", path("foreign-b.db"), path("planted.jsonl"), "--trust-endpoint"});
  QVERIFY2(b.exitCode == 0, qPrintable(b.err));
  QVERIFY2(b.err.contains("29 answers entered this run only") &&
               b.err.contains("not exported or submitted from this machine"),
           qPrintable(b.err));
  QCOMPARE(cacheEntries(cache), std::uint64_t{0});

  // A live run of the same calls (same endpoint, model and cache) asks the server every one.
  const auto live =
      ragscope::test::runCliText(generateArgs(server, path("live.db"), cache) + QStringList{"-q"});
  QVERIFY2(live.exitCode == 0, qPrintable(live.err));
  QCOMPARE(server.chatRequests(), std::size_t{29});
  const auto answers = answersOf(path("live.db"));
  QCOMPARE(answers.size(), std::size_t{29});
  for (const auto& [key, text] : answers)
    QVERIFY2(text.find("PLANTED") == std::string::npos, (key + ": " + text).c_str());
  QCOMPARE(snapshot(path("live.db")).counts.fromCache, std::size_t{0});
}

void TestBatch::ownBatchOutputEntersTheCacheOnlyWhenItMatches() {
  TestServer server;
  QVERIFY(server.start());
  const QString cache = path("own-cache.sqlite");
  // Made here: its endpoint is trusted (the run started here) and its calls sealed here.
  auto plan = [&](const QString& name) {
    const auto r =
        ragscope::test::runCliText(generateArgs(server, path(name + ".db"), cache) +
                                   QStringList{"--batch-file", path(name + ".jsonl"), "-q"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  };
  plan("own-model");
  auto items = storeItems(path("own-model.db"));
  QCOMPARE(items.size(), std::size_t{29});
  // Replies that name another model than the one asked: the store takes them, the cache not.
  std::vector<std::string> lines;
  for (const auto& item : items) lines.push_back(okLine(item.key, "B " + item.key, "other-model"));
  writeLines(path("other-model.jsonl"), lines);
  const auto other = ragscope::test::runCliText(
      {"batch", "import", path("own-model.db"), path("other-model.jsonl")});
  QVERIFY2(other.exitCode == 0,
           qPrintable(other.err + other.out + QString::number(other.exitCode)));
  QVERIFY2(other.err.contains("29 answers entered this run only") &&
               other.err.contains("another model") && other.err.contains("other-model"),
           qPrintable(other.err));
  QCOMPARE(snapshot(path("own-model.db")).counts.done, std::size_t{29});
  QCOMPARE(cacheEntries(cache), std::uint64_t{0});

  // The same calls again; one request of the store changed after they were exported (as a store
  // edited elsewhere would be, to have an answer stored for a question of its choosing).
  plan("own-tampered");
  items = storeItems(path("own-tampered.db"));
  json changed = json::parse(items[0].requestJson);
  changed["messages"].back()["content"] =
      changed["messages"].back()["content"].get<std::string>() + " (a question of theirs)";
  {
    SqliteDb db;
    std::string err;
    QVERIFY2(db.open(path("own-tampered.db").toStdString(), false, &err), err.c_str());
    auto st = db.prepare("UPDATE items SET request = ? WHERE key = ?");
    st.bind(1, changed.dump()).bind(2, items[0].key);
    st.step();
    QVERIFY(st.ok());
  }
  lines.clear();
  for (const auto& item : storeItems(path("own-tampered.db")))
    lines.push_back(okLine(item.key, "A" + item.key));
  writeLines(path("own-tampered-out.jsonl"), lines);
  const auto tampered = ragscope::test::runCliText(
      {"batch", "import", path("own-tampered.db"), path("own-tampered-out.jsonl")});
  QVERIFY2(tampered.exitCode == 0, qPrintable(tampered.err));
  QVERIFY2(tampered.out.contains("29 answers"), qPrintable(tampered.out));
  QVERIFY2(tampered.err.contains("1 answers entered this run only") &&
               tampered.err.contains("not exported or submitted from this machine as the run "
                                     "holds them now"),
           qPrintable(tampered.err));
  // The 28 others, asked here as the store holds them, are in the cache; the changed one is not.
  QCOMPARE(cacheEntries(cache), std::uint64_t{28});
  {
    llm::ResponseCache responses;
    std::string err;
    QVERIFY(responses.open(cache.toStdString(), &err));
    llm::EndpointConfig ep;
    ep.baseUrl = server.baseUrl();
    ep.model = "test-model";
    auto http = llm::makeHttpProvider(ep);
    QVERIFY(!responses.lookup(llm::ResponseCache::key(*http, *llm::requestFromJson(changed))));
    QVERIFY(responses.lookup(
        llm::ResponseCache::key(*http, *llm::requestFromJson(json::parse(items[1].requestJson)))));
  }
  // A live run of the original calls: 28 from the cache, one asked.
  const auto live = ragscope::test::runCliText(generateArgs(server, path("own-live.db"), cache) +
                                               QStringList{"-q"});
  QVERIFY2(live.exitCode == 0, qPrintable(live.err));
  QCOMPARE(server.chatRequests(), std::size_t{1});
  QCOMPARE(snapshot(path("own-live.db")).counts.fromCache, std::size_t{28});
}

void TestBatch::completedBatchWithoutResultsIsNeverPaidTwice() {
  TestServer server;
  QVERIFY(server.start());
  const QStringList batchArgs = {"--batch", "--batch-poll", "0.05", "-q"};
  auto created = [&] { return server.batchCounters().batchesCreated; };

  // A download answered with a redirect is no file: an error naming the batch, nothing imported.
  ragscope::testserver::BatchServerOptions redirect;
  redirect.downloadStatus = 302;
  server.setBatchOptions(redirect);
  const QString store = path("redirected.db");
  const auto first = ragscope::test::runCliText(
      generateArgs(server, store, path("redirected-cache.sqlite")) + batchArgs);
  QCOMPARE(first.exitCode, 2);
  const std::string id = storedBatchState(store).batches.at(0).id;
  QVERIFY2(first.err.contains(QString::fromStdString("batch " + id)) && first.err.contains("302") &&
               first.err.contains("nothing was imported"),
           qPrintable(first.err));
  QCOMPARE(snapshot(store).counts.pending, std::size_t{29});
  QVERIFY(!storedBatchState(store).batches.at(0).imported);
  // resume asks the same batch again and never creates a second one.
  const auto again = ragscope::test::runCliText({"resume", store, "--batch-poll", "0.05", "-q"});
  QCOMPARE(again.exitCode, 2);
  QCOMPARE(created(), std::size_t{1});
  QCOMPARE(server.batchCounters().downloads, std::size_t{2});
  // Once the server hands the file over, that batch is imported.
  server.setBatchOptions({});
  const auto fixed = ragscope::test::runCliText({"resume", store, "--batch-poll", "0.05", "-q"});
  QVERIFY2(fixed.exitCode == 0, qPrintable(fixed.err + fixed.out));
  QCOMPARE(snapshot(store).counts.done, std::size_t{29});
  QCOMPARE(created(), std::size_t{1});

  // Completed without output_file_id: refused at every resume, naming the batch, until the user
  // gives it up.
  ragscope::testserver::BatchServerOptions noFile;
  noFile.omitOutputFileId = true;
  server.setBatchOptions(noFile);
  const QString lost = path("nofile.db");
  const auto nofile = ragscope::test::runCliText(
      generateArgs(server, lost, path("nofile-cache.sqlite")) + batchArgs);
  QCOMPARE(nofile.exitCode, 2);
  const std::string lostId = storedBatchState(lost).batches.at(0).id;
  QVERIFY2(nofile.err.contains(QString::fromStdString(
               "batch " + lostId + " is completed but its results are missing")) &&
               nofile.err.contains("no output_file_id") && nofile.err.contains("batch cancel"),
           qPrintable(nofile.err));
  QCOMPARE(created(), std::size_t{2});
  for (int i = 0; i < 2; ++i) {
    const auto r = ragscope::test::runCliText({"resume", lost, "--batch-poll", "0.05", "-q"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("results are missing"), qPrintable(r.err));
    QCOMPARE(created(), std::size_t{2});
    QCOMPARE(snapshot(lost).counts.pending, std::size_t{29});
  }
  // An export would pay for them twice too.
  const auto exported =
      ragscope::test::runCliText({"batch", "export", lost, "--out", path("lost.jsonl")});
  QCOMPARE(exported.exitCode, 2);
  const auto status = ragscope::test::runCliText({"batch", "status", lost});
  QVERIFY2(status.out.contains("results missing"), qPrintable(status.out));
  const auto cancelled = ragscope::test::runCliText({"batch", "cancel", lost});
  QVERIFY2(cancelled.exitCode == 0 && cancelled.out.contains("given up"),
           qPrintable(cancelled.err + cancelled.out));
  QCOMPARE(server.batchCounters().batchesCancelled, std::size_t{0});  // nothing to cancel there
  // Given up by the user: now resume sends the calls in a new batch.
  server.setBatchOptions({});
  const auto resent = ragscope::test::runCliText({"resume", lost, "--batch-poll", "0.05", "-q"});
  QVERIFY2(resent.exitCode == 0, qPrintable(resent.err + resent.out));
  QCOMPARE(created(), std::size_t{3});
  QCOMPARE(snapshot(lost).counts.done, std::size_t{29});

  // Completed, but its output file lacks 3 answers: the 26 are imported, the 3 not sent again.
  ragscope::testserver::BatchServerOptions shortFile;
  shortFile.dropOutputLines = 3;
  server.setBatchOptions(shortFile);
  const QString partial = path("short.db");
  const auto cut = ragscope::test::runCliText(
      generateArgs(server, partial, path("short-cache.sqlite")) + batchArgs);
  QCOMPARE(cut.exitCode, 2);
  QVERIFY2(cut.err.contains("its output and error files hold 26 lines for its 29 calls"),
           qPrintable(cut.err));
  QCOMPARE(snapshot(partial).counts.done, std::size_t{26});
  const auto cutAgain =
      ragscope::test::runCliText({"resume", partial, "--batch-poll", "0.05", "-q"});
  QCOMPARE(cutAgain.exitCode, 2);
  QCOMPARE(created(), std::size_t{4});
  QCOMPARE(snapshot(partial).counts.pending, std::size_t{3});
  QCOMPARE(server.chatRequests(), std::size_t{0});
}

void TestBatch::downloadsStreamToAPrivateFile() {
  TestServer server;
  QVERIFY(server.start());
  llm::EndpointConfig ep;
  ep.baseUrl = server.baseUrl();
  ep.model = "test-model";
  const llm::BatchClient client(ep);
  std::string err, lines;
  for (int i = 0; i < 4; ++i)
    lines +=
        llm::batchInputLine("c" + std::to_string(i), "/v1/chat/completions",
                            llm::buildChatBody(ep, {{"user", "question " + std::to_string(i)}})) +
        "\n";
  const auto file = client.uploadFile(lines, "calls.jsonl", &err);
  QVERIFY2(file, err.c_str());
  const auto batch = client.createBatch(*file, "/v1/chat/completions", &err);
  QVERIFY2(batch && batch->status == "completed", err.c_str());
  const fs::path dir = path("downloads").toStdString();
  fs::create_directories(dir);
  const fs::path to = dir / "out.jsonl";
  // A 2xx: the whole file, created private (0600) whatever the umask.
  QVERIFY2(client.downloadFile(batch->outputFileId, to, 1 << 20, &err), err.c_str());
  QCOMPARE(static_cast<int>(fs::status(to).permissions() & fs::perms::all), 0600);
  const std::string whole = ragscope::test::readText(to);
  QCOMPARE(static_cast<int>(std::count(whole.begin(), whole.end(), '\n')), 4);
  fs::remove(to);
  // Over the bound: refused while it streams, and nothing is left under the name.
  QVERIFY(!client.downloadFile(batch->outputFileId, to, 100, &err));
  QVERIFY2(err.find("larger than 100 bytes") != std::string::npos, err.c_str());
  QVERIFY(!fs::exists(to));
  // A redirect is not the file: refused, nothing written.
  ragscope::testserver::BatchServerOptions redirect;
  redirect.downloadStatus = 302;
  server.setBatchOptions(redirect);
  QVERIFY(!client.downloadFile(batch->outputFileId, to, 1 << 20, &err));
  QVERIFY2(err.find("302") != std::string::npos, err.c_str());
  QVERIFY(!fs::exists(to));
  server.setBatchOptions({});
  // A symlink planted at the name is replaced, never written through.
  const fs::path victim = dir / "victim.txt";
  ragscope::test::writeText(victim, "keep me\n");
  fs::create_symlink(victim, to);
  QVERIFY2(client.downloadFile(batch->outputFileId, to, 1 << 20, &err), err.c_str());
  QCOMPARE(ragscope::test::readText(victim), std::string("keep me\n"));
  QVERIFY(!fs::is_symlink(to) && ragscope::test::readText(to) == whole);

  // A run's downloads go to a file beside its store, removed once imported.
  const QString store = QString::fromStdString((dir / "streamed.db").string());
  const auto run =
      ragscope::test::runCliText(generateArgs(server, store, path("streamed-cache.sqlite")) +
                                 QStringList{"--batch", "--batch-poll", "0.05", "-q"});
  QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
  QCOMPARE(snapshot(store).counts.done, std::size_t{29});
  QCOMPARE(server.batchCounters().downloads, std::size_t{5});
  for (const auto& entry : fs::directory_iterator(dir))
    QVERIFY2(entry.path().filename().string().find("-output.jsonl") == std::string::npos,
             entry.path().c_str());
}

void TestBatch::endpointCredentialsAreRedacted() {
  // The one function every message and record goes through.
  QCOMPARE(redactUrl("https://me:pw@host:8443/v1?api-key=K1&api-version=2024-06-01#x"),
           std::string("https://***@host:8443/v1?api-key=***&api-version=2024-06-01#x"));
  QCOMPARE(redactUrl("http://h/v1?key=K&token=T&access_token=A&code=C&sig=S&q=1"),
           std::string("http://h/v1?key=***&token=***&access_token=***&code=***&sig=***&q=1"));
  QCOMPARE(redactUrl("http://TOKEN@h/v1"), std::string("http://***@h/v1"));
  QCOMPARE(redactUrl("http://127.0.0.1:8000/v1"), std::string("http://127.0.0.1:8000/v1"));
  QCOMPARE(redactUrl("http://host/a@b?x=1"), std::string("http://host/a@b?x=1"));
  QVERIFY(isRedactedUrl(redactUrl("https://u:p@h/v1")));
  QVERIFY(!isRedactedUrl("https://h/v1?q=***"));

  TestServer server;
  QVERIFY(server.start());
  const std::string base = server.baseUrl();  // http://127.0.0.1:PORT/v1
  const std::string secret = "S3CRET-pw-7q";
  const QString withUser = QString::fromStdString("http://alice:" + secret + "@" + base.substr(7));
  const QString withKey = QString::fromStdString(base + "?api-key=" + secret);
  auto args = [&](const QString& url, const QString& name) {
    QStringList a = generateArgs(server, path(name + ".db"), path(name + "-cache.sqlite"));
    a[a.indexOf("--generator") + 1] = url;
    return a + QStringList{"--batch-file", path(name + ".jsonl")};
  };
  for (const auto& [url, name] :
       {std::pair{withUser, QString("cred-user")}, std::pair{withKey, QString("cred-key")}}) {
    const auto r = ragscope::test::runCliText(args(url, name));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("batch file: ") && r.out.contains("***") &&
                 !r.out.contains(QString::fromStdString(secret)) &&
                 !r.err.contains(QString::fromStdString(secret)),
             qPrintable(r.out + r.err));
    // Neither the store (run record, batch state) nor the batch file keeps it.
    for (const QString& f : {path(name + ".db"), path(name + ".db-wal"), path(name + ".jsonl")})
      if (fs::exists(f.toStdString()))
        QVERIFY2(ragscope::test::readText(f.toStdString()).find(secret) == std::string::npos,
                 qPrintable(f));
    QVERIFY2(
        storedBatchState(path(name + ".db")).files.at(0).baseUrl.find("***") != std::string::npos,
        storedBatchState(path(name + ".db")).files.at(0).baseUrl.c_str());
  }
  // On this machine the run resumes with the URL it was started with (the trust registry keeps
  // it): the server sees the user's credentials.
  const auto resumed = ragscope::test::runCliText({"resume", path("cred-user.db"), "-q"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
  QCOMPARE(server.chatRequests(), std::size_t{29});
  const std::string basic =
      "Basic " + QByteArray::fromStdString("alice:" + secret).toBase64().toStdString();
  for (const auto& e : server.log())
    if (e.path == "/v1/chat/completions") QCOMPARE(e.authorization, basic);
  // Elsewhere the store names a URL without its credentials: refused even when confirmed, and
  // the message shows no secret.
  const QString copy = path("cred-copy.db");
  fs::copy_file(path("cred-key.db").toStdString(), copy.toStdString());
  const auto foreign = asOtherUser(path("cred-elsewhere"), [&] {
    return ragscope::test::runCliText({"resume", copy, "--trust-endpoint"});
  });
  QCOMPARE(foreign.exitCode, 2);
  QVERIFY2(foreign.err.contains("credentials are not kept in run stores") &&
               foreign.err.contains("api-key=***") &&
               !foreign.err.contains(QString::fromStdString(secret)),
           qPrintable(foreign.err));
  QCOMPARE(server.chatRequests(), std::size_t{29});
}

QTEST_GUILESS_MAIN(TestBatch)
#include "tst_batch.moc"
