// The dense retriever's FAISS index (core/retrieval/vectorindex.h): exact search against a
// brute-force inner product computed here, cosine normalisation worked out by hand, HNSW recall
// against exact search (random vectors and the DL19 passages embedded with the offline hashed
// bag of words), IVF-PQ training and recall, the save/open round trip, and open() refusing
// folders that are not the index asked for: changed manifests, repeated members, truncated,
// foreign and garbage index files, and every single-byte corruption of small index files.

#include <sys/stat.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/files.h"
#include "common/testdata.h"
#include "core/llm/offline.h"
#include "core/retrieval/vectorindex.h"

using namespace ragscope::core;
using ragscope::test::readText;
using ragscope::test::writeText;
namespace fs = std::filesystem;

namespace {

std::vector<float> randomVectors(std::size_t n, int d, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> v(n * static_cast<std::size_t>(d));
  for (auto& x : v) x = g(rng);
  return v;
}

VectorIndexManifest manifestFor(AnnKind kind, int d, std::size_t n, bool normalized = true) {
  VectorIndexManifest m;
  m.embedder = "http://127.0.0.1:8000/v1";
  m.model = "test-model";
  m.dimensions = d;
  m.docPrefix = "passage: ";
  m.queryPrefix = "query: ";
  m.normalized = normalized;
  m.corpusStamp = "stamp-1";
  m.documents = n;
  m.ann = kind;
  return m;
}

std::unique_ptr<VectorIndex> build(const VectorIndexManifest& m, const std::vector<float>& docs) {
  std::string error;
  auto index = VectorIndex::create(m, &error);
  if (!index) qFatal("create: %s", error.c_str());
  if (index->needsTraining() && !index->train(docs.data(), m.documents, &error))
    qFatal("train: %s", error.c_str());
  if (!index->add(docs.data(), m.documents, &error)) qFatal("add: %s", error.c_str());
  return index;
}

struct Hits {
  std::vector<float> scores;
  std::vector<std::int64_t> positions;
};

Hits search(const VectorIndex& index, const std::vector<float>& queries, std::size_t k) {
  Hits h;
  std::string error;
  const std::size_t nq = queries.size() / static_cast<std::size_t>(index.dimensions());
  if (!index.search(queries.data(), nq, k, &h.scores, &h.positions, &error))
    qFatal("search: %s", error.c_str());
  return h;
}

// The reference: every query against every document in double precision, cosine when
// `normalized` (dot / (|q| |d|)), else the plain inner product.
std::vector<std::vector<double>> bruteForce(const std::vector<float>& docs,
                                            const std::vector<float>& queries, int d,
                                            bool normalized) {
  const std::size_t dd = static_cast<std::size_t>(d);
  const std::size_t n = docs.size() / dd, nq = queries.size() / dd;
  auto norm = [&](const float* v) {
    double s = 0;
    for (std::size_t j = 0; j < dd; ++j) s += double(v[j]) * v[j];
    return std::sqrt(s);
  };
  std::vector<std::vector<double>> out(nq, std::vector<double>(n));
  for (std::size_t q = 0; q < nq; ++q)
    for (std::size_t i = 0; i < n; ++i) {
      double dot = 0;
      for (std::size_t j = 0; j < dd; ++j) dot += double(queries[q * dd + j]) * docs[i * dd + j];
      out[q][i] = normalized ? dot / (norm(&queries[q * dd]) * norm(&docs[i * dd])) : dot;
    }
  return out;
}

// The exact top k of one query's scores: positions best first.
std::vector<std::size_t> topK(const std::vector<double>& scores, std::size_t k) {
  std::vector<std::size_t> idx(scores.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::partial_sort(idx.begin(), idx.begin() + static_cast<long>(std::min(k, idx.size())),
                    idx.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  idx.resize(std::min(k, idx.size()));
  return idx;
}

// recall@k of `hits` against exact scores: a hit counts when it is in the exact top k, or ties
// with the exact k-th score (so equal scores may swap).
double recallAt(const Hits& hits, const std::vector<std::vector<double>>& exact, std::size_t k,
                std::size_t depth) {
  double found = 0;
  for (std::size_t q = 0; q < exact.size(); ++q) {
    const auto best = topK(exact[q], k);
    const double kth = exact[q][best.back()];
    const std::set<std::size_t> want(best.begin(), best.end());
    std::size_t got = 0;
    for (std::size_t j = 0; j < depth; ++j) {
      const auto p = hits.positions[q * depth + j];
      if (p < 0) continue;
      if (want.count(static_cast<std::size_t>(p)) || exact[q][p] >= kth - 1e-6) ++got;
    }
    found += static_cast<double>(std::min(got, k)) / static_cast<double>(k);
  }
  return found / static_cast<double>(exact.size());
}

double msSince(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

nlohmann::json readManifest(const fs::path& dir) {
  return nlohmann::json::parse(readText(dir / "manifest.json"));
}

void writeManifest(const fs::path& dir, const nlohmann::json& j) {
  writeText(dir / "manifest.json", j.dump(2) + "\n");
}

// Replaces the index file (and the size the manifest states, so the checks behind it are seen).
void replaceIndexFile(const fs::path& dir, const std::string& bytes) {
  writeText(dir / "index.faiss", bytes);
  auto j = readManifest(dir);
  j["index_bytes"] = bytes.size();
  writeManifest(dir, j);
}

std::string openWhy(const fs::path& dir, const VectorIndexManifest& m) {
  std::string why;
  auto index = VectorIndex::open(dir, m, &why);
  if (index) return "(opened)";
  return why;
}

unsigned fileMode(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mode & 0777;
}

std::vector<std::string> splitTab(const std::string& line) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto tab = line.find('\t', start);
    parts.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return parts;
}

}  // namespace

class TstVectorIndex : public QObject {
  Q_OBJECT

 private slots:
  void namesAndDefaults() {
    for (AnnKind k : {AnnKind::Flat, AnnKind::Hnsw, AnnKind::IvfPq})
      QCOMPARE(annKindFromName(annKindName(k)), std::optional<AnnKind>(k));
    QCOMPARE(std::string(annKindName(AnnKind::IvfPq)), std::string("ivfpq"));
    QVERIFY(!annKindFromName("HNSW"));
    QVERIFY(defaultAnnKind(kFlatDefaultLimit) == AnnKind::Flat);
    QVERIFY(defaultAnnKind(kFlatDefaultLimit + 1) == AnnKind::Hnsw);
    // Lists: round(4 sqrt(n)) within 1..min(n, 65536), at most one per 39 training vectors
    // (training: as many vectors as fit in 128 MiB; 4,194,304 of 8 dimensions, 43,690 of 768).
    QCOMPARE(ivfListsFor(manifestFor(AnnKind::IvfPq, 8, 1'000'000)), 4000);  // 4 sqrt(1e6)
    QCOMPARE(ivfListsFor(manifestFor(AnnKind::IvfPq, 8, 10000)), 256);       // 10000 / 39
    QCOMPARE(ivfListsFor(manifestFor(AnnKind::IvfPq, 8, 8'800'000)), 11866);
    QCOMPARE(ivfListsFor(manifestFor(AnnKind::IvfPq, 768, 8'841'823)), 1120);  // 43690 / 39
    QCOMPARE(ivfTrainingVectorsFor(manifestFor(AnnKind::IvfPq, 768, 8'841'823)), 43690u);
    QCOMPARE(ivfTrainingVectorsFor(manifestFor(AnnKind::IvfPq, 768, 1000)), 1000u);
    QCOMPARE(ivfListsFor(manifestFor(AnnKind::IvfPq, 8, 4)), 1);  // 4 training vectors < 39
    QCOMPARE(ivfListsFor(manifestFor(AnnKind::IvfPq, 8, 1'000'000'000'000)), 65536);
    // Subquantizers: the largest divisor of d within 2..min(d/4, 64).
    QCOMPARE(pqSubquantizersFor(manifestFor(AnnKind::IvfPq, 768, 1)), 64);
    QCOMPARE(pqSubquantizersFor(manifestFor(AnnKind::IvfPq, 384, 1)), 64);
    QCOMPARE(pqSubquantizersFor(manifestFor(AnnKind::IvfPq, 100, 1)), 25);
    QCOMPARE(pqSubquantizersFor(manifestFor(AnnKind::IvfPq, 30, 1)), 6);  // 7 does not divide 30
    QCOMPARE(pqSubquantizersFor(manifestFor(AnnKind::IvfPq, 3, 1)), 1);
    auto explicitShape = manifestFor(AnnKind::IvfPq, 64, 100);
    explicitShape.params.ivfLists = 7;
    explicitShape.params.pqSubquantizers = 16;
    QCOMPARE(ivfListsFor(explicitShape), 7);
    QCOMPARE(pqSubquantizersFor(explicitShape), 16);
  }

  void normalizeRowsByHand() {
    std::vector<float> v = {3, 4, 0, 0, -1, 0};
    normalizeRows(v.data(), 3, 2);
    QCOMPARE(v, (std::vector<float>{0.6f, 0.8f, 0, 0, -1, 0}));
  }

  void manifestJsonRoundTrip() {
    auto m = manifestFor(AnnKind::Hnsw, 384, 12345);
    m.params.hnswM = 16;
    m.normalized = false;
    std::string error;
    const auto back = manifestFromJson(toJson(m), &error);
    QVERIFY2(back, error.c_str());
    QVERIFY(*back == m);
    auto j = toJson(m);
    j["params"]["pq_bits"] = 17;
    QVERIFY(!manifestFromJson(j, &error));
    QCOMPARE(error, std::string("field \"params.pq_bits\": not within 1..16"));
    j = toJson(m);
    j.erase("corpus_stamp");
    QVERIFY(!manifestFromJson(j, &error));
    QCOMPARE(error, std::string("field \"corpus_stamp\": missing"));
    j = toJson(m);
    j["documents"] = -1;
    QVERIFY(!manifestFromJson(j, &error));
    QCOMPARE(error, std::string("field \"documents\": expected a whole number >= 0"));
    j = toJson(m);
    j["ann"] = "lsh";
    QVERIFY(!manifestFromJson(j, &error));
    QCOMPARE(error, std::string("field \"ann\": not flat, hnsw or ivfpq"));
  }

  // Three documents, by hand: (3,4) -> (0.6,0.8), (1,0), (0,-2) -> (0,-1).
  void cosineByHand() {
    const std::vector<float> docs = {3, 4, 1, 0, 0, -2};
    auto cosine = build(manifestFor(AnnKind::Flat, 2, 3), docs);
    // Query (2,0) -> (1,0): cosines 0.6, 1, 0. Query (0,5) -> (0,1): 0.8, 0, -1.
    const Hits h = search(*cosine, {2, 0, 0, 5}, 3);
    QCOMPARE(h.positions, (std::vector<std::int64_t>{1, 0, 2, 0, 1, 2}));
    const std::vector<float> want = {1.0f, 0.6f, 0.0f, 0.8f, 0.0f, -1.0f};
    for (std::size_t i = 0; i < want.size(); ++i)
      QVERIFY2(std::fabs(h.scores[i] - want[i]) < 1e-6f, qPrintable(QString::number(i)));
    // Without normalisation the raw inner product: (2,0).(3,4) = 6, .(1,0) = 2, .(0,-2) = 0.
    auto raw = build(manifestFor(AnnKind::Flat, 2, 3, false), docs);
    const Hits r = search(*raw, {2, 0}, 5);
    QCOMPARE(r.positions, (std::vector<std::int64_t>{0, 1, 2, -1, -1}));
    QCOMPARE(r.scores[0], 6.0f);
    QCOMPARE(r.scores[1], 2.0f);
    QCOMPARE(r.scores[2], 0.0f);
    QVERIFY(std::isinf(r.scores[3]) && r.scores[3] < 0);
    // A zero vector stays zero: its cosine with anything is 0.
    auto zero = build(manifestFor(AnnKind::Flat, 2, 1), {0, 0});
    const Hits z = search(*zero, {1, 1}, 1);
    QCOMPARE(z.positions[0], std::int64_t(0));
    QCOMPARE(z.scores[0], 0.0f);
  }

  void flatEqualsBruteForce_data() {
    QTest::addColumn<bool>("normalized");
    QTest::newRow("cosine") << true;
    QTest::newRow("inner product") << false;
  }
  void flatEqualsBruteForce() {
    QFETCH(bool, normalized);
    const int d = 48;
    const std::size_t n = 3000, nq = 60, k = 10;
    const auto docs = randomVectors(n, d, 1);
    const auto queries = randomVectors(nq, d, 2);
    auto index = build(manifestFor(AnnKind::Flat, d, n, normalized), docs);
    const Hits h = search(*index, queries, k);
    const auto exact = bruteForce(docs, queries, d, normalized);
    for (std::size_t q = 0; q < nq; ++q) {
      const auto best = topK(exact[q], k);
      for (std::size_t j = 0; j < k; ++j) {
        const auto p = h.positions[q * k + j];
        QVERIFY(p >= 0 && static_cast<std::size_t>(p) < n);
        const double want = exact[q][best[j]];
        const double tol = 1e-5 * std::max(1.0, std::fabs(want));
        // The j-th score is the exact j-th best score, and it is the score of the position
        // returned (ties may swap positions, never scores).
        QVERIFY2(std::fabs(h.scores[q * k + j] - want) <= tol,
                 qPrintable(QString("query %1 rank %2: %3 vs %4")
                                .arg(q)
                                .arg(j)
                                .arg(h.scores[q * k + j])
                                .arg(want)));
        QVERIFY(std::fabs(exact[q][static_cast<std::size_t>(p)] - want) <= tol);
      }
    }
  }

  void hnswRecallRandom() {
    const int d = 32;
    const std::size_t n = 4000, nq = 100, k = 10;
    const auto docs = randomVectors(n, d, 3);
    const auto queries = randomVectors(nq, d, 4);
    QElapsedTimer t;
    t.start();
    auto index = build(manifestFor(AnnKind::Hnsw, d, n), docs);
    const double buildMs = msSince(t);
    t.restart();
    const Hits h = search(*index, queries, k);
    const double searchMs = msSince(t);
    const double recall = recallAt(h, bruteForce(docs, queries, d, true), k, k);
    qInfo(
        "HNSW %zu x %d (M 32, efC 80, efS 128): build %.0f ms, %zu queries %.1f ms, "
        "recall@10 %.3f",
        n, d, buildMs, nq, searchMs, recall);
    QVERIFY2(recall >= 0.9, qPrintable(QString::number(recall)));
  }

  void ivfPqTrainsAndSearches() {
    const int d = 32;
    const std::size_t n = 2000, nq = 100, k = 10, depth = 100;
    const auto docs = randomVectors(n, d, 5);
    const auto queries = randomVectors(nq, d, 6);
    auto m = manifestFor(AnnKind::IvfPq, d, n);
    QCOMPARE(ivfListsFor(m), 51);  // round(4 sqrt(2000)) = 179 lists, but 2000 / 39 = 51
    QCOMPARE(pqSubquantizersFor(m), 8);
    std::string error;
    auto untrained = VectorIndex::create(m, &error);
    QVERIFY(untrained && untrained->needsTraining());
    QVERIFY(!untrained->add(docs.data(), 1, &error));
    QCOMPARE(error, std::string("the IVF-PQ index must be trained before vectors are added"));
    QVERIFY(!untrained->train(docs.data(), 200, &error));
    QCOMPARE(error, std::string("IVF-PQ training needs at least 256 vectors (51 lists, 256 "
                                "codes per subquantiser), got 200"));
    QElapsedTimer t;
    t.start();
    auto index = build(m, docs);
    const double buildMs = msSince(t);
    t.restart();
    const Hits h = search(*index, queries, depth);
    const double searchMs = msSince(t);
    const auto exact = bruteForce(docs, queries, d, true);
    Hits top10;
    for (std::size_t q = 0; q < nq; ++q)
      for (std::size_t j = 0; j < k; ++j) top10.positions.push_back(h.positions[q * depth + j]);
    const double r10 = recallAt(top10, exact, k, k);
    const double r10at100 = recallAt(h, exact, k, depth);
    qInfo(
        "IVF-PQ %zu x %d (51 lists, 8x8 bits, nprobe 32): train+add %.0f ms, %zu queries "
        "(top 100) %.1f ms, recall@10 %.3f, exact top 10 within the top 100 %.3f",
        n, d, buildMs, nq, searchMs, r10, r10at100);
    // 8 bytes a vector for 128 bytes of floats, on Gaussian noise (no structure for the
    // quantisers to find: the hard case): approximate, but most exact neighbours are near.
    QVERIFY2(r10at100 >= 0.6, qPrintable(QString::number(r10at100)));
    QVERIFY2(r10 >= 0.35, qPrintable(QString::number(r10)));
  }

  // HNSW on real text: the DL19 passages (the BM25 top 100 of the 43 judged topics) and the
  // topics, embedded with the offline hashed bag of words (256 dimensions), no server.
  void hnswRecallDl19() {
    RAGSCOPE_REQUIRE_DATA("msmarco_trecdl/collection_subset/collection.dl19-bm25top100.tsv");
    RAGSCOPE_REQUIRE_DATA("msmarco_trecdl/topics/topics.dl19-passage.txt");
    const int d = llm::kOfflineEmbeddingDims;
    std::vector<float> docs, queries;
    std::ifstream collection(ragscope::test::dataPath(
        "msmarco_trecdl/collection_subset/collection.dl19-bm25top100.tsv"));
    std::string line;
    std::size_t n = 0;
    while (std::getline(collection, line)) {
      const auto parts = splitTab(line);
      QVERIFY(parts.size() == 2);
      const auto v = llm::offlineEmbedding(parts[1], d);
      docs.insert(docs.end(), v.begin(), v.end());
      ++n;
    }
    QCOMPARE(n, std::size_t(4297));
    std::ifstream topics(ragscope::test::dataPath("msmarco_trecdl/topics/topics.dl19-passage.txt"));
    while (std::getline(topics, line)) {
      const auto parts = splitTab(line);
      QVERIFY(parts.size() == 2);
      const auto v = llm::offlineEmbedding(parts[1], d);
      queries.insert(queries.end(), v.begin(), v.end());
    }
    const std::size_t nq = queries.size() / d;
    QCOMPARE(nq, std::size_t(43));
    QElapsedTimer t;
    t.start();
    auto flat = build(manifestFor(AnnKind::Flat, d, n), docs);
    const double flatBuild = msSince(t);
    t.restart();
    const Hits exactHits = search(*flat, queries, 10);
    const double flatSearch = msSince(t);
    t.restart();
    auto hnsw = build(manifestFor(AnnKind::Hnsw, d, n), docs);
    const double hnswBuild = msSince(t);
    t.restart();
    const Hits h = search(*hnsw, queries, 10);
    const double hnswSearch = msSince(t);
    const auto exact = bruteForce(docs, queries, d, true);
    const double flatRecall = recallAt(exactHits, exact, 10, 10);
    const double recall = recallAt(h, exact, 10, 10);
    qInfo(
        "DL19 %zu passages x %d: flat build %.0f ms, search %.1f ms (recall %.3f); HNSW build "
        "%.0f ms, search %.1f ms, recall@10 %.3f of exact",
        n, d, flatBuild, flatSearch, flatRecall, hnswBuild, hnswSearch, recall);
    QCOMPARE(flatRecall, 1.0);
    QVERIFY2(recall >= 0.9, qPrintable(QString::number(recall)));
  }

  void nonFiniteRefused() {
    auto index = VectorIndex::create(manifestFor(AnnKind::Flat, 2, 10), nullptr);
    std::string error;
    QVERIFY(index->add(std::vector<float>(10, 1.0f).data(), 5, &error));
    std::vector<float> bad = {1, 1, 1, 1, 1, 1, 1, std::nanf(""), 1, 1};
    QVERIFY(!index->add(bad.data(), 5, &error));
    QCOMPARE(error, std::string("vector 8: component 1 is NaN"));  // corpus position 5 + 3
    QCOMPARE(index->size(), std::size_t(5));  // nothing of the refused call was added
    bad[7] = -INFINITY;
    QVERIFY(!index->add(bad.data(), 5, &error));
    QCOMPARE(error, std::string("vector 8: component 1 is infinite"));
    std::vector<float> scores;
    std::vector<std::int64_t> positions;
    const std::vector<float> q = {1, 0, 0, INFINITY};
    QVERIFY(!index->search(q.data(), 2, 3, &scores, &positions, &error));
    QCOMPARE(error, std::string("query 1: component 1 is infinite"));
    // More vectors than the manifest's documents.
    QVERIFY(!index->add(std::vector<float>(12, 1.0f).data(), 6, &error));
    QCOMPARE(error, std::string("the index holds 10 vectors (its manifest's documents); 11 were "
                                "added"));
  }

  void saveOpenRoundTrip_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("flat") << int(AnnKind::Flat);
    QTest::newRow("hnsw") << int(AnnKind::Hnsw);
    QTest::newRow("ivfpq") << int(AnnKind::IvfPq);
  }
  void saveOpenRoundTrip() {
    QFETCH(int, kind);
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "sub" / "vectors";
    const int d = 16;
    const std::size_t n = 600;
    const auto docs = randomVectors(n, d, 7);
    const auto queries = randomVectors(20, d, 8);
    const auto m = manifestFor(AnnKind(kind), d, n);
    auto index = build(m, docs);
    const Hits before = search(*index, queries, 10);
    std::string error;
    QVERIFY2(index->save(dir, &error), error.c_str());
    QCOMPARE(fileMode(dir / "index.faiss"), 0600u);
    QCOMPARE(fileMode(dir / "manifest.json"), 0600u);
    const auto j = readManifest(dir);
    QCOMPARE(j["index_bytes"].get<std::uint64_t>(), fs::file_size(dir / "index.faiss"));
    QCOMPARE(j["ann"].get<std::string>(), std::string(annKindName(AnnKind(kind))));
    auto opened = VectorIndex::open(dir, m, &error);
    QVERIFY2(opened, error.c_str());
    QCOMPARE(opened->size(), n);
    const Hits after = search(*opened, queries, 10);
    QCOMPARE(after.positions, before.positions);
    QCOMPARE(after.scores, before.scores);
    QVERIFY(!opened->add(docs.data(), 1, &error));
    QCOMPARE(error, std::string("the index was opened from a folder: it is read-only"));
    // Search settings are the caller's: another efSearch / nprobe opens the same index.
    auto other = m;
    other.params.hnswEfSearch = 16;
    other.params.ivfProbe = 1;
    QVERIFY2(VectorIndex::open(dir, other, &error), error.c_str());
    // Saving again replaces the folder (an opened index keeps its own copy or mapping), and
    // leaves nothing beside it.
    QVERIFY2(index->save(dir, &error), error.c_str());
    QCOMPARE(search(*opened, queries, 10).positions, before.positions);
    std::vector<std::string> entries;
    for (const auto& e : fs::directory_iterator(dir.parent_path()))
      entries.push_back(e.path().filename().string());
    QCOMPARE(entries, std::vector<std::string>{"vectors"});
    QVERIFY2(VectorIndex::open(dir, m, &error), error.c_str());
  }

  void saveRefuses() {
    QTemporaryDir tmp;
    const fs::path root(tmp.path().toStdString());
    auto full = build(manifestFor(AnnKind::Flat, 2, 2), {1, 0, 0, 1});
    std::string error;
    // A folder of other things is never replaced.
    writeText(root / "mine" / "notes.txt", "keep me");
    QVERIFY(!full->save(root / "mine", &error));
    QCOMPARE(error, (root / "mine").string() +
                        ": exists and is not a ragscope vector index (no manifest.json); choose "
                        "another index folder");
    QCOMPARE(readText(root / "mine" / "notes.txt"), std::string("keep me"));
    // Nor written through a symlink.
    fs::create_directory(root / "target");
    fs::create_directory_symlink(root / "target", root / "link");
    QVERIFY(!full->save(root / "link", &error));
    QCOMPARE(error, (root / "link").string() + ": is a symbolic link; choose another index folder");
    // An index short of its manifest's documents is not saved.
    auto partial = VectorIndex::create(manifestFor(AnnKind::Flat, 2, 3), &error);
    QVERIFY(partial->add(std::vector<float>{1, 0}.data(), 1, &error));
    QVERIFY(!partial->save(root / "partial", &error));
    QCOMPARE(error, (root / "partial").string() +
                        ": the index holds 1 of the 3 vectors its manifest names");
    QVERIFY(!fs::exists(root / "partial"));
  }

  void openRefusesChangedManifest() {
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "vectors";
    const auto m = manifestFor(AnnKind::Flat, 8, 50);
    QVERIFY(build(m, randomVectors(50, 8, 9))->save(dir, nullptr));
    QCOMPARE(openWhy(dir, m), std::string("(opened)"));
    QCOMPARE(openWhy(dir.parent_path() / "none", m), std::string("no index"));
    auto changed = m;
    changed.model = "other-model";
    QCOMPARE(openWhy(dir, changed), std::string("model changed"));
    changed = m;
    changed.corpusStamp = "stamp-2";
    QCOMPARE(openWhy(dir, changed), std::string("corpus changed"));
    changed = m;
    changed.dimensions = 16;
    QCOMPARE(openWhy(dir, changed), std::string("dimensions changed (index: 8, expected: 16)"));
    changed = m;
    changed.documents = 51;
    QCOMPARE(openWhy(dir, changed),
             std::string("corpus changed (index: 50 documents, expected: 51)"));
    changed = m;
    changed.embedder = "http://elsewhere:8000/v1";
    QCOMPARE(openWhy(dir, changed), std::string("embedder changed"));
    changed = m;
    changed.queryPrefix = "";
    QCOMPARE(openWhy(dir, changed), std::string("query prefix changed"));
    changed = m;
    changed.docPrefix = "";
    QCOMPARE(openWhy(dir, changed), std::string("document prefix changed"));
    changed = m;
    changed.normalized = false;
    QCOMPARE(openWhy(dir, changed), std::string("normalisation changed"));
    changed = m;
    changed.ann = AnnKind::Hnsw;
    QCOMPARE(openWhy(dir, changed),
             std::string("index kind changed (index: flat, expected: hnsw)"));

    // The manifest from elsewhere: repeated, unknown, mistyped members; another kind of file.
    const std::string text = readText(dir / "manifest.json");
    const std::string modelLine = "\"model\": \"test-model\",";
    QVERIFY(text.find(modelLine) != std::string::npos);
    std::string repeated = text;
    repeated.replace(repeated.find(modelLine), modelLine.size(),
                     modelLine + "\n  \"model\": \"test-model\",");
    writeText(dir / "manifest.json", repeated);
    QCOMPARE(openWhy(dir, m),
             std::string("manifest.json: member \"model\" appears twice in one object (at model)"));
    auto j = nlohmann::json::parse(text);
    j["extra"] = 1;
    writeManifest(dir, j);
    QCOMPARE(openWhy(dir, m), std::string("manifest.json: field \"extra\": not a member of a "
                                          "vector index manifest"));
    j = nlohmann::json::parse(text);
    j["dimensions"] = "8";
    writeManifest(dir, j);
    QCOMPARE(openWhy(dir, m),
             std::string("manifest.json: field \"dimensions\": expected a whole number"));
    j = nlohmann::json::parse(text);
    j["kind"] = "ragscope-xapian-index";
    writeManifest(dir, j);
    QCOMPARE(openWhy(dir, m),
             std::string("manifest.json: field \"kind\": not a ragscope vector index"));
    j = nlohmann::json::parse(text);
    j.erase("index_bytes");
    writeManifest(dir, j);
    QCOMPARE(openWhy(dir, m), std::string("manifest.json: field \"index_bytes\": missing"));
    writeText(dir / "manifest.json", "{\"kind\": ");
    QVERIFY(openWhy(dir, m).starts_with("manifest.json: [json.exception.parse_error"));
    fs::remove(dir / "manifest.json");
    QCOMPARE(openWhy(dir, m), std::string("no index (no manifest.json)"));
  }

  void openRefusesIndexFiles() {
    QTemporaryDir tmp;
    const fs::path root(tmp.path().toStdString());
    const int d = 8;
    const auto docs = randomVectors(100, d, 10);
    const auto m = manifestFor(AnnKind::Flat, d, 100);
    QVERIFY(build(m, docs)->save(root / "flat", nullptr));
    const std::vector<float> fewer(docs.begin(), docs.end() - d);
    QVERIFY(build(manifestFor(AnnKind::Flat, d, 99), fewer)->save(root / "flat99", nullptr));
    QVERIFY(build(manifestFor(AnnKind::Hnsw, d, 100), docs)->save(root / "hnsw", nullptr));
    const std::string good = readText(root / "flat" / "index.faiss");
    const std::string goodManifest = readText(root / "flat" / "manifest.json");
    const fs::path dir = root / "flat";
    auto restore = [&] {
      writeText(dir / "index.faiss", good);
      writeText(dir / "manifest.json", goodManifest);
    };
    const std::string size = std::to_string(good.size());

    // Truncated: first the size the manifest states, then (size restated) the layout.
    writeText(dir / "index.faiss", good.substr(0, good.size() - 10));
    QCOMPARE(openWhy(dir, m), "index file damaged: " + std::to_string(good.size() - 10) +
                                  " bytes, the manifest says " + size);
    replaceIndexFile(dir, good.substr(0, good.size() - 10));
    QCOMPARE(openWhy(dir, m), std::string("index file damaged: ends early in the vectors"));
    replaceIndexFile(dir, good.substr(0, 20));
    QCOMPARE(openWhy(dir, m), std::string("index file damaged: ends early in the header"));
    restore();
    // Missing.
    fs::remove(dir / "index.faiss");
    QCOMPARE(openWhy(dir, m),
             std::string("index file index.faiss: cannot open: No such file or directory"));
    restore();
    // Another kind than the manifest says.
    replaceIndexFile(dir, readText(root / "hnsw" / "index.faiss"));
    QCOMPARE(openWhy(dir, m),
             std::string("index file holds an hnsw index, the manifest says flat"));
    restore();
    // Another number of vectors.
    replaceIndexFile(dir, readText(root / "flat99" / "index.faiss"));
    QCOMPARE(openWhy(dir, m),
             std::string("index file damaged: the index holds 99 vectors, expected 100"));
    restore();
    // Garbage of the right size.
    std::string garbage(good.size(), '\0');
    std::mt19937 rng(11);
    for (auto& c : garbage) c = static_cast<char>(rng());
    writeText(dir / "index.faiss", garbage);
    QCOMPARE(openWhy(dir, m),
             std::string("index file damaged: not a FAISS index of a kind ragscope writes"));
    // A flat index whose vector count claims 2^39 floats: refused before anything is allocated.
    std::string huge = good;
    const std::size_t countAt = 4 + 4 + 8 + 8 + 8 + 1 + 4;  // fourcc, header
    huge[countAt + 4] = static_cast<char>(0x80);
    writeText(dir / "index.faiss", huge);
    QCOMPARE(openWhy(dir, m), std::string("index file damaged: ends early in the vectors"));
    // Bytes after the index.
    replaceIndexFile(dir, good + "tail");
    QCOMPARE(openWhy(dir, m), std::string("index file damaged: 4 bytes follow the index"));
    restore();
    QCOMPARE(openWhy(dir, m), std::string("(opened)"));
  }

  // Every single-byte corruption (each byte inverted; the first 256 bytes, where the header and
  // the first lengths lie, also off by one bit) of a small index file of each kind is refused or,
  // when the checks accept it (a changed vector component, graph link or list label), searches
  // without reading out of bounds (under ASan a stray read fails the test). Never a crash.
  void corruptedIndexFilesNeverCrash_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("flat") << int(AnnKind::Flat);
    QTest::newRow("hnsw") << int(AnnKind::Hnsw);
    QTest::newRow("ivfpq") << int(AnnKind::IvfPq);
  }
  void corruptedIndexFilesNeverCrash() {
    QFETCH(int, kind);
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "vectors";
    const int d = 4;
    const std::size_t n = kind == int(AnnKind::IvfPq) ? 300 : 40;
    auto m = manifestFor(AnnKind(kind), d, n);
    m.params.hnswM = 4;
    m.params.ivfLists = 4;
    m.params.pqBits = 4;
    const auto docs = randomVectors(n, d, 12);
    const auto queries = randomVectors(1, d, 13);
    QVERIFY(build(m, docs)->save(dir, nullptr));
    const std::string good = readText(dir / "index.faiss");
    std::size_t opened = 0, refused = 0;
    for (std::size_t at = 0; at < good.size(); ++at) {
      for (unsigned char flip : {0xffu, 0x01u}) {
        if (flip == 0x01u && at >= 256) continue;
        std::string bad = good;
        bad[at] = static_cast<char>(static_cast<unsigned char>(bad[at]) ^ flip);
        writeText(dir / "index.faiss", bad);
        std::string why;
        auto index = VectorIndex::open(dir, m, &why);
        if (!index) {
          QVERIFY2(why.starts_with("index file "), why.c_str());
          ++refused;
          continue;
        }
        ++opened;
        std::vector<float> scores;
        std::vector<std::int64_t> positions;
        std::string error;
        // One query: flat and IVF searches of one query start no OpenMP team (fast on a busy
        // machine).
        if (index->search(queries.data(), 1, 10, &scores, &positions, &error)) {
          for (auto p : positions) QVERIFY(p >= -1 && p < static_cast<std::int64_t>(n));
        } else {
          QVERIFY2(error.starts_with("index file damaged: label "), error.c_str());
        }
      }
    }
    qInfo("%s: %zu bytes, %zu corruptions opened, %zu refused", annKindName(AnnKind(kind)),
          good.size(), opened, refused);
    QVERIFY(refused > 0);
  }

  void concurrentSearch() {
    const int d = 16;
    const std::size_t n = 2000, nq = 40;
    const auto docs = randomVectors(n, d, 14);
    const auto queries = randomVectors(nq, d, 15);
    for (AnnKind kind : {AnnKind::Flat, AnnKind::Hnsw, AnnKind::IvfPq}) {
      auto index = build(manifestFor(kind, d, n), docs);
      // One query at a time, as the dense retriever's workers call it.
      auto oneByOne = [&](Hits* out) {
        for (std::size_t q = 0; q < nq; ++q) {
          const std::vector<float> one(queries.begin() + static_cast<long>(q * d),
                                       queries.begin() + static_cast<long>((q + 1) * d));
          const Hits h = search(*index, one, 10);
          out->positions.insert(out->positions.end(), h.positions.begin(), h.positions.end());
          out->scores.insert(out->scores.end(), h.scores.begin(), h.scores.end());
        }
      };
      Hits serial;
      oneByOne(&serial);
      std::vector<Hits> perThread(4);
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < perThread.size(); ++t)
        threads.emplace_back([&, t] { oneByOne(&perThread[t]); });
      for (auto& th : threads) th.join();
      for (const auto& h : perThread) {
        QCOMPARE(h.positions, serial.positions);
        QCOMPARE(h.scores, serial.scores);
      }
    }
  }
};

QTEST_GUILESS_MAIN(TstVectorIndex)
#include "tst_vectorindex.moc"
