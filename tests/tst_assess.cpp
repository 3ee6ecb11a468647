// LLM relevance assessment (`ragscope-cli assess`, core/trecrag/README.md "Assessment"): the
// strict grade reader on hand-written replies (garbage, out of range, two grades), the pairs a
// hand-made run and qrels give, repeats combined by the lower median with their spread, the qrels
// written and merged with the people's (exact text worked out by hand), the offline assessor's
// grade from term overlap, and `assess` end to end against the offline judge and the test server.

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/cli.h"
#include "common/files.h"
#include "common/testdata.h"
#include "core/data/loaders.h"
#include "core/llm/offline.h"
#include "core/store/runstore.h"
#include "core/trecrag/assessgrade.h"
#include "core/trecrag/assesspairs.h"
#include "core/trecrag/assessprompt.h"
#include "core/trecrag/assessqrels.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using namespace ragscope::core::trecrag;
using ragscope::test::readText;
using ragscope::test::writeText;
namespace fs = std::filesystem;

namespace {

Qrels qrelsOf(const fs::path& path) {
  auto loaded = readTrecQrels(path, LoadOptions{});
  if (!loaded.report.ok() || loaded.report.hasErrors()) qFatal("qrels %s not read", path.c_str());
  return std::move(loaded.value);
}

Run runOf(const fs::path& path) {
  auto loaded = readTrecRun(path, LoadOptions{});
  if (!loaded.report.ok() || loaded.report.hasErrors()) qFatal("run %s not read", path.c_str());
  return std::move(loaded.value);
}

AssessReply graded(int g) { return {ReplyState::Graded, g, {}}; }
AssessReply unparsedReply() { return {ReplyState::Unparsed, std::nullopt, "no line"}; }
AssessReply failedReply() { return {ReplyState::Failed, std::nullopt, "HTTP 500"}; }

PairGrades pair(std::string qid, std::string doc, std::vector<AssessReply> replies) {
  PairGrades p;
  p.qid = std::move(qid);
  p.docId = std::move(doc);
  p.replies = std::move(replies);
  combineReplies(p);
  return p;
}

// The hand-made run: q1's dB and dC tie at 8.0, and trec_eval breaks ties by docno descending,
// so q1's order is dA, dC, dB, dD, dE; q2's dX, dY.
const char* kRun =
    "q1 Q0 dA 1 9.0 r\nq1 Q0 dB 2 8.0 r\nq1 Q0 dC 3 8.0 r\nq1 Q0 dD 4 7.0 r\nq1 Q0 dE 5 6.0 r\n"
    "q2 Q0 dX 1 5.0 r\nq2 Q0 dY 2 4.0 r\n";
const char* kQrels = "q1 0 dA 2\nq1 0 dC 0\nq2 0 dZ 1\n";

// The demo's texts, queries, run and qrels read here with plain string code, and the pairs and
// qrels `assess` must give worked out from them: each query's run lines sorted by score
// descending then docno descending (trec_eval), the first `depth` kept, the judged ones dropped,
// each graded by the offline assessor on (query text, document text).
struct Demo {
  std::map<std::string, std::string> queries, docs;
  std::map<std::string, std::map<std::string, int>> qrels;
  std::map<std::string, std::vector<std::pair<double, std::string>>> run;
  std::vector<std::string> runOrder;  // qids as the run lists them
};

std::vector<std::string> fields(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(line);
  if (sep == '\t') {
    while (std::getline(in, cur, '\t')) out.push_back(cur);
  } else {
    while (in >> cur) out.push_back(cur);
  }
  return out;
}

fs::path demoDir() { return fs::path(RAGSCOPE_SOURCE_DIR) / "resources" / "demo"; }

Demo readDemo() {
  Demo d;
  std::string line;
  std::ifstream topics(demoDir() / "topics.tsv");
  while (std::getline(topics, line))
    if (auto f = fields(line, '\t'); f.size() == 2) d.queries[f[0]] = f[1];
  std::ifstream collection(demoDir() / "collection.tsv");
  while (std::getline(collection, line))
    if (auto f = fields(line, '\t'); f.size() == 2) d.docs[f[0]] = f[1];
  std::ifstream qrels(demoDir() / "qrels.txt");
  while (std::getline(qrels, line))
    if (auto f = fields(line, ' '); f.size() == 4) d.qrels[f[0]][f[2]] = std::stoi(f[3]);
  std::ifstream run(demoDir() / "run-good.trec");
  while (std::getline(run, line))
    if (auto f = fields(line, ' '); f.size() == 6) {
      if (!d.run.count(f[0])) d.runOrder.push_back(f[0]);
      d.run[f[0]].push_back({std::stod(f[4]), f[2]});
    }
  return d;
}

struct ExpectedPair {
  std::string qid, doc;
  int grade = 0;
  std::optional<int> judged;
};

std::vector<ExpectedPair> expectedPairs(const Demo& d, std::size_t depth, bool all) {
  std::vector<ExpectedPair> out;
  for (const auto& qid : d.runOrder) {
    auto list = d.run.at(qid);
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second > b.second;
    });
    for (std::size_t i = 0; i < list.size() && i < depth; ++i) {
      const std::string& doc = list[i].second;
      std::optional<int> judged;
      if (auto q = d.qrels.find(qid); q != d.qrels.end())
        if (auto j = q->second.find(doc); j != q->second.end()) judged = j->second;
      if (judged && !all) continue;
      out.push_back({qid, doc, llm::lexicalGrade(d.queries.at(qid), d.docs.at(doc)), judged});
    }
  }
  return out;
}

std::string qrelsText(std::vector<ExpectedPair> pairs) {
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    return std::tie(a.qid, a.doc) < std::tie(b.qid, b.doc);
  });
  std::string out;
  for (const auto& p : pairs) out += p.qid + " 0 " + p.doc + " " + std::to_string(p.grade) + "\n";
  return out;
}

QStringList demoInputs() {
  const QString demo = QString::fromStdString(demoDir().string()) + "/";
  return {"--dataset", demo + "collection.tsv", "--dataset", demo + "topics.tsv",
          "--dataset", demo + "qrels.txt",      "--run",     demo + "run-good.trec"};
}

nlohmann::json parseJson(const QString& text) { return nlohmann::json::parse(text.toStdString()); }

}  // namespace

class TestAssess : public QObject {
  Q_OBJECT

 private slots:
  void gradeReader_data();
  void gradeReader();
  void pairSelection();
  void repeatsCombined();
  void qrelsWrittenAndMerged();
  void offlineAssessor();
  void offlineDemoEndToEnd();
  void mergedQrelsAndLabels();
  void testServerAndUnparsedReplies();
  void killAndResumeLosesNothing();
  void batchRoute();
};

void TestAssess::gradeReader_data() {
  QTest::addColumn<QString>("reply");
  QTest::addColumn<int>("grade");  // -1: unparsed
  QTest::addColumn<QString>("problem");
  QTest::newRow("final line") << "Intent: a date.\nM=2, T=2.\n##final score: 3" << 3 << "";
  QTest::newRow("case and spaces") << "##Final Score :2" << 2 << "";
  QTest::newRow("bold") << "reasoning\n**##final score: 1**" << 1 << "";
  QTest::newRow("full stop") << "##final score: 0." << 0 << "";
  QTest::newRow("json") << R"({"grade": 2, "reasoning": "partly"})" << 2 << "";
  QTest::newRow("json fence") << "```json\n{\"grade\": 0}\n```" << 0 << "";
  QTest::newRow("bare") << " 3\n" << 3 << "";
  QTest::newRow("garbage") << "I think it is relevant." << -1 << "no '##final score: N' line";
  QTest::newRow("empty") << "  \n" << -1 << "the reply is empty";
  QTest::newRow("no hashes") << "final score: 2" << -1 << "no '##final score: N' line";
  QTest::newRow("above") << "##final score: 4" << -1 << "grade 4 is outside the scale 0..3";
  QTest::newRow("below") << "##final score: -1" << -1 << "grade -1 is outside the scale 0..3";
  QTest::newRow("bare above") << "7" << -1 << "grade 7 is outside the scale 0..3";
  QTest::newRow("fraction") << "##final score: 2.5" << -1
                            << "final score '2.5' is not a whole number";
  QTest::newRow("word") << "##final score: two" << -1 << "final score 'two' is not a whole number";
  QTest::newRow("out of") << "##final score: 2/3" << -1
                          << "final score '2/3' is not a whole number";
  QTest::newRow("no value") << "##final score:" << -1 << "final score '' is not a whole number";
  QTest::newRow("two grades") << "##final score: 2\n##final score: 3" << -1
                              << "2 '##final score' lines (one grade needed)";
  QTest::newRow("two agreeing") << "##final score: 2\nagain:\n##final score: 2" << -1
                                << "2 '##final score' lines (one grade needed)";
  QTest::newRow("json string") << R"({"grade": "2"})" << -1 << "\"grade\" is not a whole number";
  QTest::newRow("json real") << R"({"grade": 2.0})" << -1 << "\"grade\" is not a whole number";
  QTest::newRow("json above") << R"({"grade": 9})" << -1 << "grade 9 is outside the scale 0..3";
  QTest::newRow("json other") << R"({"score": 2})" << -1 << "the JSON reply has no \"grade\"";
  QTest::newRow("json array") << "{[1]}" << -1 << "";  // a parse error: its text is nlohmann's
  QTest::newRow("json repeated") << R"({"grade": 1, "grade": 3})" << -1 << "";
}

void TestAssess::gradeReader() {
  QFETCH(QString, reply);
  QFETCH(int, grade);
  QFETCH(QString, problem);
  const GradeReading r = readGrade(reply.toStdString());
  if (grade < 0) {
    QVERIFY(!r.grade.has_value());
    QVERIFY(!r.problem.empty());
    if (!problem.isEmpty()) QCOMPARE(QString::fromStdString(r.problem), problem);
  } else {
    QVERIFY2(r.grade.has_value(), r.problem.c_str());
    QCOMPARE(*r.grade, grade);
    QVERIFY(r.problem.empty());
  }
}

void TestAssess::pairSelection() {
  QTemporaryDir dir;
  const fs::path d = dir.path().toStdString();
  writeText(d / "run.txt", kRun);
  writeText(d / "qrels.txt", kQrels);
  const Run run = runOf(d / "run.txt");
  const Qrels qrels = qrelsOf(d / "qrels.txt");

  // Top 3 of q1 is dA (judged 2), dC (judged 0), dB; q2's dX, dY are unjudged (q2 judges dZ).
  auto s = selectAssessPairs(run, qrels, 3, false);
  QCOMPARE(s.pairs.size(), std::size_t{3});
  QCOMPARE(QString::fromStdString(s.pairs[0].qid + " " + s.pairs[0].docId), QString("q1 dB"));
  QCOMPARE(s.pairs[0].rank, std::size_t{3});
  QCOMPARE(QString::fromStdString(s.pairs[1].qid + " " + s.pairs[1].docId), QString("q2 dX"));
  QCOMPARE(s.pairs[1].rank, std::size_t{1});
  QCOMPARE(QString::fromStdString(s.pairs[2].docId), QString("dY"));
  QCOMPARE(s.judgedLeftOut, std::size_t{2});
  QCOMPARE(s.judgedRegraded, std::size_t{0});
  for (const auto& p : s.pairs) QVERIFY(!p.judged);

  // --all: the judged ones too, with their grades.
  s = selectAssessPairs(run, qrels, 3, true);
  QCOMPARE(s.pairs.size(), std::size_t{5});
  QCOMPARE(QString::fromStdString(s.pairs[0].docId), QString("dA"));
  QCOMPARE(s.pairs[0].judged.value_or(-1), 2);
  QCOMPARE(QString::fromStdString(s.pairs[1].docId), QString("dC"));
  QCOMPARE(s.pairs[1].judged.value_or(-1), 0);
  QCOMPARE(s.judgedLeftOut, std::size_t{0});
  QCOMPARE(s.judgedRegraded, std::size_t{2});

  // Depth 1: q1's dA is judged, q2's dX is not.
  s = selectAssessPairs(run, qrels, 1, false);
  QCOMPARE(s.pairs.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(s.pairs[0].docId), QString("dX"));
}

void TestAssess::repeatsCombined() {
  // 3, 1, 2 sorted 1, 2, 3: median 2, spread 3 - 1 = 2.
  auto p = pair("q", "d", {graded(3), graded(1), graded(2)});
  QCOMPARE(p.grade.value_or(-1), 2);
  QCOMPARE(p.spread, 2);
  // 1 and 2: the lower of the two middle grades, 1; spread 1.
  p = pair("q", "d", {graded(2), graded(1)});
  QCOMPARE(p.grade.value_or(-1), 1);
  QCOMPARE(p.spread, 1);
  // An unparsed repeat is left out, never read as 0.
  p = pair("q", "d", {graded(2), unparsedReply(), graded(2)});
  QCOMPARE(p.grade.value_or(-1), 2);
  QCOMPARE(p.spread, 0);
  QCOMPARE(p.count(ReplyState::Unparsed), std::size_t{1});
  p = pair("q", "d", {graded(3), failedReply()});
  QCOMPARE(p.grade.value_or(-1), 3);
  // Nothing parsed: no grade.
  p = pair("q", "d", {unparsedReply(), failedReply()});
  QVERIFY(!p.grade);

  const std::vector<PairGrades> all = {
      pair("q1", "a", {graded(3), graded(1), graded(2)}), pair("q1", "b", {graded(0), graded(0)}),
      pair("q2", "c", {unparsedReply(), unparsedReply()}), pair("q2", "d", {graded(2)})};
  const AssessCounts c = countAssessment(all);
  QCOMPARE(c.pairs, std::size_t{4});
  QCOMPARE(c.graded, std::size_t{3});
  QCOMPARE(c.ungraded, std::size_t{1});
  QCOMPARE(c.replies, std::size_t{8});
  QCOMPARE(c.repliesGraded, std::size_t{6});
  QCOMPARE(c.repliesUnparsed, std::size_t{2});
  QCOMPARE(c.byGrade[0], std::size_t{1});
  QCOMPARE(c.byGrade[2], std::size_t{2});
  QCOMPARE(c.spreadPairs, std::size_t{1});
  QCOMPARE(c.multiParsed, std::size_t{2});  // a (spread 2) and b (spread 0)
  QCOMPARE(c.meanSpread, 1.0);
}

void TestAssess::qrelsWrittenAndMerged() {
  QTemporaryDir dir;
  const fs::path d = dir.path().toStdString();
  writeText(d / "qrels.txt", kQrels);
  const Qrels human = qrelsOf(d / "qrels.txt");
  const std::vector<PairGrades> pairs = {
      pair("q2", "dY", {graded(1)}),       pair("q1", "dB", {graded(3)}),
      pair("q2", "dX", {unparsedReply()}),  // no grade: not written, never 0
      pair("q1", "d 1", {graded(0)}),       // a space in an id: %20 (core/data/trecid.h)
      pair("q1", "dA", {graded(3)}),        // the people judge 2: a conflict, theirs written
      pair("q1", "dC", {graded(0)})};       // the people judge 0 too: no conflict
  // Byte order: "d 1" < "dA" < "dB" < "dC" (space 0x20 before letters).
  QCOMPARE(QString::fromStdString(assessQrelsText(pairs)),
           QString("q1 0 d%201 0\nq1 0 dA 3\nq1 0 dB 3\nq1 0 dC 0\nq2 0 dY 1\n"));

  const MergedQrels m = mergeAssessQrels(human, pairs);
  QCOMPARE(QString::fromStdString(m.text),
           QString("q1 0 d%201 0\nq1 0 dA 2\nq1 0 dB 3\nq1 0 dC 0\nq2 0 dY 1\nq2 0 dZ 1\n"));
  QCOMPARE(m.rows, std::size_t{6});
  QCOMPARE(m.fromHuman, std::size_t{3});
  QCOMPARE(m.fromJudge, std::size_t{3});
  QCOMPARE(m.conflicts.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(m.conflicts[0].docId), QString("dA"));
  QCOMPARE(m.conflicts[0].human, 2);
  QCOMPARE(m.conflicts[0].judge, 3);

  // The written file reads back as qrels with the id decoded.
  writeText(d / "out.txt", m.text);
  const Qrels back = qrelsOf(d / "out.txt");
  QCOMPARE(back.byQuery.at("q1").front().docId, std::string("d 1"));
}

void TestAssess::offlineAssessor() {
  // "population of tokyo japan 2020": four content words ("of" is a stopword).
  const std::string q = "population of tokyo japan 2020";
  QCOMPARE(llm::lexicalGrade(q, "A river in Peru."), 0);                     // 0 of 4
  QCOMPARE(llm::lexicalGrade(q, "Tokyo has many parks."), 1);                // 1/4 < 1/2
  QCOMPARE(llm::lexicalGrade(q, "Tokyo is the capital of Japan."), 2);       // 2/4 < 3/4
  QCOMPARE(llm::lexicalGrade(q, "In 2020 Tokyo, Japan hosted guests."), 3);  // 3/4
  QCOMPARE(llm::lexicalGrade("of the", "of the"), 0);                        // no content word

  // The default prompt reaches the assessor with its query and passage, instructions left out,
  // in every offline role, and its reply reads back strictly.
  const std::string prompt =
      renderAssessPrompt(defaultAssessTemplate(), q, "Tokyo is the capital of Japan.\nMore.");
  std::string query, passage;
  QVERIFY(llm::readAssessmentPrompt(prompt, &query, &passage));
  QCOMPARE(QString::fromStdString(query), QString::fromStdString(q));
  QCOMPARE(QString::fromStdString(passage), QString("Tokyo is the capital of Japan.\nMore."));
  for (auto role : {llm::OfflineRole::Reader, llm::OfflineRole::Judge, llm::OfflineRole::Auto}) {
    const auto r = readGrade(llm::offlineAnswer(role, prompt));
    QCOMPARE(r.grade.value_or(-1), 2);
  }
  // A RAG prompt is not an assessment prompt.
  QVERIFY(!llm::readAssessmentPrompt("Question: x\nDocuments:\nPassage 1: y", nullptr, nullptr));
}

void TestAssess::offlineDemoEndToEnd() {
  QTemporaryDir dir;
  const Demo demo = readDemo();
  const auto expected = expectedPairs(demo, 10, false);
  QVERIFY(expected.size() > 20);  // the qrels judge every pair of the top 5
  const QString out = dir.path() + "/llm.qrels";
  const auto r = ragscope::test::runCliText(QStringList{"assess"} + demoInputs() +
                                            QStringList{"--depth", "10", "--out", out, "--store",
                                                        dir.path() + "/a.db", "--json", "--quiet"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const auto j = parseJson(r.out);
  QCOMPARE(j["pairs"].get<std::size_t>(), expected.size());
  QCOMPARE(j["graded"].get<std::size_t>(), expected.size());
  QCOMPARE(j["replies"]["unparsed"].get<int>(), 0);
  std::size_t byGrade[4] = {0, 0, 0, 0};
  for (const auto& p : expected) ++byGrade[p.grade];
  for (int g = 0; g < 4; ++g)
    QCOMPARE(j["grades"][std::to_string(g)].get<std::size_t>(), byGrade[g]);
  QCOMPARE(QString::fromStdString(readText(out.toStdString())),
           QString::fromStdString(qrelsText(expected)));

  // The estimate: one call per pair, nothing run, no store.
  const auto e =
      ragscope::test::runCliText(QStringList{"assess"} + demoInputs() +
                                 QStringList{"--depth", "10", "--repeats", "3", "--estimate",
                                             "--store", dir.path() + "/e.db", "--quiet"});
  QVERIFY2(e.exitCode == 0, qPrintable(e.err));
  QVERIFY2(e.out.contains(QString("calls           %1 ").arg(expected.size() * 3)),
           qPrintable(e.out));
  QVERIFY(!QFile::exists(dir.path() + "/e.db"));

  // A bad --qrels file is named with its line and field; nothing is created.
  writeText(fs::path(dir.path().toStdString()) / "bad.qrels", "q01 0 hc01 2\nq01 0 hc02 x\n");
  const auto bad = ragscope::test::runCliText(
      QStringList{"assess"} + demoInputs() +
      QStringList{"--qrels", dir.path() + "/bad.qrels", "--store", dir.path() + "/bad.db"});
  QCOMPARE(bad.exitCode, 2);
  QVERIFY2(bad.err.contains("bad.qrels:2: rel: not an integer: 'x'"), qPrintable(bad.err));
  QVERIFY(!QFile::exists(dir.path() + "/bad.db"));

  // --k is not assess's option; --merge-qrels needs --out.
  QCOMPARE(
      ragscope::test::runCliText(QStringList{"assess"} + demoInputs() + QStringList{"--k", "5"})
          .exitCode,
      2);
  QCOMPARE(ragscope::test::runCliText(QStringList{"assess"} + demoInputs() +
                                      QStringList{"--merge-qrels"})
               .exitCode,
           2);
}

void TestAssess::mergedQrelsAndLabels() {
  QTemporaryDir dir;
  const Demo demo = readDemo();
  // --all with 3 repeats: the judged pairs are graded again; the offline judge answers every
  // repeat alike, so the spread is 0 everywhere.
  const auto all = expectedPairs(demo, 6, true);
  const QString out = dir.path() + "/merged.qrels";
  const QString labels = dir.path() + "/labels.db";
  const auto r = ragscope::test::runCliText(QStringList{"assess"} + demoInputs() +
                                            QStringList{"--depth", "6", "--all", "--repeats", "3",
                                                        "--out", out, "--merge-qrels", "--labels",
                                                        labels, "--labels-scope", "demo", "--store",
                                                        dir.path() + "/m.db", "--quiet", "--json"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const auto j = parseJson(r.out);
  QCOMPARE(j["pairs"].get<std::size_t>(), all.size());
  QCOMPARE(j["replies"]["graded"].get<std::size_t>(), all.size() * 3);
  QCOMPARE(j["spread"]["pairs_disagreeing"].get<int>(), 0);
  // The merge: every judgment of the people's qrels as they wrote it, and the judge's grades of
  // the pairs they do not judge; conflicts are the judged pairs the judge grades otherwise.
  std::map<std::pair<std::string, std::string>, int> merged;
  for (const auto& [qid, docs] : demo.qrels)
    for (const auto& [doc, g] : docs) merged[{qid, doc}] = g;
  std::size_t added = 0, conflicts = 0, same = 0, judgedCount = 0;
  for (const auto& p : all) {
    if (p.judged) {
      ++judgedCount;
      if (*p.judged != p.grade)
        ++conflicts;
      else
        ++same;
      continue;
    }
    merged[{p.qid, p.doc}] = p.grade;
    ++added;
  }
  std::string text;
  for (const auto& [k, g] : merged)
    text += k.first + " 0 " + k.second + " " + std::to_string(g) + "\n";
  QCOMPARE(QString::fromStdString(readText(out.toStdString())), QString::fromStdString(text));
  QCOMPARE(j["merged"]["from_judge"].get<std::size_t>(), added);
  QCOMPARE(j["merged"]["conflicts"].size(), conflicts);
  QCOMPARE(j["regraded_judged"]["pairs"].get<std::size_t>(), judgedCount);
  QCOMPARE(j["regraded_judged"]["same_grade"].get<std::size_t>(), same);
  QVERIFY(judgedCount > 0 && added > 0);

  // Every grade is a relevance label of the judge: the labels export as qrels gives the judge's
  // grades of every pair, the judged ones included.
  QCOMPARE(j["labels"]["written"].get<std::size_t>(), all.size());
  QCOMPARE(QString::fromStdString(j["labels"]["annotator"].get<std::string>()),
           QString("judge:heuristic-judge"));
  const QString exported = dir.path() + "/labels.qrels";
  const auto x =
      ragscope::test::runCliText({"labels", "export", "--labels", labels, "--format", "qrels",
                                  "--annotator", "judge:heuristic-judge", "--out", exported});
  QVERIFY2(x.exitCode == 0, qPrintable(x.err));
  QCOMPARE(QString::fromStdString(readText(exported.toStdString())),
           QString::fromStdString(qrelsText(all)));
}

void TestAssess::testServerAndUnparsedReplies() {
  QTemporaryDir dir;
  const Demo demo = readDemo();
  const auto expected = expectedPairs(demo, 7, false);
  // The judge answers like the offline assessor, except for the prompts about document hc01..hc09
  // ("hc0" in the passage's id is not in the prompt, so those are picked by their text): there it
  // answers without a grade line.
  std::set<std::string> garbled;
  for (const auto& p : expected)
    if (p.doc.rfind("hc0", 0) == 0) garbled.insert(demo.docs.at(p.doc));
  ragscope::testserver::Options o;
  o.answer = [garbled](const std::string& prompt) {
    for (const auto& text : garbled)
      if (prompt.find(text) != std::string::npos) return std::string("Relevant, I think. Grade 2");
    return llm::offlineAnswer(llm::OfflineRole::Auto, prompt);
  };
  ragscope::testserver::TestServer server(o);
  QVERIFY(server.start());
  const QString base = QString("http://127.0.0.1:%1/v1").arg(server.port());
  const QString out = dir.path() + "/llm.qrels";
  const auto r = ragscope::test::runCliText(
      QStringList{"assess"} + demoInputs() +
      QStringList{"--depth", "7", "--judge", base, "--judge-model", "test-model", "--no-cache",
                  "--out", out, "--store", dir.path() + "/t.db", "--quiet"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  std::vector<ExpectedPair> graded;
  std::size_t unparsed = 0;
  for (const auto& p : expected)
    if (garbled.count(demo.docs.at(p.doc)))
      ++unparsed;
    else
      graded.push_back(p);
  QVERIFY(unparsed > 0 && !graded.empty());
  // Unparsed replies are counted and shown, and their pairs are absent from the qrels: no 0.
  QVERIFY2(r.out.contains(QString("%1 unparsed").arg(unparsed)), qPrintable(r.out));
  QVERIFY2(r.out.contains("unparsed:   query"), qPrintable(r.out));
  QVERIFY(r.out.contains("no '##final score: N' line"));
  QCOMPARE(QString::fromStdString(readText(out.toStdString())),
           QString::fromStdString(qrelsText(graded)));
}

void TestAssess::killAndResumeLosesNothing() {
  QTemporaryDir dir;
  const Demo demo = readDemo();
  const auto expected = expectedPairs(demo, 10, true);
  const int items = static_cast<int>(expected.size()) * 2;
  const QString log = dir.path() + "/requests.jsonl";
  QProcess server;
  server.start(RAGSCOPE_TESTSERVER_PATH,
               {"--port", "0", "--latency-ms", "10", "--log", log, "--offline-answers"});
  QVERIFY(server.waitForStarted());
  QVERIFY(server.waitForReadyRead(10000));
  const int port = server.readLine().trimmed().toInt();
  QVERIFY(port > 0);
  const QString base = QString("http://127.0.0.1:%1/v1").arg(port);
  const QString store = dir.path() + "/k.db";
  const QString out = dir.path() + "/llm.qrels";
  auto countLines = [&] {
    QFile f(log);
    return f.open(QIODevice::ReadOnly) ? f.readAll().count('\n') : 0;
  };
  QProcess cli;
  cli.start(RAGSCOPE_CLI_PATH,
            QStringList{"assess"} + demoInputs() +
                QStringList{"--depth", "10", "--all", "--repeats", "2", "--judge", base,
                            "--judge-model", "test-model", "--concurrency", "2", "--no-cache",
                            "--store", store, "--out", out, "--quiet"});
  QVERIFY(cli.waitForStarted());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (countLines() < items / 3 && std::chrono::steady_clock::now() < deadline &&
         cli.state() == QProcess::Running)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  QVERIFY2(cli.state() == QProcess::Running, "the run ended before it could be killed");
  cli.kill();
  QVERIFY(cli.waitForFinished(10000));
  QVERIFY(!QFile::exists(out));  // nothing written before the last reply
  std::set<std::string> doneAtKill;
  {
    store::RunStore s;
    std::string err;
    QVERIFY2(s.open(store.toStdString(), &err), err.c_str());
    const auto c = s.counts();
    QCOMPARE(c.total, std::size_t(items));
    QVERIFY(c.done > 0 && c.done < std::size_t(items));
    for (const auto& item : s.items(store::ItemStatus::Done)) doneAtKill.insert(item.key);
  }
  // The resume names the qrels file and the labels store again: a store chooses neither.
  const QString labels = dir.path() + "/labels.db";
  const auto resumed =
      ragscope::test::runCliText({"resume", store, "--out", out, "--labels", labels,
                                  "--labels-scope", "demo", "--quiet", "--no-cache"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
  QVERIFY(resumed.out.contains("assess:"));
  store::RunStore s;
  std::string err;
  QVERIFY(s.open(store.toStdString(), &err));
  QCOMPARE(s.counts().done, std::size_t(items));
  const int requests = countLines();
  // Each call once, but those in flight at the kill (concurrency 2) at most twice.
  QVERIFY2(requests >= items && requests <= items + 2,
           qPrintable(QString("%1 requests for %2 items").arg(requests).arg(items)));
  QCOMPARE(QString::fromStdString(readText(out.toStdString())),
           QString::fromStdString(qrelsText(expected)));
  const QString exported = dir.path() + "/labels.qrels";
  const auto x =
      ragscope::test::runCliText({"labels", "export", "--labels", labels, "--format", "qrels",
                                  "--annotator", "judge:test-model", "--out", exported});
  QVERIFY2(x.exitCode == 0, qPrintable(x.err));
  QCOMPARE(QString::fromStdString(readText(exported.toStdString())),
           QString::fromStdString(qrelsText(expected)));
  server.kill();
  server.waitForFinished(5000);
}

void TestAssess::batchRoute() {
  // The calls go to the test server's Batch API as one batch, and the grades read back from its
  // output file give the same qrels as live calls.
  QTemporaryDir dir;
  const auto expected = expectedPairs(readDemo(), 8, false);
  ragscope::testserver::Options o;
  o.answer = [](const std::string& prompt) {
    return llm::offlineAnswer(llm::OfflineRole::Auto, prompt);
  };
  ragscope::testserver::TestServer server(o);
  QVERIFY(server.start());
  const QString base = QString("http://127.0.0.1:%1/v1").arg(server.port());
  const QString out = dir.path() + "/batch.qrels";
  const auto r = ragscope::test::runCliText(
      QStringList{"assess"} + demoInputs() +
      QStringList{"--depth", "8", "--judge", base, "--judge-model", "test-model", "--no-cache",
                  "--batch", "--batch-poll", "0.05", "--out", out, "--store", dir.path() + "/b.db",
                  "--quiet"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  QCOMPARE(server.batchCounters().batchesCreated, std::size_t{1});
  QCOMPARE(QString::fromStdString(readText(out.toStdString())),
           QString::fromStdString(qrelsText(expected)));
}

QTEST_GUILESS_MAIN(TestAssess)
#include "tst_assess.moc"
