// Nugget scores (core/trecrag/nuggetfile.h, nuggetscore.h, `ragscope-cli nuggets score`): the
// AutoNuggetizer's four scores on hand-made files in nuggetizer's JSONL layout, worked out in the
// comments as nuggetizer's calculate_nugget_scores computes them (a query without a vital nugget
// and one without nuggets included), the strict reading's file:line: field: problem messages,
// and the command end to end.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <string>

#include "common/cli.h"
#include "common/files.h"
#include "core/trecrag/nuggetfile.h"
#include "core/trecrag/nuggetscore.h"

using namespace ragscope::core;
using namespace ragscope::core::trecrag;
using ragscope::test::diagnosticsText;
using ragscope::test::runCliText;
using ragscope::test::writeText;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// Four queries, with what nuggetizer would make of them:
//  q1: vital support, vital partial, vital not, okay support, okay partial
//      strict_vital 1/3, vital (1 + 0.5)/3 = 0.5, strict_all 2/5 = 0.4, all (2 + 1)/5 = 0.6
//  q2: okay support, okay not_support (no vital nugget)
//      strict_vital 0, vital 0, strict_all 1/2, all 1/2
//  q3: no nuggets: all four 0
//  4 (an integer qid): vital support, vital support: all four 1
// Means over the 4 queries: strict_vital (1/3 + 0 + 0 + 1)/4 = 1/3,
// strict_all (0.4 + 0.5 + 0 + 1)/4 = 0.475, vital (0.5 + 0 + 0 + 1)/4 = 0.375,
// all (0.6 + 0.5 + 0 + 1)/4 = 0.525.
const char* kAssigned =
    R"({"query": "what is a nugget", "qid": "q1", "answer_text": "...", "run_id": "r", "nuggets": [)"
    R"({"text": "a", "importance": "vital", "assignment": "support"},)"
    R"({"text": "b", "importance": "vital", "assignment": "partial_support", "reason": "x"},)"
    R"({"text": "c", "importance": "vital", "assignment": "not_support"},)"
    R"({"text": "d", "importance": "okay", "assignment": "support"},)"
    R"({"text": "e", "importance": "okay", "assignment": "partial_support"}]})"
    "\n"
    R"({"qid": "q2", "query": "no vital", "nuggets": [)"
    R"({"text": "f", "importance": "okay", "assignment": "support"},)"
    R"({"text": "g", "importance": "okay", "assignment": "not_support"}]})"
    "\n\n"
    R"({"qid": "q3", "query": "none", "nuggets": []})"
    "\n"
    R"({"qid": 4, "query": "all vital", "nuggets": [)"
    R"({"text": "h", "importance": "vital", "assignment": "support"},)"
    R"({"text": "i", "importance": "vital", "assignment": "support"}]})"
    "\n";

bool near(double a, double b) { return std::abs(a - b) < 1e-12; }

// The first error of reading `text` as a nugget file, as printed.
std::string firstError(const fs::path& dir, const std::string& text) {
  const fs::path file = dir / "bad.jsonl";
  writeText(file, text);
  const auto loaded = readAssignedNuggets(file);
  if (loaded.report.ok() && !loaded.report.hasErrors()) return "(no error)";
  for (const auto& d : loaded.report.diagnostics)
    if (d.severity == Severity::Error) return d.toString();
  return "(no error stored)";
}

}  // namespace

class TestNuggets : public QObject {
  Q_OBJECT

 private slots:
  void scoresByHand() {
    QTemporaryDir tmp;
    const fs::path file = fs::path(tmp.path().toStdString()) / "assigned.jsonl";
    writeText(file, kAssigned);
    const auto loaded = readAssignedNuggets(file);
    QVERIFY2(loaded.report.ok() && !loaded.report.hasErrors(),
             qPrintable(diagnosticsText(loaded.report)));
    QCOMPARE(loaded.value.size(), std::size_t(4));
    QCOMPARE(loaded.value[0].query, std::string("what is a nugget"));
    QCOMPARE(loaded.value[3].qid, std::string("4"));
    QCOMPARE(loaded.value[3].line, std::uint64_t(5));  // the blank line counts as a line
    const auto t = scoreNuggetQueries(loaded.value);
    QCOMPARE(t.queries.size(), std::size_t(4));
    const auto& q1 = t.queries[0];
    QVERIFY(near(q1.strictVital, 1.0 / 3.0) && near(q1.vital, 0.5));
    QVERIFY(near(q1.strictAll, 0.4) && near(q1.all, 0.6));
    const auto& q2 = t.queries[1];  // no vital nugget: 0 on the vital scores
    QCOMPARE(q2.vitalNuggets, std::size_t(0));
    QVERIFY(q2.strictVital == 0.0 && q2.vital == 0.0);
    QVERIFY(near(q2.strictAll, 0.5) && near(q2.all, 0.5));
    const auto& q3 = t.queries[2];  // no nuggets: 0 on all four
    QVERIFY(q3.strictVital == 0.0 && q3.vital == 0.0 && q3.strictAll == 0.0 && q3.all == 0.0);
    const auto& q4 = t.queries[3];
    QVERIFY(q4.strictVital == 1.0 && q4.vital == 1.0 && q4.strictAll == 1.0 && q4.all == 1.0);
    QVERIFY(near(t.mean.strictVital, 1.0 / 3.0));
    QVERIFY(near(t.mean.strictAll, 0.475));
    QVERIFY(near(t.mean.vital, 0.375));
    QVERIFY(near(t.mean.all, 0.525));
    QCOMPARE(t.mean.nuggets, std::size_t(9));
    QCOMPARE(t.mean.vitalNuggets, std::size_t(5));
  }

  // Every departure from the layout: file:line: field: problem, never a 0.
  void badInputsNamed() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const std::string f = (dir / "bad.jsonl").string();
    const std::string ok =
        R"({"qid": "a", "query": "x", "nuggets": [{"text": "t", "importance": "vital", "assignment": "support"}]})"
        "\n";
    QCOMPARE(firstError(dir, ok), std::string("(no error)"));
    auto check = [&](const std::string& text, const std::string& expected) {
      const std::string got = firstError(dir, text);
      QVERIFY2(got.rfind(f + expected, 0) == 0, (got + "\n  expected " + f + expected).c_str());
    };
    // An importance or assignment spelt otherwise (nuggetizer would silently count these as
    // okay / not supported).
    check(
        ok +
            R"({"qid": "b", "nuggets": [{"text": "t", "importance": "Vital", "assignment": "support"}]})",
        ":2: nuggets[0].importance: 'Vital' is not an importance");
    check(
        ok +
            R"({"qid": "b", "nuggets": [{"text": "t", "importance": "okay", "assignment": "support"}, {"text": "u", "importance": "okay", "assignment": "supported"}]})",
        ":2: nuggets[1].assignment: 'supported' is not an assignment");
    check(R"({"qid": "b", "nuggets": [{"text": "t", "importance": "okay", "assignment": 1}]})",
          ":1: nuggets[0].assignment: 1 is not an assignment");
    check(R"({"qid": "b", "nuggets": [{"text": "t", "importance": "okay"}]})",
          ":1: nuggets[0].assignment: missing an assignment");
    check(R"({"qid": "b", "nuggets": [{"importance": "okay", "assignment": "support"}]})",
          ":1: nuggets[0].text: missing");
    check(R"({"qid": "b", "nuggets": ["a nugget"]})", ":1: nuggets[0]: expected an object");
    check(R"({"qid": "b", "nuggets": {}})", ":1: nuggets: expected an array");
    check(R"({"qid": "b"})", ":1: nuggets: missing");
    check(R"({"nuggets": []})", ":1: qid: ");
    check(R"({"qid": "", "nuggets": []})", ":1: qid: is empty");
    check(R"({"qid": "b", "query": 3, "nuggets": []})", ":1: query: ");
    check(ok + ok, ":2: qid: 'a' appears again (first on line 1)");
    check(R"({"qid": "b", "qid": "c", "nuggets": []})", ":1: qid: member \"qid\" appears twice");
    check(ok + "[1, 2]\n", ":2: record: expected a JSON object");
    check(ok + "{\"qid\": \n", ":2: record: ");
    // An empty file scores nothing (nuggetizer's mean of nothing fails too).
    check("\n", ": no queries");
  }

  void cliScore() {
    QTemporaryDir tmp;
    const fs::path file = fs::path(tmp.path().toStdString()) / "assigned.jsonl";
    writeText(file, kAssigned);
    auto r = runCliText({"nuggets", "score", q(file)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(r.out, QString("strict_vital          \tall\t0.3333\n"
                            "strict_all            \tall\t0.4750\n"
                            "vital                 \tall\t0.3750\n"
                            "all                   \tall\t0.5250\n"));
    r = runCliText({"nuggets", "score", q(file), "-q"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("strict_vital          \tq1\t0.3333\n"
                              "strict_all            \tq1\t0.4000\n"
                              "vital                 \tq1\t0.5000\n"
                              "all                   \tq1\t0.6000\n"),
             qPrintable(r.out));
    QVERIFY(r.out.contains("vital                 \tq2\t0.0000\n"));
    QVERIFY(r.out.endsWith("all                   \tall\t0.5250\n"));
    r = runCliText({"nuggets", "score", q(file), "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["n"].toInt(), 4);
    const QJsonArray rows = j["queries"].toArray();
    QCOMPARE(rows.size(), 4);
    QCOMPARE(rows[0].toObject()["qid"].toString(), QString("q1"));
    QVERIFY(near(rows[0].toObject()["strict_vital"].toDouble(), 1.0 / 3.0));
    QCOMPARE(rows[0].toObject()["all"].toDouble(), 0.6);
    QCOMPARE(rows[3].toObject()["qid"].toString(), QString("4"));
    const QJsonObject mean = j["mean"].toObject();
    QCOMPARE(mean.keys(), (QStringList{"all", "strict_all", "strict_vital", "vital"}));
    QVERIFY(near(mean["strict_vital"].toDouble(), 1.0 / 3.0));
    QVERIFY(near(mean["strict_all"].toDouble(), 0.475));
    QVERIFY(near(mean["vital"].toDouble(), 0.375));
    QVERIFY(near(mean["all"].toDouble(), 0.525));

    // A bad file: the message, exit 2, nothing on stdout.
    const fs::path bad = fs::path(tmp.path().toStdString()) / "bad.jsonl";
    writeText(
        bad,
        R"({"qid": "a", "nuggets": [{"text": "t", "importance": "vital", "assignment": "maybe"}]})"
        "\n");
    r = runCliText({"nuggets", "score", q(bad)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.contains(q(bad) + ":1: nuggets[0].assignment: 'maybe' is not an assignment"),
             qPrintable(r.err));
    // Only `score` exists: create and assign are no subcommands (yet), and help lists score only.
    r = runCliText({"nuggets", "create"});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, QString("ragscope-cli nuggets: unknown subcommand 'create' (expected score)\n"
                            "Run 'ragscope-cli nuggets --help' for usage.\n"));
    r = runCliText({"nuggets", "--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("score") && !r.out.contains("create") && !r.out.contains("assign "));
    r = runCliText({"nuggets"});
    QCOMPARE(r.exitCode, 2);
    r = runCliText({"nuggets", "score"});
    QCOMPARE(r.exitCode, 2);
  }
};

QTEST_GUILESS_MAIN(TestNuggets)
#include "tst_nuggets.moc"
