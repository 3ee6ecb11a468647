// MS MARCO / TREC DL loaders: topics TSV and JSONL, the passage collection TSV and rank_llm JSON,
// on the real files of ../shared/data/msmarco_trecdl (counts from the data set's manifest) and on
// hand-made malformed inputs.

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "common/testdata.h"
#include "core/data/jsonguard.h"
#include "core/data/loaders.h"
#include "core/data/textcheck.h"

using namespace ragscope::core;
using ragscope::test::dataPath;

namespace {

// Diagnostics as "F:line: field: problem" with the temp path replaced by F.
QStringList diagStrings(const LoadReport& r, const std::filesystem::path& file) {
  QStringList out;
  for (const auto& d : r.diagnostics) {
    QString s = QString::fromStdString(d.toString());
    s.replace(QString::fromStdString(file.string()), "F");
    if (d.severity == Severity::Warning) s += " (warning)";
    out << s;
  }
  return out;
}

std::filesystem::path writeFile(const QTemporaryDir& dir, const QString& name,
                                const QByteArray& bytes) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(bytes);
  f.close();
  return std::filesystem::path(path.toStdString());
}

LoadOptions opts(OnError onError, std::size_t maxLine = std::size_t{64} << 20, int maxDepth = 256) {
  LoadOptions o;
  o.onError = onError;
  o.maxLineBytes = maxLine;
  o.maxJsonDepth = maxDepth;
  return o;
}

using Loader = LoadReport (*)(const std::filesystem::path&, Dataset&, const LoadOptions&);

Loader loaderByName(const QString& name) {
  if (name == "topics-tsv") return &loadTopicsTsv;
  if (name == "topics-jsonl") return &loadTopicsJsonl;
  if (name == "collection") return &loadMsmarcoCollection;
  if (name == "rank-llm") return &loadRankLlmJson;
  return nullptr;
}

}  // namespace

class TestMsmarco : public QObject {
  Q_OBJECT

 private slots:
  void topicsTsvReal_data();
  void topicsTsvReal();
  void leadingSpaceQueryIsTrimmed();
  void topicsJsonlReal();
  void collectionReal_data();
  void collectionReal();
  void rankLlmReal_data();
  void rankLlmReal();
  void rankLlmMatchesTrecResultsAndCollection();
  void crlfBomAndNoFinalNewline();
  void malformed_data();
  void malformed();
  void duplicatesNameBothLines();
  void queriesMergeAcrossFiles();
  void rankLlmQueryObjectAndIntIds();
  void collectionProgressAndCancel();
  void jsonGuard();
  void textCheck();
  void textLeftInFile();
};

void TestMsmarco::topicsTsvReal_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("count");
  QTest::addColumn<QString>("firstId");
  QTest::addColumn<QString>("firstText");
  // Counts = MANIFEST line counts (one topic per line, no header).
  QTest::newRow("dev-small") << "topics.msmarco-passage.dev-subset.txt" << 6980 << "1048585"
                             << "what is paula deen's brother";
  QTest::newRow("dl19-passage") << "topics.dl19-passage.txt" << 43 << "156493"
                                << "do goldfish grow";
  QTest::newRow("dl19-doc") << "topics.dl19-doc.txt" << 43 << "156493"
                            << "do goldfish grow";
  QTest::newRow("dl20 CRLF") << "topics.dl20.txt" << 200 << "1030303"
                             << "who is aziz hashim";
  QTest::newRow("dl21 CRLF") << "topics.dl21.txt" << 477 << "787021"
                             << "what is produced by muscle";
  QTest::newRow("dl22 CRLF") << "topics.dl22.txt" << 500 << "588"
                             << "1099 b cost basis i sell specific shares";
  QTest::newRow("dl23 CRLF")
      << "topics.dl23.txt" << 700 << "2000138"
      << "How does the process of digestion and metabolism of carbohydrates start";
  QTest::newRow("doc dev CRLF") << "topics.msmarco-doc.dev.txt" << 5193 << "174249"
                                << "does xpress bet charge to deposit money in your account";
  QTest::newRow("rag24 CRLF") << "topics.rag24.test.txt" << 301 << "2024-145979"
                              << "what is vicarious trauma and how can it be coped with?";
}

void TestMsmarco::topicsTsvReal() {
  QFETCH(QString, file);
  QFETCH(int, count);
  QFETCH(QString, firstId);
  QFETCH(QString, firstText);
  const std::string rel = "msmarco_trecdl/topics/" + file.toStdString();
  RAGSCOPE_REQUIRE_DATA(rel);
  Dataset d;
  const auto r = loadTopicsTsv(dataPath(rel), d, opts(OnError::Stop));
  QVERIFY2(r.diagnostics.empty(), r.diagnostics.empty() ? "" : r.diagnostics[0].toString().c_str());
  QVERIFY(r.ok());
  QCOMPARE(r.records, std::uint64_t(count));
  QCOMPARE(d.queries.size(), std::size_t(count));
  QCOMPARE(QString::fromStdString(d.queries.front().id), firstId);
  QCOMPARE(QString::fromStdString(d.queries.front().text), firstText);
  QCOMPARE(d.queries.front().line, std::uint64_t(1));
  QCOMPARE(d.queries.back().line, std::uint64_t(count));
  for (const auto& q : d.queries) {
    QVERIFY(!q.text.empty());
    QVERIFY2(q.text.back() != '\r' && q.text.back() != ' ' && q.text.front() != ' ', q.id.c_str());
  }
}

void TestMsmarco::leadingSpaceQueryIsTrimmed() {
  RAGSCOPE_REQUIRE_DATA("msmarco_trecdl/topics/topics.msmarco-passage.dev-subset.txt");
  Dataset d;
  loadTopicsTsv(dataPath("msmarco_trecdl/topics/topics.msmarco-passage.dev-subset.txt"), d,
                opts(OnError::Stop));
  // Line 2 of the file is "2\t Androgen receptor define" (MANIFEST).
  const Query* q = d.findQuery("2");
  QVERIFY(q);
  QCOMPARE(q->text, std::string("Androgen receptor define"));
  QCOMPARE(q->line, std::uint64_t(2));
}

void TestMsmarco::topicsJsonlReal() {
  RAGSCOPE_REQUIRE_DATA("msmarco_trecdl/topics/topics.rag25.test.jsonl");
  Dataset d;
  const auto r = loadTopicsJsonl(dataPath("msmarco_trecdl/topics/topics.rag25.test.jsonl"), d,
                                 opts(OnError::Stop));
  QVERIFY(r.diagnostics.empty());
  QCOMPARE(r.records, std::uint64_t(105));
  QCOMPARE(d.queries.size(), std::size_t(105));
  QCOMPARE(d.queries.front().id, std::string("464"));
  QVERIFY(d.queries.front().text.starts_with(
      "I want a thorough understanding of what makes up a community"));
}

void TestMsmarco::collectionReal_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("count");
  QTest::newRow("dl19") << "collection.dl19-bm25top100.tsv" << 4297;
  QTest::newRow("dl20") << "collection.dl20-bm25top100.tsv" << 5396;
}

void TestMsmarco::collectionReal() {
  QFETCH(QString, file);
  QFETCH(int, count);
  const std::string rel = "msmarco_trecdl/collection_subset/" + file.toStdString();
  RAGSCOPE_REQUIRE_DATA(rel);
  Dataset d;
  const auto r = loadMsmarcoCollection(dataPath(rel), d, opts(OnError::Stop));
  QVERIFY(r.diagnostics.empty());
  QCOMPARE(r.records, std::uint64_t(count));
  QCOMPARE(d.corpus.size(), std::size_t(count));
  if (file.contains("dl19")) {
    // First two lines of the file (sorted by pid).
    QCOMPARE(d.corpus.at(0).id, std::string("1722"));
    QVERIFY(
        d.corpus.at(0).text.starts_with("Fields of Anthropology. There are now four major fields"));
    QVERIFY(
        d.corpus.find("1726")->text.starts_with("Biological Anthropology. The graduate program"));
  }
}

void TestMsmarco::rankLlmReal_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("queries");
  QTest::addColumn<int>("entries");
  QTest::addColumn<int>("documents");
  // MANIFEST: 43 / 54 queries x 100 hits; distinct pids = collection_subset line counts.
  QTest::newRow("dl19") << "retrieve_results_dl19.json" << 43 << 4300 << 4297;
  QTest::newRow("dl20") << "retrieve_results_dl20.json" << 54 << 5400 << 5396;
}

void TestMsmarco::rankLlmReal() {
  QFETCH(QString, file);
  QFETCH(int, queries);
  QFETCH(int, entries);
  QFETCH(int, documents);
  const std::string rel = "msmarco_trecdl/runs/rank_llm/BM25/" + file.toStdString();
  RAGSCOPE_REQUIRE_DATA(rel);
  Dataset d;
  const auto r = loadRankLlmJson(dataPath(rel), d, opts(OnError::Stop));
  QVERIFY2(r.diagnostics.empty(), r.diagnostics.empty() ? "" : r.diagnostics[0].toString().c_str());
  QVERIFY(r.ok());
  QCOMPARE(r.records, std::uint64_t(queries));
  QCOMPARE(d.queries.size(), std::size_t(queries));
  QCOMPARE(d.runs.size(), std::size_t(1));
  const Run& run = d.runs[0];
  QCOMPARE(run.tag, std::string("BM25"));
  QCOMPARE(run.rankings.size(), std::size_t(queries));
  QCOMPARE(run.entryCount(), std::size_t(entries));
  for (const auto& rk : run.rankings) QCOMPARE(rk.entries.size(), std::size_t(100));
  QCOMPARE(d.corpus.size(), std::size_t(documents));
  if (file.contains("dl19")) {
    QCOMPARE(d.queries.front().id, std::string("264014"));
    QCOMPARE(d.queries.front().text, std::string("how long is life cycle of flea"));
    QCOMPARE(d.queries.back().id, std::string("1106007"));
    QCOMPARE(d.queries.back().text, std::string("define visceral?"));
    QCOMPARE(std::string(run.rankings[0].entries[0].docId()), std::string("5611210"));
    QCOMPARE(run.rankings[0].entries[0].score, 15.780599594116211);
    QCOMPARE(run.rankings[0].entries[0].line, std::uint32_t(2));  // the record opens at line 2
  }
}

void TestMsmarco::rankLlmMatchesTrecResultsAndCollection() {
  RAGSCOPE_REQUIRE_DATA("msmarco_trecdl/runs/rank_llm/BM25/retrieve_results_dl19.json");
  Dataset d;
  loadRankLlmJson(dataPath("msmarco_trecdl/runs/rank_llm/BM25/retrieve_results_dl19.json"), d,
                  opts(OnError::Stop));
  QCOMPARE(d.runs.size(), std::size_t(1));
  // rank_llm wrote the same run as trec_results_dl19.txt (4300 lines, same order): read that
  // file independently, line by line.
  std::ifstream trec(dataPath("msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt"));
  std::string line;
  std::size_t n = 0;
  std::size_t qi = 0, ei = 0;
  const Run& run = d.runs[0];
  while (std::getline(trec, line)) {
    std::istringstream in(line);
    std::string qid, q0, doc, rank, score, tag;
    in >> qid >> q0 >> doc >> rank >> score >> tag;
    if (ei == run.rankings[qi].entries.size()) {
      ++qi;
      ei = 0;
    }
    QVERIFY(qi < run.rankings.size());
    QCOMPARE(run.rankings[qi].queryId, qid);
    QCOMPARE(std::string(run.rankings[qi].entries[ei].docId()), doc);
    QCOMPARE(run.rankings[qi].entries[ei].score, std::stod(score));
    ++ei;
    ++n;
  }
  QCOMPARE(n, std::size_t(4300));
  // collection.dl19-bm25top100.tsv was derived from this JSON's hit contents (MANIFEST).
  Dataset c;
  loadMsmarcoCollection(dataPath("msmarco_trecdl/collection_subset/collection.dl19-bm25top100.tsv"),
                        c, opts(OnError::Stop));
  QCOMPARE(c.corpus.size(), d.corpus.size());
  std::size_t same = 0;
  for (const auto& doc : c.corpus.documents()) {
    const auto other = d.corpus.find(doc.id);
    QVERIFY2(other, doc.id.c_str());
    if (other->text == doc.text) ++same;
  }
  QCOMPARE(same, c.corpus.size());
}

void TestMsmarco::crlfBomAndNoFinalNewline() {
  QTemporaryDir dir;
  const auto path = writeFile(dir, "topics.txt",
                              "\xEF\xBB\xBF"
                              "1\tfirst query\r\n2\t second \r\n\r\n3\tthird");
  Dataset d;
  const auto r = loadTopicsTsv(path, d, opts(OnError::Stop));
  QVERIFY(r.diagnostics.empty());
  QCOMPARE(d.queries.size(), std::size_t(3));
  QCOMPARE(d.queries[0].id, std::string("1"));  // BOM not part of the id
  QCOMPARE(d.queries[0].text, std::string("first query"));
  QCOMPARE(d.queries[1].text, std::string("second"));
  QCOMPARE(d.queries[2].text, std::string("third"));
  QCOMPARE(d.queries[2].line, std::uint64_t(4));

  const auto coll = writeFile(dir, "collection.tsv", "10\tpassage one\r\n11\tpassage two");
  Dataset c;
  const auto rc = loadMsmarcoCollection(coll, c, opts(OnError::Stop));
  QVERIFY(rc.diagnostics.empty());
  QCOMPARE(c.corpus.size(), std::size_t(2));
  QCOMPARE(c.corpus.find("10")->text, std::string("passage one"));
  QCOMPARE(c.corpus.find("11")->text, std::string("passage two"));
}

void TestMsmarco::malformed_data() {
  QTest::addColumn<QString>("loader");
  QTest::addColumn<QByteArray>("content");
  QTest::addColumn<bool>("skip");
  QTest::addColumn<int>("maxLine");
  QTest::addColumn<int>("maxDepth");
  QTest::addColumn<int>("records");
  QTest::addColumn<int>("skipped");
  QTest::addColumn<bool>("stopped");
  QTest::addColumn<QStringList>("diagnostics");

  const int big = 1 << 20;
  const QByteArray missingTab = "1\tfoo\n2 bar\n3\tbaz\n";
  QTest::newRow("tsv missing tab, skip")
      << "topics-tsv" << missingTab << true << big << 256 << 2 << 1 << false
      << QStringList{"F:2: record: no TAB between qid and text"};
  QTest::newRow("tsv missing tab, stop")
      << "topics-tsv" << missingTab << false << big << 256 << 1 << 0 << true
      << QStringList{"F:2: record: no TAB between qid and text"};
  QTest::newRow("tsv empty id") << "topics-tsv" << QByteArray("\tfoo\n2\tbar\n") << true << big
                                << 256 << 1 << 1 << false << QStringList{"F:1: qid: empty"};
  QTest::newRow("tsv id with space")
      << "topics-tsv" << QByteArray("1 2\tfoo\n") << true << big << 256 << 0 << 1 << false
      << QStringList{"F:1: qid: contains whitespace: '1 2'"};
  QTest::newRow("tsv empty text") << "topics-tsv" << QByteArray("1\t  \n2\tb\n") << true << big
                                  << 256 << 1 << 1 << false
                                  << QStringList{"F:1: text: empty query text"};
  QTest::newRow("tsv extra field")
      << "topics-tsv" << QByteArray("1\ta\tb\n") << false << big << 256 << 1 << 0 << false
      << QStringList{
             "F:1: record: more than 2 TAB-separated fields; the fields after the second are "
             "ignored (warning)"};
  const QByteArray longLine = "1\tshort\n2\t" + QByteArray(100, 'x') + "\n3\tok\n";
  QTest::newRow("tsv too long, skip")
      << "topics-tsv" << longLine << true << 64 << 256 << 2 << 1 << false
      << QStringList{"F:2: record: line longer than 64 bytes"};
  QTest::newRow("tsv too long, stop")
      << "topics-tsv" << longLine << false << 64 << 256 << 1 << 0 << true
      << QStringList{"F:2: record: line longer than 64 bytes"};
  QTest::newRow("tsv NUL byte") << "topics-tsv" << QByteArray("1\tab\0c\n2\tok\n", 11) << true
                                << big << 256 << 1 << 1 << false
                                << QStringList{"F:1: record: NUL byte at byte 5 (binary data?)"};
  QTest::newRow("tsv binary garbage")
      << "collection" << QByteArray("\xff\xfe\x01\x02\tq\n\x89PNG\x0d\n", 13) << true << big << 256
      << 0 << 2 << false
      << QStringList{"F:1: record: invalid UTF-8 at byte 1",
                     "F:2: record: invalid UTF-8 at byte 1"};
  QTest::newRow("collection missing tab")
      << "collection" << QByteArray("7\tp\n8 p\n") << false << big << 256 << 1 << 0 << true
      << QStringList{"F:2: record: no TAB between pid and text"};

  // 18 bytes of prefix; '{' is level 1, so the 256th '[' (byte 18 + 256) is level 257.
  const QByteArray deep =
      "{\"id\":\"1\",\"title\":" + QByteArray(300, '[') + QByteArray(300, ']') + "}\n";
  QTest::newRow("jsonl too deep")
      << "topics-jsonl" << QByteArray(deep + "{\"id\":\"2\",\"title\":\"ok\"}\n") << true << big
      << 256 << 1 << 1 << false
      << QStringList{"F:1: record: JSON nested deeper than 256 levels (at byte 274)"};
  QTest::newRow("jsonl truncated")
      << "topics-jsonl"
      << QByteArray("{\"id\":\"1\",\"title\":\"ok\"}\n{\"id\":\"2\",\"title\":\"abc") << false
      << big << 256 << 1 << 0 << true
      << QStringList{
             "F:2: record: invalid JSON at column 23: syntax error while parsing value - invalid "
             "string: "
             "missing closing quote; last read: '\"abc'"};
  QTest::newRow("jsonl float id") << "topics-jsonl"
                                  << QByteArray("{\"id\": 1.5, \"title\": \"x\"}\n") << true << big
                                  << 256 << 0 << 1 << false
                                  << QStringList{"F:1: id: must be a string or an integer"};
  QTest::newRow("jsonl no text")
      << "topics-jsonl" << QByteArray("{\"id\": \"1\"}\n") << true << big << 256 << 0 << 1 << false
      << QStringList{"F:1: title: missing (expected \"title\", \"text\" or \"query\")"};
  QTest::newRow("jsonl not object")
      << "topics-jsonl" << QByteArray("[1,2]\n") << true << big << 256 << 0 << 1 << false
      << QStringList{"F:1: record: expected a JSON object"};

  const QByteArray rec1 =
      "[\n {\"query\": \"q one\", \"hits\": [{\"content\": \"c1\", \"qid\": 1, \"docid\": \"d1\", "
      "\"rank\": 1, \"score\": 2.5}]}";
  QTest::newRow("rank_llm truncated, skip")
      << "rank-llm" << QByteArray(rec1 + ",\n {\"query\": \"q2\", \"hits\": [\n") << true << big
      << 256 << 1 << 0 << true
      << QStringList{
             "F:3: unexpected end of file: the JSON is truncated (element 1 began at line 3)"};
  QTest::newRow("rank_llm truncated, stop")
      << "rank-llm" << QByteArray(rec1 + ",\n {\"query\": \"q2\", \"hits\": [\n") << false << big
      << 256 << 1 << 0 << true
      << QStringList{
             "F:3: unexpected end of file: the JSON is truncated (element 1 began at line 3)"};
  const QByteArray deepHit =
      ",\n {\"query\": \"q2\", \"hits\": [{\"docid\": \"x\", \"score\": 1, \"meta\": " +
      QByteArray(10, '[') + QByteArray(10, ']') + "}]}";
  QTest::newRow("rank_llm element too deep, skip")
      << "rank-llm"
      << QByteArray(rec1 + deepHit +
                    ",\n {\"query\": \"q3\", \"hits\": [{\"docid\": \"d3\", \"qid\": 3, \"score\": "
                    "1}]}\n]\n")
      << true << big << 8 << 2 << 1 << false
      << QStringList{"F:3: [1]: JSON nested deeper than 8 levels"};
  QTest::newRow("rank_llm element too deep, stop")
      << "rank-llm" << QByteArray(rec1 + deepHit + "]") << false << big << 8 << 1 << 0 << true
      << QStringList{"F:3: [1]: JSON nested deeper than 8 levels"};
  QTest::newRow("rank_llm element too long, skip")
      << "rank-llm"
      << QByteArray(
             "[{\"query\": \"" + QByteArray(200, 'q') +
             "\", \"hits\": []},\n {\"query\": \"q\", \"hits\": [{\"qid\": 2, \"docid\": \"d\", "
             "\"score\": 1}]}]")
      << true << 128 << 256 << 1 << 1 << false
      << QStringList{"F:1: [0]: element longer than 128 bytes"};
  QTest::newRow("rank_llm hit without docid, skip")
      << "rank-llm"
      << QByteArray(
             "[{\"query\": \"q\", \"hits\": [{\"qid\": 5, \"docid\": \"a\", \"score\": 3},\n"
             "  {\"qid\": 5, \"score\": 2}, {\"qid\": 5, \"docid\": \"c\", \"score\": 1}]}]")
      << true << big << 256 << 1 << 1 << false << QStringList{"F:1: [0].hits[1].docid: missing"};
  QTest::newRow("rank_llm hit without score, stop")
      << "rank-llm"
      << QByteArray("[{\"query\": \"q\", \"hits\": [{\"qid\": 5, \"docid\": \"a\"}]}]") << false
      << big << 256 << 0 << 0 << true << QStringList{"F:1: [0].hits[0].score: missing"};
  QTest::newRow("rank_llm no qid")
      << "rank-llm" << QByteArray("[{\"query\": \"q\", \"hits\": []}]") << true << big << 256 << 0
      << 1 << false
      << QStringList{"F:1: [0].query: no qid (neither the query nor its first hit carries one)"};
  QTest::newRow("rank_llm not an array")
      << "rank-llm" << QByteArray("{\"query\": \"q\"}") << true << big << 256 << 0 << 0 << true
      << QStringList{"F:1: expected a JSON array ('[') but found '{'"};
  QTest::newRow("rank_llm binary")
      << "rank-llm" << QByteArray("\x00\x01\x02garbage", 10) << true << big << 256 << 0 << 0 << true
      << QStringList{"F:1: expected a JSON array ('[') but found 0x00"};
  QTest::newRow("rank_llm bad element syntax, skip")
      << "rank-llm" << QByteArray(rec1 + ",\n {\"query\": tru}\n]") << true << big << 256 << 1 << 1
      << false
      << QStringList{
             "F:3: [1]: invalid JSON at column 15: syntax error while parsing value - invalid "
             "literal; last read: '\"query\": tru}'"};
}

void TestMsmarco::malformed() {
  QFETCH(QString, loader);
  QFETCH(QByteArray, content);
  QFETCH(bool, skip);
  QFETCH(int, maxLine);
  QFETCH(int, maxDepth);
  QFETCH(int, records);
  QFETCH(int, skipped);
  QFETCH(bool, stopped);
  QFETCH(QStringList, diagnostics);
  QTemporaryDir dir;
  const auto path = writeFile(dir, "input", content);
  Dataset d;
  const auto r = loaderByName(loader)(
      path, d, opts(skip ? OnError::Skip : OnError::Stop, std::size_t(maxLine), maxDepth));
  QCOMPARE(diagStrings(r, path), diagnostics);
  QCOMPARE(r.records, std::uint64_t(records));
  QCOMPARE(r.skipped, std::uint64_t(skipped));
  QCOMPARE(r.stopped, stopped);
  QVERIFY(!r.cancelled);
}

void TestMsmarco::duplicatesNameBothLines() {
  QTemporaryDir dir;
  const auto topics = writeFile(dir, "t.tsv", "1\ta\n2\tb\n1\tc\n");
  Dataset d;
  auto r = loadTopicsTsv(topics, d, opts(OnError::Stop));
  QCOMPARE(
      diagStrings(r, topics),
      QStringList{
          "F:3: qid: duplicate query id '1' (first at line 1); this one is ignored (warning)"});
  QCOMPARE(d.queries.size(), std::size_t(2));
  QCOMPARE(d.findQuery("1")->text, std::string("a"));
  QVERIFY(r.ok() && !r.hasErrors());

  const auto coll = writeFile(dir, "c.tsv", "7\tx\n8\ty\n\n7\tz\n");
  Dataset c;
  r = loadMsmarcoCollection(coll, c, opts(OnError::Stop));
  QCOMPARE(
      diagStrings(r, coll),
      QStringList{
          "F:4: pid: duplicate passage id '7' (first at line 1); this one is ignored (warning)"});
  QCOMPARE(c.corpus.size(), std::size_t(2));
  QCOMPARE(c.corpus.find("7")->text, std::string("x"));

  const auto rl =
      writeFile(dir, "r.json",
                "[{\"query\": \"q\", \"hits\": [{\"qid\": 5, \"docid\": \"a\", \"score\": 2}]},\n"
                " {\"query\": \"q\", \"hits\": [{\"qid\": 5, \"docid\": \"b\", \"score\": 1}]}]");
  Dataset k;
  r = loadRankLlmJson(rl, k, opts(OnError::Stop));
  QCOMPARE(diagStrings(r, rl), QStringList{"F:2: [1].query: duplicate query id '5' (first at line "
                                           "1); this record is ignored (warning)"});
  QCOMPARE(k.runs.at(0).entryCount(), std::size_t(1));
}

void TestMsmarco::queriesMergeAcrossFiles() {
  QTemporaryDir dir;
  const auto a = writeFile(dir, "a.tsv", "1\tsame\n2\tfirst text\n");
  const auto b = writeFile(dir, "b.tsv", "1\tsame\n2\tother text\n3\tnew\n");
  Dataset d;
  loadTopicsTsv(a, d, opts(OnError::Stop));
  const auto r = loadTopicsTsv(b, d, opts(OnError::Stop));
  QCOMPARE(d.queries.size(), std::size_t(3));
  QCOMPARE(d.findQuery("2")->text, std::string("first text"));
  QCOMPARE(diagStrings(r, b),
           QStringList{
               "F:2: qid: query id '2' was already loaded from another file with different text; "
               "keeping the first (warning)"});
}

void TestMsmarco::rankLlmQueryObjectAndIntIds() {
  QTemporaryDir dir;
  // rank_llm's later Request layout: {"query": {"text", "qid"}, "candidates"/"hits": [...]}.
  const auto path = writeFile(
      dir, "myrun.json",
      "[{\"query\": {\"text\": \"what is x\", \"qid\": 7}, \"hits\": [{\"content\": \"X is y.\", "
      "\"docid\": 101, \"rank\": 1, \"score\": 9}, {\"docid\": \"102\", \"score\": 8.5, \"qid\": "
      "8}]}]");
  Dataset d;
  const auto r = loadRankLlmJson(path, d, opts(OnError::Stop));
  QCOMPARE(diagStrings(r, path), QStringList{"F:1: [0].hits[1].qid: differs from the record's qid "
                                             "'7'; the hit is kept under it (warning)"});
  QCOMPARE(d.queries.size(), std::size_t(1));
  QCOMPARE(d.queries[0].id, std::string("7"));
  QCOMPARE(d.queries[0].text, std::string("what is x"));
  QCOMPARE(d.runs.at(0).tag, std::string("myrun"));  // not retrieve_results_*: the stem names it
  QCOMPARE(std::string(d.runs[0].rankings[0].entries[0].docId()), std::string("101"));
  QCOMPARE(d.runs[0].rankings[0].entries[1].score, 8.5);
  QCOMPARE(d.corpus.size(), std::size_t(1));  // the second hit has no content
  QCOMPARE(d.corpus.find("101")->text, std::string("X is y."));
}

void TestMsmarco::collectionProgressAndCancel() {
  QTemporaryDir dir;
  const QString path = dir.filePath("collection.tsv");
  {
    std::ofstream out(path.toStdString(), std::ios::binary);
    std::mt19937 rng(7);
    for (int i = 0; i < 60000; ++i) {
      out << i << '\t';
      for (int k = 0; k < 40; ++k) out << "word" << (rng() % 1000) << ' ';
      out << '\n';
    }
  }
  const auto size = std::filesystem::file_size(path.toStdString());
  QVERIFY(size > 12u << 20);  // several progress steps

  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  LoadOptions o = opts(OnError::Stop);
  o.progress = [&](std::uint64_t done, std::uint64_t total) {
    calls.emplace_back(done, total);
    return true;
  };
  Dataset d;
  auto r = loadMsmarcoCollection(path.toStdString(), d, o);
  QVERIFY(r.ok());
  QCOMPARE(d.corpus.size(), std::size_t(60000));
  QVERIFY(calls.size() >= 4);
  QCOMPARE(calls.front().first, std::uint64_t(0));
  QCOMPARE(calls.back().first, std::uint64_t(size));
  for (const auto& c : calls) QCOMPARE(c.second, std::uint64_t(size));

  int n = 0;
  o.progress = [&](std::uint64_t, std::uint64_t) { return ++n < 2; };
  Dataset e;
  r = loadMsmarcoCollection(path.toStdString(), e, o);
  QVERIFY(r.cancelled);
  QVERIFY(!r.ok());
  QVERIFY(e.corpus.size() > 0 && e.corpus.size() < 60000);
}

void TestMsmarco::jsonGuard() {
  QVERIFY(!checkJsonDepth("{\"a\": [[1]]}", 3));
  QCOMPARE(checkJsonDepth("{\"a\": [[1]]}", 2).value_or(""),
           std::string("JSON nested deeper than 2 levels (at byte 8)"));
  // Brackets inside strings (with escaped quotes) do not count.
  QVERIFY(!checkJsonDepth("[\"[[[[\\\"[[[[\"]", 1));
  QCOMPARE(jsonIdToString(nlohmann::json(17)).value_or("?"), std::string("17"));
  QCOMPARE(jsonIdToString(nlohmann::json(-3)).value_or("?"), std::string("-3"));
  QCOMPARE(jsonIdToString(nlohmann::json("x1")).value_or("?"), std::string("x1"));
  QVERIFY(!jsonIdToString(nlohmann::json(1.5)));
  QVERIFY(!jsonIdToString(nlohmann::json(nullptr)));

  // Element streaming: scalars, strings with brackets, nested values; lines of each element.
  QTemporaryDir dir;
  const auto path = writeFile(
      dir, "a.json", "\xEF\xBB\xBF[1, \"a]b\",\n {\"k\": [1, {\"x\": \"}\"}]},\n [] , null]\n");
  JsonArrayReader reader(path, 1 << 20, 16);
  std::vector<std::pair<std::string, std::uint64_t>> got;
  std::string_view el;
  while (reader.next(el) == JsonArrayReader::Status::Element)
    got.emplace_back(std::string(el), reader.elementLine());
  QVERIFY(reader.error().empty());
  const std::vector<std::pair<std::string, std::uint64_t>> want{
      {"1", 1}, {"\"a]b\"", 1}, {"{\"k\": [1, {\"x\": \"}\"}]}", 2}, {"[]", 3}, {"null", 3}};
  QCOMPARE(got, want);
  QCOMPARE(reader.bytesRead(), reader.fileSize());

  const auto bad = writeFile(dir, "b.json", "[{\"a\": [1}]");
  JsonArrayReader r2(bad, 1 << 20, 16);
  QCOMPARE(r2.next(el), JsonArrayReader::Status::Error);
  QCOMPARE(r2.error(), std::string("mismatched '}' (element 0 began at line 1)"));
  QVERIFY(!r2.canContinue());
}

void TestMsmarco::textCheck() {
  QVERIFY(!checkText("plain ascii text, long enough to use the word-at-a-time path"));
  QVERIFY(!checkText("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  QCOMPARE(checkText("ab\xC3").value_or(""),
           std::string("invalid UTF-8 at byte 3 (truncated sequence)"));
  QCOMPARE(checkText("\xC0\xAF").value_or(""), std::string("invalid UTF-8 at byte 1"));  // overlong
  QCOMPARE(checkText("x\xED\xA0\x80").value_or(""),
           std::string("invalid UTF-8 at byte 2"));  // surrogate
  QCOMPARE(checkText(std::string_view("abcdefghij\0", 11)).value_or(""),
           std::string("NUL byte at byte 11 (binary data?)"));
}

// A collection at least LoadOptions::textInFileFrom big leaves its texts in the file: every
// passage reads back exactly what the in-memory load holds (the real DL19 subset, and a file with
// a byte order mark, CRLF and blanks around the text), previews read a prefix, and a file changed
// after loading is named as such instead of giving other bytes.
void TestMsmarco::textLeftInFile() {
  const std::string rel = "msmarco_trecdl/collection_subset/collection.dl19-bm25top100.tsv";
  RAGSCOPE_REQUIRE_DATA(rel);
  Dataset inMemory, inFile;
  QVERIFY(loadMsmarcoCollection(dataPath(rel), inMemory, opts(OnError::Stop)).ok());
  LoadOptions o = opts(OnError::Stop);
  o.textInFileFrom = 0;
  const auto r = loadMsmarcoCollection(dataPath(rel), inFile, o);
  QVERIFY(r.ok());
  QCOMPARE(inFile.corpus.size(), inMemory.corpus.size());
  for (std::size_t i = 0; i < inMemory.corpus.size(); ++i) {
    const Document& a = inMemory.corpus.at(i);
    const Document& b = inFile.corpus.at(i);
    QVERIFY(!a.stored.file);
    QVERIFY(b.stored.file);
    QVERIFY(b.text.empty());
    QCOMPARE(b.id, a.id);
    QCOMPARE(b.textSize(), a.text.size());
    QCOMPARE(b.fullText(), a.text);
  }

  QTemporaryDir dir;
  const auto path = writeFile(dir, "collection.tsv",
                              "\xEF\xBB\xBF"
                              "10\t  passage one \r\n11\tpassage two\t\n12\tthree");
  Dataset c;
  QVERIFY(loadMsmarcoCollection(path, c, o).ok());
  QCOMPARE(c.corpus.find("10")->fullText(), std::string("passage one"));
  QCOMPARE(c.corpus.find("11")->fullText(), std::string("passage two"));
  QCOMPARE(c.corpus.find("12")->fullText(), std::string("three"));
  QCOMPARE(c.corpus.find("10")->textPrefix(4), std::string("pass"));
  QCOMPARE(c.corpus.find("12")->textPrefix(100), std::string("three"));
  // The same id from another file with other text: compared with the text in the file.
  const auto other = writeFile(dir, "other.tsv", "10\tpassage one\n11\tsomething else\n");
  const auto again = loadMsmarcoCollection(other, c, o);
  QCOMPARE(again.warnings, std::uint64_t(2));  // and "no passages found": both ids were loaded
  QVERIFY(QString::fromStdString(again.diagnostics.front().problem).contains("different text"));
  QCOMPARE(again.diagnostics.front().line, std::uint64_t(2));
  // Changed after loading: every text says so.
  { std::ofstream(path, std::ios::app) << "\n13\tfour\n"; }
  const std::string gone = c.corpus.find("11")->fullText();
  QVERIFY2(gone.starts_with("[text of 11 unavailable: ") &&
               gone.find("has changed since it was loaded") != std::string::npos,
           gone.c_str());
}

QTEST_GUILESS_MAIN(TestMsmarco)
#include "tst_msmarco.moc"
