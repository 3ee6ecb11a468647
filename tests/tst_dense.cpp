// Embedding a corpus for the dense retriever (core/retrieval/corpusembedding.h) and the offline
// embedding (core/llm/offline.h): the hashed bag of words against values worked out by hand
// from the documented algorithm and FNV-1a's published test vectors; against the in-process test
// server, calls = ceil(texts / batch), a cancelled embedding resumed without re-sending a finished
// batch, a cached re-run and a reused index sending nothing, each bad reply (wrong count, wrong
// size, a non-finite or null component, a model change) refused with an error naming the store
// and the batch while the good batches are kept; and an index built offline with no server.

#include <QTemporaryDir>
#include <QTest>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "common/cli.h"
#include "core/eval/api/batchjob.h"
#include "core/eval/api/job.h"
#include "core/eval/engine/batchrun.h"
#include "core/eval/engine/runengine.h"
#include "core/llm/offline.h"
#include "core/llm/responsecache.h"
#include "core/llm/trustedendpoints.h"
#include "core/retrieval/corpusembedding.h"
#include "core/retrieval/storedvectors.h"
#include "core/store/runstore.h"
#include "core/util/base64.h"
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

// The Batch API instead of live calls, polled at once (issue 28's route,
// core/eval/engine/batchrun.h).
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

// The Batch API's output line for a batch input line of embeddings, as the test server answers
// it live (TestServer::embed), with `drop` vectors left out or each vector `extra` components
// longer.
std::string outputLineFor(const std::string& inputLine, std::size_t drop = 0, int extra = 0) {
  const auto in = nlohmann::json::parse(inputLine);
  const auto& inputs = in["body"]["input"];
  nlohmann::json data = nlohmann::json::array();
  for (std::size_t i = 0; i + drop < inputs.size(); ++i)
    data.push_back({{"object", "embedding"},
                    {"index", i},
                    {"embedding", TestServer::embed(inputs[i].get<std::string>(), 8 + extra)}});
  const nlohmann::json body = {{"object", "list"},
                               {"data", data},
                               {"model", "test-model"},
                               {"usage", {{"prompt_tokens", 1}, {"total_tokens", 1}}}};
  return nlohmann::json{{"id", "batch_req_" + in["custom_id"].get<std::string>()},
                        {"custom_id", in["custom_id"]},
                        {"response", {{"status_code", 200}, {"request_id", "r"}, {"body", body}}},
                        {"error", nullptr}}
      .dump();
}

std::vector<std::string> fileLines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

void writeLines(const fs::path& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const auto& l : lines) out << l << "\n";
}

// Each batch's stored answer text, by key.
std::map<std::string, std::string> storedTexts(const fs::path& path) {
  std::map<std::string, std::string> out;
  store::RunStore st;
  std::string err;
  if (!st.open(path, &err)) return out;
  st.forEachResult([&](store::StoredResult&& r) {
    out[r.key] =
        r.result.status == store::ItemStatus::Done ? r.result.text : "error: " + r.result.error;
    return true;
  });
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
  void storedVectorsCheckedAgain_data();
  void storedVectorsCheckedAgain();
  void base64Rfc4648();
  void base64StrictOverOpenSsl();
  void storedVectorsExact();
  void storeHoldsPackedVectors();
  void formatOneStoreEmbeddedAgain();
  void queryEmbedderChecks();
  void offlineIndexWithoutServer();
  void ivfPqTrainsOnSample();
  void batchApiBuildMatchesLive();
  void batchApiStopWhilePollingPollsSameBatch();
  void batchApiRepliesChecked();
  void batchFileExportImportMatchesLive();
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

void TestDense::storedVectorsCheckedAgain_data() {
  QTest::addColumn<QString>("form");
  QTest::addColumn<QString>("expected");
  // What the code before the packed form wrote: decimal JSON arrays in `extra`, no answer text.
  QTest::newRow("old decimal form") << "old"
                                    << "batch docs:4-7: not the stored vector form (no header "
                                       "line) (asked again on the next build)";
  QTest::newRow("packed, other size") << "size"
                                      << "batch docs:4-7: embeddings[0] has 7 components, the "
                                         "first batch's vectors 8 (asked again on the next build)";
  QTest::newRow("packed, a vector short")
      << "short"
      << "batch docs:4-7: the body holds 164 base64 characters, 4 x 8 float32 need 172 (asked "
         "again on the next build)";
  QTest::newRow("packed, infinite")
      << "inf"
      << "batch docs:4-7: embeddings[1][3] is not a finite number (NaN or infinite) (asked again "
         "on the next build)";
}

void TestDense::storedVectorsCheckedAgain() {
  // A store whose vectors were changed after the replies were checked (another program, another
  // session, an older ragscope): read back, they are refused naming the store and the batch, and
  // that batch alone is asked again next time.
  QFETCH(QString, form);
  QFETCH(QString, expected);
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
    if (form == "old") {
      nlohmann::json vectors = nlohmann::json::array();
      for (int i = 0; i < 4; ++i) vectors.push_back(std::vector<float>(8, 0.5f));
      tampered.extra = {{"embeddings", vectors}, {"model", "test-model"}};
    } else {
      std::vector<std::vector<float>> vectors(4, std::vector<float>(form == "size" ? 7 : 8, 0.5f));
      if (form == "inf") vectors[1][3] = INFINITY;
      tampered.text = *packVectors(vectors, "test-model");
      // 31 floats = 124 bytes: 164 base64 characters in place of 172.
      if (form == "short") tampered.text.resize(tampered.text.size() - 8);
    }
    QVERIFY2(st.commitResults({tampered}, &err), err.c_str());
  }
  auto options = optionsIn(folder);
  options.rebuild = true;
  const auto r = buildDenseIndex(corpus, settings, options);
  QVERIFY(!r.ok);
  QVERIFY2(r.error.find(built.store.string() + ": " + expected.toStdString()) != std::string::npos,
           r.error.c_str());
  QCOMPARE(server.embeddingRequests(), std::size_t(3));
  const auto again = buildDenseIndex(corpus, settings, options);
  QVERIFY2(again.ok, again.error.c_str());
  QCOMPARE(again.calls, std::size_t(1));
  QCOMPARE(server.embeddingRequests(), std::size_t(4));
}

void TestDense::base64Rfc4648() {
  // RFC 4648, section 10.
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    QCOMPARE(base64Encode(plain.data(), plain.size()), coded);
    std::string back;
    QVERIFY2(base64Decode(coded, &back), coded.c_str());
    QCOMPARE(back, plain);
    QCOMPARE(base64DecodedSize(coded), plain.size());
  }
  // Every byte value, through all three tail lengths.
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (std::size_t n : {254, 255, 256}) {
    std::string back;
    QVERIFY(base64Decode(base64Encode(all.data(), n), &back));
    QCOMPARE(back, all.substr(0, n));
  }
  // Not canonical: length, characters outside the alphabet (whitespace, URL-safe), padding
  // inside or too much, and bits past the data that are not zero ("Zh==" would read as "f").
  for (const char* bad : {"Zg=", "Zg", "Zm 9v", "Zm9v\n", "Zm-_", "=Zm9", "Zg==Zm9v",
                          "Z===", "Zh==", "Zm9=", "Zm=v"}) {
    std::string back;
    QVERIFY2(!base64Decode(bad, &back), bad);
  }
}

void TestDense::base64StrictOverOpenSsl() {
  // What OpenSSL's EVP_DecodeBlock accepts but a canonical text is not (core/util/base64.h):
  // leading and trailing whitespace or '-', '=' read as zero bits inside, the unused bits set.
  for (const char* bad : {"Zm9v\r\n\r\n", "\t\tZm9vYmFy\n\n", "  Zg", "Zm9vYmFy----", "Zm9=Zm9v",
                          "Zg=\n", "Zm9vZr=="}) {
    std::string back;
    QVERIFY2(!base64Decode(bad, &back), bad);
  }
  // Past the size OpenSSL is handed in one call (3 MiB): "foobar" is "Zm9vYmFy", "f" is "Zg==".
  const std::size_t repeats = (std::size_t{3} << 20) / 6 + 1;
  std::string plain, coded;
  for (std::size_t i = 0; i < repeats; ++i) {
    plain += "foobar";
    coded += "Zm9vYmFy";
  }
  plain += "f";
  coded += "Zg==";
  QVERIFY(base64Encode(plain.data(), plain.size()) == coded);
  std::string back;
  QVERIFY(base64Decode(coded, &back));
  QVERIFY(back == plain);
  // A character outside the alphabet in the second piece is still refused.
  coded[coded.size() - 12] = '*';
  QVERIFY(!base64Decode(coded, &back));
}

void TestDense::storedVectorsExact() {
  // 1.0f is 00 00 80 3F little-endian: base64 "AACAPw==" (worked out by hand).
  QCOMPARE(*packVectors({{1.0f}}, "m"),
           std::string("{\"count\":1,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f32le-"
                       "base64\"}\nAACAPw=="));
  // Every kind of float comes back bit for bit (NaN payloads too: the finite check is the
  // caller's).
  const std::vector<float> specials = {
      0.0f,     -0.0f, 1e-45f, FLT_MIN,  FLT_MAX,
      -FLT_MAX, 0.1f,  -3.5f,  INFINITY, std::bit_cast<float>(0x7fc01234u)};
  std::vector<std::vector<float>> in = {specials, specials};
  std::reverse(in[1].begin(), in[1].end());
  const auto text = packVectors(in, "e5 \"large\"\n");
  QVERIFY(text);
  std::vector<std::vector<float>> out;
  std::string model;
  QCOMPARE(unpackVectors(*text, &out, &model), std::string());
  QCOMPARE(model, std::string("e5 \"large\"\n"));
  QCOMPARE(out.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    QCOMPARE(out[i].size(), in[i].size());
    QVERIFY(std::memcmp(out[i].data(), in[i].data(), in[i].size() * sizeof(float)) == 0);
  }
  // What cannot be packed: nothing, or vectors of different sizes.
  QVERIFY(!packVectors({}, "m"));
  QVERIFY(!packVectors({{1.0f}, {1.0f, 2.0f}}, "m"));
  QVERIFY(!packVectors({{}}, "m"));
  // Refused forms, each with why (nothing is allocated for the sizes a header claims before the
  // body's length matches them).
  const std::string body = "\nAACAPw==";
  const std::pair<std::string, std::string> refused[] = {
      {"", "not the stored vector form (no header line)"},
      {"[[1.0]]", "not the stored vector form (no header line)"},
      {"{\"count\":1}\nAACAPw==",
       "not the stored vector form (header member \"vectors\" is not \"f32le-base64\")"},
      {"{\"count\":1,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f16\"}" + body,
       "not the stored vector form (header member \"vectors\" is not \"f32le-base64\")"},
      {"{\"count\":1,\"count\":1,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f32le-base64\"}" +
           body,
       "not the stored vector form (the header line is not a JSON object)"},
      {"{\"count\":1,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f32le-base64\",\"x\":1}" + body,
       "the header has other members than vectors, count, dimensions, model"},
      {"{\"count\":0,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f32le-base64\"}" + body,
       "header member \"count\" is not a count from 1 to 1048576"},
      {"{\"count\":1099511627776,\"dimensions\":65536,\"model\":\"m\",\"vectors\":\"f32le-"
       "base64\"}" +
           body,
       "header member \"count\" is not a count from 1 to 1048576"},
      {"{\"count\":1,\"dimensions\":-1,\"model\":\"m\",\"vectors\":\"f32le-base64\"}" + body,
       "header member \"dimensions\" is not a count from 1 to 65536"},
      {"{\"count\":1,\"dimensions\":1,\"model\":null,\"vectors\":\"f32le-base64\"}" + body,
       "header member \"model\" is not a string"},
      {"{\"count\":2,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f32le-base64\"}" + body,
       "the body holds 8 base64 characters, 2 x 1 float32 need 12"},
      {"{\"count\":1,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f32le-base64\"}\nAACAPw==\n",
       "the body holds 9 base64 characters, 1 x 1 float32 need 8"},
      {"{\"count\":1,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f32le-base64\"}\nAACAPx==",
       "the body is not canonical base64"},
      {"{\"count\":1,\"dimensions\":1,\"model\":\"m\",\"vectors\":\"f32le-base64\"}\nAACAPwA=",
       "the body's padding does not fit its size"},
  };
  for (const auto& [text, why] : refused) {
    std::vector<std::vector<float>> v;
    std::string m;
    QCOMPARE(unpackVectors(text, &v, &m), why);
  }
}

void TestDense::storeHoldsPackedVectors() {
  // The store keeps each batch's vectors packed in its answer text, exactly the floats the
  // server sent (TestServer::embed, computed here apart from the store), and nothing in extra.
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const auto built = buildDenseIndex(corpus, settings, optionsIn(dir.path().toStdString()));
  QVERIFY2(built.ok, built.error.c_str());
  store::RunStore st;
  std::string err;
  QVERIFY2(st.open(built.store, &err), err.c_str());
  QCOMPARE(st.run().settings.value("format", 0), 2);
  std::size_t batches = 0;
  st.forEachResult([&](store::StoredResult&& r) {
    ++batches;
    const std::string header = "{\"count\":" + std::string(r.key == "docs:8-9" ? "2" : "4") +
                               ",\"dimensions\":8,\"model\":\"test-model\",\"vectors\":"
                               "\"f32le-base64\"}\n";
    if (r.result.text.rfind(header, 0) != 0 || !r.result.extra.is_null()) {
      err = r.key + ": " + r.result.text.substr(0, 100) + " / " + r.result.extra.dump();
      return false;
    }
    std::vector<std::vector<float>> vectors;
    std::string model;
    err = unpackVectors(r.result.text, &vectors, &model);
    const std::size_t first = r.key == "docs:0-3" ? 0 : r.key == "docs:4-7" ? 4 : 8;
    for (std::size_t i = 0; err.empty() && i < vectors.size(); ++i) {
      const auto sent = TestServer::embed(documentEmbeddingText(settings, corpus.at(first + i)), 8);
      if (std::memcmp(sent.data(), vectors[i].data(), 8 * sizeof(float)) != 0)
        err = r.key + ": vector " + std::to_string(i) + " differs";
    }
    return err.empty();
  });
  QVERIFY2(err.empty(), err.c_str());
  QCOMPARE(batches, std::size_t(3));
}

void TestDense::formatOneStoreEmbeddedAgain() {
  // A store written before the packed form (settings format 1, vectors as decimal JSON) is never
  // read in that form: it counts as made with other settings and is embedded again.
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(10);
  const auto settings = settingsOf(endpointOf(server), 4);
  const fs::path folder = dir.path().toStdString();
  const auto built = buildDenseIndex(corpus, settings, optionsIn(folder));
  QVERIFY2(built.ok, built.error.c_str());
  {
    // The same store as the old code wrote it: its record with format 1, its items, and each
    // result's vectors (all 0.25 here, so reading them would give another index) in extra.
    std::string err;
    store::RunRecord record;
    std::vector<store::WorkItem> items;
    {
      store::RunStore st;
      QVERIFY2(st.open(built.store, &err), err.c_str());
      record = st.run();
      items = st.items();
    }
    for (const char* suffix : {"", "-wal", "-shm"})
      fs::remove(fs::path(built.store.string() + suffix));
    record.settings["format"] = 1;
    store::RunStore old;
    QVERIFY2(old.create(built.store, record, &err), err.c_str());
    std::vector<store::NewItem> plan;
    for (const auto& w : items) plan.push_back({w.key, w.kind, w.requestJson});
    QVERIFY2(old.addItems(plan, &err), err.c_str());
    std::vector<store::ItemResult> results;
    for (const auto& w : old.items()) {
      store::ItemResult r;
      r.itemId = w.id;
      const std::size_t n = w.key == "docs:8-9" ? 2 : 4;
      r.extra = {{"embeddings", std::vector<std::vector<float>>(n, std::vector<float>(8, 0.25f))},
                 {"model", "test-model"}};
      results.push_back(std::move(r));
    }
    QVERIFY2(old.commitResults(results, &err), err.c_str());
  }
  auto options = optionsIn(folder);
  options.rebuild = true;
  const auto again = buildDenseIndex(corpus, settings, options);
  QVERIFY2(again.ok, again.error.c_str());
  QVERIFY2(again.rebuildReason.find(built.store.string() +
                                    " was made with other settings (format): embedded again") !=
               std::string::npos,
           again.rebuildReason.c_str());
  QCOMPARE(again.calls, std::size_t(3));
  QCOMPARE(server.embeddingRequests(), std::size_t(6));
  QCOMPARE(searchOutput(*again.index), searchOutput(*built.index));
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

void TestDense::batchFileExportImportMatchesLive() {
  // Issue 28's file route for an index's embeddings store: the calls the store lacks written as
  // batch input lines, their output read in by the batch commands' import (the same checks as
  // live replies: a bad line is recorded as failed naming FILE:LINE, its vectors not stored), and
  // the index the next build makes equals the live one, with the same stored vectors.
  TestServer server;
  QVERIFY(server.start());
  QTemporaryDir dir;
  const Corpus corpus = makeCorpus(14);
  const auto settings = settingsOf(endpointOf(server), 4);
  const fs::path root = dir.path().toStdString();
  const auto live = buildDenseIndex(corpus, settings, optionsIn(root / "live"));
  QVERIFY2(live.ok, live.error.c_str());
  QCOMPARE(sentInputs(server).size(), std::size_t(4));

  auto fileOptions = optionsIn(root / "file");
  fileOptions.batch.mode = eval::BatchMode::File;
  fileOptions.batch.file = root / "calls.jsonl";
  const auto paused = buildDenseIndex(corpus, settings, fileOptions);
  QVERIFY(!paused.ok);
  QVERIFY(paused.paused);
  QVERIFY2(
      paused.error.find("ragscope-cli batch import " + paused.store.string()) != std::string::npos,
      paused.error.c_str());
  QCOMPARE(paused.batchFiles.size(), std::size_t(1));
  QCOMPARE(sentInputs(server).size(), std::size_t(4));  // nothing sent
  const auto calls = fileLines(root / "calls.jsonl");
  QCOMPARE(calls.size(), std::size_t(4));
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto line = nlohmann::json::parse(calls[i]);
    QCOMPARE(line["url"].get<std::string>(), std::string("/v1/embeddings"));
    QVERIFY(line["body"]["input"] == nlohmann::json(sentInputs(server)[i]));
  }

  // Line 2 holds 3 vectors for 4 texts, line 3 vectors of 9 components.
  const fs::path bad = root / "out-bad.jsonl";
  writeLines(bad, {outputLineFor(calls[0]), outputLineFor(calls[1], 1),
                   outputLineFor(calls[2], 0, 1), outputLineFor(calls[3])});
  std::string err;
  auto job = eval::openStoredJob(paused.store, {}, &err);
  QVERIFY2(job, err.c_str());
  const auto imported = eval::importBatchFiles(*job, {bad});
  QVERIFY2(imported.ok(), imported.error.c_str());
  QCOMPARE(imported.answered, std::size_t(2));
  QCOMPARE(imported.failed, std::size_t(2));
  QCOMPARE(imported.stillFailed, std::size_t(2));
  QVERIFY2(imported.firstFailure.rfind(
               bad.string() + ":2: batch: malformed reply: expected 4 embeddings, got 3", 0) == 0,
           imported.firstFailure.c_str());
  auto texts = storedTexts(paused.store);
  QCOMPARE(texts.size(), std::size_t(4));
  QVERIFY2(texts["docs:8-11"].find("error: batch: bad embeddings reply: embeddings[0] has 9 "
                                   "components, the first batch's vectors 8 (" +
                                   bad.string() + ":3)") == 0,
           texts["docs:8-11"].c_str());
  QVERIFY2(texts["docs:4-7"].rfind("error: ", 0) == 0, texts["docs:4-7"].c_str());
  job.reset();

  // Through the CLI, as a user would: a corrected file answers the two failed calls (the two
  // answered ones are skipped), and the next step named is the index build.
  const fs::path good = root / "out.jsonl";
  writeLines(good, {outputLineFor(calls[0]), outputLineFor(calls[1]), outputLineFor(calls[2]),
                    outputLineFor(calls[3])});
  const auto cli =
      ragscope::test::runCliText({"batch", "import", QString::fromStdString(paused.store.string()),
                                  QString::fromStdString(good.string())});
  QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
  QVERIFY2(cli.out.contains("4 lines: 2 answers, 0 failed calls recorded as errors; 2 lines for "
                            "calls already recorded"),
           qPrintable(cli.out));
  QVERIFY2(cli.out.contains("next:       run the retrieve command that built the index again"),
           qPrintable(cli.out));
  // A plain resume would call the endpoint unchecked: refused, naming what continues the store.
  const auto resume =
      ragscope::test::runCliText({"resume", QString::fromStdString(paused.store.string())});
  QVERIFY2(resume.exitCode != 0 &&
               (resume.out + resume.err).contains("a dense index's embeddings store"),
           qPrintable(resume.out + resume.err));

  // The next build reads the imported vectors: no call, the live index, the live store's texts.
  const auto built = buildDenseIndex(corpus, settings, optionsIn(root / "file"));
  QVERIFY2(built.ok, built.error.c_str());
  QCOMPARE(built.calls, std::size_t(0));
  QCOMPARE(sentInputs(server).size(), std::size_t(4));
  QCOMPARE(searchOutput(*built.index), searchOutput(*live.index));
  QCOMPARE(storedTexts(built.store), storedTexts(live.store));

  // Exporting a store with nothing left to ask writes nothing.
  const auto exported = ragscope::test::runCliText(
      {"batch", "export", QString::fromStdString(built.store.string()), "--out",
       QString::fromStdString((root / "again.jsonl").string())});
  QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
  QVERIFY2(exported.out.contains("nothing to export"), qPrintable(exported.out));
  QVERIFY(!fs::exists(root / "again.jsonl"));
}

QTEST_GUILESS_MAIN(TestDense)
#include "tst_dense.moc"
