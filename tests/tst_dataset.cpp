// The format registry: names, detection on every real file of ../shared/data, bundle loading,
// and `ragscope-cli dataset info` end to end.

#include <sys/stat.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/data/dataset.h"
#include "core/data/loaders.h"

using namespace ragscope::core;
using ragscope::test::dataPath;

namespace {

const char* const kDl19Topics = "msmarco_trecdl/topics/topics.dl19-passage.txt";
const char* const kDl19Qrels = "msmarco_trecdl/qrels/qrels.dl19-passage.txt";
const char* const kDl19Run = "msmarco_trecdl/runs/run.msmarco-v1-passage.bm25-default.dl19.txt";
const char* const kDl19RankLlm = "msmarco_trecdl/runs/rank_llm/BM25/retrieve_results_dl19.json";

std::filesystem::path writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(bytes);
  return std::filesystem::path(path.toStdString());
}

using ragscope::test::runCli;

QString dataArg(const char* rel) { return QString::fromStdString(dataPath(rel).string()); }

// Grade counts of qrels.dl19-passage.txt, counted with awk '{c[$4]++}' (9,260 lines, 43 topics).
const std::map<int, std::size_t> kDl19Grades{{0, 5158}, {1, 1601}, {2, 1804}, {3, 697}};

}  // namespace

class TestDataset : public QObject {
  Q_OBJECT

 private slots:
  void formatNamesRoundTrip();
  void detectRealFiles_data();
  void detectRealFiles();
  void detectSynthetic_data();
  void detectSynthetic();
  void bundleFolders();
  void loadDl19Bundle();
  void loadDl19FolderBundle();
  void loadProblems();
  void loadOtherFormats_data();
  void loadOtherFormats();
  void cliInfoMatchesLoader();
  void cliInfoOnEveryRealDataset_data();
  void cliInfoOnEveryRealDataset();
  void cliTextOutput();
  void cliBadFile();
  void cliUsage();

  // Issue 12: hostile inputs end in a diagnostic, never in a crash, a hang or a silent answer.
  void jsonNumberOverflow_data();
  void jsonNumberOverflow();
  void cliJsonNumberOverflow();
  void cliRefusesEndlessInput_data();
  void cliRefusesEndlessInput();
  void bundleSkipsSpecialFiles();
  void tooManyErrorsStop_data();
  void tooManyErrorsStop();
  void crOnlyLineEnds_data();
  void crOnlyLineEnds();
  void cliCrOnlyFile();
  void cliDuplicateRunDocno();
  void invalidUtf8IdsAreNamed();
};

void TestDataset::formatNamesRoundTrip() {
  const QStringList expected{
      "trec-run",           "trec-qrels",        "topics-tsv", "topics-jsonl",
      "msmarco-collection", "rank-llm-json",     "kilt",       "kilt-knowledge-source",
      "docugami",           "llama-rag-dataset", "beir",       "rag-jsonl",
      "ragchecker",         "kilt-predictions"};
  QStringList names;
  std::set<Format> seen;
  for (const Format f : allFormats()) {
    names << QString::fromUtf8(formatName(f).data(), qsizetype(formatName(f).size()));
    QCOMPARE(formatFromName(formatName(f)), std::optional<Format>(f));
    seen.insert(f);
  }
  QCOMPARE(names, expected);
  QCOMPARE(seen.size(), std::size_t(14));
  QVERIFY(!formatFromName("TREC-RUN"));
  QVERIFY(!formatFromName(""));
  QVERIFY(!formatFromName("trec"));
}

void TestDataset::detectRealFiles_data() {
  QTest::addColumn<QString>("path");
  QTest::addColumn<QString>("format");  // empty: nullopt expected
  const QString topics = "msmarco_trecdl/topics/";
  for (const char* f :
       {"topics.dl19-doc.txt", "topics.dl19-passage.txt", "topics.dl20.txt", "topics.dl21.txt",
        "topics.dl22.txt", "topics.dl23.txt", "topics.msmarco-doc.dev.txt",
        "topics.msmarco-passage.dev-subset.txt", "topics.rag24.test.txt"})
    QTest::newRow(f) << topics + f << "topics-tsv";
  QTest::newRow("rag25 jsonl") << topics + "topics.rag25.test.jsonl"
                               << "topics-jsonl";
  for (const char* f :
       {"qrels.dl19-doc.txt", "qrels.dl19-passage.txt", "qrels.dl20-doc.txt",
        "qrels.dl20-passage.txt", "qrels.dl21-doc-msmarco-v2.1.txt", "qrels.dl21-doc.txt",
        "qrels.dl21-passage.txt", "qrels.dl23-doc-msmarco-v2.1.txt", "qrels.dl23-doc.txt",
        "qrels.dl23-passage.txt", "qrels.msmarco-doc.dev.txt",
        "qrels.msmarco-passage.dev-subset.txt", "qrels.rag24.test.txt", "qrels.rag25.test.txt"})
    QTest::newRow(f) << QString("msmarco_trecdl/qrels/") + f << "trec-qrels";
  QTest::newRow("collection dl19")
      << "msmarco_trecdl/collection_subset/collection.dl19-bm25top100.tsv"
      << "msmarco-collection";
  QTest::newRow("collection dl20")
      << "msmarco_trecdl/collection_subset/collection.dl20-bm25top100.tsv"
      << "msmarco-collection";
  QTest::newRow("anserini run") << kDl19Run << "trec-run";
  for (const char* f :
       {"BM25/trec_results_dl19.txt", "BM25/trec_results_dl20.txt", "BM25/trec_results_dl21.txt",
        "BM25/trec_results_dl22.txt", "OPEN_AI_ADA2/trec_results_dl19.txt",
        "SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl19.txt",
        "SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl20.txt"})
    QTest::newRow(f) << QString("msmarco_trecdl/runs/rank_llm/") + f << "trec-run";
  QTest::newRow("rank_llm dl19") << kDl19RankLlm << "rank-llm-json";
  QTest::newRow("rank_llm dl20") << "msmarco_trecdl/runs/rank_llm/BM25/retrieve_results_dl20.json"
                                 << "rank-llm-json";
  QTest::newRow("EXPECTED.md") << "msmarco_trecdl/runs/EXPECTED.md"
                               << "";
  QTest::newRow("msmarco folder") << "msmarco_trecdl"
                                  << "";  // a bundle, not one format

  QTest::newRow("hotpotqa dev") << "kilt/dev_full/hotpotqa-dev-kilt.jsonl"
                                << "kilt";
  QTest::newRow("wow dev") << "kilt/dev_full/wow-dev-kilt.jsonl"
                           << "kilt";
  for (const char* task : {"aidayago2", "cweb", "eli5", "fever", "hotpotqa", "nq",
                           "structured_zeroshot", "trex", "wned", "wow"})
    QTest::newRow(task) << QString("kilt/hf_dummy_data/%1/%1-dev-kilt.jsonl").arg(task) << "kilt";
  QTest::newRow("triviaqa ids only")
      << "kilt/hf_dummy_data/triviaqa_support_only/triviaqa-dev_id-kilt.jsonl"
      << "kilt";
  // KILT's fixtures: gold files have input+output, guess files id+output (by content).
  for (const char* f : {"gold1.jsonl", "gold2.jsonl", "gold3.jsonl", "guess1_1.jsonl",
                        "guess2_1.jsonl", "guess2_2.jsonl", "guess3_1.jsonl"})
    QTest::newRow(f) << QString("kilt/tests/test_data/") + f << "kilt";
  QTest::newRow("guess3_1.json pretty") << "kilt/tests/test_data/guess3_1.json"
                                        << "";
  QTest::newRow("kilt README") << "kilt/README.md"
                               << "";

  const QString dg = "docugami/KG-RAG-datasets/sec-10-q/data/";
  QTest::newRow("qna_data.csv") << dg + "v1/qna_data.csv"
                                << "docugami";
  QTest::newRow("qna_data_mini.csv") << dg + "v1/qna_data_mini.csv"
                                     << "docugami";
  QTest::newRow("docugami folder") << dg + "v1"
                                   << "docugami";
  QTest::newRow("questions.csv (no Answer)") << dg + "raw_questions/questions.csv"
                                             << "";
  QTest::newRow("questions_with_LLM_answers.csv")
      << dg + "raw_questions/questions_with_LLM_answers.csv"
      << "docugami";
  QTest::newRow("a 10-Q PDF") << dg + "v1/docs/2022 Q3 AAPL.pdf"
                              << "";

  QTest::newRow("ragchecker inputs") << "ragchecker/examples/checking_inputs.json"
                                     << "ragchecker";
  QTest::newRow("ragchecker outputs") << "ragchecker/examples/checking_outputs.json"
                                      << "ragchecker";
  QTest::newRow("meta-eval labels") << "ragchecker/data/meta_evaluation/human_labeled_data.json"
                                    << "";
  QTest::newRow("meta-eval baseline") << "ragchecker/data/meta_evaluation/baseline_ragchecker.json"
                                      << "";

  QTest::newRow("trec_eval qrels.test") << "trec_eval/test/qrels.test"
                                        << "trec-qrels";
  QTest::newRow("trec_eval qrels.rel_level") << "trec_eval/test/qrels.rel_level"
                                             << "trec-qrels";
  QTest::newRow("trec_eval results.test") << "trec_eval/test/results.test"
                                          << "trec-run";
  QTest::newRow("trec_eval results.trunc") << "trec_eval/test/results.trunc"
                                           << "trec-run";
  QTest::newRow("trec_eval results-302") << "trec_eval/test/results-302.test"
                                         << "trec-run";
  QTest::newRow("trec_eval out.test") << "trec_eval/test/out.test"
                                      << "";
  QTest::newRow("trec_eval zscores") << "trec_eval/test/zscores_file"
                                     << "";
  QTest::newRow("erag README") << "erag/README.md"
                               << "";
}

void TestDataset::detectRealFiles() {
  QFETCH(QString, path);
  QFETCH(QString, format);
  RAGSCOPE_REQUIRE_DATA(path.toStdString());
  const auto detected = detectFormat(dataPath(path.toStdString()));
  const QString got = detected ? QString::fromUtf8(formatName(*detected).data()) : QString();
  QCOMPARE(got, format);
}

void TestDataset::detectSynthetic_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<QByteArray>("content");
  QTest::addColumn<QString>("format");
  QTest::newRow("qrels by content")
      << "judged.txt" << QByteArray("q1 0 d1 1\nq1 0 d2 0\n") << "trec-qrels";
  QTest::newRow("run by content") << "bm25.res"
                                  << QByteArray("q1 Q0 d1 1 3.5 tag\nq1 Q0 d2 2 2.5 tag\n")
                                  << "trec-run";
  QTest::newRow("topics by content")
      << "queries.tsv" << QByteArray("1\twhat is x\n2\twho is y\n") << "topics-tsv";
  QTest::newRow("passages by content")
      << "passages.tsv"
      << QByteArray("1\t" + QByteArray(300, 'a') + "\n2\t" + QByteArray(280, 'b') + "\n")
      << "msmarco-collection";
  QTest::newRow("2 columns, middling text")
      << "x.tsv" << QByteArray("1\t" + QByteArray(170, 'a') + "\n") << "";
  QTest::newRow("mixed columns") << "x.txt" << QByteArray("q1 0 d1 1\nq1 Q0 d1 1 3.5 tag\n") << "";
  QTest::newRow("kilt by content")
      << "x.jsonl"
      << QByteArray("{\"id\": \"1\", \"input\": \"q\", \"output\": [{\"answer\": \"a\"}]}\n")
      << "kilt";
  QTest::newRow("kilt knowledge source")
      << "pages.jsonl"
      << QByteArray(
             "{\"_id\": \"1\", \"wikipedia_id\": \"1\", \"wikipedia_title\": \"T\", \"text\": "
             "[\"T\\n\", \"p\"]}\n")
      << "kilt-knowledge-source";
  QTest::newRow("kilt_knowledgesource by name")
      << "kilt_knowledgesource.json" << QByteArray("{}") << "kilt-knowledge-source";
  QTest::newRow("rag jsonl") << "eval.jsonl"
                             << QByteArray(
                                    "{\"id\": \"1\", \"question\": \"q\", \"contexts\": [\"c\"], "
                                    "\"response\": \"r\", \"reference\": \"a\"}\n")
                             << "rag-jsonl";
  QTest::newRow("topics jsonl by content")
      << "q.jsonl" << QByteArray("{\"id\": 3, \"title\": \"what\"}\n") << "topics-jsonl";
  QTest::newRow("beir corpus line alone")
      << "c.jsonl" << QByteArray("{\"_id\": \"d\", \"title\": \"t\", \"text\": \"x\"}\n") << "";
  QTest::newRow("ragchecker pretty")
      << "in.json" << QByteArray("{\n  \"results\": [\n    {\n      \"query_id\": \"0\",\n")
      << "ragchecker";
  QTest::newRow("llama pretty") << "rag.json"
                                << QByteArray(
                                       "{\n  \"examples\": [\n    {\n      \"query\": \"q\",\n     "
                                       " \"reference_answer\": \"a\"}]}\n")
                                << "llama-rag-dataset";
  QTest::newRow("rank_llm pretty")
      << "r.json"
      << QByteArray("[\n {\"query\": \"q\",\n  \"hits\": [{\"docid\": \"1\", \"score\": 1}]}]")
      << "rank-llm-json";
  QTest::newRow("plain JSON list") << "l.json" << QByteArray("[1, 2, 3]") << "";
  QTest::newRow("empty file") << "empty.txt" << QByteArray() << "";
  QTest::newRow("binary") << "blob.bin" << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) << "";
  QTest::newRow("deep JSON line") << "deep.jsonl" << QByteArray(QByteArray(5000, '[') + "\n") << "";
}

void TestDataset::detectSynthetic() {
  QFETCH(QString, name);
  QFETCH(QByteArray, content);
  QFETCH(QString, format);
  QTemporaryDir dir;
  const auto path = writeFile(dir.filePath(name), content);
  const auto detected = detectFormat(path);
  const QString got = detected ? QString::fromUtf8(formatName(*detected).data()) : QString();
  QCOMPARE(got, format);
}

void TestDataset::bundleFolders() {
  QTemporaryDir dir;
  const QString beir = dir.filePath("scifact");
  QVERIFY(QDir().mkpath(beir + "/qrels"));
  writeFile(beir + "/corpus.jsonl", "{\"_id\": \"d1\", \"title\": \"T\", \"text\": \"x\"}\n");
  writeFile(beir + "/queries.jsonl", "{\"_id\": \"q1\", \"text\": \"what\"}\n");
  writeFile(beir + "/qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
  QCOMPARE(detectFormat(beir.toStdString()), std::optional<Format>(Format::Beir));
  QVERIFY(!isBundleFolder(beir.toStdString()));

  const QString empty = dir.filePath("nothing");
  QVERIFY(QDir().mkpath(empty));
  writeFile(empty + "/notes.md", "# notes\n");
  QVERIFY(!detectFormat(empty.toStdString()));
  QVERIFY(!isBundleFolder(empty.toStdString()));
  QVERIFY(!isBundleFolder(dir.filePath("nothing/notes.md").toStdString()));

  RAGSCOPE_REQUIRE_DATA("msmarco_trecdl");
  QVERIFY(isBundleFolder(dataPath("msmarco_trecdl")));
  QVERIFY(isBundleFolder(dataPath("msmarco_trecdl/runs/rank_llm/BM25")));
  QVERIFY(isBundleFolder(dataPath("kilt/dev_full")));
  QVERIFY(
      !isBundleFolder(dataPath("docugami/KG-RAG-datasets/sec-10-q/data/v1")));  // docugami itself
}

void TestDataset::loadDl19Bundle() {
  RAGSCOPE_REQUIRE_DATA(kDl19Topics);
  const std::vector<DatasetPart> parts{{dataPath(kDl19Topics), std::nullopt},
                                       {dataPath(kDl19Qrels), std::nullopt},
                                       {dataPath(kDl19Run), Format::TrecRun},
                                       {dataPath(kDl19RankLlm), std::nullopt}};
  LoadOptions options;
  std::uint64_t lastDone = 0, lastTotal = 0;
  bool monotonic = true;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    monotonic = monotonic && done >= lastDone;
    lastDone = done;
    lastTotal = total;
    return true;
  };
  auto loaded = loadDataset(parts, options);
  const Dataset& d = loaded.value;
  QVERIFY2(
      loaded.report.diagnostics.empty(),
      loaded.report.diagnostics.empty() ? "" : loaded.report.diagnostics[0].toString().c_str());
  QVERIFY(loaded.report.ok());
  QCOMPARE(d.name, std::string("topics.dl19-passage.txt + 3 more"));
  QCOMPARE(d.parts.size(), std::size_t(4));
  const std::vector<Format> formats{Format::TopicsTsv, Format::TrecQrels, Format::TrecRun,
                                    Format::RankLlmJson};
  for (std::size_t i = 0; i < 4; ++i)
    QCOMPARE(d.parts[i].format, std::optional<Format>(formats[i]));
  // The rank_llm JSON carries the same 43 queries with the same text: merged, not duplicated.
  QCOMPARE(d.queries.size(), std::size_t(43));
  QCOMPARE(d.qrels.judgmentCount(), std::size_t(9260));
  QCOMPARE(d.qrels.byQuery.size(), std::size_t(43));
  QCOMPARE(d.qrels.gradeCounts(), kDl19Grades);
  QCOMPARE(d.runs.size(), std::size_t(2));
  QCOMPARE(d.runs[0].tag, std::string("Anserini"));
  QCOMPARE(d.runs[0].rankings.size(), std::size_t(43));
  QCOMPARE(d.runs[0].entryCount(), std::size_t(43000));
  QCOMPARE(d.runs[1].tag, std::string("BM25"));
  QCOMPARE(d.runs[1].entryCount(), std::size_t(4300));
  QCOMPARE(d.corpus.size(), std::size_t(4297));
  // Every judged topic is a loaded query.
  for (const auto& [qid, js] : d.qrels.byQuery) QVERIFY2(d.findQuery(qid), qid.c_str());
  QVERIFY(!d.findQuery("no such query"));
  // Progress ran over all four files as one load.
  std::uint64_t total = 0;
  for (const auto& p : parts) total += std::filesystem::file_size(p.path);
  QVERIFY(monotonic);
  QCOMPARE(lastTotal, total);
  QCOMPARE(lastDone, total);
}

void TestDataset::loadDl19FolderBundle() {
  RAGSCOPE_REQUIRE_DATA(kDl19Topics);
  // An MS MARCO-style folder (topics/, qrels/, runs/) built from links to the real files.
  QTemporaryDir dir;
  for (const char* sub : {"topics", "qrels", "runs/BM25"})
    QVERIFY(QDir().mkpath(dir.filePath(sub)));
  const auto link = [&](const char* rel, const QString& to) {
    return QFile::link(dataArg(rel), dir.filePath(to));
  };
  QVERIFY(link(kDl19Topics, "topics/topics.dl19-passage.txt"));
  QVERIFY(link(kDl19Qrels, "qrels/qrels.dl19-passage.txt"));
  QVERIFY(link("msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt",
               "runs/BM25/trec_results_dl19.txt"));
  QVERIFY(link(kDl19RankLlm, "runs/BM25/retrieve_results_dl19.json"));
  writeFile(dir.filePath("README.txt"), "DL19 passage bundle\n");
  writeFile(dir.filePath(".hidden"), "ignored silently: hidden\n");

  QVERIFY(isBundleFolder(dir.path().toStdString()));
  QVERIFY(!detectFormat(dir.path().toStdString()));
  auto loaded = loadDataset({{dir.path().toStdString(), std::nullopt}}, LoadOptions{});
  const Dataset& d = loaded.value;
  QVERIFY(loaded.report.ok());
  QCOMPARE(loaded.report.errors, std::uint64_t(0));
  // The unrecognised file is named, not silently dropped.
  QCOMPARE(loaded.report.diagnostics.size(), std::size_t(1));
  QCOMPARE(QString::fromStdString(loaded.report.diagnostics[0].toString()),
           dir.filePath("README.txt") + ": not a recognised format; ignored");
  QCOMPARE(d.name, QDir(dir.path()).dirName().toStdString());
  QCOMPARE(d.parts.size(), std::size_t(4));
  // Topics first, then judgments, then runs.
  QCOMPARE(d.parts[0].format, std::optional<Format>(Format::TopicsTsv));
  QCOMPARE(d.parts[1].format, std::optional<Format>(Format::TrecQrels));
  QCOMPARE(d.queries.size(), std::size_t(43));
  QCOMPARE(d.qrels.judgmentCount(), std::size_t(9260));
  QCOMPARE(d.runs.size(), std::size_t(2));
  for (const auto& run : d.runs) QCOMPARE(run.entryCount(), std::size_t(4300));
  QCOMPARE(d.corpus.size(), std::size_t(4297));

  // --format on a folder keeps only that format's files.
  auto runsOnly = loadDataset({{dir.path().toStdString(), Format::TrecRun}}, LoadOptions{});
  QCOMPARE(runsOnly.value.runs.size(), std::size_t(1));
  QCOMPARE(runsOnly.value.runs[0].tag, std::string("rank"));
  QCOMPARE(runsOnly.value.queries.size(), std::size_t(0));
  QCOMPARE(runsOnly.report.errors, std::uint64_t(0));
  QCOMPARE(runsOnly.report.warnings, std::uint64_t(4));  // README + 3 files of other formats
}

void TestDataset::loadProblems() {
  QTemporaryDir dir;
  const auto unknown = writeFile(dir.filePath("mystery.dat"), "hello world\n");
  const auto good = writeFile(dir.filePath("topics.txt"), "1\tfirst\n");
  const std::string missing = dir.filePath("missing.txt").toStdString();
  const std::string names =
      "trec-run, trec-qrels, topics-tsv, topics-jsonl, msmarco-collection, rank-llm-json, kilt, "
      "kilt-knowledge-source, docugami, llama-rag-dataset, beir, rag-jsonl, ragchecker, "
      "kilt-predictions";

  // Stop: the first bad part ends the load.
  auto stopped = loadDataset({{unknown, std::nullopt}, {good, std::nullopt}}, LoadOptions{});
  QVERIFY(stopped.report.stopped);
  QCOMPARE(stopped.report.diagnostics.size(), std::size_t(1));
  QCOMPARE(stopped.report.diagnostics[0].toString(),
           unknown.string() + ": cannot tell the format; name one of: " + names);
  QCOMPARE(stopped.value.queries.size(), std::size_t(0));

  // Skip: bad parts are reported and skipped, the rest loads.
  LoadOptions skip;
  skip.onError = OnError::Skip;
  auto skipped =
      loadDataset({{unknown, std::nullopt}, {missing, std::nullopt}, {good, std::nullopt}}, skip);
  QVERIFY(!skipped.report.stopped);
  QCOMPARE(skipped.report.skipped, std::uint64_t(2));
  QCOMPARE(skipped.report.errors, std::uint64_t(2));
  QCOMPARE(skipped.report.diagnostics[1].toString(), missing + ": does not exist");
  QCOMPARE(skipped.value.queries.size(), std::size_t(1));
  QCOMPARE(skipped.value.parts.size(), std::size_t(1));

  // loadInto appends to an existing dataset and records the part.
  Dataset d;
  const auto r = loadInto(d, {good, Format::TopicsTsv}, LoadOptions{});
  QVERIFY(r.ok());
  QCOMPARE(d.parts.size(), std::size_t(1));
  QCOMPARE(d.queries.size(), std::size_t(1));

  // A forced wrong format reports the file's lines, not a crash.
  auto wrong = loadDataset({{good, Format::TrecQrels}}, LoadOptions{});
  QVERIFY(wrong.report.hasErrors());
  QCOMPARE(wrong.report.diagnostics.at(0).line, std::uint64_t(1));
}

void TestDataset::loadOtherFormats_data() {
  QTest::addColumn<QString>("path");
  QTest::addColumn<QString>("format");
  QTest::addColumn<int>("queries");
  QTest::addColumn<int>("withGoldDocs");
  // MANIFEST: HotpotQA dev 5,600 lines, WoW dev 3,054 lines (every output has provenance);
  // Docugami qna_data.csv 195 questions, 193 with a SOURCE(S) line.
  QTest::newRow("hotpotqa") << "kilt/dev_full/hotpotqa-dev-kilt.jsonl"
                            << "kilt" << 5600 << 5600;
  QTest::newRow("wow") << "kilt/dev_full/wow-dev-kilt.jsonl"
                       << "kilt" << 3054 << 3054;
  QTest::newRow("docugami") << "docugami/KG-RAG-datasets/sec-10-q/data/v1/qna_data.csv"
                            << "docugami" << 195 << 193;
}

void TestDataset::loadOtherFormats() {
  QFETCH(QString, path);
  QFETCH(QString, format);
  QFETCH(int, queries);
  QFETCH(int, withGoldDocs);
  RAGSCOPE_REQUIRE_DATA(path.toStdString());
  auto loaded = loadDataset({{dataPath(path.toStdString()), std::nullopt}}, LoadOptions{});
  QVERIFY(loaded.report.ok());
  QCOMPARE(loaded.report.errors, std::uint64_t(0));
  QCOMPARE(loaded.value.parts.size(), std::size_t(1));
  QCOMPARE(QString::fromUtf8(formatName(*loaded.value.parts[0].format).data()), format);
  QCOMPARE(loaded.value.queries.size(), std::size_t(queries));
  int gold = 0;
  for (const auto& q : loaded.value.queries)
    if (!q.goldDocIds().empty()) ++gold;
  QCOMPARE(gold, withGoldDocs);
}

void TestDataset::cliInfoMatchesLoader() {
  RAGSCOPE_REQUIRE_DATA(kDl19Topics);
  const auto r = runCli({"dataset", "info", dataArg(kDl19Topics), dataArg(kDl19Qrels),
                         dataArg(kDl19Run), dataArg(kDl19RankLlm), "--json"});
  QCOMPARE(r.exitCode, 0);
  QJsonParseError err;
  const auto doc = QJsonDocument::fromJson(r.out, &err);
  QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
  const QJsonObject o = doc.object();
  QCOMPARE(o["queries"].toInt(), 43);
  QCOMPARE(o["queries_with_gold"].toInt(), 0);
  QCOMPARE(o["documents"].toInt(), 4297);
  QCOMPARE(o["judgments"].toInt(), 9260);
  QCOMPARE(o["qrels_queries"].toInt(), 43);
  const QJsonObject grades = o["judgments_by_grade"].toObject();
  for (const auto& [grade, n] : kDl19Grades)
    QCOMPARE(grades[QString::number(grade)].toInt(), int(n));
  const QJsonArray runs = o["runs"].toArray();
  QCOMPARE(runs.size(), 2);
  QCOMPARE(runs[0].toObject()["tag"].toString(), QString("Anserini"));
  QCOMPARE(runs[0].toObject()["queries"].toInt(), 43);
  QCOMPARE(runs[0].toObject()["entries"].toInt(), 43000);
  QCOMPARE(runs[1].toObject()["tag"].toString(), QString("BM25"));
  QCOMPARE(runs[1].toObject()["entries"].toInt(), 4300);
  QCOMPARE(o["examples"].toInt(), 0);
  QCOMPARE(o["errors"].toInt(), 0);
  QCOMPARE(o["diagnostics"].toArray().size(), 0);
  const QJsonArray parts = o["parts"].toArray();
  QCOMPARE(parts.size(), 4);
  QCOMPARE(parts[0].toObject()["format"].toString(), QString("topics-tsv"));
  QCOMPARE(parts[3].toObject()["format"].toString(), QString("rank-llm-json"));

  // Same numbers as the library's own load.
  auto loaded = loadDataset({{dataPath(kDl19Topics), {}},
                             {dataPath(kDl19Qrels), {}},
                             {dataPath(kDl19Run), {}},
                             {dataPath(kDl19RankLlm), {}}},
                            LoadOptions{});
  QCOMPARE(o["queries"].toInt(), int(loaded.value.queries.size()));
  QCOMPARE(o["records"].toInteger(), qint64(loaded.report.records));
}

void TestDataset::cliInfoOnEveryRealDataset_data() {
  // Every dataset file of ../shared/data, one `dataset info --json` each (format detected). The
  // expected counts were taken from the files by a separate script (distinct qids, lines, grades
  // per qrels column, hits of rank_llm JSON, KILT records with an answer / provenance, qna_data.csv
  // rows and SOURCE(S) lines, distinct RAGChecker doc_ids), not from ragscope.
  QTest::addColumn<QString>("path");
  QTest::addColumn<QString>("format");
  QTest::addColumn<int>("queries");
  QTest::addColumn<int>("withGold");      // queries with gold outputs
  QTest::addColumn<int>("withGoldDocs");  // queries with gold documents (provenance)
  QTest::addColumn<int>("documents");     // -1: as the library's own load of the file
  QTest::addColumn<QString>("grades");    // "grade:count,..." of the judgments
  QTest::addColumn<int>("qrelsQueries");
  QTest::addColumn<QString>("runs");  // "tag:queries:entries;..."
  QTest::addColumn<int>("examples");
  QTest::addColumn<int>("warnings");

  const QString t = "msmarco_trecdl/topics/";
  auto topics = [&](const char* name, const QString& file, int n) {
    QTest::newRow(name) << t + file << "topics-tsv" << n << 0 << 0 << 0 << "" << 0 << "" << 0 << 0;
  };
  topics("topics dl19-passage", "topics.dl19-passage.txt", 43);
  topics("topics dl19-doc", "topics.dl19-doc.txt", 43);
  topics("topics dl20", "topics.dl20.txt", 200);
  topics("topics dl21", "topics.dl21.txt", 477);
  topics("topics dl22", "topics.dl22.txt", 500);
  topics("topics dl23", "topics.dl23.txt", 700);
  topics("topics msmarco-doc dev", "topics.msmarco-doc.dev.txt", 5193);
  topics("topics msmarco-passage dev-small", "topics.msmarco-passage.dev-subset.txt", 6980);
  topics("topics rag24", "topics.rag24.test.txt", 301);
  QTest::newRow("topics rag25 jsonl")
      << t + "topics.rag25.test.jsonl"
      << "topics-jsonl" << 105 << 0 << 0 << 0 << "" << 0 << "" << 0 << 0;

  const QString q = "msmarco_trecdl/qrels/";
  auto qrels = [&](const char* name, const QString& file, const QString& grades, int queries) {
    QTest::newRow(name) << q + file << "trec-qrels" << 0 << 0 << 0 << 0 << grades << queries << ""
                        << 0 << 0;
  };
  qrels("qrels dl19-passage", "qrels.dl19-passage.txt", "0:5158,1:1601,2:1804,3:697", 43);
  qrels("qrels dl19-doc", "qrels.dl19-doc.txt", "0:9661,1:4607,2:1149,3:841", 43);
  qrels("qrels dl20-passage", "qrels.dl20-passage.txt", "0:7780,1:1940,2:1020,3:646", 54);
  qrels("qrels dl20-doc", "qrels.dl20-doc.txt", "0:7331,1:1187,2:315,3:265", 45);
  qrels("qrels dl21-passage", "qrels.dl21-passage.txt", "0:4338,1:3063,2:2341,3:1086", 53);
  qrels("qrels dl21-doc", "qrels.dl21-doc.txt", "0:4855,1:4178,2:2769,3:1256", 57);
  qrels("qrels dl21-doc v2.1", "qrels.dl21-doc-msmarco-v2.1.txt", "0:4307,1:3428,2:2222,3:1016",
        57);
  qrels("qrels dl23-passage", "qrels.dl23-passage.txt", "0:13866,1:4372,2:2259,3:1830", 82);
  qrels("qrels dl23-doc", "qrels.dl23-doc.txt", "0:11876,1:3015,2:1668,3:1475", 82);
  qrels("qrels dl23-doc v2.1", "qrels.dl23-doc-msmarco-v2.1.txt", "0:10560,1:2679,2:1447,3:1309",
        82);
  qrels("qrels msmarco-doc dev", "qrels.msmarco-doc.dev.txt", "1:5193", 5193);
  qrels("qrels msmarco-passage dev-small", "qrels.msmarco-passage.dev-subset.txt", "1:7437", 6980);
  qrels("qrels rag24", "qrels.rag24.test.txt", "0:7712,1:6305,2:4663,3:1749", 89);
  qrels("qrels rag25", "qrels.rag25.test.txt", "0:3619,1:1499,2:3760,3:1318,4:88", 22);

  const QString c = "msmarco_trecdl/collection_subset/";
  QTest::newRow("collection dl19 subset")
      << c + "collection.dl19-bm25top100.tsv"
      << "msmarco-collection" << 0 << 0 << 0 << 4297 << "" << 0 << "" << 0 << 0;
  QTest::newRow("collection dl20 subset")
      << c + "collection.dl20-bm25top100.tsv"
      << "msmarco-collection" << 0 << 0 << 0 << 5396 << "" << 0 << "" << 0 << 0;

  const QString r = "msmarco_trecdl/runs/";
  auto run = [&](const char* name, const QString& file, const QString& runs) {
    QTest::newRow(name) << r + file << "trec-run" << 0 << 0 << 0 << 0 << "" << 0 << runs << 0 << 0;
  };
  run("run anserini bm25 dl19", "run.msmarco-v1-passage.bm25-default.dl19.txt",
      "Anserini:43:43000");
  run("run rank_llm bm25 dl19", "rank_llm/BM25/trec_results_dl19.txt", "rank:43:4300");
  run("run rank_llm bm25 dl20", "rank_llm/BM25/trec_results_dl20.txt", "rank:54:5400");
  run("run rank_llm bm25 dl21", "rank_llm/BM25/trec_results_dl21.txt", "rank:53:5300");
  run("run rank_llm bm25 dl22", "rank_llm/BM25/trec_results_dl22.txt", "rank:76:7600");
  run("run rank_llm ada2 dl19", "rank_llm/OPEN_AI_ADA2/trec_results_dl19.txt", "rank:43:4300");
  run("run rank_llm splade dl19", "rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl19.txt",
      "rank:43:4300");
  run("run rank_llm splade dl20", "rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl20.txt",
      "rank:54:5400");
  // rank_llm JSON: queries, a run with texts, and the distinct passages as the corpus.
  QTest::newRow("rank_llm json dl19")
      << r + "rank_llm/BM25/retrieve_results_dl19.json"
      << "rank-llm-json" << 43 << 0 << 0 << 4297 << "" << 0 << "BM25:43:4300" << 0 << 0;
  QTest::newRow("rank_llm json dl20")
      << r + "rank_llm/BM25/retrieve_results_dl20.json"
      << "rank-llm-json" << 54 << 0 << 0 << 5396 << "" << 0 << "BM25:54:5400" << 0 << 0;

  QTest::newRow("kilt hotpotqa dev")
      << "kilt/dev_full/hotpotqa-dev-kilt.jsonl"
      << "kilt" << 5600 << 5600 << 5600 << 0 << "" << 0 << "" << 0 << 0;
  QTest::newRow("kilt wow dev") << "kilt/dev_full/wow-dev-kilt.jsonl"
                                << "kilt" << 3054 << 3054 << 3054 << 0 << "" << 0 << "" << 0 << 0;
  for (const char* task : {"aidayago2", "cweb", "eli5", "fever", "hotpotqa", "nq",
                           "structured_zeroshot", "trex", "wned", "wow"})
    QTest::newRow(qPrintable(QString("kilt dummy %1").arg(task)))
        << QString("kilt/hf_dummy_data/%1/%1-dev-kilt.jsonl").arg(task) << "kilt" << 5 << 5 << 5
        << 0 << "" << 0 << "" << 0 << 0;
  // TriviaQA is distributed as ids only: one warning for the five records without input text.
  QTest::newRow("kilt dummy triviaqa ids only")
      << "kilt/hf_dummy_data/triviaqa_support_only/triviaqa-dev_id-kilt.jsonl"
      << "kilt" << 5 << 5 << 5 << 0 << "" << 0 << "" << 0 << 1;

  // qna_data.csv: 195 questions with answers, 193 with a SOURCE(S) line (the two others are
  // flagged: one warning each); the PDFs of docs/ beside it are the chunked corpus.
  const QString dg = "docugami/KG-RAG-datasets/sec-10-q/data/v1/";
  QTest::newRow("docugami qna_data.csv")
      << dg + "qna_data.csv"
      << "docugami" << 195 << 195 << 193 << -1 << "" << 0 << "" << 0 << 2;
  QTest::newRow("docugami qna_data_mini.csv")
      << dg + "qna_data_mini.csv"
      << "docugami" << 9 << 9 << 9 << -1 << "" << 0 << "" << 0 << 0;

  // RAGChecker: 2 results whose 7 retrieved contexts name 4 distinct doc_ids; the second result
  // reuses 3 ids with other texts (one warning).
  QTest::newRow("ragchecker inputs") << "ragchecker/examples/checking_inputs.json"
                                     << "ragchecker" << 2 << 2 << 0 << 4 << "" << 0 << "" << 2 << 1;
  QTest::newRow("ragchecker outputs")
      << "ragchecker/examples/checking_outputs.json"
      << "ragchecker" << 2 << 2 << 0 << 4 << "" << 0 << "" << 2 << 1;
}

void TestDataset::cliInfoOnEveryRealDataset() {
  QFETCH(QString, path);
  QFETCH(QString, format);
  QFETCH(int, queries);
  QFETCH(int, withGold);
  QFETCH(int, withGoldDocs);
  QFETCH(int, documents);
  QFETCH(QString, grades);
  QFETCH(int, qrelsQueries);
  QFETCH(QString, runs);
  QFETCH(int, examples);
  QFETCH(int, warnings);
  RAGSCOPE_REQUIRE_DATA(path.toStdString());

  const auto r = runCli({"dataset", "info", dataArg(qPrintable(path)), "--json"});
  QVERIFY2(r.exitCode == 0, r.err.constData());
  QJsonParseError err;
  const QJsonObject o = QJsonDocument::fromJson(r.out, &err).object();
  QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
  QCOMPARE(o["parts"].toArray().size(), 1);
  QCOMPARE(o["parts"].toArray()[0].toObject()["format"].toString(), format);
  QCOMPARE(o["queries"].toInt(), queries);
  QCOMPARE(o["queries_with_gold"].toInt(), withGold);
  QCOMPARE(o["queries_with_gold_docs"].toInt(), withGoldDocs);
  if (documents >= 0) {
    QCOMPARE(o["documents"].toInt(), documents);
  } else {
    const auto loaded = loadDataset({{dataPath(qPrintable(path)), {}}}, LoadOptions{});
    QVERIFY(loaded.value.corpus.size() > 1000);  // 20 PDFs, chunked by page
    QCOMPARE(o["documents"].toInt(), int(loaded.value.corpus.size()));
  }
  QStringList gradeList;
  int judgments = 0;
  const QJsonObject byGrade = o["judgments_by_grade"].toObject();
  for (auto it = byGrade.begin(); it != byGrade.end(); ++it) {
    gradeList << it.key() + ":" + QString::number(it.value().toInt());
    judgments += it.value().toInt();
  }
  QCOMPARE(gradeList.join(','), grades);
  QCOMPARE(o["judgments"].toInt(), judgments);
  QCOMPARE(o["qrels_queries"].toInt(), qrelsQueries);
  QStringList runList;
  for (const auto& run : o["runs"].toArray()) {
    const QJsonObject ro = run.toObject();
    runList << QString("%1:%2:%3")
                   .arg(ro["tag"].toString())
                   .arg(ro["queries"].toInt())
                   .arg(ro["entries"].toInt());
  }
  QCOMPARE(runList.join(';'), runs);
  QCOMPARE(o["examples"].toInt(), examples);
  QCOMPARE(o["errors"].toInt(), 0);
  QCOMPARE(o["skipped"].toInt(), 0);
  QCOMPARE(o["warnings"].toInt(), warnings);
}

void TestDataset::cliTextOutput() {
  RAGSCOPE_REQUIRE_DATA(kDl19Qrels);
  const auto r = runCli({"dataset", "info", dataArg(kDl19Qrels)});
  QCOMPARE(r.exitCode, 0);
  const QString out = QString::fromUtf8(r.out);
  QVERIFY2(
      out.contains("judgments: 9260 (grade 0: 5158, grade 1: 1601, grade 2: 1804, grade 3: 697)\n"),
      qPrintable(out));
  QVERIFY(out.contains("qrels queries: 43\n"));
  QVERIFY(out.contains("(trec-qrels)"));
  QVERIFY(out.contains("diagnostics: 0 errors, 0 warnings, 0 skipped\n"));
}

void TestDataset::cliBadFile() {
  QTemporaryDir dir;
  const QString bad = dir.filePath("topics.bad.txt");
  writeFile(bad, "1\tfine\n2 no tab here\n3\tfine too\n4\n");

  auto r = runCli({"dataset", "info", bad});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.out.contains((bad + ":2: record: no TAB between qid and text").toUtf8()),
           r.out.constData());
  QVERIFY(!r.out.contains((bad + ":4:").toUtf8()));  // stopped at the first error
  QVERIFY(r.out.contains("queries: 1\n"));

  r = runCli({"dataset", "info", bad, "--skip-bad", "--json"});
  QCOMPARE(r.exitCode, 2);  // bad records are input errors even when skipped
  const QJsonObject o = QJsonDocument::fromJson(r.out).object();
  QCOMPARE(o["queries"].toInt(), 2);
  QCOMPARE(o["skipped"].toInt(), 2);
  QCOMPARE(o["errors"].toInt(), 2);
  QCOMPARE(o["stopped"].toBool(), false);
  const QJsonArray diags = o["diagnostics"].toArray();
  QCOMPARE(diags.size(), 2);
  QCOMPARE(diags[0].toObject()["text"].toString(), bad + ":2: record: no TAB between qid and text");
  QCOMPARE(diags[1].toObject()["line"].toInt(), 4);
  QCOMPARE(diags[1].toObject()["field"].toString(), QString("record"));
  QCOMPARE(diags[1].toObject()["severity"].toString(), QString("error"));

  // A truncated rank_llm file: file:line of the end, exit 2.
  const QString json = dir.filePath("run.json");
  writeFile(json,
            "[\n {\"query\": \"q\", \"hits\": [{\"qid\": 1, \"docid\": \"d\", \"score\": 1}]},\n "
            "{\"query\":");
  r = runCli({"dataset", "info", json, "--format", "rank-llm-json"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.out.contains((json + ":3: unexpected end of file: the JSON is truncated").toUtf8()),
           r.out.constData());
}

void TestDataset::cliUsage() {
  auto r = runCli({"dataset", "--help"});
  QCOMPARE(r.exitCode, 0);
  QVERIFY(r.out.contains("--skip-bad"));
  QVERIFY(r.out.contains("kilt-knowledge-source"));
  r = runCli({"dataset", "info", "--help"});
  QCOMPARE(r.exitCode, 0);

  r = runCli({"dataset", "info"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY(r.err.contains("no PATH"));

  r = runCli({"dataset", "info", "x.txt", "--format", "csv"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("unknown format 'csv'; known formats: trec-run, trec-qrels, topics-tsv"),
           r.err.constData());
  QVERIFY(r.err.contains("ragchecker"));

  QTemporaryDir dir;
  const QString mystery = dir.filePath("mystery.dat");
  writeFile(mystery, "some words\n");
  r = runCli({"dataset", "info", mystery});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("cannot tell the format of"), r.err.constData());
  QVERIFY(r.err.contains("--format"));
  QVERIFY(r.err.contains("rank-llm-json"));

  r = runCli({"dataset", "info", dir.filePath("missing.txt")});
  QCOMPARE(r.exitCode, 2);
  QVERIFY(r.out.contains("missing.txt: does not exist"));

  r = runCli({"dataset", "info", mystery, "--bogus"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY(r.err.contains("unknown option '--bogus'"));

  r = runCli({"dataset", "frobnicate"});
  QCOMPARE(r.exitCode, 2);
}

// ---- issue 12 -----------------------------------------------------------------------------------

void TestDataset::jsonNumberOverflow_data() {
  QTest::addColumn<QString>("format");
  QTest::addColumn<QString>("file");  // the file holding the number (BEIR: inside the folder)
  QTest::addColumn<QByteArray>("content");
  QTest::addColumn<int>("line");  // 0: any line
  // 1e400 overflows a double: nlohmann throws out_of_range (406), not parse_error.
  QTest::newRow("topics-jsonl") << "topics-jsonl"
                                << "topics.jsonl"
                                << QByteArray(
                                       "{\"id\": \"1\", \"title\": \"t\"}\n"
                                       "{\"id\": \"2\", \"title\": \"t\", \"x\": 1e400}\n")
                                << 2;
  QTest::newRow("rank-llm-json")
      << "rank-llm-json"
      << "run.json"
      << QByteArray(
             "[\n{\"query\": {\"text\": \"q\", \"qid\": \"1\"}, \"hits\": "
             "[{\"docid\": \"d\", \"score\": 1e400}]}\n]\n")
      << 2;
  QTest::newRow("kilt") << "kilt"
                        << "x-kilt.jsonl"
                        << QByteArray(
                               "{\"id\": \"1\", \"input\": \"q\", \"output\": [{\"answer\": "
                               "\"a\"}]}\n{\"id\": \"2\", \"input\": \"q\", \"x\": -1e400}\n")
                        << 2;
  QTest::newRow("kilt-knowledge-source")
      << "kilt-knowledge-source"
      << "ks.jsonl"
      << QByteArray(
             "{\"wikipedia_id\": \"1\", \"wikipedia_title\": \"t\", \"text\": [\"a\"], "
             "\"x\": 1e400}\n")
      << 1;
  QTest::newRow("rag-jsonl") << "rag-jsonl"
                             << "rag.jsonl"
                             << QByteArray(
                                    "{\"question\": \"q\", \"contexts\": [\"c\"], "
                                    "\"response\": \"r\", \"x\": 1e400}\n")
                             << 1;
  QTest::newRow("ragchecker") << "ragchecker"
                              << "checker.json"
                              << QByteArray(
                                     "{\"results\": [\n{\"query_id\": \"1\", \"query\": "
                                     "\"q\", \"x\": 1e400}\n]}\n")
                              << 0;
  QTest::newRow("llama-rag-dataset") << "llama-rag-dataset"
                                     << "rag_dataset.json"
                                     << QByteArray(
                                            "{\"examples\": [\n{\"query\": \"q\", \"x\": "
                                            "1e400}\n]}\n")
                                     << 0;
  QTest::newRow("beir") << "beir"
                        << "corpus.jsonl"
                        << QByteArray(
                               "{\"_id\": \"d1\", \"title\": \"T\", \"text\": \"x\", "
                               "\"n\": 1e400}\n")
                        << 1;
}

void TestDataset::jsonNumberOverflow() {
  QFETCH(QString, format);
  QFETCH(QString, file);
  QFETCH(QByteArray, content);
  QFETCH(int, line);
  QTemporaryDir dir;
  QString part = dir.filePath(file);
  if (format == "beir") {
    part = dir.filePath("beir");
    QVERIFY(QDir().mkpath(part + "/qrels"));
    writeFile(part + "/queries.jsonl", "{\"_id\": \"q1\", \"text\": \"what\"}\n");
    writeFile(part + "/qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
    file = part + "/" + file;
  } else {
    file = part;
  }
  writeFile(file, content);
  LoadOptions skip;
  skip.onError = OnError::Skip;
  for (const LoadOptions& options : {LoadOptions{}, skip}) {
    const auto fmt = formatFromName(format.toStdString());
    QVERIFY(fmt);
    const auto loaded = loadDataset({{part.toStdString(), fmt}}, options);  // must not throw
    QVERIFY(loaded.report.hasErrors());
    bool named = false;
    for (const auto& d : loaded.report.diagnostics) {
      if (d.severity != Severity::Error || d.file != file.toStdString()) continue;
      if (d.problem.find("overflow") == std::string::npos) continue;
      named = line == 0 ? d.line > 0 : d.line == std::uint64_t(line);
    }
    QString all;
    for (const auto& d : loaded.report.diagnostics)
      all += QString::fromStdString(d.toString()) + "\n";
    QVERIFY2(named, qPrintable(all));
  }
}

void TestDataset::cliJsonNumberOverflow() {
  QTemporaryDir dir;
  const QString topics = dir.filePath("topics.jsonl");
  writeFile(topics, "{\"id\": \"1\", \"title\": \"t\", \"x\": 1e400}\n");
  auto r = runCli({"dataset", "info", topics, "--format", "topics-jsonl"}, 20000);
  QCOMPARE(r.exitCode, 2);  // an input error, not an abort
  QVERIFY2(r.out.contains((topics + ":1: record: ").toUtf8()), r.out.constData());
  QVERIFY2(r.out.contains("number overflow"), r.out.constData());

  const QString run = dir.filePath("retrieve_results_x.json");
  writeFile(run,
            "[{\"query\": {\"text\": \"q\", \"qid\": \"1\"}, \"hits\": [{\"docid\": \"d\", "
            "\"score\": 1e400}]}]\n");
  r = runCli({"dataset", "info", run, "--format", "rank-llm-json"}, 20000);
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.out.contains((run + ":1: [0]: ").toUtf8()), r.out.constData());
}

void TestDataset::cliRefusesEndlessInput_data() {
  QTest::addColumn<QStringList>("args");  // %DIR% is the test's temporary folder
  QTest::addColumn<QString>("expected");  // in stdout or stderr
  const QString notRegular = "/dev/zero: is not a regular file (a character device)";
  for (const char* format :
       {"trec-qrels", "trec-run", "topics-tsv", "topics-jsonl", "msmarco-collection", "kilt",
        "rank-llm-json", "rag-jsonl", "ragchecker", "docugami"})
    QTest::newRow(format) << QStringList{"dataset", "info", "/dev/zero", "--format", format}
                          << notRegular;
  QTest::newRow("dataset info detect") << QStringList{"dataset", "info", "/dev/zero"} << notRegular;
  QTest::newRow("eval qrels") << QStringList{"eval", "/dev/zero", "%DIR%/run"} << notRegular;
  QTest::newRow("eval run") << QStringList{"eval", "%DIR%/qrels", "/dev/zero"} << notRegular;
  QTest::newRow("bootstrap") << QStringList{"bootstrap", "/dev/zero"} << notRegular;
  QTest::newRow("bootstrap qrels")
      << QStringList{"bootstrap", "%DIR%/run", "--qrels", "/dev/zero", "--measure", "map"}
      << notRegular;
  QTest::newRow("retrieve")
      << QStringList{"retrieve",    "--dataset", "/dev/zero", "--format",      "msmarco-collection",
                     "--retriever", "bm25",      "--out",     "%DIR%/out.trec"}
      << notRegular;
  QTest::newRow("fifo") << QStringList{"dataset", "info", "%DIR%/fifo", "--format", "trec-run"}
                        << "fifo: is not a regular file (a FIFO (named pipe))";
  QTest::newRow("fifo eval") << QStringList{"eval", "%DIR%/qrels", "%DIR%/fifo"}
                             << "fifo: is not a regular file (a FIFO (named pipe))";
  // /proc/kmsg blocks until the kernel logs something: the folder is never scanned.
  QTest::newRow("/proc") << QStringList{"dataset", "info", "/proc"} << "/proc: is a system folder";
  QTest::newRow("/sys/kernel") << QStringList{"dataset", "info", "/sys/kernel"}
                               << "/sys/kernel: is a system folder";
  QTest::newRow("/proc file") << QStringList{"dataset", "info", "/proc/self/status", "--format",
                                             "topics-tsv"}
                              << "/proc/self/status: is a system file";
}

void TestDataset::cliRefusesEndlessInput() {
  QFETCH(QStringList, args);
  QFETCH(QString, expected);
  QTemporaryDir dir;
  writeFile(dir.filePath("run"), "1 Q0 d1 1 1.0 r\n");
  writeFile(dir.filePath("qrels"), "1 0 d1 1\n");
  QCOMPARE(::mkfifo(dir.filePath("fifo").toLocal8Bit().constData(), 0600), 0);
  for (QString& a : args) a.replace("%DIR%", dir.path());
  // Before the fix these ran for ever (or blocked): the timeout turns that into a failure.
  const auto r = runCli(args, 20000);
  QCOMPARE(r.exitCode, 2);
  const QString both = QString::fromUtf8(r.out + r.err);
  QVERIFY2(both.contains(expected.replace("%DIR%", dir.path())), qPrintable(both));
}

void TestDataset::bundleSkipsSpecialFiles() {
  QTemporaryDir dir;
  const QString bundle = dir.filePath("bundle");
  QVERIFY(QDir().mkpath(bundle));
  writeFile(bundle + "/topics.tsv", "1\tfirst question\n");
  QCOMPARE(::mkfifo((bundle + "/qrels.txt").toLocal8Bit().constData(), 0600), 0);
  QVERIFY(QFile::link("/dev/zero", bundle + "/run.trec"));
  QVERIFY(QFile::link("/proc/self/status", bundle + "/topics-proc.tsv"));
  // /proc/kmsg blocks a reader (as root) until the kernel logs a line.
  const bool kmsg = QFileInfo::exists("/proc/kmsg");
  if (kmsg) QVERIFY(QFile::link("/proc/kmsg", bundle + "/collection-kmsg.tsv"));

  // Library: the special files are named and skipped, the rest loads.
  auto loaded = loadDataset({{bundle.toStdString(), std::nullopt}}, LoadOptions{});
  QString all;
  for (const auto& d : loaded.report.diagnostics)
    all += QString::fromStdString(d.toString()) + "\n";
  QVERIFY2(loaded.report.ok() && !loaded.report.hasErrors(), qPrintable(all));
  QCOMPARE(loaded.value.queries.size(), std::size_t(1));
  QVERIFY2(
      all.contains(bundle + "/qrels.txt: is not a regular file (a FIFO (named pipe)); skipped"),
      qPrintable(all));
  QVERIFY2(all.contains(bundle + "/run.trec: is not a regular file (a character device); skipped"),
           qPrintable(all));
  QVERIFY2(all.contains(bundle + "/topics-proc.tsv: is a system file"), qPrintable(all));
  if (kmsg)
    QVERIFY2(all.contains(bundle + "/collection-kmsg.tsv: is a system file"), qPrintable(all));
  QVERIFY(isBundleFolder(bundle.toStdString()));

  // And from the CLI, bounded in time.
  const auto r = runCli({"dataset", "info", bundle}, 20000);
  QCOMPARE(r.exitCode, 0);
  QVERIFY2(r.out.contains("queries: 1\n"), r.out.constData());
  QVERIFY2(
      r.out.contains("qrels.txt: is not a regular file (a FIFO (named pipe)); skipped (warning)"),
      r.out.constData());
}

void TestDataset::tooManyErrorsStop_data() {
  QTest::addColumn<QString>("format");
  QTest::addColumn<QByteArray>("line");
  QTest::newRow("trec-qrels") << "trec-qrels" << QByteArray("x\n");
  QTest::newRow("trec-run") << "trec-run" << QByteArray("x\n");
  QTest::newRow("topics-tsv") << "topics-tsv" << QByteArray("no tab\n");
  QTest::newRow("topics-jsonl") << "topics-jsonl" << QByteArray("not json\n");
  QTest::newRow("msmarco-collection") << "msmarco-collection" << QByteArray("no tab\n");
  QTest::newRow("kilt") << "kilt" << QByteArray("not json\n");
  QTest::newRow("rag-jsonl") << "rag-jsonl" << QByteArray("{\"x\": 1}\n");
  QTest::newRow("docugami") << "docugami" << QByteArray("a,b\n");
}

void TestDataset::tooManyErrorsStop() {
  QFETCH(QString, format);
  QFETCH(QByteArray, line);
  QTemporaryDir dir;
  const QString file = dir.filePath("garbage.txt");
  QByteArray content;
  if (format == "docugami")
    content = "Question,Source Docs,Question Type,Source Chunk Type,Answer\n";
  for (int i = 0; i < 5000; ++i) content += line;
  writeFile(file, content);
  LoadOptions skip;
  skip.onError = OnError::Skip;
  const auto loaded =
      loadDataset({{file.toStdString(), formatFromName(format.toStdString())}}, skip);
  const auto& r = loaded.report;
  QVERIFY(r.stopped);  // the file was not read to its end: not ok()
  QVERIFY2(r.errors <= 1001, qPrintable(QString::number(r.errors)));
  QVERIFY(!r.diagnostics.empty());
  const Diagnostic& last = r.diagnostics.back();
  QVERIFY2(last.problem.find("too many errors (1000); stopped reading this file") == 0,
           last.toString().c_str());
  QCOMPARE(last.file, file.toStdString());
}

void TestDataset::crOnlyLineEnds_data() {
  QTest::addColumn<QString>("format");
  QTest::addColumn<QByteArray>("content");
  QByteArray run, qrels, topics, jsonl;
  for (int q = 1; q <= 113; ++q)
    for (int d = 1; d <= 3; ++d)
      run += QByteArray::number(q) + " Q0 d" + QByteArray::number(d) + " " + QByteArray::number(d) +
             " " + QByteArray::number(10 - d) + " r\r";
  for (int q = 1; q <= 100; ++q) qrels += QByteArray::number(q) + " 0 d1 1\r";
  for (int q = 1; q <= 100; ++q) topics += QByteArray::number(q) + "\tquestion\r";
  for (int q = 1; q <= 100; ++q)
    jsonl += "{\"id\": \"" + QByteArray::number(q) + "\", \"title\": \"t\"}\r";
  QTest::newRow("trec-run") << "trec-run" << run;  // 339 lines, as in the issue
  QTest::newRow("trec-qrels") << "trec-qrels" << qrels;
  QTest::newRow("topics-tsv") << "topics-tsv" << topics;
  QTest::newRow("topics-jsonl") << "topics-jsonl" << jsonl;
}

void TestDataset::crOnlyLineEnds() {
  QFETCH(QString, format);
  QFETCH(QByteArray, content);
  QTemporaryDir dir;
  const QString file = dir.filePath("mac.txt");
  writeFile(file, content);
  LoadOptions skip;
  skip.onError = OnError::Skip;
  for (const LoadOptions& options : {LoadOptions{}, skip}) {
    const auto loaded =
        loadDataset({{file.toStdString(), formatFromName(format.toStdString())}}, options);
    QVERIFY(!loaded.report.ok());
    QVERIFY(!loaded.report.diagnostics.empty());
    const QString text = QString::fromStdString(loaded.report.diagnostics.front().toString());
    QVERIFY2(text.startsWith(file + ": file uses CR-only line ends (classic Mac); convert them"),
             qPrintable(text));
  }
  // CRLF and a last line ending in CR alone are fine.
  writeFile(file, QByteArray(content).replace("\r", "\r\n"));
  QVERIFY(
      loadDataset({{file.toStdString(), formatFromName(format.toStdString())}}, {}).report.ok());
}

void TestDataset::cliCrOnlyFile() {
  QTemporaryDir dir;
  const QString run = dir.filePath("run.mac");
  const QString qrels = dir.filePath("qrels");
  QByteArray text;
  for (int q = 1; q <= 113; ++q)
    for (int d = 1; d <= 3; ++d)
      text += QByteArray::number(q) + " Q0 d" + QByteArray::number(d) + " " +
              QByteArray::number(d) + " " + QByteArray::number(10 - d) + " r\r";
  writeFile(run, text);
  QByteArray judged;
  for (int q = 1; q <= 113; ++q) judged += QByteArray::number(q) + " 0 d2 1\n";
  writeFile(qrels, judged);
  // Before: one query (qid 1, the rest of the file glued into its fields), map 0.5000, exit 0.
  auto r = runCli({"eval", qrels, run}, 20000);
  QCOMPARE(r.exitCode, 2);
  QVERIFY(r.out.isEmpty());
  QVERIFY2(r.err.contains((run + ": file uses CR-only line ends (classic Mac)").toUtf8()),
           r.err.constData());
  r = runCli({"dataset", "info", run, "--format", "trec-run"}, 20000);
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.out.contains((run + ": file uses CR-only line ends (classic Mac)").toUtf8()),
           r.out.constData());
  // Without --format, detection names the line ends too instead of "cannot tell the format".
  r = runCli({"dataset", "info", run}, 20000);
  QCOMPARE(r.exitCode, 2);
  QVERIFY2((r.out + r.err).contains("CR-only line ends"), (r.out + r.err).constData());
}

void TestDataset::cliDuplicateRunDocno() {
  QTemporaryDir dir;
  const QString run = dir.filePath("run.trec");
  writeFile(run, "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 a 3 1 r\n2 Q0 a 1 1 r\n");
  const QString expected = run + ":3: docno: 'a' retrieved twice for query '1' (lines 1 and 3)";
  // eval rejects it (tst_retrieval's cliDuplicateDocno); dataset info must agree.
  auto r = runCli({"dataset", "info", run}, 20000);
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.out.contains(expected.toUtf8()), r.out.constData());
  r = runCli({"dataset", "info", run, "--skip-bad", "--json"}, 20000);
  QCOMPARE(r.exitCode, 2);
  const QJsonObject o = QJsonDocument::fromJson(r.out).object();
  QCOMPARE(o["errors"].toInt(), 1);
  QCOMPARE(o["skipped"].toInt(), 1);
  QCOMPARE(o["runs"].toArray().at(0).toObject()["entries"].toInt(), 3);  // the repeat is dropped

  const QString qrels = dir.filePath("qrels");
  writeFile(qrels, "1 0 a 1\n");
  r = runCli({"eval", qrels, run}, 20000);
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
}

void TestDataset::invalidUtf8IdsAreNamed() {
  QTemporaryDir dir;
  const QString run = dir.filePath("run.trec");
  writeFile(run, "1 Q0 d1 1 2 tag\nq\xff Q0 d\xfe 1 1 t\xfd\n");
  const auto loaded = readTrecRun(run.toStdString(), {});
  QVERIFY(loaded.report.ok());
  QCOMPARE(loaded.report.errors, std::uint64_t(0));
  std::set<std::string> fields;
  for (const auto& d : loaded.report.diagnostics) {
    QCOMPARE(d.severity, Severity::Warning);
    QCOMPARE(d.line, std::uint64_t(2));
    QVERIFY2(d.problem.find("invalid UTF-8") != std::string::npos, d.toString().c_str());
    fields.insert(d.field);
  }
  QCOMPARE(fields, (std::set<std::string>{"qid", "docno", "tag"}));

  const QString qrels = dir.filePath("qrels");
  writeFile(qrels, "1 0 d1 1\nq\xff 0 d\xfe 1\n");
  const auto judged = readTrecQrels(qrels.toStdString(), {});
  QVERIFY(judged.report.ok());
  QCOMPARE(judged.report.warnings, std::uint64_t(2));
  QCOMPARE(judged.report.diagnostics.at(0).toString().substr(0, qrels.size() + 8),
           (qrels + ":2: qid:").toStdString());
  QCOMPARE(judged.report.diagnostics.at(1).field, std::string("docno"));
}

QTEST_GUILESS_MAIN(TestDataset)
#include "tst_dataset.moc"
