// Embedding a corpus for the dense retriever (core/retrieval/corpusembedding.h) and the offline
// embedding (core/llm/offline.h): the hashed bag of words against values worked out by hand
// from the documented algorithm and FNV-1a's published test vectors; against the in-process test
// server, calls = ceil(texts / batch), a cancelled embedding resumed without re-sending a finished
// batch, a cached re-run and a reused index sending nothing, each bad reply (wrong count, wrong
// size, a non-finite or null component, a model change) refused with an error naming the store
// and the batch while the good batches are kept; and an index built offline with no server.

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "core/eval/batchrun.h"
#include "core/eval/runengine.h"
#include "core/llm/offline.h"
#include "core/llm/responsecache.h"
#include "core/llm/trustedendpoints.h"
#include "core/retrieval/corpusembedding.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using ragscope::testserver::EmbeddingFault;
using ragscope::testserver::TestServer;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(EmbeddingFault)

namespace {

// "d7" (snprintf: GCC 12 warns wrongly about "d" + std::to_string(i) once inlined).
std::string numbered(const char* prefix, std::size_t i) {
  char text[64];
  std::snprintf(text, sizeof text, "%s%zu", prefix, i);
  return text;
}

Corpus makeCorpus(std::size_t n) {
  static const char* kWords[] = {"river",  "mountain", "castle", "harbour", "forest",
                                 "desert", "glacier",  "valley", "island",  "canyon",
                                 "meadow", "volcano",  "lagoon", "prairie", "tundra"};
  Corpus corpus;
  for (std::size_t i = 0; i < n; ++i) {
    Document d;
    d.id = numbered("d", i);
    if (i % 2 == 0) d.title = numbered("Title ", i);
    d.text = std::string("the ") + kWords[i % 15] + " near the " + kWords[(i * 7 + 3) % 15] +
             " number " + std::to_string(i);
    corpus.add(std::move(d));
  }
  return corpus;
}

llm::EndpointConfig endpointOf(const TestServer& server) {
  llm::EndpointConfig e;
  e.kind = llm::EndpointKind::Embeddings;
  e.baseUrl = server.baseUrl();
  e.model = "test-model";
  e.concurrency = 1;  // batches one after the other: the fault and cancel tests count on order
  e.maxRetries = 0;
  return e;
}

EmbedderSettings settingsOf(const llm::EndpointConfig& endpoint, std::size_t batch) {
  EmbedderSettings s;
  s.endpoint = endpoint;
  s.docPrefix = "passage: ";
  s.queryPrefix = "query: ";
  s.batch = batch;
  return s;
}

// The Batch API instead of live calls, polled at once (issue 28's route, core/eval/batchrun.h).
DenseIndexOptions batchOptionsIn(const fs::path& dir, llm::ResponseCache* cache = nullptr);

DenseIndexOptions optionsIn(const fs::path& dir, llm::ResponseCache* cache = nullptr) {
  DenseIndexOptions o;
  o.indexDir = dir;
  o.ann = AnnKind::Flat;
  o.cache = cache;
  o.transport.retryBaseSeconds = 0.01;
  return o;
}

DenseIndexOptions batchOptionsIn(const fs::path& dir, llm::ResponseCache* cache) {
  DenseIndexOptions o = optionsIn(dir, cache);
  o.batch.mode = eval::BatchMode::Api;
  o.batch.pollInitialSeconds = 0.02;
  o.batch.pollMaxSeconds = 0.05;
  return o;
}

// The top 5 positions and scores of a few fixed query vectors (unit axes and their sum).
std::vector<std::pair<std::vector<std::int64_t>, std::vector<float>>> searchOutput(
    const VectorIndex& index) {
  std::vector<std::pair<std::vector<std::int64_t>, std::vector<float>>> out;
  const int d = index.dimensions();
  for (int axis = 0; axis <= d; ++axis) {
    std::vector<float> q(static_cast<std::size_t>(d), axis == d ? 1.0f : 0.0f);
    if (axis < d) q[static_cast<std::size_t>(axis)] = 1.0f;
    std::vector<float> scores;
    std::vector<std::int64_t> positions;
    std::string err;
    if (!index.search(q.data(), 1, 5, &scores, &positions, &err)) return {};
    out.emplace_back(std::move(positions), std::move(scores));
  }
  return out;
}

// FNV-1a 64 as its specification gives it (offset basis 14695981039346656037, prime
// 1099511628211), written here apart from the code under test.
std::uint64_t fnv1a64(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
  }
  return dot / std::sqrt(na * nb);
}

// Stops the run once `after` results are stored.
class StopAfter : public eval::ProgressListener {
 public:
  StopAfter(std::stop_source& source, std::size_t after) : m_source(source), m_after(after) {}
  void onResult(const store::WorkItem&, const store::ItemResult&) override {
    if (++m_seen >= m_after) m_source.request_stop();
  }

 private:
  std::stop_source& m_source;
  std::size_t m_after;
  std::size_t m_seen = 0;
};

// The "input" arrays the server received, in arrival order.
std::vector<std::vector<std::string>> sentInputs(const TestServer& server) {
  std::vector<std::vector<std::string>> out;
  for (const auto& e : server.log()) {
    if (e.path.find("/embeddings") == std::string::npos) continue;
    out.push_back(nlohmann::json::parse(e.body)["input"].get<std::vector<std::string>>());
  }
  return out;
}

}  // namespace

class TestDense : public QObject {
  Q_OBJECT

 private slots:
  void offlineEmbeddingByHand();
  void offlineEmbeddingProperties();
  void offlineProviderAnswersEmbeddings();
  void callsAreBatches();
  void cancelledEmbeddingResumes();
  void cachedRebuildSendsNothing();
  void reusedIndexSendsNothing();
  void badReplies_data();
  void badReplies();
  void storedVectorsCheckedAgain();
  void queryEmbedderChecks();
  void offlineIndexWithoutServer();
  void ivfPqTrainsOnSample();
  void batchApiBuildMatchesLive();
  void batchApiStopWhilePollingPollsSameBatch();
  void batchApiRepliesChecked();
};

void TestDense::offlineEmbeddingByHand() {
  // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c and of "foobar" 0x85944171f73967e8 (the published
  // test vectors, checked here against the re-implementation above): buckets 0x8c = 140 and
  // 0xe8 = 232 of 256, both with the top bit set, so sign -1.
  QCOMPARE(fnv1a64("a"), std::uint64_t(0xaf63dc4c8601ec8cull));
  QCOMPARE(fnv1a64("foobar"), std::uint64_t(0x85944171f73967e8ull));
  const auto a = llm::offlineEmbedding("A");  // lower-cased to "a"
  QCOMPARE(a.size(), std::size_t(256));
  for (std::size_t i = 0; i < a.size(); ++i) QCOMPARE(a[i], i == 140 ? -1.0f : 0.0f);
  // "a foobar, a!": counts -2 at 140 and -1 at 232, length sqrt(5).
  const auto v = llm::offlineEmbedding("a foobar, a!");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float expected = i == 140   ? float(-2 / std::sqrt(5.0))
                           : i == 232 ? float(-1 / std::sqrt(5.0))
                                      : 0.0f;
    QCOMPARE(v[i], expected);
  }
  // Another size: bucket 0x8c % 16 = 12.
  const auto small = llm::offlineEmbedding("a", 16);
  QCOMPARE(small.size(), std::size_t(16));
  for (std::size_t i = 0; i < small.size(); ++i) QCOMPARE(small[i], i == 12 ? -1.0f : 0.0f);
  // Any text against the algorithm as documented, computed here.
  const std::string text = "Dense retrieval: embeddings, 2024 and Ünïcode words";
  std::vector<double> sums(256, 0.0);
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    const std::uint64_t h = fnv1a64(token);
    sums[h % 256] += (h >> 63) ? -1.0 : 1.0;
    token.clear();
  };
  for (unsigned char c : text) {
    if (std::isalnum(c) && c < 0x80)
      token += char(std::tolower(c));
    else if (c >= 0x80)
      token += char(c);
    else
      flush();
  }
  flush();
  double norm = 0;
  for (double s : sums) norm += s * s;
  const auto got = llm::offlineEmbedding(text);
  for (std::size_t i = 0; i < 256; ++i) QCOMPARE(got[i], float(sums[i] / std::sqrt(norm)));
}

void TestDense::offlineEmbeddingProperties() {
  for (const char* empty : {"", "   ", ",;.-!?"}) {
    const auto v = llm::offlineEmbedding(empty);
    QCOMPARE(v.size(), std::size_t(256));
    for (float x : v) QCOMPARE(x, 0.0f);
  }
  QVERIFY(llm::offlineEmbedding("x", 0).empty());
  const auto a = llm::offlineEmbedding("dense retrieval with embeddings");
  QCOMPARE(a, llm::offlineEmbedding("DENSE Retrieval, with embeddings."));  // case, punctuation
  double norm = 0;
  for (float x : a) norm += double(x) * x;
  QVERIFY(std::abs(norm - 1.0) < 1e-6);
  // Three shared words of four: a positive cosine (at most 4 buckets each, so collisions
  // aside 3/4).
  QVERIFY(cosine(a, llm::offlineEmbedding("embeddings for dense retrieval")) > 0.5);
  QCOMPARE(cosine(a, llm::offlineEmbedding("dense retrieval with embeddings")), 1.0);
}

void TestDense::offlineProviderAnswersEmbeddings() {
  llm::EndpointConfig e;
  e.kind = llm::EndpointKind::Embeddings;
  e.baseUrl = "offline";
  auto provider = llm::makeOfflineProvider(llm::OfflineRole::Auto, e);
  QCOMPARE(QString::fromStdString(provider->config().model), QString(llm::kOfflineEmbeddingModel));
  llm::LlmRequest request;
  request.kind = llm::EndpointKind::Embeddings;
  request.inputs = {"first text", "second text", ""};
  std::promise<llm::LlmResponse> answer;
  provider->submit(request, [&](llm::LlmResponse r) { answer.set_value(std::move(r)); });
  const auto r = answer.get_future().get();
  QCOMPARE(r.status, llm::CallStatus::Ok);
  QVERIFY(r.heuristic);
  QCOMPARE(QString::fromStdString(r.model), QString(llm::kOfflineEmbeddingModel));
  QCOMPARE(r.embeddings.size(), std::size_t(3));
  for (std::size_t i = 0; i < 3; ++i)
    QCOMPARE(r.embeddings[i], llm::offlineEmbedding(request.inputs[i]));
}

void TestDense::callsAreBatches() {
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const auto r = buildDenseIndex(corpus, settings, optionsIn(dir.path().toStdString()));
  QVERIFY2(r.ok, r.error.c_str());
  // ceil(10 / 4) = 3 requests of 4, 4 and 2 texts, in corpus order, each text prefixed.
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  QCOMPARE(server.embeddingInputs(), std::size_t(10));
  QCOMPARE(r.calls, std::size_t(3));
  QCOMPARE(r.documents, std::size_t(10));
  QCOMPARE(r.dimensions, 8);
  QVERIFY(!r.reused);
  const auto sent = sentInputs(server);
  QCOMPARE(sent.size(), std::size_t(3));
  QCOMPARE(sent[0].size(), std::size_t(4));
  QCOMPARE(sent[1].size(), std::size_t(4));
  QCOMPARE(sent[2].size(), std::size_t(2));
  // Document 0 has a title: "passage: " + title + "\n" + text; document 1 has none.
  QCOMPARE(QString::fromStdString(sent[0][0]),
           QString("passage: Title 0\nthe river near the harbour number 0"));
  QCOMPARE(QString::fromStdString(sent[0][1]),
           QString("passage: the mountain near the meadow number 1"));
  QCOMPARE(QString::fromStdString(sent[2][1]),
           QString::fromStdString(documentEmbeddingText(settings, corpus.at(9))));
  QVERIFY(fs::exists(r.store));
  QVERIFY(fs::exists(r.dir / "manifest.json"));
  // The user chose the endpoint: recorded as trusted, as a job's is.
  QVERIFY(llm::TrustedEndpoints().isTrusted(settings.endpoint));
  // The index holds the server's vectors: each document's own text, embedded as the server does
  // and normalised, finds that document first with cosine 1.
  QVERIFY(r.index);
  QCOMPARE(r.index->size(), std::size_t(10));
  for (std::size_t i = 0; i < 10; ++i) {
    auto q = TestServer::embed(documentEmbeddingText(settings, corpus.at(i)), 8);
    std::vector<float> scores;
    std::vector<std::int64_t> positions;
    std::string err;
    QVERIFY2(r.index->search(q.data(), 1, 3, &scores, &positions, &err), err.c_str());
    QCOMPARE(positions[0], std::int64_t(i));
    QVERIFY(std::abs(scores[0] - 1.0f) < 1e-5f);
  }
}

void TestDense::cancelledEmbeddingResumes() {
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  auto options = optionsIn(dir.path().toStdString());
  std::stop_source source;
  StopAfter stopper(source, 1);
  options.listener = &stopper;
  options.stop = source.get_token();
  const auto first = buildDenseIndex(corpus, settings, options);
  QVERIFY(!first.ok);
  QVERIFY(first.cancelled);
  QVERIFY(!first.index);
  const std::size_t sentFirst = server.embeddingRequests();
  QVERIFY(sentFirst >= 1 && sentFirst < 3);
  // A new session (as after kill -9: nothing but the store) sends only the batches missing.
  const auto second = buildDenseIndex(corpus, settings, optionsIn(dir.path().toStdString()));
  QVERIFY2(second.ok, second.error.c_str());
  QCOMPARE(second.calls, std::size_t(3) - sentFirst);
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  std::set<std::string> bodies;
  for (const auto& e : server.log()) QVERIFY(bodies.insert(e.bodyHash).second);  // none twice
  QCOMPARE(second.index->size(), std::size_t(10));
}

void TestDense::cachedRebuildSendsNothing() {
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  llm::ResponseCache cache;
  std::string err;
  QVERIFY2(cache.open((dir.path() + "/responses.sqlite").toStdString(), &err), err.c_str());
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const auto a =
      buildDenseIndex(corpus, settings, optionsIn((dir.path() + "/a").toStdString(), &cache));
  QVERIFY2(a.ok, a.error.c_str());
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  // A fresh index folder (no store, no index): every batch from the cache.
  const auto b =
      buildDenseIndex(corpus, settings, optionsIn((dir.path() + "/b").toStdString(), &cache));
  QVERIFY2(b.ok, b.error.c_str());
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  QCOMPARE(b.calls, std::size_t(0));
  QCOMPARE(b.fromCache, std::size_t(3));
  QVERIFY(!b.reused);
  QCOMPARE(b.index->size(), std::size_t(10));
}

void TestDense::reusedIndexSendsNothing() {
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  auto settings = settingsOf(endpointOf(server), 4);
  const fs::path folder = dir.path().toStdString();
  QVERIFY(buildDenseIndex(corpus, settings, optionsIn(folder)).ok);
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  const auto again = buildDenseIndex(corpus, settings, optionsIn(folder));
  QVERIFY2(again.ok, again.error.c_str());
  QVERIFY(again.reused);
  QCOMPARE(again.calls, std::size_t(0));
  QCOMPARE(again.index->size(), std::size_t(10));
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  // Another query prefix: the index is rebuilt from the stored vectors, nothing sent.
  settings.queryPrefix = "search: ";
  const auto requery = buildDenseIndex(corpus, settings, optionsIn(folder));
  QVERIFY2(requery.ok, requery.error.c_str());
  QVERIFY(!requery.reused);
  QVERIFY(!requery.rebuildReason.empty());
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  // Another document prefix: other vectors. The store is replaced (and says so), all re-sent.
  settings.docPrefix = "doc: ";
  const auto redo = buildDenseIndex(corpus, settings, optionsIn(folder));
  QVERIFY2(redo.ok, redo.error.c_str());
  QVERIFY2(redo.rebuildReason.find("doc_prefix") != std::string::npos, redo.rebuildReason.c_str());
  QCOMPARE(server.embeddingRequests(), std::size_t(6));
  // Another corpus: the index is not believed, the store not continued.
  const auto other = buildDenseIndex(makeCorpus(9), settings, optionsIn(folder));
  QVERIFY2(other.ok, other.error.c_str());
  QVERIFY2(other.rebuildReason.find("corpus") != std::string::npos, other.rebuildReason.c_str());
  QCOMPARE(server.embeddingRequests(), std::size_t(9));
  QCOMPARE(other.index->size(), std::size_t(9));
}

void TestDense::badReplies_data() {
  QTest::addColumn<EmbeddingFault>("fault");
  QTest::addColumn<QString>("expected");
  QTest::newRow("count") << EmbeddingFault::Count << "expected 4 embeddings, got 3";
  QTest::newRow("dimension") << EmbeddingFault::Dimension
                             << "embeddings[0] has 9 components, the first batch's vectors 8";
  QTest::newRow("infinite") << EmbeddingFault::Overflow
                            << "embeddings[0][0] is not a finite number";
  QTest::newRow("null") << EmbeddingFault::Null << "data[0].embedding has a non-number";
  QTest::newRow("model") << EmbeddingFault::Model
                         << "the reply names model \"switched-model\", the first batch's "
                            "\"test-model\"";
}

void TestDense::badReplies() {
  QFETCH(EmbeddingFault, fault);
  QFETCH(QString, expected);
  // The first batch's reply is proper, every later one has the fault.
  TestServer server;
  server.setEmbeddingFault(fault, 1);
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const fs::path folder = dir.path().toStdString();
  const auto r = buildDenseIndex(corpus, settings, optionsIn(folder));
  QVERIFY(!r.ok);
  QVERIFY(!r.index);
  const QString error = QString::fromStdString(r.error);
  QVERIFY2(error.contains(QString::fromStdString((folder / "embeddings.db").string())),
           qPrintable(error));
  QVERIFY2(error.contains("2 of 3 batches failed; the first:"), qPrintable(error));
  QVERIFY2(error.contains("batch docs:4-7: "), qPrintable(error));
  QVERIFY2(error.contains(expected), qPrintable(error));
  QVERIFY(!fs::exists(folder / "vectors" / "manifest.json"));
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  // Nothing good is lost: once the server is right, only the two failed batches go again.
  server.setEmbeddingFault(EmbeddingFault::None);
  const auto again = buildDenseIndex(corpus, settings, optionsIn(folder));
  QVERIFY2(again.ok, again.error.c_str());
  QCOMPARE(again.calls, std::size_t(2));
  QCOMPARE(server.embeddingRequests(), std::size_t(5));
  QCOMPARE(again.index->size(), std::size_t(10));
}

void TestDense::storedVectorsCheckedAgain() {
  // A store whose vectors were changed after the replies were checked (another program, another
  // session): read back, they are refused, and that batch alone is asked again next time.
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const fs::path folder = dir.path().toStdString();
  const auto built = buildDenseIndex(corpus, settings, optionsIn(folder));
  QVERIFY2(built.ok, built.error.c_str());
  {
    store::RunStore st;
    std::string err;
    QVERIFY2(st.open(built.store, &err), err.c_str());
    std::int64_t item = 0;
    for (const auto& w : st.items())
      if (w.key == "docs:4-7") item = w.id;
    QVERIFY(item > 0);
    store::ItemResult tampered;
    tampered.itemId = item;
    nlohmann::json vectors = nlohmann::json::array();
    for (int i = 0; i < 4; ++i) vectors.push_back(std::vector<float>(i == 2 ? 7 : 8, 0.5f));
    tampered.extra = {{"embeddings", vectors}, {"model", "test-model"}};
    QVERIFY2(st.commitResults({tampered}, &err), err.c_str());
  }
  auto options = optionsIn(folder);
  options.rebuild = true;
  const auto r = buildDenseIndex(corpus, settings, options);
  QVERIFY(!r.ok);
  QVERIFY2(r.error.find(built.store.string() +
                        ": batch docs:4-7: embeddings[2] has 7 components, the first batch's "
                        "vectors 8 (asked again on the next build)") != std::string::npos,
           r.error.c_str());
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  const auto again = buildDenseIndex(corpus, settings, options);
  QVERIFY2(again.ok, again.error.c_str());
  QCOMPARE(again.calls, std::size_t(1));
  QCOMPARE(server.embeddingRequests(), std::size_t(4));
}

void TestDense::queryEmbedderChecks() {
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  llm::ResponseCache cache;
  std::string err;
  QVERIFY2(cache.open((dir.path() + "/responses.sqlite").toStdString(), &err), err.c_str());
  const auto settings = settingsOf(endpointOf(server), 4);
  QueryEmbedder embedder(settings, {}, &cache);
  std::vector<float> v;
  QVERIFY2(embedder.embed("where is the river", 8, &v, &err), err.c_str());
  // The server's vector of "query: " + text, scaled to unit length.
  auto expected = TestServer::embed("query: where is the river", 8);
  double norm = 0;
  for (float x : expected) norm += double(x) * x;
  QCOMPARE(v.size(), std::size_t(8));
  for (std::size_t i = 0; i < 8; ++i)
    QVERIFY(std::abs(v[i] - float(expected[i] / std::sqrt(norm))) < 1e-6f);
  QCOMPARE(server.embeddingRequests(), std::size_t(1));
  // Asked again: from the cache.
  QVERIFY(embedder.embed("where is the river", 8, &v, &err));
  QCOMPARE(server.embeddingRequests(), std::size_t(1));
  // An index of another size: refused, naming both sizes and the endpoint.
  QVERIFY(!embedder.embed("another question", 16, &v, &err));
  QVERIFY2(err.find("8 components, the index's 16") != std::string::npos, err.c_str());
  QVERIFY2(err.find(server.baseUrl()) != std::string::npos, err.c_str());
  // A non-finite reply is refused and not cached.
  server.setEmbeddingFault(EmbeddingFault::Overflow);
  QVERIFY(!embedder.embed("third question", 8, &v, &err));
  QVERIFY2(err.find("not a finite number") != std::string::npos, err.c_str());
  server.setEmbeddingFault(EmbeddingFault::None);
  QVERIFY2(embedder.embed("third question", 8, &v, &err), err.c_str());
}

void TestDense::offlineIndexWithoutServer() {
  QTemporaryDir dir;
  Corpus corpus;
  const char* texts[] = {"The cat sat on the mat.", "Rivers flow into the sea.",
                         "Mountains rise above the clouds.", "A dog chased the cat.",
                         "Ships sail across the ocean."};
  for (int i = 0; i < 5; ++i) {
    Document d;
    d.id = numbered("o", std::size_t(i));
    d.text = texts[i];
    corpus.add(std::move(d));
  }
  EmbedderSettings settings;
  settings.endpoint.baseUrl = "offline";
  settings.batch = 2;
  const auto r = buildDenseIndex(corpus, settings, optionsIn(dir.path().toStdString()));
  QVERIFY2(r.ok, r.error.c_str());
  QCOMPARE(r.dimensions, 256);
  QCOMPARE(QString::fromStdString(r.index->manifest().model), QString(llm::kOfflineEmbeddingModel));
  QCOMPARE(QString::fromStdString(r.index->manifest().embedder), QString("offline"));
  QCOMPARE(r.index->size(), std::size_t(5));
  QueryEmbedder embedder(settings, {}, nullptr);
  std::vector<float> q;
  std::string err;
  QVERIFY2(embedder.embed("mountains clouds", 256, &q, &err), err.c_str());
  const auto bag = llm::offlineEmbedding("mountains clouds");  // already of unit length
  for (std::size_t i = 0; i < q.size(); ++i) QVERIFY(std::abs(q[i] - bag[i]) < 1e-6f);
  std::vector<float> scores;
  std::vector<std::int64_t> positions;
  QVERIFY2(r.index->search(q.data(), 1, 5, &scores, &positions, &err), err.c_str());
  QCOMPARE(positions[0], std::int64_t(2));
  // The score is the cosine of the two bags of words.
  QVERIFY(std::abs(scores[0] - float(cosine(q, llm::offlineEmbedding(texts[2])))) < 1e-5f);
  // Reused the second time.
  const auto again = buildDenseIndex(corpus, settings, optionsIn(dir.path().toStdString()));
  QVERIFY2(again.ok && again.reused, again.error.c_str());
}

void TestDense::ivfPqTrainsOnSample() {
  // 100 documents, offline, 4-bit codes (16 per codebook to learn, so training stays quick):
  // trained on the sample, filled, searchable, reused.
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(100);
  EmbedderSettings settings;
  settings.endpoint.baseUrl = "offline";
  settings.batch = 64;
  auto options = optionsIn(dir.path().toStdString());
  options.ann = AnnKind::IvfPq;
  options.params.ivfLists = 4;
  options.params.pqSubquantizers = 16;
  options.params.pqBits = 4;
  const auto r = buildDenseIndex(corpus, settings, options);
  QVERIFY2(r.ok, r.error.c_str());
  QCOMPARE(r.index->size(), std::size_t(100));
  QCOMPARE(r.index->manifest().ann, AnnKind::IvfPq);
  std::vector<float> q = llm::offlineEmbedding(corpus.at(7).text);
  std::vector<float> scores;
  std::vector<std::int64_t> positions;
  std::string err;
  QVERIFY2(r.index->search(q.data(), 1, 10, &scores, &positions, &err), err.c_str());
  QVERIFY(positions[0] >= 0);
  const auto again = buildDenseIndex(corpus, settings, options);
  QVERIFY2(again.ok && again.reused, again.error.c_str());
}

void TestDense::batchApiBuildMatchesLive() {
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const fs::path root = dir.path().toStdString();
  const auto live = buildDenseIndex(corpus, settings, optionsIn(root / "live"));
  QVERIFY2(live.ok, live.error.c_str());
  QCOMPARE(sentInputs(server).size(), std::size_t(3));

  const auto batched = buildDenseIndex(corpus, settings, batchOptionsIn(root / "batch"));
  QVERIFY2(batched.ok, batched.error.c_str());
  // No live /v1/embeddings request (the server logs live requests only), one batch of
  // ceil(10 / 4) = 3 lines, each the body the live call sends.
  QCOMPARE(sentInputs(server).size(), std::size_t(3));
  const auto counters = server.batchCounters();
  QCOMPARE(counters.batchesCreated, std::size_t(1));
  QCOMPARE(counters.filesUploaded, std::size_t(1));
  QCOMPARE(counters.linesRun, std::size_t(3));
  const auto files = server.uploadedBatchFiles();
  QCOMPARE(files.size(), std::size_t(1));
  QCOMPARE(QByteArray::fromStdString(files[0]).count('\n'), 3);
  const auto first = nlohmann::json::parse(files[0].substr(0, files[0].find('\n')));
  QCOMPARE(QString::fromStdString(first.value("url", std::string())), QString("/v1/embeddings"));
  QCOMPARE(first["body"]["input"].size(), std::size_t(4));
  QCOMPARE(batched.calls, std::size_t(3));
  QCOMPARE(batched.batches.size(), std::size_t(1));
  QVERIFY(batched.batches[0].imported);
  QCOMPARE(batched.dimensions, live.dimensions);
  // The same vectors: the same search output, position for position and score for score.
  const auto expected = searchOutput(*live.index);
  QVERIFY(!expected.empty());
  QCOMPARE(searchOutput(*batched.index), expected);
  // Built again from the folder: reused, nothing asked at all.
  const auto again = buildDenseIndex(corpus, settings, batchOptionsIn(root / "batch"));
  QVERIFY2(again.ok && again.reused, again.error.c_str());
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t(1));
  QCOMPARE(sentInputs(server).size(), std::size_t(3));
}

void TestDense::batchApiStopWhilePollingPollsSameBatch() {
  TestServer server;
  QVERIFY(server.start());
  ragscope::testserver::BatchServerOptions slow;
  slow.batchMs = 1500;
  server.setBatchOptions(slow);
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const fs::path folder = dir.path().toStdString();
  std::stop_source source;
  auto options = batchOptionsIn(folder);
  options.stop = source.get_token();
  auto running =
      std::async(std::launch::async, [&] { return buildDenseIndex(corpus, settings, options); });
  // Stopped once the batch is being polled.
  while (server.batchCounters().batchPolls < 2 &&
         running.wait_for(std::chrono::milliseconds(5)) != std::future_status::ready) {
  }
  source.request_stop();
  const auto stopped = running.get();
  QVERIFY(!stopped.ok);
  QVERIFY(stopped.cancelled);
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t(1));
  store::RunStore st;
  std::string err;
  QVERIFY2(st.open(folder / "embeddings.db", &err), err.c_str());
  const auto state = eval::readBatchState(st);
  QCOMPARE(state.batches.size(), std::size_t(1));
  QVERIFY(!state.batches[0].imported);
  const std::string id = state.batches[0].id;
  QVERIFY2(stopped.error.find("batch " + id) != std::string::npos, stopped.error.c_str());
  QCOMPARE(st.counts().done, std::size_t(0));

  // The rerun (live options even: the store's calls went to the Batch API) polls the same batch
  // and imports it; no second batch, no live call.
  auto live = optionsIn(folder);
  live.batch.pollInitialSeconds = 0.02;
  live.batch.pollMaxSeconds = 0.05;
  const auto resumed = buildDenseIndex(corpus, settings, live);
  QVERIFY2(resumed.ok, resumed.error.c_str());
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t(1));
  QCOMPARE(server.batchCounters().filesUploaded, std::size_t(1));
  QCOMPARE(sentInputs(server).size(), std::size_t(0));
  QCOMPARE(resumed.batches.size(), std::size_t(1));
  QCOMPARE(resumed.batches[0].id, id);
  QCOMPARE(resumed.index->size(), std::size_t(10));
}

void TestDense::batchApiRepliesChecked() {
  // Imported vectors pass the live replies' checks: a batch line with an infinite component is
  // stored as failed and kept out of the response cache, so once the server is right the next
  // build asks for it again (a second batch) instead of finding the bad reply cached.
  TestServer server;
  server.setEmbeddingFault(EmbeddingFault::Overflow, 1);
  QVERIFY(server.start());
  QTemporaryDir dir;
  llm::ResponseCache cache;
  std::string err;
  QVERIFY2(cache.open((dir.path() + "/cache.sqlite").toStdString(), &err), err.c_str());
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const fs::path folder = (dir.path() + "/index").toStdString();
  const auto bad = buildDenseIndex(corpus, settings, batchOptionsIn(folder, &cache));
  QVERIFY(!bad.ok);
  QVERIFY2(bad.error.find("batch docs:4-7: batch: bad embeddings reply: embeddings[0][0] is not a "
                          "finite number") != std::string::npos,
           bad.error.c_str());
  QVERIFY2(bad.error.find("2 of 3 batches failed") != std::string::npos, bad.error.c_str());
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t(1));

  server.setEmbeddingFault(EmbeddingFault::None);
  const auto good = buildDenseIndex(corpus, settings, batchOptionsIn(folder, &cache));
  QVERIFY2(good.ok, good.error.c_str());
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t(2));
  QCOMPARE(server.batchCounters().linesRun, std::size_t(5));  // 3, then the 2 refused
  QCOMPARE(good.index->size(), std::size_t(10));
  QCOMPARE(sentInputs(server).size(), std::size_t(0));
}

QTEST_GUILESS_MAIN(TestDense)
#include "tst_dense.moc"
