// The run engine and what it stands on: SHA-256, the response cache, the run store, resume,
// budget and estimate, the offline heuristic providers and prompts, secrets hygiene of the CLI,
// and a kill -9 crash test of `ragscope-cli generate` against the test server process.

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "common/cli.h"
#include "core/eval/api/job.h"
#include "core/eval/engine/runengine.h"
#include "core/eval/inputs/storedscores.h"
#include "core/eval/jobs/generatejob.h"
#include "core/eval/jobs/judgejob.h"
#include "core/eval/reports/projectruns.h"
#include "core/export/json.h"
#include "core/llm/cachingprovider.h"
#include "core/llm/httpprovider.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/prompts.h"
#include "core/llm/responsecache.h"
#include "core/llm/routingprovider.h"
#include "core/llm/workerprovider.h"
#include "core/store/runstore.h"
#include "core/util/sha256.h"
#include "core/util/sqlitedb.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using namespace ragscope::core::llm;
using ragscope::core::store::ItemStatus;
using ragscope::core::store::RunStore;

namespace {

// A provider that answers on its own thread after `delayMs`, counting completed calls per prompt.
// cancelAll() answers queued calls Cancelled (they are not counted as completed). The queue and
// worker are production code (WorkerProvider, as under the offline heuristics); this fake only
// says how one call is answered.
class FakeProvider final : public WorkerProvider {
 public:
  struct Counter {
    std::mutex mutex;
    std::map<std::string, int> completed;  // prompt -> Ok answers delivered
    int submitted = 0;
    int total() {
      std::lock_guard lock(mutex);
      int n = 0;
      for (const auto& [k, v] : completed) n += v;
      return n;
    }
  };

  FakeProvider(std::shared_ptr<Counter> counter, int delayMs = 0, double costPerCall = 0.0)
      : m_counter(std::move(counter)), m_delayMs(delayMs), m_cost(costPerCall) {
    m_config.name = "fake";
    m_config.baseUrl = "http://fake.invalid/v1";
    m_config.model = "fake-model";
    start();
  }
  ~FakeProvider() override { stop(); }

  EndpointConfig& mutableConfig() { return m_config; }
  std::set<std::string> failPrompts;  // answered with an error

  std::string cacheIdentity() const override { return "fake|" + m_config.model; }
  std::string requestBody(const LlmRequest& r) const override { return toJson(r).dump(); }
  void submit(LlmRequest request, ResponseCallback done) override {
    {
      std::lock_guard lock(m_counter->mutex);
      ++m_counter->submitted;
    }
    WorkerProvider::submit(std::move(request), std::move(done));
  }
  const EndpointConfig& config() const override { return m_config; }

 private:
  LlmResponse answer(const LlmRequest& request) override {
    if (m_delayMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(m_delayMs));
    const std::string prompt = request.messages.empty() ? "" : request.messages.back().content;
    LlmResponse r;
    if (failPrompts.count(prompt)) {
      r.status = CallStatus::Error;
      r.error = "http 500 after 5 attempts";
    } else {
      r.status = CallStatus::Ok;
      r.text = "answer to " + prompt;
      r.usage.promptTokens = 10;
      r.usage.completionTokens = 10;
      r.usage.costUsd = m_cost;
      std::lock_guard lock(m_counter->mutex);
      ++m_counter->completed[prompt];
    }
    return r;
  }

  std::shared_ptr<Counter> m_counter;
  int m_delayMs;
  double m_cost;
  EndpointConfig m_config;
};

std::vector<store::NewItem> makeItems(int n, const std::string& prefix = "p") {
  std::vector<store::NewItem> items;
  for (int i = 0; i < n; ++i) {
    LlmRequest r;
    r.messages.push_back({"user", prefix + std::to_string(i)});
    items.push_back({"k" + std::to_string(i), "test", toJson(r).dump()});
  }
  return items;
}

store::RunRecord testRecord() {
  store::RunRecord rec;
  rec.kind = "test";
  rec.settings = {{"answer", 42}};
  rec.templateText = "T {question}";
  rec.templateHash = templateHash(rec.templateText);
  rec.endpoint = toJson(EndpointConfig{});
  return rec;
}

// Stops the run after `after` committed results.
class StopAfter final : public eval::ProgressListener {
 public:
  StopAfter(std::stop_source& source, int after) : m_source(source), m_after(after) {}
  void onResult(const store::WorkItem&, const store::ItemResult& r) override {
    if (r.status != ItemStatus::Cancelled && ++m_seen >= m_after) m_source.request_stop();
  }
  int seen() const { return m_seen; }

 private:
  std::stop_source& m_source;
  int m_after;
  int m_seen = 0;
};

eval::EngineOptions engineOptions(std::size_t concurrency,
                                  std::optional<double> budget = std::nullopt,
                                  bool retryErrors = false) {
  eval::EngineOptions o;
  o.concurrency = concurrency;
  o.budgetUsd = budget;
  o.retryErrors = retryErrors;
  return o;
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString demoDir() { return QStringLiteral(RAGSCOPE_SOURCE_DIR) + "/resources/demo"; }

// A copy of one of the demo's run stores in `dir`, as `name`.
QString demoStoreCopy(const QTemporaryDir& dir, const QString& demoStore, const QString& name) {
  const QString path = dir.filePath(name);
  QFile::remove(path);
  return QFile::copy(demoDir() + "/runs/" + demoStore, path) ? path : QString();
}

// Runs `sql` on the store at `path` through the SQLite C API, as a hand-made or edited store.
bool execSql(const QString& path, const QString& sql) {
  sqlite3* db = nullptr;
  bool ok =
      sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK;
  char* msg = nullptr;
  ok = ok && sqlite3_exec(db, sql.toUtf8().constData(), nullptr, nullptr, &msg) == SQLITE_OK;
  if (!ok) qWarning("sql failed: %s", msg ? msg : (db ? sqlite3_errmsg(db) : "open"));
  sqlite3_free(msg);
  sqlite3_close(db);
  return ok;
}

// SQLite's own verdict on a store, read without touching it (immutable).
bool integrityOk(const QString& path) {
  sqlite3* db = nullptr;
  const QByteArray uri = "file:" + QUrl::toPercentEncoding(path, "/") + "?mode=ro&immutable=1";
  bool ok = sqlite3_open_v2(uri.constData(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                            nullptr) == SQLITE_OK;
  sqlite3_stmt* st = nullptr;
  ok = ok && sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK;
  const char* verdict = ok && sqlite3_step(st) == SQLITE_ROW
                            ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0))
                            : nullptr;
  ok = verdict && std::string(verdict) == "ok";
  sqlite3_finalize(st);
  sqlite3_close(db);
  return ok;
}

// The bytes of `source` with `flips` random bits flipped (past the 100-byte header), seeded.
QByteArray flippedBytes(const QByteArray& source, std::uint32_t seed, int flips) {
  QByteArray b = source;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pos(100, int(b.size()) - 1), bit(0, 7);
  for (int i = 0; i < flips; ++i) {
    const int p = pos(rng);
    b[p] = char(b[p] ^ (1 << bit(rng)));
  }
  return b;
}

bool writeBytes(const QString& path, const QByteArray& bytes) {
  QFile::remove(path);
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// File names and modification times of a folder's files (nanoseconds), to see that nothing was
// written or created.
std::map<QString, std::int64_t> folderState(const QString& dir) {
  std::map<QString, std::int64_t> state;
  QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    struct stat st {};
    if (::stat(QFile::encodeName(f).constData(), &st) == 0)
      state[f] = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  return state;
}

}  // namespace

class TestEngine : public QObject {
  Q_OBJECT

 private slots:
  void invalidUtf8InRecordsIsStored();
  void sha256_data();
  void sha256();
  void sha256CopyContinues();
  void prompts();
  void cacheHitMiss();
  void cacheOnlySuccess();
  void cachedAnswersInWindows();
  void routedKnownAnswers();
  void storeRoundTrip();
  void resumeAfterStop();
  void retryErrors();
  void budgetPause();
  void estimateNumbers();
  void offlineReader_data();
  void offlineReader();
  void offlineJudge_data();
  void offlineJudge();
  void offlineSplitter();
  void offlineProviderEndToEnd();
  void cliGenerateOffline();
  void secretsNeverWritten();
  void crashAndResume();
  void brokenStoresAreRefused_data();
  void brokenStoresAreRefused();
  void flippedBytesNeverAbortOrMislead();
  void storeIntegrityCost();
  void viewingWritesNothing_data();
  void viewingWritesNothing();
};

void TestEngine::sha256_data() {
  QTest::addColumn<QByteArray>("input");
  QTest::addColumn<QString>("hex");
  // FIPS 180-2 test vectors.
  QTest::newRow("empty") << QByteArray()
                         << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  QTest::newRow("abc") << QByteArray("abc")
                       << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  QTest::newRow("448 bits") << QByteArray(
                                   "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                            << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
  QTest::newRow("million a") << QByteArray(1000000, 'a')
                             << "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
}

void TestEngine::sha256() {
  QFETCH(QByteArray, input);
  QFETCH(QString, hex);
  QCOMPARE(QString::fromStdString(sha256Hex(std::string_view(input.constData(), input.size()))),
           hex);
  // Fed in odd pieces, the same digest.
  Sha256 h;
  for (qsizetype i = 0; i < input.size(); i += 37) {
    h.update(input.constData() + i,
             static_cast<std::size_t>(std::min<qsizetype>(37, input.size() - i)));
  }
  QCOMPARE(QString::fromStdString(h.hexDigest()), hex);
}

void TestEngine::sha256CopyContinues() {
  // A copy carries the state hashed so far and goes on apart from its original (FIPS 180-2
  // "abc"); a moved-to hash goes on where the moved one was.
  const std::string abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  Sha256 a;
  a.update("a");
  Sha256 copy = a;
  copy.update("bc");
  QCOMPARE(copy.hexDigest(), abc);
  a.update("bc");
  Sha256 assigned;
  assigned.update("unrelated");
  assigned = a;
  QCOMPARE(a.hexDigest(), abc);
  QCOMPARE(assigned.hexDigest(), abc);
  Sha256 b;
  b.update("ab");
  Sha256 moved = std::move(b);
  // The moved-from hash takes a copy again.
  b = moved;
  moved.update("c");
  QCOMPARE(moved.hexDigest(), abc);
  b.update("c");
  QCOMPARE(b.hexDigest(), abc);
}

void TestEngine::prompts() {
  const std::string out = renderTemplate("Q: {question} / {documents} / {unknown}",
                                         {{"question", "why {documents}?"}, {"documents", "D"}});
  // Values are not re-expanded; unknown placeholders stay.
  QCOMPARE(QString::fromStdString(out), QString("Q: why {documents}? / D / {unknown}"));
  QCOMPARE(templateHash(defaultRagTemplate()), sha256Hex(defaultRagTemplate()));
  QCOMPARE(QString::fromStdString(formatPassages({"a", "b"})),
           QString("Passage 1: a\n\nPassage 2: b"));
  // The default templates parse back into their sections.
  const auto rag = parsePromptSections(renderTemplate(
      defaultRagTemplate(),
      {{"question", "Who?"}, {"documents", formatPassages({"One.\nTwo.", "Three."})}}));
  QCOMPARE(QString::fromStdString(rag.question), QString("Who?"));
  QCOMPARE(rag.passages.size(), std::size_t{2});
  QCOMPARE(QString::fromStdString(rag.passages[0]), QString("One.\nTwo."));
  const auto judge = parsePromptSections(renderTemplate(
      defaultClaimJudgeTemplate(),
      {{"documents", formatPassages({"X."})}, {"claims", formatClaims({"c1", "c2"})}}));
  QCOMPARE(judge.claims.size(), std::size_t{2});
  QCOMPARE(judge.passages.size(), std::size_t{1});
  const auto split = parsePromptSections(
      renderTemplate(defaultClaimExtractionTemplate(), {{"text", "A b. C d."}}));
  QVERIFY(split.hasText);
  QCOMPARE(QString::fromStdString(split.text), QString("A b. C d."));
}

void TestEngine::cacheHitMiss() {
  QTemporaryDir dir;
  ResponseCache cache;
  std::string err;
  QVERIFY2(cache.open((dir.path() + "/cache/responses.sqlite").toStdString(), &err), err.c_str());
  auto counter = std::make_shared<FakeProvider::Counter>();
  const auto items = makeItems(50);
  for (int round = 0; round < 2; ++round) {
    RunStore store;
    QVERIFY2(store.create((dir.path() + "/run" + QString::number(round) + ".db").toStdString(),
                          testRecord(), &err),
             err.c_str());
    QVERIFY(store.addItems(items, &err));
    CachingProvider provider(std::make_unique<FakeProvider>(counter, 0), cache);
    const auto summary = eval::executeRun(store, provider, engineOptions(4), nullptr, {});
    QCOMPARE(summary.outcome, eval::RunOutcome::Done);
    QCOMPARE(summary.progress.done, std::size_t{50});
    QCOMPARE(summary.progress.fromCache, round == 0 ? std::size_t{0} : std::size_t{50});
    const auto results = store.results();
    QCOMPARE(results.size(), std::size_t{50});
    for (const auto& r : results) QCOMPARE(r.result.fromCache, round == 1);
    QCOMPARE(QString::fromStdString(results[7].result.text), QString("answer to p7"));
  }
  // The second run made no provider call at all.
  QCOMPARE(counter->submitted, 50);
  QCOMPARE(counter->total(), 50);
  QCOMPARE(cache.entryCount(), std::uint64_t{50});
  // Another model is another identity: a miss.
  FakeProvider other(counter);
  other.mutableConfig().model = "other";
  LlmRequest r;
  r.messages.push_back({"user", "p1"});
  QVERIFY(!cache.lookup(ResponseCache::key(other, r)));
}

void TestEngine::cacheOnlySuccess() {
  QTemporaryDir dir;
  ResponseCache cache;
  std::string err;
  QVERIFY(cache.open((dir.path() + "/c.sqlite").toStdString(), &err));
  auto counter = std::make_shared<FakeProvider::Counter>();
  const auto items = makeItems(10);
  for (int round = 0; round < 2; ++round) {
    RunStore store;
    QVERIFY(store.create((dir.path() + "/r" + QString::number(round) + ".db").toStdString(),
                         testRecord(), &err));
    QVERIFY(store.addItems(items, &err));
    auto fake = std::make_unique<FakeProvider>(counter);
    fake->failPrompts = {"p3", "p4"};
    CachingProvider provider(std::move(fake), cache);
    const auto summary = eval::executeRun(store, provider, engineOptions(2), nullptr, {});
    QCOMPARE(summary.outcome, eval::RunOutcome::DoneWithErrors);
    QCOMPARE(summary.progress.errors, std::size_t{2});
    QCOMPARE(store.counts().errors, std::size_t{2});
  }
  // The failed calls were asked again; the good ones came from the cache.
  QCOMPARE(counter->submitted, 12);
  QCOMPARE(cache.entryCount(), std::uint64_t{8});
}

// The engine reads calls a window at a time and takes the cache's answers for the whole window
// (CachingProvider::knownAnswers): a run of more calls than one window, every other one cached,
// sends exactly the others, and each item gets its own answer.
void TestEngine::cachedAnswersInWindows() {
  QTemporaryDir dir;
  ResponseCache cache;
  std::string err;
  QVERIFY(cache.open((dir.path() + "/c.sqlite").toStdString(), &err));
  auto counter = std::make_shared<FakeProvider::Counter>();
  const int n = 9000;  // more than two windows of 4096
  const auto all = makeItems(n);
  std::vector<store::NewItem> even;
  for (int i = 0; i < n; i += 2) even.push_back(all[static_cast<std::size_t>(i)]);
  {
    RunStore store;
    QVERIFY(store.create((dir.path() + "/even.db").toStdString(), testRecord(), &err));
    QVERIFY(store.addItems(even, &err));
    CachingProvider provider(std::make_unique<FakeProvider>(counter), cache);
    QCOMPARE(eval::executeRun(store, provider, engineOptions(8), nullptr, {}).outcome,
             eval::RunOutcome::Done);
  }
  QCOMPARE(counter->submitted, n / 2);
  const auto hitsBefore = cache.hits();
  RunStore store;
  QVERIFY(store.create((dir.path() + "/all.db").toStdString(), testRecord(), &err));
  QVERIFY(store.addItems(all, &err));
  CachingProvider provider(std::make_unique<FakeProvider>(counter), cache);
  const auto summary = eval::executeRun(store, provider, engineOptions(8), nullptr, {});
  QCOMPARE(summary.outcome, eval::RunOutcome::Done);
  QCOMPARE(summary.progress.done, std::size_t(n));
  QCOMPARE(summary.progress.fromCache, std::size_t(n / 2));
  QCOMPARE(counter->submitted, n);  // the odd half, once each
  QCOMPARE(cache.hits() - hitsBefore, std::uint64_t(n / 2));
  int checked = 0;
  for (const auto& r : store.results()) {
    const int i = std::stoi(r.key.substr(1));
    QCOMPARE(QString::fromStdString(r.result.text), QString("answer to p%1").arg(i));
    QCOMPARE(r.result.fromCache, i % 2 == 0);
    QCOMPARE(r.result.usage.costUsd, 0.0);
    ++checked;
  }
  QCOMPARE(checked, n);
}

// A routed job asks each endpoint's cache for its own calls; the answers go back to their slots.
void TestEngine::routedKnownAnswers() {
  QTemporaryDir dir;
  ResponseCache cache;
  std::string err;
  QVERIFY(cache.open((dir.path() + "/c.sqlite").toStdString(), &err));
  auto counter = std::make_shared<FakeProvider::Counter>();
  auto mainFake = std::make_unique<FakeProvider>(counter);
  auto genFake = std::make_unique<FakeProvider>(counter);
  genFake->mutableConfig().model = "generator-model";
  FakeProvider mainId(counter), genId(counter);
  genId.mutableConfig().model = "generator-model";
  auto request = [](const std::string& text, const std::string& route) {
    LlmRequest r;
    r.messages.push_back({"user", text});
    r.route = route;
    return r;
  };
  const std::vector<LlmRequest> asked = {request("b", "generator"), request("a", ""),
                                         request("b", ""), request("a", "generator"),
                                         request("a", "unknown-route")};
  LlmResponse answer;
  answer.status = CallStatus::Ok;
  // Cached: "b" by the generator, "a" and the unknown route's "a" by the main endpoint.
  answer.text = "generator b";
  QVERIFY(cache.store(ResponseCache::key(genId, asked[0]), genId.cacheIdentity(), answer));
  answer.text = "main a";
  QVERIFY(cache.store(ResponseCache::key(mainId, asked[1]), mainId.cacheIdentity(), answer));
  answer.text = "main, unknown route";
  QVERIFY(cache.store(ResponseCache::key(mainId, asked[4]), mainId.cacheIdentity(), answer));
  RoutingProvider routing(std::make_unique<CachingProvider>(std::move(mainFake), cache));
  routing.addRoute("generator", std::make_unique<CachingProvider>(std::move(genFake), cache));
  std::vector<const LlmRequest*> pointers;
  for (const auto& r : asked) pointers.push_back(&r);
  const auto known = routing.knownAnswers(pointers);
  QCOMPARE(known.size(), asked.size());
  QVERIFY(known[0] && known[0]->text == "generator b" && known[0]->fromCache);
  QVERIFY(known[1] && known[1]->text == "main a");
  QVERIFY(!known[2]);  // "b" was never answered by the main endpoint
  QVERIFY(!known[3]);  // nor "a" by the generator
  QVERIFY(known[4] &&
          known[4]->text == "main, unknown route");  // an unknown route is the main endpoint's
  QCOMPARE(counter->submitted, 0);
}

void TestEngine::storeRoundTrip() {
  QTemporaryDir dir;
  const std::string path = (dir.path() + "/run.db").toStdString();
  std::string err;
  {
    RunStore store;
    QVERIFY2(store.create(path, testRecord(), &err), err.c_str());
    QVERIFY(store.addItems(makeItems(3), &err));
    QVERIFY(store.addItems(makeItems(4), &err));  // k0..k2 already there: kept, k3 added
    auto items = store.items();
    QCOMPARE(items.size(), std::size_t{4});
    store::ItemResult ok;
    ok.itemId = items[0].id;
    ok.text = "héllo \"quoted\"\nline";
    ok.usage = {12, 34, 0.5};
    ok.latencyMs = 12.5;
    ok.httpStatus = 200;
    ok.heuristic = true;
    store::ItemResult bad;
    bad.itemId = items[1].id;
    bad.status = ItemStatus::Error;
    bad.error = "timeout after 60 s";
    store::ItemResult cancelled;
    cancelled.itemId = items[2].id;
    cancelled.status = ItemStatus::Cancelled;
    QVERIFY2(store.commitResults({ok, bad, cancelled}, &err), err.c_str());
    QVERIFY(store.setStatus("paused: budget"));
  }
  QVERIFY(RunStore::looksLikeRunStore(path));
  RunStore again;
  QVERIFY(!again.create(path, testRecord(), &err));  // never overwritten
  QVERIFY2(again.open(path, &err), err.c_str());
  const auto rec = again.run();
  QCOMPARE(QString::fromStdString(rec.kind), QString("test"));
  QCOMPARE(rec.settings.value("answer", 0), 42);
  QCOMPARE(QString::fromStdString(rec.templateHash),
           QString::fromStdString(sha256Hex("T {question}")));
  QCOMPARE(QString::fromStdString(rec.status), QString("paused: budget"));
  const auto c = again.counts();
  QCOMPARE(c.total, std::size_t{4});
  QCOMPARE(c.done, std::size_t{1});
  QCOMPARE(c.errors, std::size_t{1});
  QCOMPARE(c.cancelled, std::size_t{1});
  QCOMPARE(c.pending, std::size_t{1});
  QCOMPARE(c.promptTokens, std::int64_t{12});
  QCOMPARE(c.heuristic, std::size_t{1});
  const auto results = again.results();
  QCOMPARE(results.size(), std::size_t{2});
  QCOMPARE(QString::fromStdString(results[0].result.text),
           QString::fromUtf8("héllo \"quoted\"\nline"));
  QCOMPARE(results[0].result.latencyMs, 12.5);
  QCOMPARE(QString::fromStdString(results[1].result.error), QString("timeout after 60 s"));
  QCOMPARE(again.itemsToRun(false).size(), std::size_t{2});  // cancelled + pending
  QCOMPARE(again.itemsToRun(true).size(), std::size_t{3});
  const auto items = again.items();
  QCOMPARE(items[0].attempts, 1);
  QCOMPARE(items[2].attempts, 0);  // a cancelled call is no attempt
  // Schema version is recorded.
  SqliteDb raw;
  QVERIFY(raw.open(path, false, &err));
  QCOMPARE(raw.userVersion(), RunStore::kSchemaVersion);
}

void TestEngine::resumeAfterStop() {
  QTemporaryDir dir;
  const std::string path = (dir.path() + "/run.db").toStdString();
  std::string err;
  const int n = 120;
  auto counter = std::make_shared<FakeProvider::Counter>();
  {
    RunStore store;
    QVERIFY(store.create(path, testRecord(), &err));
    QVERIFY(store.addItems(makeItems(n), &err));
    FakeProvider provider(counter, 2);
    std::stop_source source;
    StopAfter stopper(source, 40);
    const auto summary =
        eval::executeRun(store, provider, engineOptions(6), &stopper, source.get_token());
    QCOMPARE(summary.outcome, eval::RunOutcome::Cancelled);
    QCOMPARE(QString::fromStdString(store.run().status), QString("cancelled"));
    const auto c = store.counts();
    QVERIFY(c.done >= 40 && c.done < static_cast<std::size_t>(n));
    QCOMPARE(static_cast<int>(c.done), counter->total());  // committed == completed
  }
  {
    RunStore store;
    QVERIFY(store.open(path, &err));
    FakeProvider provider(counter, 1);
    const auto summary = eval::executeRun(store, provider, engineOptions(6), nullptr, {});
    QCOMPARE(summary.outcome, eval::RunOutcome::Done);
    QVERIFY(summary.skipped >= 40);
    const auto c = store.counts();
    QCOMPARE(c.done, std::size_t{n});
    for (const auto& item : store.items()) QCOMPARE(item.attempts, 1);
  }
  // Every item was completed exactly once by a provider.
  QCOMPARE(static_cast<int>(counter->completed.size()), n);
  for (const auto& [prompt, times] : counter->completed) QCOMPARE(times, 1);
  // A finished run resumed again does nothing.
  RunStore store;
  QVERIFY(store.open(path, &err));
  FakeProvider provider(counter, 0);
  const int before = counter->submitted;
  QCOMPARE(eval::executeRun(store, provider, {}, nullptr, {}).outcome, eval::RunOutcome::Done);
  QCOMPARE(counter->submitted, before);
}

void TestEngine::retryErrors() {
  QTemporaryDir dir;
  const std::string path = (dir.path() + "/run.db").toStdString();
  std::string err;
  auto counter = std::make_shared<FakeProvider::Counter>();
  RunStore store;
  QVERIFY(store.create(path, testRecord(), &err));
  QVERIFY(store.addItems(makeItems(10), &err));
  {
    FakeProvider provider(counter);
    provider.failPrompts = {"p2", "p5"};
    QCOMPARE(eval::executeRun(store, provider, {}, nullptr, {}).outcome,
             eval::RunOutcome::DoneWithErrors);
  }
  FakeProvider provider(counter);
  // Without the flag errors stay; with it they are redone (and now succeed).
  auto s1 = eval::executeRun(store, provider, {}, nullptr, {});
  QCOMPARE(s1.outcome, eval::RunOutcome::DoneWithErrors);
  QCOMPARE(counter->submitted, 10);
  auto s2 = eval::executeRun(store, provider, engineOptions(8, std::nullopt, true), nullptr, {});
  QCOMPARE(s2.outcome, eval::RunOutcome::Done);
  QCOMPARE(counter->submitted, 12);
  QCOMPARE(store.counts().done, std::size_t{10});
  QCOMPARE(store.items()[2].attempts, 2);
}

void TestEngine::budgetPause() {
  QTemporaryDir dir;
  const std::string path = (dir.path() + "/run.db").toStdString();
  std::string err;
  auto counter = std::make_shared<FakeProvider::Counter>();
  RunStore store;
  QVERIFY(store.create(path, testRecord(), &err));
  QVERIFY(store.addItems(makeItems(20), &err));
  {
    // Each call reports $0.01; before any answer the engine estimates max_tokens (10) at
    // $1/1k output tokens = $0.01 too.
    FakeProvider provider(counter, 0, 0.01);
    provider.mutableConfig().maxTokens = 10;
    provider.mutableConfig().pricePer1kOutput = 1.0;
    const auto s = eval::executeRun(store, provider, engineOptions(1, 0.055), nullptr, {});
    QCOMPARE(s.outcome, eval::RunOutcome::PausedBudget);
    QCOMPARE(s.progress.done, std::size_t{5});
    QVERIFY(s.progress.costUsd <= 0.055);
    QCOMPARE(QString::fromStdString(store.run().status), QString("paused: budget"));
  }
  {
    // Concurrency does not let in-flight calls overshoot: they are counted before submission.
    FakeProvider provider(counter, 1, 0.01);
    provider.mutableConfig().maxTokens = 10;
    provider.mutableConfig().pricePer1kOutput = 1.0;
    const auto s = eval::executeRun(store, provider, engineOptions(8, 0.125), nullptr, {});
    QCOMPARE(s.outcome, eval::RunOutcome::PausedBudget);
    QCOMPARE(store.counts().done, std::size_t{12});
    const auto s2 = eval::executeRun(store, provider, engineOptions(8, 1.0), nullptr, {});
    QCOMPARE(s2.outcome, eval::RunOutcome::Done);
  }
  QCOMPARE(store.counts().done, std::size_t{20});
  QCOMPARE(counter->submitted, 20);
  QVERIFY(std::abs(store.counts().costUsd - 0.20) < 1e-9);
}

void TestEngine::estimateNumbers() {
  QTemporaryDir dir;
  std::string err;
  std::vector<store::NewItem> items;
  for (int i = 0; i < 3; ++i) {
    LlmRequest r;
    r.messages.push_back({"system", std::string(100, 's')});
    r.messages.push_back({"user", std::string(300, 'u')});  // 400 bytes -> 100 tokens
    items.push_back({"e" + std::to_string(i), "test", toJson(r).dump()});
  }
  auto counter = std::make_shared<FakeProvider::Counter>();
  FakeProvider provider(counter);
  provider.mutableConfig().maxTokens = 50;
  provider.mutableConfig().pricePer1kInput = 1.0;
  provider.mutableConfig().pricePer1kOutput = 2.0;
  const auto e = eval::estimateItems(items, provider);
  QCOMPARE(e.calls, std::size_t{3});
  QCOMPARE(e.promptTokens, std::int64_t{300});
  QCOMPARE(e.completionTokens, std::int64_t{150});
  QVERIFY(std::abs(e.costUsd - (0.3 + 0.3)) < 1e-12);
  // From a store with one item done: two calls left.
  RunStore store;
  QVERIFY(store.create((dir.path() + "/r.db").toStdString(), testRecord(), &err));
  QVERIFY(store.addItems(items, &err));
  store::ItemResult done;
  done.itemId = store.items()[0].id;
  QVERIFY(store.commitResults({done}, &err));
  const auto e2 = eval::estimateRun(store, provider, false);
  QCOMPARE(e2.calls, std::size_t{2});
  QCOMPARE(e2.alreadyDone, std::size_t{1});
  QCOMPARE(e2.promptTokens, std::int64_t{200});
  QVERIFY(std::abs(e2.costUsd - 0.4) < 1e-12);
  QCOMPARE(counter->submitted, 0);  // an estimate calls nothing
}

void TestEngine::offlineReader_data() {
  QTest::addColumn<QString>("question");
  QTest::addColumn<QStringList>("passages");
  QTest::addColumn<QString>("expected");
  const QStringList bridge = {
      "The Kessel Bridge crosses the Amber River. The Kessel Bridge was designed by Lena Hart. The "
      "bridge opened "
      "to traffic in 1931 after four years of work.",
      "The Amber River floods most springs. A ferry ran before any bridge existed."};
  QTest::newRow("year") << "When did the Kessel Bridge open to traffic?" << bridge
                        << "The bridge opened to traffic in 1931 after four years of work.";
  QTest::newRow("designer") << "Who designed the Kessel Bridge?" << bridge
                            << "The Kessel Bridge was designed by Lena Hart.";
  QTest::newRow("second passage") << "What ran before the bridge existed?" << bridge
                                  << "A ferry ran before any bridge existed.";
  QTest::newRow("no overlap") << "What is the capital of Peru?" << bridge << "I do not know.";
  QTest::newRow("no passages") << "Who designed the Kessel Bridge?" << QStringList()
                               << "I do not know.";
}

void TestEngine::offlineReader() {
  QFETCH(QString, question);
  QFETCH(QStringList, passages);
  QFETCH(QString, expected);
  std::vector<std::string> p;
  for (const auto& s : passages) p.push_back(s.toStdString());
  QCOMPARE(QString::fromStdString(lexicalRead(question.toStdString(), p)), expected);
  // Through the default prompt, as the provider sees it.
  const std::string prompt =
      renderTemplate(defaultRagTemplate(),
                     {{"question", question.toStdString()}, {"documents", formatPassages(p)}});
  QCOMPARE(QString::fromStdString(offlineAnswer(OfflineRole::Reader, prompt)), expected);
}

void TestEngine::offlineJudge_data() {
  QTest::addColumn<QString>("claim");
  QTest::addColumn<bool>("supported");
  QTest::newRow("right") << "Revenue was $1,234 million in 2022" << true;
  QTest::newRow("wrong year") << "Revenue was $1,234 million in 1922" << false;
  QTest::newRow("wrong amount") << "Revenue was $1,243 million in 2022" << false;
  QTest::newRow("paraphrase numbers") << "In fiscal 2022 revenue totalled 1234 million" << true;
  QTest::newRow("unrelated words") << "The chief executive resigned in 2022" << false;
  QTest::newRow("decimal") << "Gross margin reached 41.50 percent" << true;
}

void TestEngine::offlineJudge() {
  QFETCH(QString, claim);
  QFETCH(bool, supported);
  const std::vector<std::string> docs = {
      "Total revenue was $1,234 million for fiscal 2022, up from $1,100 million.",
      "Gross margin reached 41.5 percent."};
  const std::vector<std::string> claims = {claim.toStdString()};
  const std::string expected =
      "- " + claim.toStdString() + (supported ? " SUPPORTED=1" : " SUPPORTED=0");
  QCOMPARE(QString::fromStdString(lexicalJudge(claims, docs)), QString::fromStdString(expected));
  const std::string prompt =
      renderTemplate(defaultClaimJudgeTemplate(),
                     {{"documents", formatPassages(docs)}, {"claims", formatClaims(claims)}});
  QCOMPARE(QString::fromStdString(offlineAnswer(OfflineRole::Auto, prompt)),
           QString::fromStdString(expected));
}

void TestEngine::offlineSplitter() {
  const auto claims = lexicalSplitClaims(
      "Apple reported revenue of $81.8 billion in Q3 2023, and services revenue set an all-time "
      "record. The CEO is Tim Cook; he joined in 1998. Short one.");
  QStringList got;
  for (const auto& c : claims) got << QString::fromStdString(c);
  QCOMPARE(got, QStringList({"Apple reported revenue of $81.8 billion in Q3 2023",
                             "services revenue set an all-time record", "The CEO is Tim Cook",
                             "he joined in 1998", "Short one"}));
  const std::string prompt =
      renderTemplate(defaultClaimExtractionTemplate(), {{"text", "A cat sat. A dog ran."}});
  QCOMPARE(QString::fromStdString(offlineAnswer(OfflineRole::Auto, prompt)),
           QString("- A cat sat\n- A dog ran"));
}

void TestEngine::offlineProviderEndToEnd() {
  auto provider = makeOfflineProvider(OfflineRole::Reader);
  QVERIFY(provider->isHeuristic());
  QCOMPARE(QString::fromStdString(provider->config().baseUrl), QString("offline"));
  std::mutex m;
  std::vector<LlmResponse> got;
  for (int i = 0; i < 20; ++i) {
    LlmRequest r;
    r.messages.push_back(
        {"user", renderTemplate(defaultRagTemplate(),
                                {{"question", "Who designed it?"},
                                 {"documents",
                                  formatPassages({"It was designed by Lena Hart. It is red."})}})});
    provider->submit(std::move(r), [&](LlmResponse resp) {
      std::lock_guard lock(m);
      got.push_back(std::move(resp));
    });
  }
  provider->waitIdle();
  QCOMPARE(got.size(), std::size_t{20});
  for (const auto& r : got) {
    QCOMPARE(r.status, CallStatus::Ok);
    QVERIFY(r.heuristic);
    QCOMPARE(QString::fromStdString(r.text), QString("It was designed by Lena Hart."));
  }
}

void TestEngine::cliGenerateOffline() {
  QTemporaryDir dir;
  const QString demo = QStringLiteral(RAGSCOPE_SOURCE_DIR) + "/resources/demo/";
  QProcess cli;
  cli.setWorkingDirectory(dir.path());
  cli.start(RAGSCOPE_CLI_PATH,
            {"generate", "--dataset", demo + "topics.tsv", "--dataset", demo + "collection.tsv",
             "--run", demo + "run-good.trec", "--k", "3", "--store", dir.path() + "/g.db", "--out",
             dir.path() + "/a.jsonl", "--quiet"});
  QVERIFY(cli.waitForFinished(60000));
  QCOMPARE(cli.exitCode(), 0);
  const auto lines = readAll(dir.path() + "/a.jsonl").trimmed().split('\n');
  QCOMPARE(lines.size(), 29);  // 29 demo questions
  const auto first = nlohmann::json::parse(lines[0].toStdString());
  QCOMPARE(QString::fromStdString(first["qid"].get<std::string>()), QString("q01"));
  QVERIFY(first["heuristic"].get<bool>());
  QVERIFY(first["error"].is_null());
  QVERIFY(QString::fromStdString(first["answer"].get<std::string>()).contains("1962"));
  // runs lists it; resume of a finished run makes no call and exits 0.
  QProcess runs;
  runs.start(RAGSCOPE_CLI_PATH, {"runs", dir.path(), "--json"});
  QVERIFY(runs.waitForFinished(30000));
  const auto list = nlohmann::json::parse(runs.readAllStandardOutput().toStdString());
  QCOMPARE(list.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(list[0]["status"].get<std::string>()), QString("done"));
  QCOMPARE(list[0]["done"].get<int>(), 29);
  QProcess resume;
  resume.start(RAGSCOPE_CLI_PATH, {"resume", dir.path() + "/g.db", "--quiet"});
  QVERIFY(resume.waitForFinished(30000));
  QCOMPARE(resume.exitCode(), 0);
  QVERIFY(resume.readAllStandardOutput().contains("0 calls"));
}

void TestEngine::secretsNeverWritten() {
  QTemporaryDir dir;
  const QByteArray marker =
      "rgs-secret-" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
  ragscope::testserver::Options options;
  options.requiredApiKey = marker.toStdString();  // the key must really travel
  options.logPath = (dir.path() + "/server.log").toStdString();
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  QFile topics(dir.path() + "/topics.tsv");
  QVERIFY(topics.open(QIODevice::WriteOnly));
  for (int i = 0; i < 10; ++i)
    topics.write(QByteArray("s") + QByteArray::number(i) + "\tquestion number " +
                 QByteArray::number(i) + "\n");
  topics.close();
  QProcess cli;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("RAGSCOPE_TEST_KEY", QString::fromLatin1(marker));
  cli.setProcessEnvironment(env);
  cli.setWorkingDirectory(dir.path());
  cli.start(RAGSCOPE_CLI_PATH,
            {"generate", "--dataset", dir.path() + "/topics.tsv", "--format", "topics-tsv",
             "--generator", QString::fromStdString(server.baseUrl()), "--model", "test-model",
             "--api-key-env", "RAGSCOPE_TEST_KEY", "--store", dir.path() + "/run.db", "--cache",
             dir.path() + "/cache.sqlite", "--out", dir.path() + "/out.jsonl"});
  QVERIFY(cli.waitForFinished(60000));
  const QByteArray out = cli.readAllStandardOutput() + cli.readAllStandardError();
  QVERIFY2(cli.exitCode() == 0, out.constData());
  QVERIFY(!out.contains(marker));
  // The exports of an eRAG run (per-document labels, the --json report) and a resume of it.
  const QString demo = QStringLiteral(RAGSCOPE_SOURCE_DIR) + "/resources/demo/";
  const QStringList eragArgs = {"erag",
                                "--dataset",
                                demo + "collection.tsv",
                                "--dataset",
                                demo + "demo-kilt.jsonl",
                                "--run",
                                demo + "run-good.trec",
                                "--k",
                                "2",
                                "--metric",
                                "contains",
                                "--measures",
                                "P_2,success_2",
                                "--generator",
                                QString::fromStdString(server.baseUrl()),
                                "--model",
                                "test-model",
                                "--api-key-env",
                                "RAGSCOPE_TEST_KEY",
                                "--store",
                                dir.path() + "/erag.db",
                                "--cache",
                                dir.path() + "/cache.sqlite",
                                "--labels-out",
                                dir.path() + "/labels.json",
                                "--json"};
  for (const QStringList& args :
       {eragArgs,
        QStringList{"resume", dir.path() + "/erag.db", "--api-key-env", "RAGSCOPE_TEST_KEY"},
        QStringList{"runs", dir.path(), "--json"}}) {
    QProcess step;
    step.setProcessEnvironment(env);
    step.setWorkingDirectory(dir.path());
    step.start(RAGSCOPE_CLI_PATH, args);
    QVERIFY(step.waitForFinished(60000));
    const QByteArray text = step.readAllStandardOutput() + step.readAllStandardError();
    QVERIFY2(step.exitCode() == 0, qPrintable(args.first() + ": " + text));
    QVERIFY2(!text.contains(marker), qPrintable(args.first()));
  }
  QVERIFY(QFileInfo(dir.path() + "/labels.json").size() > 0);
  // The server saw the key on every request (so it was used), and accepted them: the ten
  // generate calls and one per eRAG document (no cached reply repeats a call).
  const auto log = server.log();
  QVERIFY2(log.size() > std::size_t{10}, qPrintable(QString::number(log.size())));
  for (const auto& e : log) {
    QCOMPARE(QByteArray::fromStdString(e.authorization), "Bearer " + marker);
    QCOMPARE(e.status, 200);
  }
  server.stop();
  // No byte of any file the run wrote holds the key (store incl. WAL, cache, answers, log).
  int files = 0;
  QDirIterator it(dir.path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    ++files;
    QVERIFY2(!readAll(f).contains(marker), qPrintable(f));
  }
  QVERIFY(files >= 4);
  // The variable's name is stored (resume needs it), never its value.
  RunStore store;
  std::string err;
  QVERIFY(store.open((dir.path() + "/run.db").toStdString(), &err));
  QCOMPARE(QString::fromStdString(store.run().endpoint.value("api_key_env", std::string())),
           QString("RAGSCOPE_TEST_KEY"));
  QCOMPARE(store.counts().done, std::size_t{10});
}

void TestEngine::crashAndResume() {
  QTemporaryDir dir;
  const int n = 500;
  const int concurrency = 8;
  QFile topics(dir.path() + "/topics.tsv");
  QVERIFY(topics.open(QIODevice::WriteOnly));
  for (int i = 0; i < n; ++i) {
    topics.write("c" + QByteArray::number(i) + "\twhat is item " + QByteArray::number(i) +
                 " of the crash test?\n");
  }
  topics.close();
  const QString log = dir.path() + "/server.log";
  QProcess server;
  server.start(RAGSCOPE_TESTSERVER_PATH, {"--port", "0", "--latency-ms", "20", "--log", log});
  QVERIFY(server.waitForStarted());
  QVERIFY(server.waitForReadyRead(10000));
  const int port = server.readLine().trimmed().toInt();
  QVERIFY(port > 0);
  const QString base = QString("http://127.0.0.1:%1/v1").arg(port);
  const QString store = dir.path() + "/run.db";
  const QString cache = dir.path() + "/cache.sqlite";
  auto countLines = [&] { return readAll(log).count('\n'); };

  QProcess cli;
  cli.setWorkingDirectory(dir.path());
  cli.start(RAGSCOPE_CLI_PATH,
            {"generate", "--dataset", dir.path() + "/topics.tsv", "--format", "topics-tsv",
             "--generator", base, "--model", "test-model", "--concurrency",
             QString::number(concurrency), "--store", store, "--cache", cache, "--quiet"});
  QVERIFY(cli.waitForStarted());
  QElapsedTimer timer;
  timer.start();
  while (countLines() < 150 && timer.elapsed() < 60000 && cli.state() == QProcess::Running)
    QTest::qWait(5);
  QCOMPARE(cli.state(), QProcess::Running);
  cli.kill();  // SIGKILL
  QVERIFY(cli.waitForFinished(10000));
  const int atKill = countLines();
  QVERIFY(atKill >= 150 && atKill < n);
  std::set<std::string> doneAtKill;  // items whose result was committed before the kill
  {
    RunStore s;
    std::string err;
    QVERIFY2(s.open(store.toStdString(), &err), err.c_str());
    QCOMPARE(QString::fromStdString(s.run().status), QString("running"));
    for (const auto& item : s.items())
      if (item.status == ItemStatus::Done) doneAtKill.insert(item.key);
    const auto c = s.counts();
    QCOMPARE(doneAtKill.size(), c.done);
    // Committed before the kill: everything but the calls in flight (slots free on commit).
    QVERIFY2(c.done + concurrency + 2 >= static_cast<std::size_t>(atKill - concurrency),
             qPrintable(QString("done %1, server saw %2").arg(c.done).arg(atKill)));
    qInfo("killed after %d server requests with %zu results committed", atKill, c.done);
  }

  QProcess resume;
  resume.setWorkingDirectory(dir.path());
  resume.start(RAGSCOPE_CLI_PATH, {"resume", store, "--quiet"});
  QVERIFY(resume.waitForFinished(120000));
  QVERIFY2(resume.exitCode() == 0,
           (resume.readAllStandardOutput() + resume.readAllStandardError()).constData());
  QTest::qWait(100);  // the server logs a reply just after sending it

  // Every item done exactly once in the store, and the server answered at most n + concurrency.
  RunStore s;
  std::string err;
  QVERIFY(s.open(store.toStdString(), &err));
  QCOMPARE(QString::fromStdString(s.run().status), QString("done"));
  const auto items = s.items();
  QCOMPARE(items.size(), std::size_t(n));
  std::set<std::string> keys;
  for (const auto& item : items) {
    QCOMPARE(item.status, ItemStatus::Done);
    QCOMPARE(item.attempts, 1);
    keys.insert(item.key);
  }
  QCOMPARE(keys.size(), std::size_t(n));
  QCOMPARE(s.results().size(), std::size_t(n));
  const QList<QByteArray> lines = readAll(log).trimmed().split('\n');
  qInfo("server requests in all: %lld (items %d, concurrency %d)",
        static_cast<long long>(lines.size()), n, concurrency);
  QVERIFY(lines.size() <= n + concurrency);
  // Each item's request reached the server: its body hash is in the log.
  std::map<std::string, int> byHash;
  for (const auto& line : lines) {
    const auto j = nlohmann::json::parse(line.toStdString());
    QCOMPARE(j["status"].get<int>(), 200);
    ++byHash[j["body_hash"].get<std::string>()];
  }
  EndpointConfig ep;
  ep.baseUrl = base.toStdString();
  ep.model = "test-model";
  auto http = makeHttpProvider(ep);
  int redone = 0;
  for (const auto& item : items) {
    const auto request = requestFromJson(nlohmann::json::parse(item.requestJson));
    QVERIFY(request.has_value());
    const auto hash = ragscope::testserver::TestServer::hashBody(http->requestBody(*request));
    QVERIFY2(byHash.count(hash), item.key.c_str());
    // A call whose result was committed before the kill is never sent again; only calls in
    // flight at the kill (sent, result not yet committed) may reach the server a second time.
    if (doneAtKill.count(item.key)) QVERIFY2(byHash[hash] == 1, item.key.c_str());
    if (byHash[hash] > 1) ++redone;
    QVERIFY2(byHash[hash] <= 2, item.key.c_str());
  }
  qInfo("items whose request was sent twice (in flight at the kill): %d", redone);
  QVERIFY(redone <= concurrency);

  // Cache: the same run again in a new store makes zero requests.
  const int before = lines.size();
  QProcess again;
  again.setWorkingDirectory(dir.path());
  again.start(RAGSCOPE_CLI_PATH, {"generate", "--dataset", dir.path() + "/topics.tsv", "--format",
                                  "topics-tsv", "--generator", base, "--model", "test-model",
                                  "--store", dir.path() + "/run2.db", "--cache", cache, "--quiet"});
  QVERIFY(again.waitForFinished(60000));
  QCOMPARE(again.exitCode(), 0);
  QTest::qWait(100);
  QCOMPARE(static_cast<int>(readAll(log).trimmed().split('\n').size()), before);
  RunStore s2;
  QVERIFY(s2.open((dir.path() + "/run2.db").toStdString(), &err));
  QCOMPARE(s2.counts().done, std::size_t(n));
  QCOMPARE(s2.counts().fromCache, std::size_t(n));
  server.terminate();
  server.waitForFinished(5000);
}

void TestEngine::invalidUtf8InRecordsIsStored() {
  // Issue 12, item 2 (write side): a run file path or query text with a 0xFF byte ends up in the
  // run record and in prompts; writing them once aborted with nlohmann's type_error 316.
  QTemporaryDir dir;
  store::RunRecord record;
  record.kind = "generate";
  record.settings = {{"run", {{"path", std::string("/data/r\xff.trec")}}}, {"k", 5}};
  record.endpoint = {{"name", std::string("gen\xfe")}};
  store::RunStore s;
  std::string err;
  QVERIFY2(s.create(dir.filePath("u.db").toStdString(), record, &err), err.c_str());
  llm::LlmRequest request;
  request.messages.push_back({"user", std::string("question \xff?")});
  QVERIFY2(s.addItems({{"gen:q\xff", "generate", exporting::jsonText(llm::toJson(request))}}, &err),
           err.c_str());
  const auto back = s.run();
  QCOMPARE(back.settings["run"]["path"].get<std::string>(),
           std::string("/data/r\xef\xbf\xbd.trec"));
  QCOMPARE(s.items().size(), std::size_t(1));
}

void TestEngine::brokenStoresAreRefused_data() {
  QTest::addColumn<QString>("demoStore");
  QTest::addColumn<QString>("sql");
  QTest::addColumn<QString>("problem");  // the error names the field
  // Issue 12 item 5: resume aborted ("cannot use value()", "type must be string") on these.
  QTest::newRow("run row missing") << "erag-good.db"
                                   << "DELETE FROM run"
                                   << "the run's record (table run, row 1) is missing";
  QTest::newRow("run table missing") << "erag-good.db"
                                     << "DROP TABLE run"
                                     << "no run table";
  QTest::newRow("settings a list") << "erag-good.db"
                                   << "UPDATE run SET settings = '[1, 2]'"
                                   << "run.settings is not a JSON object";
  QTest::newRow("settings null") << "erag-good.db"
                                 << "UPDATE run SET settings = 'null'"
                                 << "run.settings is not a JSON object";
  QTest::newRow("settings not JSON") << "erag-good.db"
                                     << "UPDATE run SET settings = '{\"plan\": ['"
                                     << "run.settings is not a JSON object";
  QTest::newRow("settings a number") << "e2e-good.db"
                                     << "UPDATE run SET settings = 1e400"
                                     << "run.settings is not a JSON object";
  QTest::newRow("endpoint a number") << "erag-good.db"
                                     << "UPDATE run SET endpoint = '5'"
                                     << "run.endpoint is not a JSON object";
  QTest::newRow("base_url a number")
      << "erag-good.db"
      << "UPDATE run SET endpoint = json_set(endpoint, '$.base_url', 5)"
      << "run.endpoint: field \"base_url\" is not a string";
  QTest::newRow("api_key_env a list")
      << "e2e-good.db"
      << "UPDATE run SET endpoint = json_set(endpoint, '$.api_key_env', json('[1]'))"
      << "run.endpoint: field \"api_key_env\" is not a string";
  QTest::newRow("concurrency a string")
      << "erag-good.db"
      << "UPDATE run SET endpoint = json_set(endpoint, '$.concurrency', 'x')"
      << "run.endpoint: field \"concurrency\" is not a number";
  QTest::newRow("system a number") << "erag-good.db"
                                   << "UPDATE run SET settings = json_set(settings, '$.system', 5)"
                                   << "run.settings: \"system\" is not a string";
  QTest::newRow("out a number") << "erag-good.db"
                                << "UPDATE run SET settings = json_set(settings, '$.out', 5)"
                                << "run.settings: \"out\" is not a path";
  QTest::newRow("budget a string")
      << "e2e-good.db"
      << "UPDATE run SET settings = json_set(settings, '$.budget_usd', 'lots')"
      << "run.settings: \"budget_usd\" is not a number";
  QTest::newRow("concurrency negative")
      << "erag-good.db"
      << "UPDATE run SET settings = json_set(settings, '$.concurrency', -3)"
      << "run.settings: \"concurrency\" is not a count";
  // Item 8: a default would score with another metric than the run's, silently (0.0769).
  QTest::newRow("metric missing") << "erag-good.db"
                                  << "UPDATE run SET settings = json_remove(settings, '$.metric')"
                                  << "run.settings: \"metric\" is missing";
  QTest::newRow("metric a number") << "e2e-good.db"
                                   << "UPDATE run SET settings = json_set(settings, '$.metric', 5)"
                                   << "run.settings: \"metric\" is not a string";
  QTest::newRow("metric unknown")
      << "erag-good.db"
      << "UPDATE run SET settings = json_set(settings, '$.metric', 'bleu-9')"
      << "run.settings: \"metric\" is not a known metric";
  QTest::newRow("measures missing")
      << "erag-good.db"
      << "UPDATE run SET settings = json_remove(settings, '$.measures')"
      << "run.settings: \"measures\" is missing";
  QTest::newRow("plan missing") << "e2e-good.db"
                                << "UPDATE run SET settings = json_remove(settings, '$.plan')"
                                << "run.settings: \"plan\" is missing";
  QTest::newRow("plan a string") << "erag-good.db"
                                 << "UPDATE run SET settings = json_set(settings, '$.plan', 'x')"
                                 << "run.settings: \"plan\" is not a list";
  QTest::newRow("schema version") << "erag-good.db"
                                  << "PRAGMA user_version = 7"
                                  << "not a ragscope run store of schema 1";
}

void TestEngine::brokenStoresAreRefused() {
  QFETCH(QString, demoStore);
  QFETCH(QString, sql);
  QFETCH(QString, problem);
  QTemporaryDir dir;
  const QString path = demoStoreCopy(dir, demoStore, QStringLiteral("broken.db"));
  QVERIFY(!path.isEmpty());
  QVERIFY(execSql(path, sql));
  const std::string p = path.toStdString();
  auto named = [&](const std::string& error) {
    return QString::fromStdString(error).contains(path) &&
           QString::fromStdString(error).contains(problem);
  };
  try {
    // The resume path (core), the statistics commands' reader and the eRAG page's reader.
    std::string err;
    const auto job = eval::openStoredJob(p, {}, &err);
    QVERIFY2(!job, "a broken store was opened to be resumed");
    QVERIFY2(named(err), err.c_str());
    const auto scores = eval::readStoredScores(p);
    QVERIFY2(!scores.ok() && named(scores.error), scores.error.c_str());
    const bool erag = demoStore.startsWith(QStringLiteral("erag"));
    const auto shown = eval::readEvaluation(erag ? p : "", erag ? "" : p, {});
    QVERIFY2(!shown.error.empty() && named(shown.error), shown.error.c_str());
  } catch (const std::exception& e) {
    QFAIL(qPrintable(QStringLiteral("threw: %1").arg(e.what())));
  }
  // The CLI: a clear error naming the store and the field, exit 2, never an abort.
  const auto resumed = ragscope::test::runCliText({"resume", path, "--quiet"});
  QVERIFY2(resumed.exitCode == 2, qPrintable(resumed.err));
  QVERIFY2(resumed.err.contains(path) && resumed.err.contains(problem), qPrintable(resumed.err));
  QVERIFY(!resumed.err.contains(QStringLiteral("terminate called")));
  const auto boot = ragscope::test::runCliText({"bootstrap", "--measure", "P_5", path});
  QVERIFY2(boot.exitCode == 2, qPrintable(boot.out + boot.err));
  QVERIFY2(boot.err.contains(problem), qPrintable(boot.err));
}

void TestEngine::flippedBytesNeverAbortOrMislead() {
  // Issue 12 items 5 and 8: stores with a few flipped bytes. Whatever SQLite makes of them, reading
  // or resuming one never aborts; and one that fails SQLite's integrity check is refused, not
  // half-read (it gave `bootstrap --measure P_5` n 1, mean 0.4 instead of n 29).
  QTemporaryDir dir;
  const QByteArray pristine = readAll(demoDir() + "/runs/erag-good.db");
  QVERIFY(!pristine.isEmpty());
  const QString path = dir.filePath(QStringLiteral("flipped.db"));
  eval::ResultOptions quick;
  quick.bootstrap.resamples = 0;
  int damaged = 0, refused = 0, cliChecked = 0;
  for (std::uint32_t seed = 1; seed <= 160; ++seed) {
    const QByteArray bytes = flippedBytes(pristine, seed, 5);
    QVERIFY(writeBytes(path, bytes));
    const bool intact = integrityOk(path);
    if (!intact) ++damaged;
    const std::string p = path.toStdString();
    try {
      const auto scores = eval::readStoredScores(p);
      QVERIFY(writeBytes(path, bytes));
      const auto shown = eval::readEvaluation(p, "", quick);
      QVERIFY(writeBytes(path, bytes));
      std::string err;
      const auto job = eval::openStoredJob(p, {}, &err);
      if (!intact) {
        QVERIFY2(!scores.ok(),
                 qPrintable(QStringLiteral("seed %1: a damaged store was read").arg(seed)));
        QVERIFY2(!shown.error.empty(),
                 qPrintable(QStringLiteral("seed %1: a damaged store was shown").arg(seed)));
        QVERIFY2(
            !job,
            qPrintable(QStringLiteral("seed %1: a damaged store was opened to resume").arg(seed)));
        ++refused;
      } else if (scores.ok()) {
        for (const auto& [measure, values] : scores.table) QVERIFY(values.size() <= 29);
      }
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QStringLiteral("seed %1 threw: %2").arg(seed).arg(e.what())));
    }
    // The CLI on some of them (a process each: slower): resume and bootstrap end with an exit
    // code, never an abort.
    if (seed % 8 == 0) {
      ++cliChecked;
      for (const QStringList& args : {QStringList{"bootstrap", "--measure", "P_5", path},
                                      QStringList{"resume", path, "--quiet"}}) {
        QVERIFY(writeBytes(path, bytes));
        const auto r = ragscope::test::runCliText(args);
        QVERIFY2(r.exitCode >= 0 && r.exitCode <= 2,
                 qPrintable(QStringLiteral("seed %1 %2: exit %3: %4")
                                .arg(seed)
                                .arg(args.first())
                                .arg(r.exitCode)
                                .arg(r.err)));
        QVERIFY(!r.err.contains(QStringLiteral("terminate called")));
        if (!intact) {
          QCOMPARE(r.exitCode, 2);
          QVERIFY2(r.err.contains(QStringLiteral("damaged")) ||
                       r.err.contains(QStringLiteral("not a")) ||
                       r.err.contains(QStringLiteral("run.")),
                   qPrintable(r.err));
        }
      }
    }
  }
  qInfo(
      "flipped stores: %d damaged (integrity_check fails), %d refused, %d checked through the CLI",
      damaged, refused, cliChecked);
  QVERIFY(damaged > 10);  // the seeds really damaged stores
  QCOMPARE(refused, damaged);
}

void TestEngine::storeIntegrityCost() {
  // What the integrity check on open costs (issue 12 item 8: quick_check or integrity_check?):
  // a 1,000-item store with 2 kB prompts and their results.
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("big.db")).toStdString();
  std::string err;
  {
    RunStore store;
    QVERIFY2(store.create(path, testRecord(), &err), err.c_str());
    auto items = makeItems(1000, std::string(2000, 'x'));
    QVERIFY2(store.addItems(items, &err), err.c_str());
    std::vector<store::ItemResult> results;
    for (const auto& item : store.items()) {
      store::ItemResult r;
      r.itemId = item.id;
      r.text = std::string(300, 'a');
      results.push_back(r);
    }
    QVERIFY2(store.commitResults(results, &err), err.c_str());
  }
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    QElapsedTimer t;
    t.start();
    RunStore store;
    QVERIFY2(store.open(path, &err), err.c_str());
    ms.push_back(double(t.nsecsElapsed()) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  sqlite3* db = nullptr;
  QCOMPARE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto time = [&](const char* sql) {
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 5; ++i) sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    return double(t.nsecsElapsed()) / 5e6;
  };
  const double quick = time("PRAGMA quick_check"), full = time("PRAGMA integrity_check");
  sqlite3_close(db);
  qInfo(
      "1,000-item store: open with checks %.1f ms (median); quick_check %.1f ms, integrity_check "
      "%.1f ms",
      ms[ms.size() / 2], quick, full);
  QVERIFY(ms[ms.size() / 2] < 2000.0);
}

void TestEngine::viewingWritesNothing_data() {
  QTest::addColumn<bool>("readOnlyFolder");
  QTest::newRow("writable copy") << false;
  // As root the folder stays writable to the process; the check of what was created holds anyway.
  QTest::newRow("read-only copy") << true;
}

void TestEngine::viewingWritesNothing() {
  // Issue 12 item 11: viewing stored runs opened them read-write, which created -wal/-shm files
  // beside them and changed their modification times. Everything that only views opens them
  // read-only, and the demo works from a read-only copy.
  QFETCH(bool, readOnlyFolder);
  QTemporaryDir dir;
  const QString demo = dir.filePath(QStringLiteral("demo"));
  QVERIFY(QDir().mkpath(demo + "/runs"));
  const QStringList files = QDir(demoDir()).entryList(QDir::Files);
  for (const QString& f : files) QVERIFY(QFile::copy(demoDir() + "/" + f, demo + "/" + f));
  const QStringList stores =
      QDir(demoDir() + "/runs").entryList({QStringLiteral("*.db")}, QDir::Files);
  QCOMPARE(stores.size(), 5);  // eRAG and end-to-end of two runs, and the claims run
  for (const QString& f : stores)
    QVERIFY(QFile::copy(demoDir() + "/runs/" + f, demo + "/runs/" + f));
  auto setWritable = [&](bool writable) {
    QDirIterator it(demo, QDir::AllEntries | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    QStringList paths{demo};
    while (it.hasNext()) paths << it.next();
    for (const QString& p : paths) {
      const bool isDir = QFileInfo(p).isDir();
      ::chmod(QFile::encodeName(p).constData(),
              writable ? (isDir ? 0755 : 0644) : (isDir ? 0555 : 0444));
    }
  };
  setWritable(!readOnlyFolder);
  const auto before = folderState(demo);
  QCOMPARE(int(before.size()), int(files.size()) + 5);

  const std::string runs = (demo + "/runs/").toStdString();
  std::vector<std::filesystem::path> paths;
  for (const QString& f : stores) paths.push_back(runs + f.toStdString());
  for (const auto& p : paths) QVERIFY(RunStore::looksLikeRunStore(p));
  const auto pair =
      eval::storedRunsForDataset(paths, {{demo.toStdString() + "/collection.tsv", std::nullopt},
                                         {demo.toStdString() + "/demo-kilt.jsonl", std::nullopt}});
  QVERIFY(pair.erag && pair.e2e);
  const auto shown = eval::readEvaluation(*pair.erag, *pair.e2e, {});
  QVERIFY2(shown.error.empty(), shown.error.c_str());
  QVERIFY(shown.erag && shown.e2e);
  for (const auto& p : paths) {
    const auto scores = eval::readStoredScores(p);
    QVERIFY2(scores.ok(), scores.error.c_str());
  }
  const auto claims = eval::readJudgeReport(runs + "claims-offline.db", {});
  QVERIFY2(claims.error.empty(), claims.error.c_str());
  // Root writes into a read-only folder anyway: the CLI then runs as nobody, for whom the copy
  // really is read-only media (a read-write open fails there).
  const bool asNobody =
      readOnlyFolder && ::geteuid() == 0 && QFile::exists(QStringLiteral("/usr/bin/setpriv"));
  if (asNobody) ::chmod(QFile::encodeName(dir.path()).constData(), 0755);
  for (const QStringList& args :
       {QStringList{"runs", demo + "/runs", "--json"},
        QStringList{"bootstrap", "--measure", "P_5", demo + "/runs/erag-good.db"},
        QStringList{"bootstrap", "--measure", "faithfulness", demo + "/runs/claims-offline.db"},
        QStringList{"erag-correlate", "--erag", demo + "/runs/erag-good.db", "--e2e",
                    demo + "/runs/e2e-good.db", "--resamples", "50"}}) {
    ragscope::test::CliText r;
    if (asNobody) {
      QProcess p;
      p.start(QStringLiteral("/usr/bin/setpriv"),
              QStringList{"--reuid=65534", "--regid=65534", "--clear-groups", "--",
                          QStringLiteral(RAGSCOPE_CLI_PATH)} +
                  args);
      QVERIFY(p.waitForFinished(60000));
      r = {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
           QString::fromUtf8(p.readAllStandardOutput()),
           QString::fromUtf8(p.readAllStandardError())};
    } else {
      r = ragscope::test::runCliText(args);
    }
    QVERIFY2(r.exitCode == 0, qPrintable(args.first() + ": " + r.err));
    QVERIFY2(!r.out.contains(QStringLiteral("unreadable")) &&
                 !r.out.contains(QStringLiteral("\"error\"")),
             qPrintable(r.out));
    if (args.first() == QLatin1String("runs"))
      QCOMPARE(r.out.count(QStringLiteral("\"kind\"")), 5);  // all listed
  }
  const auto after = folderState(demo);
  setWritable(true);
  for (const auto& [file, mtime] : after)
    QVERIFY2(before.count(file), qPrintable(QStringLiteral("created by viewing: %1").arg(file)));
  for (const auto& [file, mtime] : before) {
    QVERIFY2(after.count(file), qPrintable(file));
    QVERIFY2(after.at(file) == mtime,
             qPrintable(QStringLiteral("modified by viewing: %1").arg(file)));
  }
  for (const QString& f : stores)
    QCOMPARE(readAll(demo + "/runs/" + f), readAll(demoDir() + "/runs/" + f));
}

QTEST_GUILESS_MAIN(TestEngine)
#include "tst_engine.moc"
