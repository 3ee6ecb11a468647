// Every retriever on the job commands (issue 36, item 3: `--retriever dense:URL` "on retrieve and
// every command that takes a retriever"): erag, e2e and judge take --retriever of every kind with
// retrieve's options (app/cli/retrieveroptions.h).
//   - The same run, two independent paths: erag / e2e with --retriever dense:offline give the
//     labels and scores of erag / e2e with --run on the run file `retrieve --retriever
//     dense:offline` wrote (another copy of the data, so another index); judge with --retriever
//     hybrid:bm25+dense:offline equals judge with --run on retrieve's hybrid run.
//   - Bad combinations are usage errors (exit 2) on the job commands as on retrieve, and the
//     options whose names the LLM job options already use are renamed (--retriever-key-env, ...).
//   - A resumed run asks no retriever: the run retrieved is in the store, and the dense
//     retriever's endpoint named in the store's record gets no request from `resume`.
//   - The job layer hands the dense index's embedding progress to the front end
//     (JobCallbacks::embedProgress), as `retrieve` shows it.

#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/cli.h"
#include "core/data/loaders.h"
#include "core/eval/api/job.h"
#include "core/retrieval/retrieverspec.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using nlohmann::json;
using ragscope::test::runCliText;
using ragscope::testserver::TestServer;
namespace fs = std::filesystem;

namespace {

const fs::path kDemo = fs::path(RAGSCOPE_SOURCE_DIR) / "resources" / "demo";

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

json readJson(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

// The demo's 52 passages and 29 questions with gold answers, copied into `dir` (indexes are
// made beside them); the --dataset arguments.
QStringList demoCopy(const fs::path& dir) {
  fs::create_directories(dir);
  for (const char* f : {"collection.tsv", "demo-kilt.jsonl"}) fs::copy_file(kDemo / f, dir / f);
  return {"--dataset", q(dir / "collection.tsv"), "--dataset", q(dir / "demo-kilt.jsonl")};
}

}  // namespace

class TstJobRetrievers : public QObject {
  Q_OBJECT

 private slots:
  void eragAndE2eDenseEqualRetrieveRun();
  void judgeHybridEqualsRetrieveRun();
  void refusalsAndHelp();
  void resumeAsksNoRetriever();
  void jobPassesEmbeddingProgress();
};

void TstJobRetrievers::eragAndE2eDenseEqualRetrieveRun() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  const QStringList viaRetriever = demoCopy(root / "a");
  const QStringList viaRun = demoCopy(root / "b");
  // The run file, made by retrieve over the second copy (its own index).
  auto r = runCliText({"retrieve", viaRun[1], viaRun[3], "--retriever", "dense:offline", "--k", "5",
                       "--out", q(root / "dense.trec")});
  QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  QVERIFY2(r.out.contains(": built"), qPrintable(r.out));

  for (const QString job : {"erag", "e2e"}) {
    const bool erag = job == "erag";
    auto labelsOf = [&](const QString& name) {
      return erag ? QStringList{"--labels-out", q(root / (name + ".json").toStdString())}
                  : QStringList{};
    };
    auto a = runCliText(QStringList{job} + viaRetriever +
                        QStringList{"--retriever", "dense:offline", "--k", "5", "--json", "--store",
                                    q(root / (job + "-a.db").toStdString())} +
                        labelsOf(job + "-a"));
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));
    // The job built the index (not the one retrieve made) and said so; e2e then reuses it.
    const QString expected =
        erag ? ": built: 1 embedding requests sent" : ": reused (nothing embedded)";
    QVERIFY2(a.err.contains(job + ": dense index ") && a.err.contains(expected), qPrintable(a.err));
    QVERIFY2(a.err.contains(job + ": 145 documents retrieved"), qPrintable(a.err));
    auto b = runCliText(QStringList{job} + viaRun +
                        QStringList{"--run", q(root / "dense.trec"), "--k", "5", "--json",
                                    "--store", q(root / (job + "-b.db").toStdString())} +
                        labelsOf(job + "-b"));
    QVERIFY2(b.exitCode == 0, qPrintable(b.err));
    const json ja = json::parse(a.out.toStdString());
    const json jb = json::parse(b.out.toStdString());
    QCOMPARE(ja["queries"].get<int>(), 29);
    QCOMPARE(ja["mean"].dump(), jb["mean"].dump());
    QCOMPARE(ja["per_query"].dump(), jb["per_query"].dump());
    if (erag) {
      const json la = readJson(root / "erag-a.json");
      const json lb = readJson(root / "erag-b.json");
      QCOMPARE(la.size(), std::size_t{29});
      for (const auto& [qid, row] : la.items()) QCOMPARE(row.size(), std::size_t{5});
      QCOMPARE(la.dump(), lb.dump());
    }
    // The store records how the run was made: the retriever, not a file.
    store::RunStore s;
    std::string error;
    QVERIFY2(s.openReadOnly(root / (job + "-a.db").toStdString(), &error), error.c_str());
    const json run = s.run().settings.at("run");
    QCOMPARE(run.at("source").get<std::string>(), std::string("dense"));
    QCOMPARE(run.at("retriever").at("url").get<std::string>(), std::string("offline"));
    QCOMPARE(s.run().settings.at("system").get<std::string>(), std::string("dense-top5"));
  }
}

void TstJobRetrievers::judgeHybridEqualsRetrieveRun() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  const QStringList viaRetriever = demoCopy(root / "a");
  const QStringList viaRun = demoCopy(root / "b");
  auto r = runCliText({"retrieve", viaRun[1], viaRun[3], "--retriever", "hybrid:bm25+dense:offline",
                       "--k", "3", "--out", q(root / "hybrid.trec")});
  QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  auto a = runCliText(QStringList{"judge"} + viaRetriever +
                      QStringList{"--retriever", "hybrid:bm25+dense:offline", "--k", "3", "--json",
                                  "--store", q(root / "a.db")});
  QVERIFY2(a.exitCode == 0, qPrintable(a.err));
  // Both members' indexes were made and named.
  QVERIFY2(a.err.contains("judge: bm25 index ") && a.err.contains("judge: dense index "),
           qPrintable(a.err));
  QVERIFY2(a.err.contains("judge: 87 documents retrieved"), qPrintable(a.err));
  auto b = runCliText(QStringList{"judge"} + viaRun +
                      QStringList{"--run", q(root / "hybrid.trec"), "--k", "3", "--json", "--store",
                                  q(root / "b.db")});
  QVERIFY2(b.exitCode == 0, qPrintable(b.err));
  const json ja = json::parse(a.out.toStdString());
  const json jb = json::parse(b.out.toStdString());
  QCOMPARE(ja["n"].get<int>(), 29);
  for (const char* key : {"mean", "n_scored", "n_total", "states"})
    QCOMPARE(ja[key].dump(), jb[key].dump());
}

void TstJobRetrievers::refusalsAndHelp() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  const QStringList data = demoCopy(root);
  struct Case {
    QStringList args;
    QString message;
  };
  const std::vector<Case> cases = {
      {{"--retriever", "bm25", "--fuse", "rrf"}, "--fuse goes with a hybrid: retriever"},
      {{"--retriever", "bm25", "--embed-model", "m"},
       "--embed-model goes with a dense: retriever or --es-knn"},
      {{"--retriever", "bm25", "--ann", "hnsw"}, "--ann goes with a dense: retriever"},
      {{"--retriever", "dense:http://127.0.0.1:9/v1"}, "dense:URL needs --embed-model NAME"},
      {{"--retriever", "hybrid:bm25+dense:offline", "--index", q(root / "i")},
       "--index: the hybrid has 2 members with an index"},
      {{"--retriever", "hybrid:dense:offline+http://127.0.0.1:9/a+http://127.0.0.1:9/b",
        "--retriever-key-env", "K"},
       "--retriever-key-env: the hybrid has 2 members calling an endpoint"},
      {{"--retriever", "hybrid:bm25+dense:offline", "--fuse", "wsum"},
       "--fuse wsum needs --fuse-weights"},
      {{"--retriever", "es:http://127.0.0.1:9/x", "--es-knn", "v"},
       "--es-knn needs --es-knn-embedder URL"},
      {{"--retriever", "bm25", "--es-knn-embedder", "http://127.0.0.1:9/v1"},
       "--es-knn-embedder, --embed-key-env, --es-flavour and --num-candidates go with --es-knn"},
      {{"--retriever", "solr:x"}, "unknown retriever 'solr:x'"},
      // Without --retriever, a retriever option has nothing to go with.
      {{"--run", q(kDemo / "run-good.trec"), "--embed-model", "m"},
       "--embed-model goes with --retriever R"},
      {{"--run", q(kDemo / "run-good.trec"), "--index", q(root / "i")},
       "--index goes with --retriever R"},
  };
  for (const QString job : {"erag", "e2e", "judge"}) {
    for (const auto& c : cases) {
      auto r =
          runCliText(QStringList{job} + data + c.args + QStringList{"--store", q(root / "x.db")});
      QVERIFY2(r.exitCode == 2, qPrintable(job + " " + c.args.join(' ') + "\n" + r.out + r.err));
      QVERIFY2(r.err.contains(c.message), qPrintable(job + " " + c.args.join(' ') + "\n" + r.err));
    }
    QVERIFY(!fs::exists(root / "x.db"));
    auto help = runCliText({job, "--help"});
    QCOMPARE(help.exitCode, 0);
    for (const char* word :
         {"dense:URL", "dense:offline", "hybrid:A+B", "es:URL", "http:URL", "--embed-model",
          "--query-prefix", "--doc-prefix", "--embed-batch", "--ann", "--fuse", "--fuse-weights",
          "--es-knn", "--es-knn-embedder", "--retriever-key-env", "--retriever-timeout-ms",
          "Retriever options (with --retriever)"})
      QVERIFY2(help.out.contains(word), qPrintable(job + ": " + word));
  }
  // --estimate calls nothing: a retriever calling an endpoint is refused (dense:offline is not).
  for (const QString job : {"erag", "e2e", "judge"}) {
    auto r = runCliText(QStringList{job} + data +
                        QStringList{"--retriever", "dense:http://127.0.0.1:9/v1", "--embed-model",
                                    "m", "--estimate"});
    QVERIFY2(r.exitCode == 2, qPrintable(r.out + r.err));
    QVERIFY2(r.err.contains("--estimate calls nothing"), qPrintable(r.err));
  }
  auto offline = runCliText(QStringList{"erag"} + data +
                            QStringList{"--retriever", "dense:offline", "--estimate"});
  QVERIFY2(offline.exitCode == 0, qPrintable(offline.out + offline.err));
  QVERIFY2(offline.out.contains("estimate:"), qPrintable(offline.out));
  // On the job commands --batch is the LLM calls' Batch API, not a dense index's: with bm25 it
  // is no retriever option, and the job goes on (--estimate: nothing is called).
  auto r = runCliText(QStringList{"erag"} + data +
                      QStringList{"--retriever", "bm25", "--batch", "--estimate"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
}

void TstJobRetrievers::resumeAsksNoRetriever() {
  // The dense retriever's embeddings endpoint and the generator: two servers, counted apart.
  TestServer embedder;
  TestServer generator;
  QVERIFY(embedder.start());
  QVERIFY(generator.start());
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  const QStringList data = demoCopy(root);
  const QString store = q(root / "erag.db");
  const QString embedUrl = QString::fromStdString(embedder.baseUrl());
  // A response cache of this test's own: the counts below hold on every run of the test.
  const QByteArray cacheHome = qgetenv("XDG_CACHE_HOME");
  qputenv("XDG_CACHE_HOME", QByteArray::fromStdString((root / "cache").string()));
  const auto restore = qScopeGuard([&] { qputenv("XDG_CACHE_HOME", cacheHome); });
  // A budget of 0 at a price: the run is planned (the retrieval made) and paused before its
  // first call.
  auto r = runCliText(
      QStringList{"erag"} + data +
      QStringList{"--retriever", "dense:" + embedUrl, "--embed-model", "test-model", "--k", "3",
                  "--generator", QString::fromStdString(generator.baseUrl()), "--model",
                  "test-model", "--price-in", "1", "--budget", "0", "--store", store});
  QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
  QVERIFY2(r.out.contains("paused: budget"), qPrintable(r.out));
  // The corpus in one request (52 texts, batch 64), then each of the 29 queries.
  QCOMPARE(embedder.embeddingRequests(), std::size_t{30});
  QCOMPARE(embedder.embeddingInputs(), std::size_t{52 + 29});
  QCOMPARE(generator.chatRequests(), std::size_t{0});
  {
    store::RunStore s;
    std::string error;
    QVERIFY2(s.openReadOnly(store.toStdString(), &error), error.c_str());
    // The store names the retriever's endpoint ...
    QCOMPARE(s.run().settings.at("run").at("retriever").at("url").get<std::string>(),
             embedder.baseUrl());
  }
  // ... and resume never calls it: the lists are the store's.
  auto resumed = runCliText({"resume", store, "--budget", "100"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.out + resumed.err));
  QVERIFY2(resumed.out.contains("87 (87 done"), qPrintable(resumed.out));
  QCOMPARE(generator.chatRequests(), std::size_t{87});
  QCOMPARE(embedder.embeddingRequests(), std::size_t{30});
  QCOMPARE(embedder.requestCount(), std::size_t{30});
}

void TstJobRetrievers::jobPassesEmbeddingProgress() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  demoCopy(root);
  auto loaded = loadDataset(
      {{root / "collection.tsv", std::nullopt}, {root / "demo-kilt.jsonl", std::nullopt}},
      LoadOptions{});
  QVERIFY(loaded.report.ok());
  std::string error;
  auto retriever = parseRetrieverArg("dense:offline", &error);
  QVERIFY2(retriever, error.c_str());
  retriever->embedBatch = 10;  // 52 documents: 6 requests
  retriever->indexDir = root / "dense";
  eval::JobSpec spec;
  spec.kind = eval::JobKind::Erag;
  spec.k = 2;
  spec.run.type = eval::RunSource::Type::Retriever;
  spec.run.retriever = *retriever;
  spec.endpoint = eval::offlineReaderEndpoint();
  spec.storeFolder = root;
  std::uint64_t calls = 0, lastDone = 0, lastTotal = 0;
  eval::JobCallbacks callbacks;
  callbacks.embedProgress = [&](std::uint64_t done, std::uint64_t total) {
    ++calls;
    lastDone = done;
    lastTotal = total;
    return true;
  };
  const eval::JobPlan plan = eval::planJob(spec, loaded.value, callbacks);
  QVERIFY2(plan.ok(), plan.error.c_str());
  QVERIFY(plan.retrieved && plan.retrieved->dense.ok);
  QCOMPARE(plan.retrieved->dense.calls, std::size_t{6});
  QVERIFY(calls > 0);
  QCOMPARE(lastTotal, std::uint64_t{6});
  QCOMPARE(lastDone, std::uint64_t{6});
  QCOMPARE(plan.queries, std::size_t{29});
}

QTEST_GUILESS_MAIN(TstJobRetrievers)
#include "tst_jobretrievers.moc"
