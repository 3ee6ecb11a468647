// TREC run / qrels readers: real files with known counts, and hand-made malformed inputs each
// with its diagnostic asserted.

#include <sys/resource.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <bit>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/data/loaders.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/util/decimal.h"

using namespace ragscope::core;

namespace {

std::filesystem::path writeFile(const QTemporaryDir& dir, const std::string& name,
                                const std::string& bytes) {
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
  void duplicateQrelsAsTrecEval();
  void extraFieldsWarn();
  void bigRunSplitAcrossThreads();
  void progressAndCancel();
  void messyRunMatchesReference_data();
  void messyRunMatchesReference();
  void decimalScoresAsFromChars();
  void streamedInOnePass_data();
  void streamedInOnePass();
};

void TstTrecFormat::realQrels_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<qulonglong>("judgments");
  QTest::addColumn<int>("queries");
  QTest::newRow("dl19-passage") << "msmarco_trecdl/qrels/qrels.dl19-passage.txt" << 9260ull << 43;
  QTest::newRow("trec_eval qrels.test") << "trec_eval/test/qrels.test" << 3681ull << 3;
  // 3684 lines, 3 `#` comment lines; "CR#93E-1860" is a docno with '#', not a comment.
  QTest::newRow("qrels.test.with-comments")
      << "trec_eval/test/qrels.test.with-comments" << 3681ull << 3;
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
  QTest::newRow("results.trunc") << "trec_eval/test/results.trunc" << 584ull << 2 << "STANDARD"
                                 << 5;
  QTest::newRow("results.comment.test")
      << "trec_eval/test/results.comment.test" << 30100ull << 301 << "comment.test" << 0;
  QTest::newRow("bm25 dl19") << "msmarco_trecdl/runs/run.msmarco-v1-passage.bm25-default.dl19.txt"
                             << 43000ull << 43 << "Anserini" << 0;
  QTest::newRow("rank_llm bm25 dl19")
      << "msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt" << 4300ull << 43 << "" << 0;
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
  auto loaded =
      readTrecQrels(ragscope::test::dataPath("msmarco_trecdl/qrels/qrels.dl19-passage.txt"), {});
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
  QCOMPARE(QString::fromStdString(std::string(r301->entries.front().docId())),
           QString("FR940202-2-00150"));
  QCOMPARE(r301->entries.front().line, 1u);
  QCOMPARE(r301->entries.front().score, 2.129133);
  QCOMPARE(r301->entries[1].line, 2u);
}

void TstTrecFormat::malformedRun_data() {
  QTest::addColumn<QByteArray>("content");
  QTest::addColumn<qulonglong>("line");
  QTest::addColumn<QString>("field");
  QTest::addColumn<QString>("problem");
  QTest::newRow("too few fields") << QByteArray("1 Q0 d1 1 2.5 run\n1 Q0 d2 2 1.5\n") << 2ull
                                  << "tag"
                                  << "line has 5 fields";
  QTest::newRow("no score") << QByteArray("1 Q0 d1 1\n") << 1ull << "score"
                            << "line has 4 fields";
  QTest::newRow("bad score") << QByteArray("1 Q0 d1 1 2.5 run\n\n# note\n1 Q0 d2 2 abc run\n")
                             << 4ull << "score"
                             << "not a number: 'abc'";
  QTest::newRow("nan score") << QByteArray("1 Q0 d1 1 nan run\n") << 1ull << "score"
                             << "not a number";
  QTest::newRow("half a score") << QByteArray("1 Q0 d1 1 2.5x run\n") << 1ull << "score"
                                << "not a number";
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
              .startsWith(QString::fromStdString(path.string()) + ":" + QString::number(line) +
                          ": " + field + ": "));
}

void TstTrecFormat::malformedQrels_data() {
  QTest::addColumn<QByteArray>("content");
  QTest::addColumn<qulonglong>("line");
  QTest::addColumn<QString>("field");
  QTest::addColumn<QString>("problem");
  QTest::newRow("bad rel") << QByteArray("1 0 d1 1\n1 0 d2 x\n") << 2ull << "rel"
                           << "not an integer: 'x'";
  QTest::newRow("three fields") << QByteArray("1 0 d1\n") << 1ull << "rel"
                                << "line has 3 fields";
  QTest::newRow("five fields") << QByteArray("1 0 d1 1 extra\n") << 1ull << "line"
                               << "exactly 4";
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
  const auto run = writeFile(dir, "run.txt",
                             "\xEF\xBB\xBF"
                             "q1\tQ0\td1\t1\t2.5\trunA\r\nq1  Q0   d2 2 1.5 runA\r\n");
  auto r = readTrecRun(run, {});
  QVERIFY(r.report.ok());
  QCOMPARE(r.report.records, 2ull);
  QCOMPARE(QString::fromStdString(r.value.rankings.front().queryId), QString("q1"));
  QCOMPARE(QString::fromStdString(r.value.tag), QString("runA"));
  QCOMPARE(QString::fromStdString(std::string(r.value.rankings.front().entries[1].docId())),
           QString("d2"));
  const auto qrels = writeFile(dir, "qrels.txt",
                               "\xEF\xBB\xBF"
                               "q1 0 d1 1\r\nq1 0 d2 0\r\n");
  auto q = readTrecQrels(qrels, {});
  QVERIFY(q.report.ok());
  QCOMPARE(q.value.byQuery.count("q1"), std::size_t{1});
  QCOMPARE(q.value.byQuery.at("q1").size(), std::size_t{2});
}

void TstTrecFormat::skipVersusStop() {
  QTemporaryDir dir;
  const auto run =
      writeFile(dir, "run.txt", "1 Q0 d1 1 3 r\n1 Q0 d2 2 x r\n1 Q0 d3 3 1 r\n2 Q0 d4 1 1 r\n");
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
  const auto run =
      writeFile(dir, "run.txt", "1 Q0 d1 1 3 r\n1 Q0 " + longDoc + " 2 2 r\n1 Q0 d3 3 1 r\n");
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
  QVERIFY2(QString::fromStdString(d->problem).contains("longer than 67108864 bytes"),
           d->problem.c_str());
  const long grownMiB = (after.ru_maxrss - before.ru_maxrss) / 1024;
  qInfo("peak RSS grew by %ld MiB while reading a 300 MiB line", grownMiB);
  // The bound is the normal allocator's. Under AddressSanitizer freed buffers wait in its
  // quarantine (256 MiB by default) and every byte touched has shadow memory, so the peak there
  // says little; it is still checked against holding the line several times over. ThreadSanitizer
  // shadows memory too (689 MiB measured).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
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

// A document judged twice for one query: trec_eval reads such a file (get_qrels.c does not look)
// and stops only when it evaluates that query (form_res_rels.c: "duplicate docs"). The reader
// warns naming both lines, keeps the first judgment and records the repeat; the evaluation
// refuses a query with a repeat only when it evaluates it.
void TstTrecFormat::duplicateQrelsDocno() {
  QTemporaryDir dir;
  const auto path = writeFile(dir, "qrels.txt", "1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n1 0 d1 2\n");
  auto q = readTrecQrels(path, {});
  QVERIFY(q.report.ok());
  QVERIFY(!firstError(q.report));
  QCOMPARE(warningCount(q.report), std::size_t{1});
  const Diagnostic& d = q.report.diagnostics.front();
  QCOMPARE(d.line, 4ull);
  QCOMPARE(QString::fromStdString(d.field), QString("docno"));
  QVERIFY2(QString::fromStdString(d.toString())
               .startsWith(QString::fromStdString(path.string()) +
                           ":4: docno: 'd1' judged twice for query '1' (lines 1 and 4)"),
           d.toString().c_str());
  QCOMPARE(q.value.byQuery.at("1").size(), std::size_t{2});
  QCOMPARE(q.value.byQuery.at("1").front().rel, 1);  // the first judgment
  QCOMPARE(q.value.repeats.size(), std::size_t{1});
  QCOMPARE(q.value.repeats.front().qid, std::string("1"));
  QCOMPARE(q.value.repeats.front().firstLine, 1ull);

  // evaluate(): query 2 only in the run scores as without the repeat; query 1 in the run (or
  // every query under -c) is an error naming the qrels line.
  const auto only2 = readTrecRun(writeFile(dir, "run2.txt", "2 Q0 d1 1 1.0 r\n"), {});
  QVERIFY(only2.report.ok());
  EvalSettings settings;
  settings.measures = parseMeasureArgs({"map", "P.5"}).value;
  auto r = evaluate(q.value, only2.value, settings);
  QVERIFY(r.ok());
  QCOMPARE(r.mean("map"), 1.0);
  LoadReport streamed;
  r = evaluateRunFile(q.value, only2.value.source, settings, {}, streamed);
  QVERIFY(r.ok());
  QCOMPARE(r.mean("map"), 1.0);
  settings.complete = true;
  r = evaluate(q.value, only2.value, settings);
  QVERIFY(!r.ok());
  QCOMPARE(r.diagnostics.front().toString(),
           path.string() + ":4: docno: 'd1' judged twice for query '1' (lines 1 and 4), and the " +
               "query is evaluated: trec_eval stops here too (duplicate docs)");
  settings.complete = false;
  const auto both =
      readTrecRun(writeFile(dir, "run12.txt", "1 Q0 d2 1 1.0 r\n2 Q0 d1 1 1.0 r\n"), {});
  r = evaluate(q.value, both.value, settings);
  QVERIFY(!r.ok());
  QCOMPARE(r.diagnostics.front().line, 4ull);
  r = evaluateRunFile(q.value, both.value.source, settings, {}, streamed);
  QVERIFY(!r.ok());
}

// The same through `ragscope-cli eval` on trec_eval's own test files (../shared/data/trec_eval):
// qrels.test with a repeated judgment added for a topic results.test does not retrieve for gives
// exactly trec_eval's out.test (and a warning naming the line); one for a topic it retrieves
// for, or any repeat under -c, is refused as trec_eval refuses it.
void TstTrecFormat::duplicateQrelsAsTrecEval() {
  const auto qrelsPath = ragscope::test::dataPath("trec_eval/test/qrels.test");
  const auto runPath = ragscope::test::dataPath("trec_eval/test/results.test");
  const auto outPath = ragscope::test::dataPath("trec_eval/test/out.test");
  QFile qf(QString::fromStdString(qrelsPath.string())),
      of(QString::fromStdString(outPath.string()));
  QVERIFY(qf.open(QIODevice::ReadOnly) && of.open(QIODevice::ReadOnly));
  const QByteArray qrels = qf.readAll(), expected = of.readAll();
  const int lines = qrels.count('\n');
  QTemporaryDir dir;
  const auto run = QString::fromStdString(runPath.string());

  // Topic 999 is not in the results: scored as trec_eval scores it.
  const auto unevaluated = QString::fromStdString(
      writeFile(dir, "unevaluated.qrels",
                qrels.toStdString() + "999 0 DOC-A 1\n999 0 DOC-B 0\n999 0 DOC-A 0\n")
          .string());
  auto r = ragscope::test::runCli({"eval", unevaluated, run});
  QCOMPARE(r.exitCode, 0);
  QCOMPARE(r.out, expected);
  QVERIFY2(r.err.contains((unevaluated + ":" + QString::number(lines + 3) +
                           ": docno: 'DOC-A' judged twice for query '999' (lines " +
                           QString::number(lines + 1) + " and " + QString::number(lines + 3) + ")")
                              .toUtf8()),
           r.err.constData());

  // Under -c every qrels topic is evaluated (trec_eval gives topic 999 its "bogus" ranking and
  // meets the repeat): refused.
  r = ragscope::test::runCli({"eval", "-c", unevaluated, run});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("judged twice for query '999'") && r.err.contains("is evaluated"),
           r.err.constData());

  // A repeat in a topic the results retrieve for (the first line of qrels.test again).
  const QByteArray first = qrels.left(qrels.indexOf('\n') + 1);
  const QByteArray topic = first.left(first.indexOf(' '));
  const auto evaluated = QString::fromStdString(
      writeFile(dir, "evaluated.qrels", (qrels + first).toStdString()).string());
  r = ragscope::test::runCli({"eval", evaluated, run});
  QCOMPARE(r.exitCode, 2);
  QVERIFY(r.out.isEmpty());
  QVERIFY2(r.err.contains((evaluated + ":" + QString::number(lines + 1) + ": docno: ").toUtf8()) &&
               r.err.contains("judged twice for query '" + topic + "' (lines 1 and " +
                              QByteArray::number(lines + 1) + "), and the query is evaluated"),
           r.err.constData());
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
    text += 'q';
    text += std::to_string(q) + " Q0 doc" + std::to_string(i) + " " + std::to_string(i) + " " +
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
  // An error in the second half of the block: reported at its true line; Stop keeps lines before
  // it.
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
  for (int i = 0; i < 1500000; ++i)
    text += "1 Q0 d" + std::to_string(i) + " 1 1.0 r\n";  // ~33 MB: 2+ blocks
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

// A plain sequential reading of a run, written from core/data/README.md's rules for this test:
// fields split on ' ', \t, \r, \v and \f; blank and '#' lines skipped; six fields needed; the score
// must be a whole number for std::from_chars and not NaN; lines over the cap or with a NUL are
// errors.
struct ReferenceRun {
  struct Entry {
    std::string qid, docno;
    double score;
    std::uint64_t line;
  };
  std::vector<Entry> entries;
  std::vector<std::uint64_t> errorLines;
};

ReferenceRun referenceRead(const std::string& bytes, std::size_t maxLineBytes) {
  ReferenceRun out;
  std::uint64_t line = 0;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t nl = bytes.find('\n', pos);
    if (nl == std::string::npos) nl = bytes.size();
    const std::string text = bytes.substr(pos, nl - pos);
    pos = nl + 1;
    ++line;
    if (text.size() > maxLineBytes || text.find('\0') != std::string::npos) {
      out.errorLines.push_back(line);
      continue;
    }
    std::vector<std::string> f;
    std::string cur;
    for (char c : text) {
      if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
        if (!cur.empty()) f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) f.push_back(cur);
    if (f.empty() || f[0][0] == '#') continue;
    if (f.size() < 6) {
      out.errorLines.push_back(line);
      continue;
    }
    double score = 0;
    auto [ptr, ec] = std::from_chars(f[4].data(), f[4].data() + f[4].size(), score);
    if (ec != std::errc() || ptr != f[4].data() + f[4].size() || std::isnan(score)) {
      out.errorLines.push_back(line);
      continue;
    }
    out.entries.push_back({f[0], f[2], score, line});
  }
  return out;
}

// Random lines of every shape the reader must agree with the reference on: separators of each
// kind and length, blank, comment and short lines, control bytes inside fields, UTF-8 and other
// high bytes, scores of every notation, one qid in several places, and (large) lines that cross
// the reader's 8 MiB chunk ends.
void TstTrecFormat::messyRunMatchesReference_data() {
  QTest::addColumn<int>("seed");
  QTest::addColumn<int>("lines");
  QTest::newRow("small") << 1 << 2000;
  QTest::newRow("two chunks and more") << 2 << 420000;
}

void TstTrecFormat::messyRunMatchesReference() {
  QFETCH(int, seed);
  QFETCH(int, lines);
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const char* seps[] = {" ", "\t", "  ", " \t ", "\v", "\f", "\r"};
  const char* scores[] = {"1",
                          "-0.5",
                          "12.345678",
                          "3.",
                          ".25",
                          "1e3",
                          "-2.5E-3",
                          "+1",
                          "inf",
                          "nan",
                          "0x10",
                          "1.2.3",
                          "12345678901234567890.5",
                          "0.000000000000000000000001",
                          "9007199254740993",
                          "1e400",
                          "abc",
                          "-",
                          "4.9e-324",
                          "123456.789012345678"};
  std::string text;
  int qid = 0;
  for (int i = 0; i < lines; ++i) {
    const std::size_t kind = pick(100);
    if (kind == 0) {
      text += "\n";
      continue;
    }
    if (kind == 1) {
      text += "# a comment line\n";
      continue;
    }
    if (kind == 2) {
      text += " \t \r\n";
      continue;
    }
    if (kind == 3) {
      text += "q1 Q0 short\n";
      continue;
    }
    if (pick(300) == 0) qid = static_cast<int>(pick(50));  // qids come back: several places
    std::string docno = "d";
    docno += std::to_string(rng() % 100000);
    if (pick(50) == 0) docno += "\x01x";
    if (pick(50) == 0) docno += "\xc3\xa9";  // UTF-8
    if (pick(200) == 0) docno += "\xff";     // not UTF-8
    std::string score = pick(4) == 0
                            ? scores[pick(std::size(scores))]
                            : std::to_string(static_cast<double>(rng() % 10000000) / 1000.0);
    std::string line = (pick(20) == 0 ? std::string(seps[pick(std::size(seps))]) : std::string()) +
                       "q" + std::to_string(qid);
    const std::string fields[] = {"Q0", docno, std::to_string(i), score, "tag"};
    for (const auto& f : fields) {
      line += seps[pick(20) == 0 ? pick(std::size(seps)) : 0];
      line += f;
    }
    if (pick(100) == 0) line += " extra field";
    if (pick(500) == 0) line += std::string(40000, 'x');  // a long line, at times over a chunk end
    text += line + (pick(30) == 0 ? "\r\n" : "\n");
  }
  text += "q1 Q0 last 1 2.5 tag";  // no newline at the end
  QTemporaryDir dir;
  const auto path = writeFile(dir, "messy.txt", text);
  LoadOptions o;
  o.onError = OnError::Skip;
  o.maxErrors = 0;
  o.maxLineBytes = 20000;  // the long lines are errors
  o.maxStoredDiagnostics = 1000000;
  const ReferenceRun want = referenceRead(text, o.maxLineBytes);
  auto got = readTrecRun(path, o);
  QCOMPARE(got.report.records, static_cast<qulonglong>(want.entries.size()));
  QCOMPARE(got.report.errors, static_cast<qulonglong>(want.errorLines.size()));
  // The stored errors (the first hundred of each kind) are at the reference's lines.
  for (const auto& d : got.report.diagnostics)
    if (d.severity == Severity::Error)
      QVERIFY2(
          std::binary_search(want.errorLines.begin(), want.errorLines.end(), d.line),
          qPrintable(
              QString("error at line %1: %2").arg(d.line).arg(QString::fromStdString(d.problem))));
  // Entries per qid in file order (the reader groups a qid's places together).
  std::map<std::string, std::vector<const ReferenceRun::Entry*>> byQid;
  for (const auto& e : want.entries) byQid[e.qid].push_back(&e);
  QCOMPARE(got.value.rankings.size(), byQid.size());
  for (const auto& r : got.value.rankings) {
    const auto& ref = byQid[r.queryId];
    QCOMPARE(r.entries.size(), ref.size());
    for (std::size_t k = 0; k < ref.size(); ++k) {
      QCOMPARE(static_cast<std::uint64_t>(r.entries[k].line), ref[k]->line);
      QCOMPARE(std::string(r.entries[k].docId()), ref[k]->docno);
      QCOMPARE(std::bit_cast<std::uint64_t>(r.entries[k].score),
               std::bit_cast<std::uint64_t>(ref[k]->score));
    }
  }
}

// parseDecimal's fast path gives the very double std::from_chars gives, on random decimals of
// every length and on the edges of the fast path (2^53, 22 fraction digits, 19 digits).
void TstTrecFormat::decimalScoresAsFromChars() {
  std::mt19937_64 rng(11);
  std::vector<std::string> cases = {"0",
                                    "-0",
                                    "0.0",
                                    "9007199254740992",
                                    "9007199254740993",
                                    "0.9007199254740993",
                                    "1.0000000000000000000001",
                                    "1.00000000000000000000001",
                                    "9999999999999999999",
                                    "99999999999999999999",
                                    "1.",
                                    "-1.",
                                    "00000000000000000000001.5",
                                    "1e5",
                                    "",
                                    "-",
                                    ".",
                                    "1..2",
                                    "- 1",
                                    "1 ",
                                    "0.1",
                                    "0.3",
                                    "123456789.123456789"};
  for (int i = 0; i < 200000; ++i) {
    std::string s = rng() % 3 == 0 ? "-" : "";
    const int intDigits = static_cast<int>(rng() % 12);
    const int fracDigits = static_cast<int>(rng() % 25);
    for (int k = 0; k < intDigits; ++k) s += static_cast<char>('0' + rng() % 10);
    if (intDigits == 0) s += '0';
    if (fracDigits > 0 || rng() % 5 == 0) s += '.';
    for (int k = 0; k < fracDigits; ++k) s += static_cast<char>('0' + rng() % 10);
    cases.push_back(s);
  }
  for (const auto& s : cases) {
    double want = -7.0, got = -7.0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), want);
    const bool wantOk = ec == std::errc() && ptr == s.data() + s.size();
    const std::errc gotEc = parseDecimal(s, got);
    QVERIFY2((gotEc == std::errc()) == wantOk, s.c_str());
    if (wantOk)
      QVERIFY2(std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want), s.c_str());
  }
}

// streamTrecRun hands each query's ranking over once, equal to what readTrecRun holds (same
// entries, same lines), over chunk ends, a query longer than a chunk, and a chunk in which no
// line starts. When a query's lines are in two places, restart() is called once and every
// ranking is then handed over whole.
void TstTrecFormat::streamedInOnePass_data() {
  QTest::addColumn<bool>("grouped");
  QTest::newRow("grouped by query") << true;
  QTest::newRow("a query in two places") << false;
}

void TstTrecFormat::streamedInOnePass() {
  QFETCH(bool, grouped);
  std::string text;
  auto add = [&](const std::string& qid, int n) {
    for (int i = 0; i < n; ++i) {
      text += qid;
      text += " Q0 d" + std::to_string(i) + " " + std::to_string(i + 1) + " " +
              std::to_string(n - i) + " t\n";
    }
  };
  for (int q = 0; q < 300; ++q) {
    std::string qid = "q";
    qid += std::to_string(q);
    add(qid, 1000);  // ~9 MB: queries cross the first chunk's end
  }
  add("long", 500000);  // ~18 MB: one query over three chunks
  text += '#';
  text.append(9u << 20, 'c');  // no line starts in a whole chunk
  text += '\n';
  add("after", 10);
  add(grouped ? "tail" : "q5", 20);
  QTemporaryDir dir;
  const auto path = writeFile(dir, "run.txt", text);
  auto held = readTrecRun(path, {});
  QVERIFY(held.report.ok());
  std::mutex mutex;
  struct Seen {
    std::uint32_t line;
    double score;
    std::string docno;  // the view's docnos are valid during the call only
  };
  std::map<std::string, std::vector<Seen>> seen;
  std::map<std::string, int> visits;
  int restarts = 0;
  auto loaded = streamTrecRun(
      path, {},
      [&](const RankingView& r) {
        std::lock_guard lock(mutex);
        ++visits[std::string(r.queryId)];
        auto& to = seen[std::string(r.queryId)];
        to.clear();
        for (const auto& e : r.entries) to.push_back({e.line, e.score, std::string(e.docId())});
      },
      [&] {
        ++restarts;
        seen.clear();
        visits.clear();
      });
  QVERIFY(loaded.report.ok());
  QCOMPARE(restarts, grouped ? 0 : 1);
  QCOMPARE(loaded.report.records, held.report.records);
  QCOMPARE(seen.size(), held.value.rankings.size());
  for (const auto& r : held.value.rankings) {
    QCOMPARE(visits[r.queryId], 1);
    const auto& got = seen[r.queryId];
    QCOMPARE(got.size(), r.entries.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      QCOMPARE(got[k].line, r.entries[k].line);
      QCOMPARE(got[k].score, r.entries[k].score);
      QCOMPARE(got[k].docno, std::string(r.entries[k].docId()));
    }
  }
  QCOMPARE(static_cast<int>(seen["long"].size()), 500000);
}

QTEST_GUILESS_MAIN(TstTrecFormat)
#include "tst_trecformat.moc"
