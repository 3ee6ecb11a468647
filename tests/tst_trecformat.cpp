// TREC run / qrels readers: real files with known counts, and hand-made malformed inputs each
// with its diagnostic asserted.

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

#include <fstream>
#include <random>
#include <string>

#include "common/testdata.h"
#include "core/data/loaders.h"
#include "core/metrics/retrievalevaluator.h"

using namespace ragscope::core;

namespace {

std::filesystem::path writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::path(dir.path().toStdString()) / name;
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  return path;
}

const Diagnostic* firstError(const LoadReport& r) {
  for (const auto& d : r.diagnostics)
    if (d.severity == Severity::Error) return &d;
  return nullptr;
}

std::size_t warningCount(const LoadReport& r) {
  std::size_t n = 0;
  for (const auto& d : r.diagnostics)
    if (d.severity == Severity::Warning) ++n;
  return n;
}

}  // namespace

class TstTrecFormat : public QObject {
  Q_OBJECT

 private slots:
  void realQrels_data();
  void realQrels();
  void realRuns_data();
  void realRuns();
  void dl19Grades();
  void runKeepsFileOrderAndLines();
  void malformedRun_data();
  void malformedRun();
  void malformedQrels_data();
  void malformedQrels();
  void truncatedLastLine();
  void crlfAndBom();
  void skipVersusStop();
  void lineLongerThanCap();
  void lineOfHundredsOfMegabytes();
  void binaryGarbage();
  void duplicateQrelsDocno();
  void extraFieldsWarn();
  void bigRunSplitAcrossThreads();
  void progressAndCancel();
};

void TstTrecFormat::realQrels_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<qulonglong>("judgments");
  QTest::addColumn<int>("queries");
  QTest::newRow("dl19-passage") << "msmarco_trecdl/qrels/qrels.dl19-passage.txt" << 9260ull << 43;
  QTest::newRow("trec_eval qrels.test") << "trec_eval/test/qrels.test" << 3681ull << 3;
  // 3684 lines, 3 `#` comment lines; "CR#93E-1860" is a docno with '#', not a comment.
  QTest::newRow("qrels.test.with-comments") << "trec_eval/test/qrels.test.with-comments" << 3681ull << 3;
  QTest::newRow("qrels.comment.test") << "trec_eval/test/qrels.comment.test" << 5890ull << 31;
  QTest::newRow("qrels.rel_level") << "trec_eval/test/qrels.rel_level" << 3681ull << 3;
}

void TstTrecFormat::realQrels() {
  QFETCH(QString, file);
  QFETCH(qulonglong, judgments);
  QFETCH(int, queries);
  RAGSCOPE_REQUIRE_DATA(file.toStdString());
  auto loaded = readTrecQrels(ragscope::test::dataPath(file.toStdString()), LoadOptions{});
  QVERIFY(loaded.report.ok());
  QCOMPARE(loaded.report.errors, 0ull);
  QCOMPARE(loaded.report.records, judgments);
  QCOMPARE(static_cast<qulonglong>(loaded.value.judgmentCount()), judgments);
  QCOMPARE(static_cast<int>(loaded.value.byQuery.size()), queries);
}

void TstTrecFormat::realRuns_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<qulonglong>("entries");
  QTest::addColumn<int>("queries");
  QTest::addColumn<QString>("tag");
  QTest::addColumn<int>("warnings");
  QTest::newRow("results.test") << "trec_eval/test/results.test" << 1500ull << 3 << "STANDARD" << 0;
  // 5 lines carry junk after the tag: ignored with a warning each, as trec_eval ignores them.
  QTest::newRow("results.trunc") << "trec_eval/test/results.trunc" << 584ull << 2 << "STANDARD" << 5;
  QTest::newRow("results.comment.test") << "trec_eval/test/results.comment.test" << 30100ull << 301
                                        << "comment.test" << 0;
  QTest::newRow("bm25 dl19") << "msmarco_trecdl/runs/run.msmarco-v1-passage.bm25-default.dl19.txt" << 43000ull
                             << 43 << "Anserini" << 0;
  QTest::newRow("rank_llm bm25 dl19") << "msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt" << 4300ull
                                      << 43 << "" << 0;
}

void TstTrecFormat::realRuns() {
  QFETCH(QString, file);
  QFETCH(qulonglong, entries);
  QFETCH(int, queries);
  QFETCH(QString, tag);
  QFETCH(int, warnings);
  RAGSCOPE_REQUIRE_DATA(file.toStdString());
  auto loaded = readTrecRun(ragscope::test::dataPath(file.toStdString()), LoadOptions{});
  QVERIFY(loaded.report.ok());
  QCOMPARE(loaded.report.errors, 0ull);
  QCOMPARE(loaded.report.records, entries);
  QCOMPARE(static_cast<qulonglong>(loaded.value.entryCount()), entries);
  QCOMPARE(static_cast<int>(loaded.value.rankings.size()), queries);
  QCOMPARE(static_cast<int>(warningCount(loaded.report)), warnings);
  if (!tag.isEmpty()) QCOMPARE(QString::fromStdString(loaded.value.tag), tag);
}

void TstTrecFormat::dl19Grades() {
  RAGSCOPE_REQUIRE_DATA("msmarco_trecdl/qrels/qrels.dl19-passage.txt");
  auto loaded = readTrecQrels(ragscope::test::dataPath("msmarco_trecdl/qrels/qrels.dl19-passage.txt"), {});
  const auto grades = loaded.value.gradeCounts();
  QCOMPARE(grades.at(0), std::size_t{5158});
  QCOMPARE(grades.at(1), std::size_t{1601});
  QCOMPARE(grades.at(2), std::size_t{1804});
  QCOMPARE(grades.at(3), std::size_t{697});
}

void TstTrecFormat::runKeepsFileOrderAndLines() {
  RAGSCOPE_REQUIRE_DATA("trec_eval/test/results.test");
  auto loaded = readTrecRun(ragscope::test::dataPath("trec_eval/test/results.test"), {});
  const Ranking* r301 = loaded.value.find("301");
  QVERIFY(r301);
  // First line of the file: "301 Q0 FR940202-2-00150 104 2.129133 STANDARD".
  QCOMPARE(QString::fromStdString(std::string(r301->entries.front().docId())), QString("FR940202-2-00150"));
  QCOMPARE(r301->entries.front().line, 1u);
  QCOMPARE(r301->entries.front().score, 2.129133);
  QCOMPARE(r301->entries[1].line, 2u);
}

void TstTrecFormat::malformedRun_data() {
  QTest::addColumn<QByteArray>("content");
  QTest::addColumn<qulonglong>("line");
  QTest::addColumn<QString>("field");
  QTest::addColumn<QString>("problem");
  QTest::newRow("too few fields") << QByteArray("1 Q0 d1 1 2.5 run\n1 Q0 d2 2 1.5\n") << 2ull << "tag"
                                  << "line has 5 fields";
  QTest::newRow("no score") << QByteArray("1 Q0 d1 1\n") << 1ull << "score" << "line has 4 fields";
  QTest::newRow("bad score") << QByteArray("1 Q0 d1 1 2.5 run\n\n# note\n1 Q0 d2 2 abc run\n") << 4ull << "score"
                             << "not a number: 'abc'";
  QTest::newRow("nan score") << QByteArray("1 Q0 d1 1 nan run\n") << 1ull << "score" << "not a number";
  QTest::newRow("half a score") << QByteArray("1 Q0 d1 1 2.5x run\n") << 1ull << "score" << "not a number";
  QTest::newRow("truncated mid-line") << QByteArray("1 Q0 d1 1 2.5 run\n1 Q0 d2") << 2ull << "rank"
                                      << "line has 3 fields";
}

void TstTrecFormat::malformedRun() {
  QFETCH(QByteArray, content);
  QFETCH(qulonglong, line);
  QFETCH(QString, field);
  QFETCH(QString, problem);
  QTemporaryDir dir;
  const auto path = writeFile(dir, "run.txt", content.toStdString());
  auto loaded = readTrecRun(path, LoadOptions{});
  QVERIFY(loaded.report.stopped);
  const Diagnostic* d = firstError(loaded.report);
  QVERIFY(d);
  QCOMPARE(d->file, path.string());
  QCOMPARE(static_cast<qulonglong>(d->line), line);
  QCOMPARE(QString::fromStdString(d->field), field);
  QVERIFY2(QString::fromStdString(d->problem).contains(problem), d->toString().c_str());
  // The printed form is file:line: field: problem.
  QVERIFY(QString::fromStdString(d->toString())
              .startsWith(QString::fromStdString(path.string()) + ":" + QString::number(line) + ": " + field + ": "));
}

void TstTrecFormat::malformedQrels_data() {
  QTest::addColumn<QByteArray>("content");
  QTest::addColumn<qulonglong>("line");
  QTest::addColumn<QString>("field");
  QTest::addColumn<QString>("problem");
  QTest::newRow("bad rel") << QByteArray("1 0 d1 1\n1 0 d2 x\n") << 2ull << "rel" << "not an integer: 'x'";
  QTest::newRow("three fields") << QByteArray("1 0 d1\n") << 1ull << "rel" << "line has 3 fields";
  QTest::newRow("five fields") << QByteArray("1 0 d1 1 extra\n") << 1ull << "line" << "exactly 4";
}

void TstTrecFormat::malformedQrels() {
  QFETCH(QByteArray, content);
  QFETCH(qulonglong, line);
  QFETCH(QString, field);
  QFETCH(QString, problem);
  QTemporaryDir dir;
  const auto path = writeFile(dir, "qrels.txt", content.toStdString());
  auto loaded = readTrecQrels(path, LoadOptions{});
  QVERIFY(loaded.report.stopped);
  const Diagnostic* d = firstError(loaded.report);
  QVERIFY(d);
  QCOMPARE(static_cast<qulonglong>(d->line), line);
  QCOMPARE(QString::fromStdString(d->field), field);
  QVERIFY2(QString::fromStdString(d->problem).contains(problem), d->toString().c_str());
}

void TstTrecFormat::truncatedLastLine() {
  QTemporaryDir dir;
  const auto run = writeFile(dir, "run.txt", "1 Q0 d1 1 2.5 run\n1 Q0 d2 2 1.5 run");
  auto r = readTrecRun(run, {});
  QVERIFY(r.report.ok());
  QCOMPARE(r.report.records, 2ull);
  QCOMPARE(r.value.rankings.front().entries.back().line, 2u);
  const auto qrels = writeFile(dir, "qrels.txt", "1 0 d1 1\n1 0 d2 2.7");
  auto q = readTrecQrels(qrels, {});
  QVERIFY(q.report.ok());
  QCOMPARE(q.report.records, 2ull);
  // 2.7 is truncated to 2 as trec_eval's atol does, with a warning on line 2.
  QCOMPARE(q.value.byQuery.at("1").back().rel, 2);
  QCOMPARE(q.report.warnings, 1ull);
  QCOMPARE(q.report.diagnostics.front().line, 2ull);
  QCOMPARE(QString::fromStdString(q.report.diagnostics.front().field), QString("rel"));
}

void TstTrecFormat::crlfAndBom() {
  QTemporaryDir dir;
  const auto run = writeFile(dir, "run.txt", "\xEF\xBB\xBF" "q1\tQ0\td1\t1\t2.5\trunA\r\nq1  Q0   d2 2 1.5 runA\r\n");
  auto r = readTrecRun(run, {});
  QVERIFY(r.report.ok());
  QCOMPARE(r.report.records, 2ull);
  QCOMPARE(QString::fromStdString(r.value.rankings.front().queryId), QString("q1"));
  QCOMPARE(QString::fromStdString(r.value.tag), QString("runA"));
  QCOMPARE(QString::fromStdString(std::string(r.value.rankings.front().entries[1].docId())), QString("d2"));
  const auto qrels = writeFile(dir, "qrels.txt", "\xEF\xBB\xBF" "q1 0 d1 1\r\nq1 0 d2 0\r\n");
  auto q = readTrecQrels(qrels, {});
  QVERIFY(q.report.ok());
  QCOMPARE(q.value.byQuery.count("q1"), std::size_t{1});
  QCOMPARE(q.value.byQuery.at("q1").size(), std::size_t{2});
}

void TstTrecFormat::skipVersusStop() {
  QTemporaryDir dir;
  const auto run = writeFile(dir, "run.txt", "1 Q0 d1 1 3 r\n1 Q0 d2 2 x r\n1 Q0 d3 3 1 r\n2 Q0 d4 1 1 r\n");
  LoadOptions stop;
  auto a = readTrecRun(run, stop);
  QVERIFY(a.report.stopped);
  QCOMPARE(a.report.records, 1ull);
  QCOMPARE(a.report.errors, 1ull);
  LoadOptions skip;
  skip.onError = OnError::Skip;
  auto b = readTrecRun(run, skip);
  QVERIFY(!b.report.stopped);
  QVERIFY(b.report.ok());
  QCOMPARE(b.report.records, 3ull);
  QCOMPARE(b.report.skipped, 1ull);
  QCOMPARE(b.report.errors, 1ull);
  QCOMPARE(b.report.diagnostics.front().line, 2ull);

  const auto qrels = writeFile(dir, "qrels.txt", "1 0 d1 1\n1 0 d2\n1 0 d3 0\n");
  auto c = readTrecQrels(qrels, stop);
  QVERIFY(c.report.stopped);
  QCOMPARE(c.report.records, 1ull);
  auto e = readTrecQrels(qrels, skip);
  QCOMPARE(e.report.records, 2ull);
  QCOMPARE(e.report.skipped, 1ull);
}

void TstTrecFormat::lineLongerThanCap() {
  QTemporaryDir dir;
  const std::string longDoc(200, 'x');
  const auto run = writeFile(dir, "run.txt", "1 Q0 d1 1 3 r\n1 Q0 " + longDoc + " 2 2 r\n1 Q0 d3 3 1 r\n");
  LoadOptions o;
  o.maxLineBytes = 64;
  o.onError = OnError::Skip;
  auto r = readTrecRun(run, o);
  QCOMPARE(r.report.records, 2ull);
  QCOMPARE(r.report.skipped, 1ull);
  const Diagnostic* d = firstError(r.report);
  QVERIFY(d);
  QCOMPARE(d->line, 2ull);
  QVERIFY(QString::fromStdString(d->problem).contains("longer than 64 bytes"));

  const auto qrels = writeFile(dir, "qrels.txt", "1 0 d1 1\n1 0 " + longDoc + " 1\n1 0 d3 0\n");
  auto q = readTrecQrels(qrels, o);
  QCOMPARE(q.report.records, 2ull);
  QCOMPARE(firstError(q.report)->line, 2ull);
}

void TstTrecFormat::lineOfHundredsOfMegabytes() {
  // A 300 MB line under the default 64 MiB cap: reported with its line number and skipped,
  // the lines around it load, and the line is never held in memory whole (the reader keeps at
  // most the cap, in a buffer that may have doubled to reach it).
  QTemporaryDir dir;
  const QString path = dir.filePath("huge.txt");
  {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("1 Q0 d1 1 3 r\n1 Q0 ");
    const QByteArray chunk(1 << 20, 'x');
    for (int i = 0; i < 300; ++i) QVERIFY(f.write(chunk) == chunk.size());
    f.write(" 2 2 r\n1 Q0 d3 3 1 r\n");
  }
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  LoadOptions o;
  o.onError = OnError::Skip;
  auto r = readTrecRun(path.toStdString(), o);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  QCOMPARE(r.report.records, 2ull);
  QCOMPARE(r.report.skipped, 1ull);
  const Diagnostic* d = firstError(r.report);
  QVERIFY(d);
  QCOMPARE(d->line, 2ull);
  QVERIFY2(QString::fromStdString(d->problem).contains("longer than 67108864 bytes"), d->problem.c_str());
  const long grownMiB = (after.ru_maxrss - before.ru_maxrss) / 1024;
  qInfo("peak RSS grew by %ld MiB while reading a 300 MiB line", grownMiB);
  // The bound is the normal allocator's. Under AddressSanitizer freed buffers wait in its
  // quarantine (256 MiB by default) and every byte touched has shadow memory, so the peak there
  // says little; it is still checked against holding the line several times over.
#if defined(__SANITIZE_ADDRESS__)
  constexpr long kBoundMiB = 1024;
#else
  constexpr long kBoundMiB = 220;
#endif
  QVERIFY2(grownMiB < kBoundMiB, qPrintable(QString::number(grownMiB)));
}

void TstTrecFormat::binaryGarbage() {
  QTemporaryDir dir;
  std::string garbage;
  std::mt19937 rng(7);
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>(rng() & 0xff));
  const auto path = writeFile(dir, "garbage.bin", garbage);
  auto r = readTrecRun(path, {});
  QVERIFY(r.report.stopped);
  QVERIFY(r.report.hasErrors());
  QVERIFY(firstError(r.report)->line >= 1);
  auto q = readTrecQrels(path, {});
  QVERIFY(q.report.stopped);
  QVERIFY(q.report.hasErrors());
  // A NUL byte inside an otherwise well-formed line is named as binary data.
  const auto nul = writeFile(dir, "nul.txt", std::string("1 Q0 d1 1 3 r\n1 Q0 d\0x 2 2 r\n", 28));
  auto n = readTrecRun(nul, {});
  QVERIFY(n.report.stopped);
  QCOMPARE(firstError(n.report)->line, 2ull);
  QVERIFY(QString::fromStdString(firstError(n.report)->problem).contains("NUL"));
}

void TstTrecFormat::duplicateQrelsDocno() {
  QTemporaryDir dir;
  const auto path = writeFile(dir, "qrels.txt", "1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n1 0 d1 2\n");
  auto q = readTrecQrels(path, {});
  QVERIFY(q.report.stopped);
  const Diagnostic* d = firstError(q.report);
  QCOMPARE(d->line, 4ull);
  QCOMPARE(QString::fromStdString(d->field), QString("docno"));
  QVERIFY2(QString::fromStdString(d->problem).contains("lines 1 and 4"), d->toString().c_str());
}

void TstTrecFormat::extraFieldsWarn() {
  QTemporaryDir dir;
  const auto path = writeFile(dir, "run.txt", "1 Q0 d1 1 3 r junk here\n1 Q0 d2 2 2 r\n");
  auto r = readTrecRun(path, {});
  QVERIFY(r.report.ok());
  QCOMPARE(r.report.records, 2ull);
  QCOMPARE(r.report.warnings, 1ull);
  QCOMPARE(r.report.diagnostics.front().line, 1ull);
  QVERIFY(QString::fromStdString(r.report.diagnostics.front().problem).contains("2 extra field"));
}

void TstTrecFormat::bigRunSplitAcrossThreads() {
  // > 1 MiB so the block is parsed by two threads: order, line numbers and the first error's line
  // must be exactly as a sequential read gives them.
  QTemporaryDir dir;
  std::string text;
  const int lines = 60000;
  for (int i = 1; i <= lines; ++i) {
    const int q = (i - 1) / 1000;
    text += "q" + std::to_string(q) + " Q0 doc" + std::to_string(i) + " " + std::to_string(i) + " " +
            std::to_string(100000 - i) + " tag\n";
  }
  const auto good = writeFile(dir, "big.txt", text);
  auto r = readTrecRun(good, {});
  QVERIFY(r.report.ok());
  QCOMPARE(r.report.records, static_cast<qulonglong>(lines));
  QCOMPARE(static_cast<int>(r.value.rankings.size()), 60);
  for (int q = 0; q < 60; ++q) {
    const Ranking& rk = r.value.rankings[static_cast<std::size_t>(q)];
    QCOMPARE(QString::fromStdString(rk.queryId), QString("q%1").arg(q));
    QCOMPARE(static_cast<int>(rk.entries.size()), 1000);
    for (int k = 0; k < 1000; k += 97) {
      const int lineNo = q * 1000 + k + 1;
      QCOMPARE(static_cast<int>(rk.entries[static_cast<std::size_t>(k)].line), lineNo);
      QCOMPARE(QString::fromStdString(std::string(rk.entries[static_cast<std::size_t>(k)].docId())),
               QString("doc%1").arg(lineNo));
    }
  }
  // An error in the second half of the block: reported at its true line; Stop keeps lines before it.
  std::string bad = text;
  const std::string needle = "doc45000 45000 ";
  const auto pos = bad.find(needle);
  QVERIFY(pos != std::string::npos);
  bad.replace(pos + needle.size(), 5, "oops!");
  const auto badPath = writeFile(dir, "bad.txt", bad);
  auto b = readTrecRun(badPath, {});
  QVERIFY(b.report.stopped);
  QCOMPARE(firstError(b.report)->line, 45000ull);
  QCOMPARE(b.report.records, 44999ull);
}

void TstTrecFormat::progressAndCancel() {
  QTemporaryDir dir;
  std::string text;
  for (int i = 0; i < 1500000; ++i) text += "1 Q0 d" + std::to_string(i) + " 1 1.0 r\n";  // ~33 MB: 2+ blocks
  const auto path = writeFile(dir, "run.txt", text);
  LoadOptions o;
  int calls = 0;
  std::uint64_t lastDone = 0, total = 0;
  o.progress = [&](std::uint64_t d, std::uint64_t t) {
    ++calls;
    lastDone = d;
    total = t;
    return true;
  };
  auto r = readTrecRun(path, o);
  QVERIFY(r.report.ok());
  QVERIFY(calls >= 2);
  QCOMPARE(lastDone, static_cast<std::uint64_t>(text.size()));
  QCOMPARE(total, static_cast<std::uint64_t>(text.size()));
  o.progress = [](std::uint64_t, std::uint64_t) { return false; };
  auto c = readTrecRun(path, o);
  QVERIFY(c.report.cancelled);
  QVERIFY(!c.report.ok());
  QVERIFY(c.report.records < 1500000ull);
}

QTEST_GUILESS_MAIN(TstTrecFormat)
#include "tst_trecformat.moc"
