// Elasticsearch and OpenSearch kNN (issue 36 item 5; core/retrieval/README.md, "Elasticsearch and
// OpenSearch kNN"): the request bodies of both engines checked against their documented shapes
// (Elasticsearch's top-level knn option: field, query_vector, k, num_candidates; OpenSearch's
// k-NN query: {FIELD: {vector, k}}), the query vector equal to the embedder's for the prefixed
// query, the flavour read from GET on the server's root (both ways, and an unknown server
// refused), num_candidates' documented limits, errors of the embedder named, and the `retrieve`
// CLI options. The search server and the embeddings endpoint are the local test server.

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "common/cli.h"
#include "core/retrieval/corpusembedding.h"
#include "core/retrieval/esretriever.h"
#include "core/retrieval/retrieverspec.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using ragscope::test::runCliText;
using ragscope::testserver::TestServer;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Keys = std::set<std::string>;

constexpr int kDim = 8;  // the test server's embedding size

Query makeQuery(std::string id, std::string text) {
  Query q;
  q.id = std::move(id);
  q.text = std::move(text);
  return q;
}

// The documents the test server searches: "d-self" has exactly the prefixed query's text, so its
// vector is the query's and its inner product with it, 1, is the largest any document can have.
const char* const kQuery = "what is a vector database";
const char* const kPrefix = "query: ";

ragscope::testserver::Options serverOptions(const std::string& root) {
  ragscope::testserver::Options o;
  o.embeddingDim = kDim;
  o.searchRoot = root;
  o.documents = {{"d-a", "apples and pears"},
                 {"d-self", std::string(kPrefix) + kQuery},
                 {"d-b", "a database of vectors"},
                 {"d-c", "the weather today"}};
  return o;
}

RetrieverSpec knnSpec(const TestServer& server, const std::string& flavour = {}) {
  std::string error;
  auto spec =
      parseRetrieverArg("es:http://127.0.0.1:" + std::to_string(server.port()) + "/docs", &error);
  if (!spec) qFatal("%s", error.c_str());
  spec->esKnnField = "doc_vector";
  spec->embedUrl = server.baseUrl();
  spec->embedModel = "test-model";
  spec->queryPrefix = kPrefix;
  spec->esFlavour = flavour;
  return *spec;
}

// The test server's vector for `text`, scaled to unit length (in double, then rounded).
std::vector<float> unitVector(const std::string& text) {
  const std::vector<float> v = TestServer::embed(text, kDim);
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  norm = std::sqrt(norm);
  std::vector<float> out;
  for (float x : v) out.push_back(static_cast<float>(x / norm));
  return out;
}

std::set<std::string> keysOf(const json& object) {
  std::set<std::string> out;
  for (const auto& [k, v] : object.items()) out.insert(k);
  return out;
}

// The bodies of the requests the server saw on paths ending in `suffix`, in arrival order.
std::vector<std::string> bodiesTo(const TestServer& server, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : server.log())
    if (e.path.size() >= suffix.size() &&
        e.path.compare(e.path.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(e.body);
  return out;
}

std::size_t getsOfRoot(const TestServer& server) {
  std::size_t n = 0;
  for (const auto& e : server.log()) n += e.method == "GET" && e.path == "/";
  return n;
}

// The vector a QueryEmbedder with the spec's settings gives for the query, for comparison.
std::vector<float> embedderVector(const RetrieverSpec& spec, const std::string& text) {
  EmbedderSettings s;
  s.endpoint.kind = llm::EndpointKind::Embeddings;
  s.endpoint.baseUrl = spec.embedUrl;
  s.endpoint.model = spec.embedModel;
  s.queryPrefix = spec.queryPrefix;
  QueryEmbedder embedder(s, {}, nullptr);
  std::vector<float> v;
  std::string error;
  if (!embedder.embed(text, 0, &v, &error)) qFatal("%s", error.c_str());
  return v;
}

void compareVector(const json& sent, const std::vector<float>& expected,
                   const std::vector<float>& fromEmbedder) {
  QVERIFY(sent.is_array());
  QCOMPARE(sent.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const float x = sent[i].get<float>();
    // Exactly the embedder's float (written as its shortest round-trip text) ...
    QVERIFY2(x == fromEmbedder[i], qPrintable(QString::number(i)));
    // ... which is the server's vector of the prefixed query at unit length.
    QVERIFY2(std::abs(x - expected[i]) <= 1e-6f, qPrintable(QString::number(i)));
  }
}

}  // namespace

class TestEsKnn : public QObject {
  Q_OBJECT
  // The response cache (which keeps query vectors) of this run alone: a port reused from an
  // earlier run must not find its vectors there.
  QTemporaryDir m_cache;
 private slots:
  void initTestCase() {
    QVERIFY(m_cache.isValid());
    qputenv("XDG_CACHE_HOME", m_cache.path().toUtf8());
  }
  void elasticsearchBody();
  void openSearchBody();
  void flavourFromRoot();
  void rootUrlsAndLimits();
  void embedderErrorsNamed();
  void refusedSpecs();
  void cliRetrieve();
};

void TestEsKnn::elasticsearchBody() {
  TestServer server(serverOptions("elasticsearch"));
  QVERIFY(server.start());
  const RetrieverSpec spec = knnSpec(server);
  OpenedRetriever opened = openRetriever(spec, Dataset{}, {}, {});
  QVERIFY2(opened.retriever, opened.error.c_str());
  // The flavour was read once, when the retriever was opened, from the server's root.
  QCOMPARE(getsOfRoot(server), std::size_t{1});

  std::string error;
  auto hits = opened.retriever->search(makeQuery("q1", kQuery), 3, &error);
  QVERIFY2(error.empty(), error.c_str());
  QCOMPARE(hits.size(), std::size_t{3});
  QCOMPARE(hits[0].id, std::string("d-self"));  // its own vector: inner product 1
  QVERIFY(std::abs(hits[0].score - 1.0) < 1e-6);
  QCOMPARE(hits[0].text, std::string(kPrefix) + kQuery);

  // The embedder was asked for the prefixed query with the model named.
  const auto embeds = bodiesTo(server, "/embeddings");
  QCOMPARE(embeds.size(), std::size_t{1});
  const json embedBody = json::parse(embeds[0]);
  QCOMPARE(embedBody["model"].get<std::string>(), std::string("test-model"));
  const json input = embedBody["input"];
  QCOMPARE(input.is_array() ? input[0].get<std::string>() : input.get<std::string>(),
           std::string(kPrefix) + kQuery);

  // Elasticsearch's documented shape: {"knn": {field, query_vector, k, num_candidates}, "size",
  // "_source"}, nothing else; num_candidates max(100, 2k) = 100 for k = 3.
  auto searches = bodiesTo(server, "/docs/_search");
  QCOMPARE(searches.size(), std::size_t{1});
  json body = json::parse(searches[0]);
  QVERIFY((keysOf(body) == Keys{"knn", "size", "_source"}));
  QVERIFY((keysOf(body["knn"]) == Keys{"field", "query_vector", "k", "num_candidates"}));
  QCOMPARE(body["knn"]["field"].get<std::string>(), std::string("doc_vector"));
  QCOMPARE(body["knn"]["k"].get<int>(), 3);
  QCOMPARE(body["knn"]["num_candidates"].get<int>(), 100);
  QCOMPARE(body["size"].get<int>(), 3);
  QVERIFY(body["_source"] == json::array({"text"}));
  compareVector(body["knn"]["query_vector"], unitVector(std::string(kPrefix) + kQuery),
                embedderVector(spec, kQuery));

  // k = 80: 2k = 160 candidates; a second query asks GET / no more.
  hits = opened.retriever->search(makeQuery("q2", "apples"), 80, &error);
  QVERIFY2(error.empty(), error.c_str());
  QCOMPARE(hits.size(), std::size_t{4});
  searches = bodiesTo(server, "/docs/_search");
  QCOMPARE(searches.size(), std::size_t{2});
  body = json::parse(searches[1]);
  QCOMPARE(body["knn"]["k"].get<int>(), 80);
  QCOMPARE(body["knn"]["num_candidates"].get<int>(), 160);
  QCOMPARE(getsOfRoot(server), std::size_t{1});

  // The query vectors are kept in the response cache: the same query again, even through a new
  // retriever, is not embedded again.
  const std::size_t embedded = bodiesTo(server, "/embeddings").size();
  opened = openRetriever(spec, Dataset{}, {}, {});
  QVERIFY2(opened.retriever, opened.error.c_str());
  hits = opened.retriever->search(makeQuery("q1", kQuery), 3, &error);
  QVERIFY2(error.empty(), error.c_str());
  QCOMPARE(hits[0].id, std::string("d-self"));
  QCOMPARE(bodiesTo(server, "/embeddings").size(), embedded);
  QCOMPARE(bodiesTo(server, "/docs/_search").size(), std::size_t{3});

  // num_candidates as given; an id field joins _source.
  RetrieverSpec given = spec;
  given.numCandidates = 500;
  given.idField = "pid";
  given.textField = "body";
  opened = openRetriever(given, Dataset{}, {}, {});
  QVERIFY2(opened.retriever, opened.error.c_str());
  opened.retriever->search(makeQuery("q3", "x"), 10, &error);
  body = json::parse(bodiesTo(server, "/docs/_search").back());
  QCOMPARE(body["knn"]["num_candidates"].get<int>(), 500);
  QVERIFY(body["_source"] == json::array({"body", "pid"}));
}

void TestEsKnn::openSearchBody() {
  TestServer server(serverOptions("opensearch"));
  QVERIFY(server.start());
  const RetrieverSpec spec = knnSpec(server);
  OpenedRetriever opened = openRetriever(spec, Dataset{}, {}, {});
  QVERIFY2(opened.retriever, opened.error.c_str());
  std::string error;
  auto hits = opened.retriever->search(makeQuery("q1", kQuery), 2, &error);
  QVERIFY2(error.empty(), error.c_str());
  QCOMPARE(hits.size(), std::size_t{2});
  QCOMPARE(hits[0].id, std::string("d-self"));

  // OpenSearch's documented shape: {"size", "query": {"knn": {FIELD: {vector, k}}}, "_source"};
  // no num_candidates (Elasticsearch's), no top-level knn.
  const auto searches = bodiesTo(server, "/docs/_search");
  QCOMPARE(searches.size(), std::size_t{1});
  const json body = json::parse(searches[0]);
  QVERIFY((keysOf(body) == Keys{"size", "query", "_source"}));
  QCOMPARE(body["size"].get<int>(), 2);
  QVERIFY((keysOf(body["query"]) == Keys{"knn"}));
  QVERIFY((keysOf(body["query"]["knn"]) == Keys{"doc_vector"}));
  const json& knn = body["query"]["knn"]["doc_vector"];
  QVERIFY((keysOf(knn) == Keys{"vector", "k"}));
  QCOMPARE(knn["k"].get<int>(), 2);
  compareVector(knn["vector"], unitVector(std::string(kPrefix) + kQuery),
                embedderVector(spec, kQuery));
  QCOMPARE(getsOfRoot(server), std::size_t{1});

  // The flavour given: no GET on the root, and it is believed (an Elasticsearch body here).
  const RetrieverSpec given = knnSpec(server, "elasticsearch");
  server.clearLog();
  opened = openRetriever(given, Dataset{}, {}, {});
  QVERIFY2(opened.retriever, opened.error.c_str());
  opened.retriever->search(makeQuery("q1", kQuery), 2, &error);
  QVERIFY2(error.empty(), error.c_str());
  QCOMPARE(getsOfRoot(server), std::size_t{0});
  QVERIFY(json::parse(bodiesTo(server, "/docs/_search").back()).contains("knn"));
}

void TestEsKnn::flavourFromRoot() {
  struct Case {
    const char* body;
    std::optional<EsFlavour> flavour;
    const char* problem;
  };
  const Case cases[] = {
      // Elasticsearch 8.15's root, trimmed.
      {R"({"name":"n","version":{"number":"8.15.0","build_flavor":"default"},)"
       R"("tagline":"You Know, for Search"})",
       EsFlavour::Elasticsearch, ""},
      {R"({"version":{"number":"8.4.0"},"tagline":"You Know, for Search"})",
       EsFlavour::Elasticsearch, ""},
      {R"({"version":{"number":"9.0.1"},"tagline":"You Know, for Search"})",
       EsFlavour::Elasticsearch, ""},
      // OpenSearch 2.x's and 1.x's.
      {R"({"version":{"distribution":"opensearch","number":"2.17.0"},)"
       R"("tagline":"The OpenSearch Project: https://opensearch.org/"})",
       EsFlavour::OpenSearch, ""},
      {R"({"version":{"distribution":"opensearch","number":"1.3.0"}})", EsFlavour::OpenSearch, ""},
      // Before _search's knn option.
      {R"({"version":{"number":"8.3.3"},"tagline":"You Know, for Search"})", std::nullopt,
       "needs Elasticsearch 8.4 or later"},
      {R"({"version":{"number":"7.17.0"},"tagline":"You Know, for Search"})", std::nullopt,
       "needs Elasticsearch 8.4 or later"},
      // Neither engine, or not saying.
      {R"({"version":{"distribution":"solr","number":"9"}})", std::nullopt,
       "'solr' is neither Elasticsearch nor OpenSearch"},
      {R"({"version":{"number":"8.15.0"},"tagline":"You know for search"})", std::nullopt,
       "neither Elasticsearch's"},
      {R"({"version":{"number":"8.15.0"}})", std::nullopt, "neither Elasticsearch's"},
      {R"({"tagline":"You Know, for Search"})", std::nullopt, "no version object"},
      {R"({"version":{"number":8},"tagline":"You Know, for Search"})", std::nullopt,
       "no version.number string"},
      {R"({"version":{"number":"eight"},"tagline":"You Know, for Search"})", std::nullopt,
       "is not MAJOR.MINOR"},
      {R"({"version":{"distribution":7,"number":"2.0.0"}})", std::nullopt,
       "distribution is not a string"},
      {R"(<html>nginx</html>)", std::nullopt, "reply is not JSON"},
      {R"({"version":{"number":"8.15.0"},"version":{"distribution":"opensearch"}})", std::nullopt,
       "reply is not JSON"},  // a repeated member is refused, not resolved
  };
  for (const Case& c : cases) {
    std::string problem;
    const auto got = esFlavourFromRootReply(c.body, &problem);
    QVERIFY2(got == c.flavour, c.body);
    QVERIFY2(problem.find(c.problem) != std::string::npos,
             qPrintable(QString::fromStdString(problem + " | " + c.body)));
  }

  // Through the server: an unknown root reply refuses the retriever before any query, naming the
  // root URL and how to say the flavour instead; a root that is not there (404) likewise.
  for (const std::string& root :
       {std::string(R"({"version":{"number":"3.1"},"tagline":"Solr"})"), std::string()}) {
    TestServer server(serverOptions(root));
    QVERIFY(server.start());
    OpenedRetriever opened = openRetriever(knnSpec(server), Dataset{}, {}, {});
    QVERIFY(!opened.retriever);
    const std::string where = "GET http://127.0.0.1:" + std::to_string(server.port()) + "/: ";
    QVERIFY2(opened.error.rfind(where, 0) == 0, opened.error.c_str());
    QVERIFY2(opened.error.find(root.empty() ? "HTTP 404" : "neither Elasticsearch's") !=
                 std::string::npos,
             opened.error.c_str());
    QVERIFY2(opened.error.find("elasticsearch, opensearch") != std::string::npos,
             opened.error.c_str());
    QCOMPARE(bodiesTo(server, "/_search").size(), std::size_t{0});
    QCOMPARE(bodiesTo(server, "/embeddings").size(), std::size_t{0});
  }
}

void TestEsKnn::rootUrlsAndLimits() {
  QCOMPARE(esRootUrl("http://h:9200/idx"), std::string("http://h:9200/"));
  QCOMPARE(esRootUrl("http://h:9200/idx/_search?routing=x#top"), std::string("http://h:9200/"));
  QCOMPARE(esRootUrl("https://u:p@h/es/idx/"), std::string("https://u:p@h/es/"));
  QCOMPARE(esRootUrl("http://h:9200/a,b/_search/"), std::string("http://h:9200/"));
  QCOMPARE(esRootUrl("http://h:9200"), std::string("http://h:9200/"));
  QCOMPARE(esRootUrl("http://h:9200/"), std::string("http://h:9200/"));

  // num_candidates: max(100, 2k) up to 10,000; given, from k to 10,000 (Elasticsearch's rules).
  std::string problem;
  QVERIFY(esNumCandidates(1, 0, &problem) == std::optional<std::size_t>(100));
  QVERIFY(esNumCandidates(50, 0, &problem) == std::optional<std::size_t>(100));
  QVERIFY(esNumCandidates(51, 0, &problem) == std::optional<std::size_t>(102));
  QVERIFY(esNumCandidates(4999, 0, &problem) == std::optional<std::size_t>(9998));
  QVERIFY(esNumCandidates(6000, 0, &problem) == std::optional<std::size_t>(10000));
  QVERIFY(esNumCandidates(10000, 0, &problem) == std::optional<std::size_t>(10000));
  QVERIFY(esNumCandidates(10, 10, &problem) == std::optional<std::size_t>(10));
  QVERIFY(esNumCandidates(10, 10000, &problem) == std::optional<std::size_t>(10000));
  QVERIFY(!esNumCandidates(10001, 0, &problem));
  QVERIFY2(problem.find("at most 10000") != std::string::npos, problem.c_str());
  QVERIFY(!esNumCandidates(10, 9, &problem));
  QVERIFY2(problem.find("k (10) to 10000") != std::string::npos, problem.c_str());
  QVERIFY(!esNumCandidates(10, 10001, &problem));

  // The bodies refuse what the engines would: k above 10,000, a vector JSON cannot hold.
  EsOptions o;
  o.url = "http://127.0.0.1:1/docs";
  o.knn.emplace();
  o.knn->field = "v";
  EsRetriever es(o);
  std::string error;
  QVERIFY(!es.knnRequestBody({0.5f}, 10, EsFlavour::Elasticsearch, &error).empty());
  QVERIFY(es.knnRequestBody({0.5f}, 10001, EsFlavour::OpenSearch, &error).empty());
  QVERIFY2(error.find("at most 10000") != std::string::npos, error.c_str());
  QVERIFY(es.knnRequestBody({0.5f}, 10001, EsFlavour::Elasticsearch, &error).empty());
  QVERIFY(es.knnRequestBody({0.5f, NAN}, 10, EsFlavour::OpenSearch, &error).empty());
  QVERIFY2(error.find("NaN or infinite") != std::string::npos, error.c_str());
  // Floats are written as their shortest round-trip text.
  const std::string body =
      es.knnRequestBody({0.1f, -2.5e-7f, 1.0f}, 5, EsFlavour::OpenSearch, &error);
  QVERIFY2(body.find(R"("vector":[0.1,-2.5e-07,1])") != std::string::npos, body.c_str());
}

void TestEsKnn::embedderErrorsNamed() {
  TestServer server(serverOptions("elasticsearch"));
  ragscope::testserver::Rule refuse =
      ragscope::testserver::rule(ragscope::testserver::Behaviour::Status, 1, "/embeddings");
  refuse.status = 400;  // not retried
  refuse.body = "model not loaded";
  server.addRule(refuse);
  QVERIFY(server.start());
  OpenedRetriever opened = openRetriever(knnSpec(server), Dataset{}, {}, {});
  QVERIFY2(opened.retriever, opened.error.c_str());
  std::string error;
  QVERIFY(opened.retriever->search(makeQuery("q1", kQuery), 3, &error).empty());
  // The embedder is named (not the search server), with its reason; nothing was searched.
  QVERIFY2(error.rfind("embedding the query: embeddings endpoint " + server.baseUrl(), 0) == 0,
           error.c_str());
  QVERIFY2(error.find("model not loaded") != std::string::npos, error.c_str());
  QCOMPARE(bodiesTo(server, "/_search").size(), std::size_t{0});

  // A query vector of another size than the first query's is refused before the search.
  EsOptions o;
  o.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/docs";
  o.knn.emplace();
  o.knn->field = "v";
  o.knn->flavour = EsFlavour::OpenSearch;
  int calls = 0;
  o.knn->embed = [&calls](const std::string&, std::vector<float>* v, std::string*) {
    v->assign(++calls == 1 ? 4 : 5, 0.5f);
    return true;
  };
  EsRetriever es(o);
  error.clear();
  es.search(makeQuery("q1", "x"), 3, &error);
  QVERIFY2(error.empty(), error.c_str());
  QVERIFY(es.search(makeQuery("q2", "x"), 3, &error).empty());
  QVERIFY2(error.find("5 dimensions for this query and 4 for an earlier one") != std::string::npos,
           error.c_str());
}

void TestEsKnn::refusedSpecs() {
  TestServer server(serverOptions("elasticsearch"));
  QVERIFY(server.start());
  struct Case {
    std::function<void(RetrieverSpec&)> change;
    const char* message;
  };
  const Case cases[] = {
      {[](RetrieverSpec& s) { s.esFlavour = "solr"; }, "flavour 'solr'"},
      {[](RetrieverSpec& s) { s.numCandidates = 10001; }, "more than 10000"},
      {[](RetrieverSpec& s) { s.requestTemplate = R"({"q": {{query}}})"; }, "request template"},
      {[](RetrieverSpec& s) { s.embedUrl = "file:///etc/passwd"; }, "scheme 'file'"},
      {[](RetrieverSpec& s) { s.embedUrl.clear(); }, "embed"},
      {[](RetrieverSpec& s) { s.embedModel.clear(); }, "--embed-model"},
  };
  for (const Case& c : cases) {
    RetrieverSpec spec = knnSpec(server);
    c.change(spec);
    OpenedRetriever opened = openRetriever(spec, Dataset{}, {}, {});
    QVERIFY(!opened.retriever);
    QVERIFY2(opened.error.find(c.message) != std::string::npos, opened.error.c_str());
  }
  QCOMPARE(bodiesTo(server, "/embeddings").size(), std::size_t{0});
  QCOMPARE(bodiesTo(server, "/_search").size(), std::size_t{0});

  // Trust covers both endpoints a kNN retriever calls: the search server and the embedder.
  const auto endpoints = retrieverTrustEndpoints(knnSpec(server));
  std::set<std::string> urls;
  for (const auto& e : endpoints) urls.insert(e.baseUrl);
  QVERIFY(urls.count(server.baseUrl()) == 1);
  QVERIFY(urls.count("http://127.0.0.1:" + std::to_string(server.port()) + "/docs") == 1);
}

void TestEsKnn::cliRetrieve() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root(tmp.path().toStdString());
  {
    std::ofstream topics(root / "topics.tsv");
    topics << "q1\t" << kQuery << "\nq2\tthe weather\n";
  }
  TestServer server(serverOptions("opensearch"));
  QVERIFY(server.start());
  const QString index = QString("es:http://127.0.0.1:%1/docs").arg(server.port());
  const QString topics = QString::fromStdString((root / "topics.tsv").string());
  const QString out = QString::fromStdString((root / "run.trec").string());
  const QStringList base = {"retrieve",    "--dataset", topics,  "--format", "topics-tsv",
                            "--retriever", index,       "--out", out};
  auto r = runCliText(base + QStringList{"--es-knn", "doc_vector", "--embedder",
                                         QString::fromStdString(server.baseUrl()), "--embed-model",
                                         "test-model", "--query-prefix", kPrefix, "--k", "2"});
  QVERIFY2(r.exitCode == 0, qPrintable(QString::number(r.exitCode) + r.out + r.err));
  QVERIFY2(r.out.contains("2 of 2 queries with results"), qPrintable(r.out));
  std::ifstream run(root / "run.trec");
  std::string line;
  std::getline(run, line);
  QVERIFY2(line.rfind("q1 Q0 d-self 1 ", 0) == 0, line.c_str());
  const auto searches = bodiesTo(server, "/docs/_search");
  QCOMPARE(searches.size(), std::size_t{2});
  for (const auto& s : searches)
    QCOMPARE(json::parse(s)["query"]["knn"]["doc_vector"]["k"].get<int>(), 2);

  // Options that make no sense alone or together are usage errors, before any request.
  server.clearLog();
  const QString embedder = QString::fromStdString(server.baseUrl());
  struct Case {
    QStringList args;
    const char* message;
  };
  const Case cases[] = {
      {{"--embedder", embedder}, "go with --es-knn"},
      {{"--num-candidates", "200"}, "go with --es-knn"},
      {{"--es-knn", "v"}, "--es-knn needs --embedder"},
      {{"--es-knn", "v", "--embedder", embedder, "--es-flavour", "solr"},
       "expected one of elasticsearch, opensearch"},
      {{"--es-knn", "v", "--embedder", embedder, "--k", "10001"}, "more than the 10000 hits"},
      {{"--es-knn", "v", "--embedder", embedder, "--k", "50", "--num-candidates", "20"},
       "--num-candidates 20 is less than --k 50"},
      {{"--es-knn", "v", "--embedder", embedder, "--num-candidates", "10001"}, "--num-candidates"},
  };
  for (const Case& c : cases) {
    r = runCliText(base + c.args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(c.message), qPrintable(r.err));
  }
  r = runCliText({"retrieve", "--dataset", topics, "--retriever", "bm25", "--out", out, "--es-knn",
                  "v", "--embedder", embedder});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("--es-knn needs an es:URL retriever"), qPrintable(r.err));
  QCOMPARE(server.requestCount(), std::size_t{0});

  const auto help = runCliText({"retrieve", "--help"});
  QVERIFY(help.out.contains("--es-knn") && help.out.contains("--es-flavour") &&
          help.out.contains("--num-candidates") && help.out.contains("--embedder"));
}

QTEST_GUILESS_MAIN(TestEsKnn)
#include "tst_esknn.moc"
