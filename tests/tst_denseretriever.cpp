// Dense and hybrid retrievers as users reach them (issue 36, items 3 and 4): `dense:URL` and
// `hybrid:A+B` specs on the command line and in project JSON (round trips, refusals naming the
// field, trust endpoints, redacted descriptions), the hybrid retriever's fusion against
// hand-computed RRF and weighted sums, and `ragscope-cli retrieve` with dense:offline (a query
// equal to a document's text finds that document; a second run reuses the index) and with
// hybrid:bm25+dense:offline (the run equals `fuseRuns` of the members' own runs).

#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/cli.h"
#include "common/localserver.h"
#include "core/data/dataset.h"
#include "core/data/loaders.h"
#include "core/retrieval/fusion.h"
#include "core/retrieval/hybridretriever.h"
#include "core/retrieval/retrievejob.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/retrieverspec.h"

using namespace ragscope::core;
using ragscope::test::runCliText;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A member with a fixed ranking; records the depth it was asked for.
class Fixed : public Retriever {
 public:
  Fixed(std::string name, std::vector<ScoredDoc> docs, std::string error = {})
      : m_name(std::move(name)), m_docs(std::move(docs)), m_error(std::move(error)) {}
  std::string name() const override { return m_name; }
  std::vector<ScoredDoc> search(const Query&, std::size_t k, std::string* error) override {
    askedK = k;
    if (!m_error.empty()) {
      *error = m_error;
      return {};
    }
    return m_docs;
  }
  std::atomic<std::size_t> askedK{0};

 private:
  std::string m_name;
  std::vector<ScoredDoc> m_docs;
  std::string m_error;
};

// Members A (d1 3, d2 2, d3 1) and B (d3 4, d4 2, d1 1), scores exact in float.
std::vector<HybridMember> twoMembers(Fixed** a = nullptr, Fixed** b = nullptr) {
  auto fa = std::make_unique<Fixed>(
      "A", std::vector<ScoredDoc>{{"d1", 3.0, ""}, {"d2", 2.0, "two"}, {"d3", 1.0, ""}});
  auto fb = std::make_unique<Fixed>(
      "B", std::vector<ScoredDoc>{{"d3", 4.0, ""}, {"d4", 2.0, ""}, {"d1", 1.0, ""}});
  if (a) *a = fa.get();
  if (b) *b = fb.get();
  std::vector<HybridMember> members;
  members.push_back({"A", std::move(fa)});
  members.push_back({"B", std::move(fb)});
  return members;
}

std::vector<std::string> ids(const std::vector<ScoredDoc>& docs) {
  std::vector<std::string> out;
  for (const auto& d : docs) out.push_back(d.id);
  return out;
}

const fs::path kDemo = fs::path(RAGSCOPE_SOURCE_DIR) / "resources" / "demo";

}  // namespace

class TstDenseRetriever : public QObject {
  Q_OBJECT

 private slots:
  void parseArguments();
  void jsonRoundTripsAndRefusals();
  void trustAndDescription();
  void hybridFusesLikeRanx();
  void hybridMemberErrorNamesMember();
  void cliDenseOfflineFindsTheDocumentAndReuses();
  void cliHybridEqualsFuseOfMemberRuns();
  void cliRefusals();
  void hybridCheckpointHoldsOnlyForTheSameCorpus();
};

void TstDenseRetriever::parseArguments() {
  std::string error;
  auto dense = parseRetrieverArg("dense:offline", &error);
  QVERIFY2(dense, error.c_str());
  QVERIFY(dense->kind == RetrieverSpec::Kind::Dense);
  QCOMPARE(dense->url, std::string("offline"));
  QCOMPARE(dense->embedBatch, std::size_t{64});
  auto remote = parseRetrieverArg("dense:http://127.0.0.1:8000/v1", &error);
  QVERIFY2(remote, error.c_str());
  QCOMPARE(remote->url, std::string("http://127.0.0.1:8000/v1"));
  QVERIFY(!parseRetrieverArg("dense:file:///etc/passwd", &error));
  QVERIFY2(contains(error, "dense retriever") && contains(error, "'file'"), error.c_str());
  QVERIFY(!parseRetrieverArg("dense:", &error));
  QVERIFY2(contains(error, "unknown retriever 'dense:'"), error.c_str());

  auto hybrid = parseRetrieverArg("hybrid:bm25+dense:offline+http://h:1/x?q=1", &error);
  QVERIFY2(hybrid, error.c_str());
  QVERIFY(hybrid->kind == RetrieverSpec::Kind::Hybrid);
  QCOMPARE(hybrid->members.size(), std::size_t{3});
  QVERIFY(hybrid->members[0].kind == RetrieverSpec::Kind::Bm25);
  QVERIFY(hybrid->members[1].kind == RetrieverSpec::Kind::Dense);
  QCOMPARE(hybrid->members[2].url, std::string("http://h:1/x?q=1"));
  QVERIFY(hybrid->fusion.method == FusionMethod::Rrf);
  QCOMPARE(hybrid->fusion.rrfK, 60.0);
  // Every '+' separates members: a URL with one reads as a cut, never as two things at once.
  QVERIFY(!parseRetrieverArg("hybrid:bm25+http://h:1/x?q=a+b", &error));
  QVERIFY2(contains(error, "hybrid: member 3: unknown retriever 'b'"), error.c_str());
  QVERIFY(!parseRetrieverArg("hybrid:bm25", &error));
  QVERIFY2(contains(error, "two or more"), error.c_str());
  QVERIFY(!parseRetrieverArg("hybrid:bm25++dense:offline", &error));
  QVERIFY2(contains(error, "member 2 is empty"), error.c_str());
  QVERIFY(!parseRetrieverArg("hybrid:bm25+hybrid:bm25+bm25", &error));
  QVERIFY2(contains(error, "member 2 is a hybrid"), error.c_str());
  QVERIFY(!parseRetrieverArg("hybrid:bm25+es:file:///x", &error));
  QVERIFY2(contains(error, "member 2: es retriever") && contains(error, "'file'"), error.c_str());
  std::string many = "hybrid:bm25";
  for (int i = 0; i < 16; ++i) many += "+bm25";
  QVERIFY(!parseRetrieverArg(many, &error));
  QVERIFY2(contains(error, "more than 16 members"), error.c_str());
}

void TstDenseRetriever::jsonRoundTripsAndRefusals() {
  std::string error;
  RetrieverSpec dense;
  dense.kind = RetrieverSpec::Kind::Dense;
  dense.name = "e5";
  dense.url = "http://127.0.0.1:8000/v1";
  dense.apiKeyEnv = "E5_KEY";
  dense.embedModel = "intfloat/e5-base-v2";
  dense.queryPrefix = "query: ";
  dense.docPrefix = "passage: ";
  dense.embedBatch = 32;
  dense.ann = AnnKind::Hnsw;
  dense.indexDir = "/tmp/e5-index";
  const auto dj = retrieverSpecToJson(dense);
  QCOMPARE(dj.at("kind").get<std::string>(), std::string("dense"));
  QCOMPARE(dj.at("embed_model").get<std::string>(), dense.embedModel);
  QCOMPARE(dj.at("query_prefix").get<std::string>(), std::string("query: "));
  QCOMPARE(dj.at("doc_prefix").get<std::string>(), std::string("passage: "));
  QCOMPARE(dj.at("embed_batch").get<int>(), 32);
  QCOMPARE(dj.at("ann").get<std::string>(), std::string("hnsw"));
  auto back = retrieverSpecFromJson(dj, &error);
  QVERIFY2(back, error.c_str());
  QCOMPARE(retrieverSpecToJson(*back).dump(), dj.dump());
  QVERIFY(back->ann == AnnKind::Hnsw);

  RetrieverSpec es;
  es.kind = RetrieverSpec::Kind::Elasticsearch;
  es.url = "http://127.0.0.1:9200/docs";
  es.esKnnField = "vec";
  es.embedUrl = "http://127.0.0.1:8000/v1";
  es.embedApiKeyEnv = "EMB_KEY";
  es.embedModel = "bge";
  es.queryPrefix = "Represent this sentence: ";
  es.esFlavour = "opensearch";
  es.numCandidates = 200;
  const auto ej = retrieverSpecToJson(es);
  QCOMPARE(ej.at("es_knn_field").get<std::string>(), std::string("vec"));
  QCOMPARE(ej.at("embed_url").get<std::string>(), es.embedUrl);
  QCOMPARE(ej.at("embed_api_key_env").get<std::string>(), std::string("EMB_KEY"));
  QCOMPARE(ej.at("es_flavour").get<std::string>(), std::string("opensearch"));
  QCOMPARE(ej.at("num_candidates").get<int>(), 200);
  back = retrieverSpecFromJson(ej, &error);
  QVERIFY2(back, error.c_str());
  QCOMPARE(retrieverSpecToJson(*back).dump(), ej.dump());

  // A hybrid nests whole specs, a hybrid inside a hybrid too, with its fusion.
  RetrieverSpec inner;
  inner.kind = RetrieverSpec::Kind::Hybrid;
  inner.members = {RetrieverSpec{}, dense};
  inner.fusion.method = FusionMethod::WeightedSum;
  inner.fusion.norm = ScoreNorm::Zmuv;
  inner.fusion.weights = {0.3, 0.7};
  RetrieverSpec outer;
  outer.kind = RetrieverSpec::Kind::Hybrid;
  outer.name = "bm25+e5+es";
  outer.members = {inner, es};
  outer.fusion.rrfK = 10;
  outer.fusion.depth = 200;
  const auto hj = retrieverSpecToJson(outer);
  QCOMPARE(hj.at("members").size(), std::size_t{2});
  QCOMPARE(hj.at("members")[0].at("fusion").at("method").get<std::string>(), std::string("wsum"));
  QCOMPARE(hj.at("fusion").at("depth").get<int>(), 200);
  back = retrieverSpecFromJson(hj, &error);
  QVERIFY2(back, error.c_str());
  QCOMPARE(retrieverSpecToJson(*back).dump(), hj.dump());
  QCOMPARE(back->members[0].fusion.weights, (std::vector<double>{0.3, 0.7}));

  // Refusals name the field, members by their path.
  struct Case {
    nlohmann::json json;
    std::string field;
  };
  auto with = [](nlohmann::json j, const std::string& key, nlohmann::json v) {
    j[key] = std::move(v);
    return j;
  };
  auto without = [](nlohmann::json j, const std::string& key) {
    j.erase(key);
    return j;
  };
  nlohmann::json badMember = hj;
  badMember["members"][0]["members"][1]["embed_batch"] = 0;
  nlohmann::json badMemberUrl = hj;
  badMemberUrl["members"][1]["url"] = "gopher://h/x";
  nlohmann::json badFusion = hj;
  badFusion["fusion"]["method"] = "borda";
  nlohmann::json badWeights = hj;
  badWeights["members"][0]["fusion"]["weights"] = {1.0};
  nlohmann::json negativeK = hj;
  negativeK["fusion"]["rrf_k"] = -1;
  nlohmann::json deep = {{"kind", "bm25"}};
  for (int i = 0; i < 5; ++i)
    deep = {{"kind", "hybrid"}, {"members", nlohmann::json::array({deep, {{"kind", "bm25"}}})}};
  const std::vector<Case> cases = {
      {without(dj, "url"), "field 'url': missing"},
      {with(dj, "url", "ftp://h/v1"), "field 'url': dense retriever"},
      {without(dj, "embed_model"), "field 'embed_model': missing"},
      {with(dj, "embed_batch", 0), "field 'embed_batch'"},
      {with(dj, "embed_batch", "64"), "field 'embed_batch'"},
      {with(dj, "embed_batch", 100000), "field 'embed_batch'"},
      {with(dj, "ann", "ivf"), "field 'ann': 'ivf' is not flat, hnsw or ivfpq"},
      {with(dj, "query_prefix", 3), "field 'query_prefix': expected a string"},
      {with(dj, "timeout_ms", -5), "field 'timeout_ms'"},
      {with(ej, "es_flavour", "solr"), "field 'es_flavour'"},
      {with(ej, "num_candidates", 20000), "field 'num_candidates'"},
      {without(ej, "embed_url"), "field 'embed_url': missing"},
      {with(ej, "embed_url", "file:///x"), "field 'embed_url'"},
      {with(hj, "members", nlohmann::json::array({dj})),
       "field 'members': a hybrid retriever "
       "fuses 2 to 16"},
      {without(hj, "members"), "field 'members': missing"},
      {with(hj, "members", "bm25"), "field 'members': expected a list"},
      {badMember, "field 'members[0].members[1].embed_batch'"},
      {badMemberUrl, "field 'members[1].url'"},
      {badFusion, "field 'fusion.method': 'borda'"},
      {badWeights, "field 'members[0].fusion'"},
      {negativeK, "field 'fusion.rrf_k': must be >= 0"},
      {deep, "nested more than 4 levels deep"},
      {nlohmann::json{{"kind", "faiss"}}, "field 'kind'"},
  };
  for (const auto& c : cases) {
    error.clear();
    QVERIFY2(!retrieverSpecFromJson(c.json, &error), c.json.dump().c_str());
    QVERIFY2(contains(error, c.field), (c.field + " | " + error).c_str());
  }
  // Four levels are allowed.
  nlohmann::json four = {{"kind", "bm25"}};
  for (int i = 0; i < 4; ++i)
    four = {{"kind", "hybrid"}, {"members", nlohmann::json::array({four, {{"kind", "bm25"}}})}};
  QVERIFY2(retrieverSpecFromJson(four, &error), error.c_str());
}

void TstDenseRetriever::trustAndDescription() {
  std::string error;
  auto offline = parseRetrieverArg("dense:offline", &error);
  QVERIFY(offline);
  QVERIFY(!retrieverTrustEndpoint(*offline));
  QVERIFY(retrieverTrustEndpoints(*offline).empty());
  auto dense = parseRetrieverArg("dense:https://user:pw@emb.example/v1", &error);
  QVERIFY(dense);
  dense->embedModel = "m";
  const auto e = retrieverTrustEndpoint(*dense);
  QVERIFY(e);
  QVERIFY(e->kind == llm::EndpointKind::Embeddings);
  QCOMPARE(e->baseUrl, dense->url);
  QVERIFY2(!contains(describeRetriever(*dense), "pw"), describeRetriever(*dense).c_str());

  // A hybrid calls every member's endpoint; the keyed one is the one whose key is resolved.
  auto hybrid = parseRetrieverArg(
      "hybrid:bm25+dense:offline+http://a.example/r+dense:http://b.example/v1", &error);
  QVERIFY2(hybrid, error.c_str());
  hybrid->members[3].apiKeyEnv = "B_KEY";
  hybrid->members[3].embedModel = "m";
  const auto all = retrieverTrustEndpoints(*hybrid);
  QCOMPARE(all.size(), std::size_t{2});
  QCOMPARE(all[0].baseUrl, std::string("http://a.example/r"));
  QCOMPARE(all[1].baseUrl, std::string("http://b.example/v1"));
  QCOMPARE(retrieverTrustEndpoint(*hybrid)->apiKeyEnv, std::string("B_KEY"));
  // es kNN: the search server and the query embedder.
  RetrieverSpec es;
  es.kind = RetrieverSpec::Kind::Elasticsearch;
  es.url = "http://es.example:9200/i";
  es.esKnnField = "v";
  es.embedUrl = "http://emb.example/v1";
  es.embedApiKeyEnv = "EMB";
  const auto esAll = retrieverTrustEndpoints(es);
  QCOMPARE(esAll.size(), std::size_t{2});
  QCOMPARE(esAll[1].apiKeyEnv, std::string("EMB"));
  QCOMPARE(retrieverTrustEndpoint(es)->baseUrl, es.url);  // the server's, never the embedder's

  hybrid->members[2].url = "http://u:secret@a.example/r?token=t0k";
  const std::string text = describeRetriever(*hybrid);
  QVERIFY2(contains(text, "hybrid (rrf k=60 of bm25"), text.c_str());
  QVERIFY2(!contains(text, "secret") && !contains(text, "t0k"), text.c_str());
}

void TstDenseRetriever::hybridFusesLikeRanx() {
  Query query;
  query.id = "q";
  query.text = "x";
  std::string error;
  // RRF, k = 60: d1 = 1/61 + 1/63 = d3 (ties by docno descending: d3 first), d2 = d4 = 1/62.
  Fixed *a = nullptr, *b = nullptr;
  HybridRetriever rrf(twoMembers(&a, &b), FusionOptions{});
  auto hits = rrf.search(query, 3, &error);
  QVERIFY2(error.empty(), error.c_str());
  QCOMPARE(ids(hits), (std::vector<std::string>{"d3", "d1", "d4"}));
  QCOMPARE(hits[0].score, 1.0 / 61 + 1.0 / 63);
  QCOMPARE(hits[1].score, 1.0 / 61 + 1.0 / 63);
  QCOMPARE(hits[2].score, 1.0 / 62);
  QCOMPARE(a->askedK.load(), std::size_t{3});
  QCOMPARE(b->askedK.load(), std::size_t{3});

  // wsum 0.25/0.75 without normalisation: d1 = 0.75 + 0.75 = 1.5, d2 = 0.5, d3 = 0.25 + 3 = 3.25,
  // d4 = 1.5 (ties with d1: d4 first). Members asked for the fusion depth (5 > k).
  FusionOptions wsum;
  wsum.method = FusionMethod::WeightedSum;
  wsum.norm = ScoreNorm::None;
  wsum.weights = {0.25, 0.75};
  wsum.depth = 5;
  HybridRetriever weighted(twoMembers(&a, &b), wsum);
  hits = weighted.search(query, 4, &error);
  QVERIFY2(error.empty(), error.c_str());
  QCOMPARE(ids(hits), (std::vector<std::string>{"d3", "d4", "d1", "d2"}));
  QCOMPARE(hits[0].score, 3.25);
  QCOMPARE(hits[1].score, 1.5);
  QCOMPARE(hits[2].score, 1.5);
  QCOMPARE(hits[3].score, 0.5);
  QCOMPARE(hits[3].text, std::string("two"));  // a member's text comes along
  QCOMPARE(a->askedK.load(), std::size_t{5});
}

void TstDenseRetriever::hybridMemberErrorNamesMember() {
  std::vector<HybridMember> members;
  members.push_back(
      {"bm25", std::make_unique<Fixed>("bm25", std::vector<ScoredDoc>{{"d1", 1, ""}})});
  members.push_back({"e5", std::make_unique<Fixed>("e5", std::vector<ScoredDoc>{}, "HTTP 503")});
  HybridRetriever hybrid(std::move(members), FusionOptions{});
  Query query;
  query.id = "q";
  std::string error;
  QVERIFY(hybrid.search(query, 10, &error).empty());
  QCOMPARE(error, std::string("member 2 (e5): HTTP 503"));
  // Through retrieveAll the query fails and is reported; the run goes on.
  Loaded<Run> run = retrieveAll(hybrid, {query}, RetrieveOptions{});
  QCOMPARE(run.report.skipped, std::size_t{1});
  QVERIFY(contains(run.report.diagnostics.at(0).toString(), "member 2 (e5): HTTP 503"));
}

// A query whose text is a document's text: the hashed bag of words gives them the same vector,
// so that document comes first with cosine 1. The second run finds the index and embeds nothing.
void TstDenseRetriever::cliDenseOfflineFindsTheDocumentAndReuses() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  fs::copy_file(kDemo / "collection.tsv", root / "collection.tsv");
  std::map<std::string, std::string> texts;  // id -> text
  {
    std::ifstream in(root / "collection.tsv");
    std::string line;
    while (std::getline(in, line)) {
      const auto tab = line.find('\t');
      texts[line.substr(0, tab)] = line.substr(tab + 1);
    }
  }
  QVERIFY(texts.size() > 20);
  writeText(root / "topics.tsv",
            "t1\t" + texts.at("hc03") + "\nt2\t" + texts.begin()->second + "\n");
  const QStringList args = {"retrieve",
                            "--dataset",
                            q(root / "topics.tsv"),
                            q(root / "collection.tsv"),
                            "--retriever",
                            "dense:offline",
                            "--k",
                            "3",
                            "--embed-batch",
                            "8"};
  auto r = runCliText(args + QStringList{"--out", q(root / "dense.trec")});
  QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  QVERIFY2(r.out.contains("dense index: ") && r.out.contains(": built"), qPrintable(r.out));
  auto run = readTrecRun(root / "dense.trec", LoadOptions{});
  QVERIFY(run.report.ok());
  QCOMPARE(run.value.rankings.size(), std::size_t{2});
  const Ranking* t1 = run.value.find("t1");
  QVERIFY(t1);
  QCOMPARE(t1->entries.size(), std::size_t{3});
  QCOMPARE(std::string(t1->entries[0].docId()), std::string("hc03"));
  QVERIFY(std::abs(t1->entries[0].score - 1.0) < 1e-5);
  QVERIFY(t1->entries[1].score < t1->entries[0].score);
  QCOMPARE(std::string(run.value.find("t2")->entries[0].docId()), texts.begin()->first);
  QCOMPARE(run.value.tag, std::string("dense"));
  // A local search keeps no checkpoint.
  QVERIFY(!fs::exists(root / "dense.trec.partial"));

  r = runCliText(args + QStringList{"--out", q(root / "again.trec")});
  QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  QVERIFY2(r.out.contains("reused (nothing embedded)"), qPrintable(r.out));
  QCOMPARE(readFile(root / "again.trec"), readFile(root / "dense.trec"));
}

// hybrid:bm25+dense:offline with RRF is `fuse` of the bm25 and dense runs, computed here with
// fuseRuns over the run files the members' own `retrieve` wrote.
void TstDenseRetriever::cliHybridEqualsFuseOfMemberRuns() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  fs::copy_file(kDemo / "collection.tsv", root / "collection.tsv");
  fs::copy_file(kDemo / "topics.tsv", root / "topics.tsv");
  const QStringList data = {
      "retrieve", "--dataset", q(root / "topics.tsv"), q(root / "collection.tsv"), "--k", "5"};
  for (const auto& [retriever, out] :
       std::vector<std::pair<QString, QString>>{{"bm25", "bm25.trec"},
                                                {"dense:offline", "dense.trec"},
                                                {"hybrid:bm25+dense:offline", "hybrid.trec"}}) {
    auto r = runCliText(
        data + QStringList{"--retriever", retriever, "--out", q(root / out.toStdString())});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  }
  auto bm25 = readTrecRun(root / "bm25.trec", LoadOptions{});
  auto dense = readTrecRun(root / "dense.trec", LoadOptions{});
  auto hybrid = readTrecRun(root / "hybrid.trec", LoadOptions{});
  QVERIFY(bm25.report.ok() && dense.report.ok() && hybrid.report.ok());
  QCOMPARE(hybrid.value.tag, std::string("hybrid"));
  FusionOptions o;  // rrf, k = 60
  o.depth = 5;
  const Run* runs[] = {&bm25.value, &dense.value};
  const Loaded<Run> fused = fuseRuns(runs, o);
  QVERIFY(!fused.report.hasErrors());
  QCOMPARE(hybrid.value.rankings.size(), fused.value.rankings.size());
  QVERIFY(hybrid.value.rankings.size() > 20);
  std::size_t differentOrder = 0;
  for (const Ranking& expected : fused.value.rankings) {
    const Ranking* got = hybrid.value.find(expected.queryId);
    QVERIFY2(got, expected.queryId.c_str());
    QCOMPARE(got->entries.size(), expected.entries.size());
    for (std::size_t i = 0; i < expected.entries.size(); ++i) {
      QCOMPARE(std::string(got->entries[i].docId()), std::string(expected.entries[i].docId()));
      // The run holds the fused score as retrieval runs do: rounded to float.
      QCOMPARE(static_cast<float>(got->entries[i].score),
               static_cast<float>(expected.entries[i].score));
    }
    const Ranking* own = bm25.value.find(expected.queryId);
    if (!own || std::string(own->entries[0].docId()) != std::string(expected.entries[0].docId()))
      ++differentOrder;
  }
  // Fusion did something: not every query's top document is BM25's.
  qInfo("queries whose fused top document is not bm25's: %zu", differentOrder);
}

void TstDenseRetriever::cliRefusals() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  writeText(root / "topics.tsv", "1\thello\n");
  const QStringList base = {"retrieve", "--dataset", q(root / "topics.tsv"), "--out",
                            q(root / "r.trec")};
  struct Case {
    QStringList args;
    QString message;
  };
  const std::vector<Case> cases = {
      {{"--retriever", "dense:http://127.0.0.1:9/v1"}, "dense:URL needs --embed-model NAME"},
      {{"--retriever", "bm25", "--fuse", "rrf"}, "--fuse goes with a hybrid: retriever"},
      {{"--retriever", "bm25", "--ann", "hnsw"}, "--ann goes with a dense: retriever"},
      {{"--retriever", "bm25", "--embed-model", "m"}, "--embed-model goes with a dense:"},
      {{"--retriever", "hybrid:bm25+dense:offline", "--index", q(root / "i")},
       "--index: the hybrid has 2 members with an index"},
      {{"--retriever", "hybrid:dense:offline+http://127.0.0.1:9/a+http://127.0.0.1:9/b",
        "--api-key-env", "K"},
       "--api-key-env: the hybrid has 2 members calling an endpoint"},
      {{"--retriever", "hybrid:bm25+dense:offline", "--fuse", "wsum"},
       "--fuse wsum needs --fuse-weights"},
      {{"--retriever", "hybrid:bm25+dense:offline", "--fuse", "wsum", "--fuse-weights", "1"},
       "--fuse-weights: "},
      {{"--retriever", "hybrid:bm25+dense:offline", "--fuse", "combsum", "--rrf-k", "3"},
       "--rrf-k applies to --fuse rrf only"},
      {{"--retriever", "dense:offline", "--embed-batch", "0"}, "--embed-batch"},
      {{"--retriever", "hybrid:bm25+http://h/a?x=1+2"}, "member 3: unknown retriever '2'"},
  };
  for (const auto& c : cases) {
    auto r = runCliText(base + c.args);
    QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(' ') + "\n" + r.out + r.err));
    QVERIFY2(r.err.contains(c.message), qPrintable(c.args.join(' ') + "\n" + r.err));
  }
  auto help = runCliText({"retrieve", "--help"});
  QCOMPARE(help.exitCode, 0);
  for (const char* word : {"dense:URL", "dense:offline", "hybrid:A+B", "--embed-model",
                           "--query-prefix", "--doc-prefix", "--embed-batch", "--ann", "--fuse",
                           "--fuse-norm", "--fuse-weights", "--rrf-k"})
    QVERIFY2(help.out.contains(word), word);
}

// A hybrid of bm25 and an http service resumes from RUN.partial like an http retriever, but its
// answers depend on the corpus the bm25 index holds: a checkpoint made over another corpus is
// never reused (the key holds the corpus fingerprint).
void TstDenseRetriever::hybridCheckpointHoldsOnlyForTheSameCorpus() {
  ragscope::test::LocalServer service;
  std::atomic<bool> failing{true};
  std::atomic<int> calls{0};
  service.server.Post("/search", [&](const httplib::Request& req, httplib::Response& res) {
    const auto body = nlohmann::json::parse(req.body);
    ++calls;
    if (failing && body.at("query").get<std::string>().find("Mirren") != std::string::npos) {
      res.status = 404;  // not retried: the query fails at once
      res.set_content(R"({"detail":"no"})", "application/json");
      return;
    }
    res.set_content(R"([{"id":"hc01","score":2},{"id":"hc02","score":1}])", "application/json");
  });
  QVERIFY(service.start());
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  fs::copy_file(kDemo / "collection.tsv", root / "collection.tsv");
  fs::copy_file(kDemo / "topics.tsv", root / "topics.tsv");
  auto loaded =
      loadDataset({{root / "topics.tsv", std::nullopt}, {root / "collection.tsv", std::nullopt}},
                  LoadOptions{});
  QVERIFY(loaded.report.ok());
  Dataset& ds = loaded.value;
  std::string error;
  auto spec = parseRetrieverArg("hybrid:bm25+http:" + service.url("/search"), &error);
  QVERIFY2(spec, error.c_str());
  RetrieveJobOptions o;
  o.k = 5;
  o.threads = 2;
  o.out = root / "hybrid.trec";

  RetrieveJobResult first = runRetrieveJob(*spec, ds, root / "topics.tsv", o);
  QVERIFY2(first.ok, first.error.c_str());
  const std::size_t failed = first.run.report.skipped;
  QVERIFY(failed >= 1);
  QVERIFY(fs::exists(first.checkpoint));
  const std::size_t answered = ds.queries.size() - failed;

  // The same corpus: only the failed queries are asked again.
  failing = false;
  calls = 0;
  RetrieveJobResult second = runRetrieveJob(*spec, ds, root / "topics.tsv", o);
  QVERIFY2(second.ok, second.error.c_str());
  QCOMPARE(second.resumed, answered);
  QCOMPARE(static_cast<std::size_t>(calls.load()), failed);
  QVERIFY(!fs::exists(retrieveCheckpointPath(o.out)));

  // Interrupted again, then the corpus changes: nothing of the checkpoint is reused.
  failing = true;
  fs::remove(o.out);
  RetrieveJobResult third = runRetrieveJob(*spec, ds, root / "topics.tsv", o);
  QVERIFY(fs::exists(third.checkpoint));
  Document extra;
  extra.id = "hc99";
  extra.text = "Lake Mirren Reservoir holds a great deal of water.";
  ds.corpus.add(extra);
  failing = false;
  calls = 0;
  RetrieveJobResult fourth = runRetrieveJob(*spec, ds, root / "topics.tsv", o);
  QVERIFY2(fourth.ok, fourth.error.c_str());
  QCOMPARE(fourth.resumed, std::size_t{0});
  QCOMPARE(static_cast<std::size_t>(calls.load()), ds.queries.size());
  // The recorded setting names every URL without credentials and the index used.
  QVERIFY(fourth.setting.contains("index"));
  QCOMPARE(fourth.setting["retriever"]["members"][1]["url"].get<std::string>(),
           service.url("/search"));
}

QTEST_GUILESS_MAIN(TstDenseRetriever)
#include "tst_denseretriever.moc"
