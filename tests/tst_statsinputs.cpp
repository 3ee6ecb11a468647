// The statistics commands' inputs in core (core/eval/inputs/statsinputs.h): per-query files and
// TREC runs evaluated against qrels, values handed out by any spelling of a measure name, and the
// messages the readers leave. The CLI's bootstrap / compare / correlate read through this (their
// end-to-end tests are in tst_stats).

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "core/eval/inputs/statsinputs.h"

using namespace ragscope::core;
using ragscope::core::eval::StatsInputRequest;
using ragscope::core::eval::StatsInputs;

namespace {

std::string writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

bool contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

class TestStatsInputs : public QObject {
  Q_OBJECT

 private slots:
  void perQueryFileBySpelling() {
    QTemporaryDir dir;
    const auto a = writeFile(dir, "a.txt",
                             "ndcg_cut_10\t1\t0.5\nndcg_cut_10\t2\t0.25\nndcg_cut_10\tall\t0.375\n"
                             "P_5\t1\t0.2\nP_5\t2\t0.4\n");
    StatsInputs inputs;
    QVERIFY(inputs.load(StatsInputRequest{{a}, {}, {}, {}, 0}));
    QVERIFY(inputs.messages().empty());
    QVERIFY(!inputs.soleMeasure());  // two measures
    for (const char* spelling : {"ndcg_cut_10", "ndcg_cut.10", "nDCG@10"}) {
      std::string error;
      const auto* v = inputs.values(0, spelling, &error);
      QVERIFY2(v, error.c_str());
      QCOMPARE(v->size(), std::size_t{2});  // the `all` row is not a query
      QCOMPARE(v->at("2"), 0.25);
    }
    std::string error;
    QVERIFY(!inputs.values(0, "map", &error));
    QCOMPARE(error, a + ": no per-query values for measure 'map' (have: P_5 ndcg_cut_10)");
  }

  void soleMeasure() {
    QTemporaryDir dir;
    const auto a = writeFile(dir, "a.txt", "map 1 0.5\nmap 2 0.6\n");
    StatsInputs inputs;
    QVERIFY(inputs.load(StatsInputRequest{{a}, {}, {}, {}, 0}));
    QCOMPARE(inputs.soleMeasure().value_or(""), std::string("map"));
  }

  void unreadableInputs() {
    QTemporaryDir dir;
    const auto bad = writeFile(dir, "bad.txt", "map 1 0.5\nmap 2 oops\n");
    StatsInputs inputs;
    QVERIFY(!inputs.load(StatsInputRequest{{bad}, {}, {}, {}, 0}));
    QVERIFY(contains(inputs.messages(), ":2: value: not a number: 'oops'"));
    const auto empty = writeFile(dir, "empty.txt", "# nothing\n");
    QVERIFY(!inputs.load(StatsInputRequest{{empty}, {}, {}, {}, 0}));
    QVERIFY(contains(inputs.messages(),
                     empty + ": no per-query values (is it `trec_eval -q` output?)"));
  }

  void runsEvaluatedAgainstQrels() {
    QTemporaryDir dir;
    const auto qrels = writeFile(dir, "qrels", "1 0 a 1\n1 0 b 0\n2 0 c 1\n");
    const auto run =
        writeFile(dir, "run", "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 d 1 1 r\n2 Q0 c 2 0.5 r\n");
    StatsInputs inputs;
    StatsInputRequest request{{run}, {"P.1"}, "recip_rank", qrels, 1};
    QVERIFY2(inputs.load(request), inputs.messages().empty() ? "" : inputs.messages()[0].c_str());
    std::string error;
    const auto* p1 = inputs.values(0, "P_1", &error);
    QVERIFY2(p1, error.c_str());
    QCOMPARE(p1->at("1"), 1.0);
    QCOMPARE(p1->at("2"), 0.0);
    const auto* rr = inputs.values(0, "RR", &error);  // the ir_measures name of recip_rank
    QVERIFY2(rr, error.c_str());
    QCOMPARE(rr->at("2"), 0.5);

    // An unknown measure is an error when no run store could hold it.
    StatsInputs unknown;
    QVERIFY(!unknown.load(StatsInputRequest{{run}, {"rouge-l"}, {}, qrels, 1}));
    QVERIFY(contains(unknown.messages(), "unknown measure 'rouge-l'"));
    // And a run with no retrieval measure to evaluate says so.
    StatsInputs none;
    QVERIFY(!none.load(StatsInputRequest{{run}, {}, {}, qrels, 1}));
    QVERIFY(contains(none.messages(), "no retrieval measure to evaluate " + run + " with"));
  }

  void measureLabels() {
    QCOMPARE(eval::statsMeasureLabel("ndcg_cut.10"), std::string("ndcg_cut_10"));
    QCOMPARE(eval::statsMeasureLabel("P@5"), std::string("P_5"));
    QCOMPARE(eval::statsMeasureLabel("map"), std::string("map"));
    // Not a retrieval measure (a run store's metric): as written.
    QCOMPARE(eval::statsMeasureLabel("rouge-l"), std::string("rouge-l"));
    QCOMPARE(eval::statsMeasureLabel("ragchecker.precision"), std::string("ragchecker.precision"));
    // P alone yields P_5 ... P_1000: no one column.
    QCOMPARE(eval::statsMeasureLabel("P"), std::string("P"));
  }
};

QTEST_GUILESS_MAIN(TestStatsInputs)
#include "tst_statsinputs.moc"
