// Agreement of two qrels files (core/trecrag/qrelsagreement.h, `ragscope-cli qrels-agreement`):
// Cohen's kappa on the grades and at a level against values worked out by hand in the comments,
// Kendall's tau-b and Spearman's rho of the system orderings against the hand values (with ties)
// and against a plain O(n^2) count written here, grades off the 0..3 scale and repeats refused
// with file:line: field, and one realistic run on TREC DL 2019's qrels (read in place) against a
// copy with grades changed in the test's folder, checked by an independent count.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/cli.h"
#include "common/files.h"
#include "common/testdata.h"
#include "core/data/loaders.h"
#include "core/metrics/measurename.h"
#include "core/trecrag/qrelsagreement.h"

using namespace ragscope::core;
using ragscope::test::readText;
using ragscope::test::runCliText;
using ragscope::test::writeText;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

Qrels readQrels(const fs::path& path) {
  auto loaded = readTrecQrels(path, LoadOptions{});
  if (!loaded.report.ok() || loaded.report.hasErrors()) qFatal("qrels %s not read", path.c_str());
  return std::move(loaded.value);
}

// The hand-made pair of files. Shared pairs (q1 d1..d5, q2 d6..d10), grades A -> B:
//   d1 0->0  d2 0->0  d3 0->1  d4 1->1  d5 1->2  d6 2->2  d7 2->2  d8 3->3  d9 3->2  d10 3->3
// plus q1 d11 and q3 d20 in A only, q2 d12 and q2 d13 in B only.
const char* kQrelsA =
    "q1 0 d1 0\nq1 0 d2 0\nq1 0 d3 0\nq1 0 d4 1\nq1 0 d5 1\nq1 0 d11 1\n"
    "q2 0 d6 2\nq2 0 d7 2\nq2 0 d8 3\nq2 0 d9 3\nq2 0 d10 3\nq3 0 d20 2\n";
const char* kQrelsB =
    "q1 0 d1 0\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d4 1\nq1 0 d5 2\n"
    "q2 0 d6 2\nq2 0 d7 2\nq2 0 d8 3\nq2 0 d9 2\nq2 0 d10 3\nq2 0 d12 0\nq2 0 d13 3\n";

// Kendall's tau-b by its definition, every pair looked at once (no merge sort).
double tauBByPairs(const std::vector<double>& x, const std::vector<double>& y) {
  double c = 0, d = 0, tx = 0, ty = 0, n0 = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      ++n0;
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx == 0) ++tx;
      if (dy == 0) ++ty;
      if (dx != 0 && dy != 0) (dx * dy > 0 ? c : d) += 1;
    }
  return (c - d) / std::sqrt((n0 - tx) * (n0 - ty));
}

// Cohen's kappa from a confusion matrix of counts (rows: A, columns: B).
double kappaOfCounts(const std::vector<std::vector<double>>& m) {
  double n = 0, agree = 0, pe = 0;
  const std::size_t k = m.size();
  std::vector<double> rows(k, 0), cols(k, 0);
  for (std::size_t r = 0; r < k; ++r)
    for (std::size_t c = 0; c < k; ++c) {
      n += m[r][c];
      rows[r] += m[r][c];
      cols[c] += m[r][c];
      if (r == c) agree += m[r][c];
    }
  for (std::size_t c = 0; c < k; ++c) pe += (rows[c] / n) * (cols[c] / n);
  return (agree / n - pe) / (1 - pe);
}

// Five systems on four queries, each retrieving one document per query, so that P_1 under a
// qrels file is (queries whose document it grades >= 2) / 4. meansA/meansB: the P_1 each system
// is to get under A and under B.
void writeSystems(const fs::path& dir, const std::vector<double>& meansA,
                  const std::vector<double>& meansB) {
  std::string qa, qb;
  for (std::size_t s = 0; s < meansA.size(); ++s) {
    std::string run;
    for (int k = 0; k < 4; ++k) {
      const std::string qid = "t" + std::to_string(k + 1);
      const std::string doc = "s" + std::to_string(s + 1) + "_" + qid;
      run += qid + " Q0 " + doc + " 1 1.0 s" + std::to_string(s + 1) + "\n";
      qa += qid + " 0 " + doc + (k < int(std::lround(meansA[s] * 4)) ? " 2\n" : " 0\n");
      qb += qid + " 0 " + doc + (k < int(std::lround(meansB[s] * 4)) ? " 3\n" : " 1\n");
    }
    writeText(dir / ("s" + std::to_string(s + 1) + ".run"), run);
  }
  writeText(dir / "sys-a.qrels", qa);
  writeText(dir / "sys-b.qrels", qb);
}

// P_1 under A and B of the five systems, with ties on both sides:
//   x = (0.75, 0.5, 0.5, 0.25, 0),  y = (0.5, 0.75, 0.5, 0, 0).
const std::vector<double> kX = {0.75, 0.5, 0.5, 0.25, 0.0};
const std::vector<double> kY = {0.5, 0.75, 0.5, 0.0, 0.0};

}  // namespace

class TestQrelsAgreement : public QObject {
  Q_OBJECT

 private slots:
  // Cohen's kappa on the four grades and at levels 2 and 3, against the hand arithmetic.
  void kappaByHand() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    writeText(dir / "a.qrels", kQrelsA);
    writeText(dir / "b.qrels", kQrelsB);
    const Qrels a = readQrels(dir / "a.qrels"), b = readQrels(dir / "b.qrels");
    QVERIFY(trecrag::gradeScaleProblems(a).empty());
    QVERIFY(trecrag::gradeScaleProblems(b).empty());
    const auto g = trecrag::compareGrades(a, b, 2);
    QCOMPARE(g.shared, std::size_t(10));
    QCOMPARE(g.onlyA, std::size_t(2));  // q1 d11, q3 d20
    QCOMPARE(g.onlyB, std::size_t(2));  // q2 d12, q2 d13
    QCOMPARE(g.queriesShared, std::size_t(2));
    QCOMPARE(g.queriesOnlyA, std::size_t(1));
    QCOMPARE(g.queriesOnlyB, std::size_t(0));
    // 4x4 confusion, rows A's grade, columns B's.
    const std::array<std::array<std::size_t, 4>, 4> grades = {
        {{2, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 2, 0}, {0, 0, 1, 2}}};
    QCOMPARE(g.grades, grades);
    // Grades: p_o = 7/10 (d1 d2 d4 d6 d7 d8 d10 agree). Marginals A: 0:3 1:2 2:2 3:3,
    // B: 0:2 1:2 2:4 3:2. p_e = (3*2 + 2*2 + 2*4 + 3*2) / 100 = 24/100.
    // kappa = (0.70 - 0.24) / (1 - 0.24) = 0.46 / 0.76 = 23/38 = 0.6052631578947368.
    QVERIFY(std::abs(g.kappa - 23.0 / 38.0) < 1e-12);
    QVERIFY(std::abs(g.accuracy - 0.7) < 1e-12);
    // Level 2: A relevant d6..d10 (5), B relevant d5..d10 (6). Confusion [A][B]:
    // (0,0) = d1..d4 = 4, (0,1) = d5 = 1, (1,0) = 0, (1,1) = 5. p_o = 9/10;
    // p_e = (5/10)(4/10) + (5/10)(6/10) = 0.5; kappa = (0.9 - 0.5) / 0.5 = 0.8.
    const std::array<std::array<std::size_t, 2>, 2> binary = {{{4, 1}, {0, 5}}};
    QCOMPARE(g.binary, binary);
    QVERIFY(std::abs(g.binaryKappa - 0.8) < 1e-12);
    QVERIFY(std::abs(g.binaryAccuracy - 0.9) < 1e-12);
    // Level 3: A relevant d8 d9 d10, B relevant d8 d10. (0,0) = 7, (1,0) = d9 = 1, (1,1) = 2.
    // p_o = 0.9; p_e = (7/10)(8/10) + (3/10)(2/10) = 0.62; kappa = 0.28 / 0.38 = 14/19.
    const auto g3 = trecrag::compareGrades(a, b, 3);
    QVERIFY(std::abs(g3.binaryKappa - 14.0 / 19.0) < 1e-12);
    QCOMPARE(g3.kappa, g.kappa);  // the four-grade kappa does not depend on the level
    // Symmetric in A and B (the confusion transposed).
    const auto ba = trecrag::compareGrades(b, a, 2);
    QVERIFY(std::abs(ba.kappa - g.kappa) < 1e-15);
    QCOMPARE(ba.onlyA, g.onlyB);
    QCOMPARE(ba.grades[2][3], g.grades[3][2]);
    // Identical files: kappa 1; nothing shared: undefined, never 0.
    QCOMPARE(trecrag::compareGrades(a, a, 2).kappa, 1.0);
    Qrels other;
    other.byQuery["zz"] = {{"d1", 1, 1}};
    QVERIFY(std::isnan(trecrag::compareGrades(a, other, 2).kappa));
    // A caller that skipped gradeScaleProblems(): the off-scale pair is counted, not compared
    // (and never indexes past the matrix).
    Qrels offScale = b;
    offScale.byQuery["q1"][0].rel = 7;
    QCOMPARE(trecrag::gradeScaleProblems(offScale).size(), std::size_t(1));
    const auto off = trecrag::compareGrades(a, offScale, 2);
    QCOMPARE(off.offScale, std::size_t(1));
    QCOMPARE(off.shared, std::size_t(9));
    QCOMPARE(off.grades[0][0], std::size_t(1));
  }

  // tau-b and rho of the system orderings, through the evaluator, with ties on both sides.
  void systemOrderingsByHand() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    writeSystems(dir, kX, kY);
    const Qrels a = readQrels(dir / "sys-a.qrels"), b = readQrels(dir / "sys-b.qrels");
    std::vector<Run> runs;
    for (int s = 1; s <= 5; ++s) {
      auto run = readTrecRun(dir / ("s" + std::to_string(s) + ".run"), LoadOptions{});
      QVERIFY(run.report.ok() && !run.report.hasErrors());
      runs.push_back(std::move(run.value));
    }
    std::vector<trecrag::NamedRun> named;
    for (int s = 0; s < 5; ++s) named.push_back({"s" + std::to_string(s + 1), &runs[s]});
    EvalSettings settings;
    settings.relevanceLevel = 2;
    settings.measures = {parseMeasureName("P_1").value.request};
    const auto r = trecrag::compareSystems(a, b, named, "P_1", settings);
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.sharedQueries, std::size_t(4));
    for (int s = 0; s < 5; ++s) {
      QCOMPARE(r.systems[s].underA, kX[s]);
      QCOMPARE(r.systems[s].underB, kY[s]);
    }
    // Pairs (i<j) of x and y: (1,2) discordant; (1,3) tied in y; (2,3) tied in x; (4,5) tied in
    // y; the other six concordant. n0 = 10, C = 6, D = 1, n1 = 1, n2 = 2:
    // tau-b = (6 - 1) / sqrt((10 - 1)(10 - 2)) = 5 / sqrt(72) = 0.5892556509887896
    // (scipy.stats.kendalltau gives the same tau-b).
    const double tau = 5.0 / std::sqrt(72.0);
    QVERIFY(std::abs(r.correlation.kendall.value - tau) < 1e-12);
    QVERIFY(std::abs(tauBByPairs(kX, kY) - tau) < 1e-12);
    // Spearman with average ranks: x ranks (5, 3.5, 3.5, 2, 1), y ranks (3.5, 5, 3.5, 1.5, 1.5);
    // both mean 3; deviations dx = (2, .5, .5, -1, -2), dy = (.5, 2, .5, -1.5, -1.5);
    // sum dx dy = 1 + 1 + .25 + 1.5 + 3 = 6.75, sum dx^2 = 9.5, sum dy^2 = 9:
    // rho = 6.75 / sqrt(85.5) = 0.7299964212... (scipy.stats.spearmanr: the same).
    QVERIFY(std::abs(r.correlation.spearman.value - 6.75 / std::sqrt(85.5)) < 1e-12);
    // Ranks, 1 = best, ties sharing their mean rank.
    const std::vector<std::pair<double, double>> ranks = {
        {1, 2.5}, {2.5, 1}, {2.5, 2.5}, {4, 4.5}, {5, 4.5}};
    for (int s = 0; s < 5; ++s) {
      QCOMPARE(r.systems[s].rankA, ranks[s].first);
      QCOMPARE(r.systems[s].rankB, ranks[s].second);
    }
    // Largest swaps: s1 and s2 moved 1.5 (name order), s4 and s5 0.5; s3 did not move.
    const auto swaps = trecrag::largestRankSwaps(r);
    QCOMPARE(swaps.size(), std::size_t(4));
    QCOMPARE(swaps[0].name, std::string("s1"));
    QCOMPARE(swaps[1].name, std::string("s2"));
    QCOMPARE(swaps[2].name, std::string("s4"));
    QCOMPARE(swaps[3].name, std::string("s5"));
  }

  // The command end to end on the same files: JSON and text.
  void cliOnHandMadeFiles() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    writeText(dir / "a.qrels", kQrelsA);
    writeText(dir / "b.qrels", kQrelsB);
    auto r = runCliText({"qrels-agreement", "--qrels", q(dir / "a.qrels"), "--qrels",
                         q(dir / "b.qrels"), "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["pairs"].toObject()["shared"].toInt(), 10);
    QCOMPARE(j["pairs"].toObject()["only_a"].toInt(), 2);
    QCOMPARE(j["pairs"].toObject()["only_b"].toInt(), 2);
    QVERIFY(std::abs(j["grades"].toObject()["kappa"].toDouble() - 23.0 / 38.0) < 1e-12);
    QCOMPARE(j["grades"].toObject()["confusion"].toArray()[3].toArray()[2].toInt(), 1);
    QCOMPARE(j["binary"].toObject()["level"].toInt(), 2);
    QVERIFY(std::abs(j["binary"].toObject()["kappa"].toDouble() - 0.8) < 1e-12);
    QVERIFY(!j.contains("systems"));
    r = runCliText({"qrels-agreement", "--qrels", q(dir / "a.qrels"), "--qrels", q(dir / "b.qrels"),
                    "-l", "3"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("grades 0..3: Cohen's kappa 0.6053, accuracy 0.7000 (n 10"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("binary at level 3 (relevant = grade >= 3): Cohen's kappa 0.7368"),
             qPrintable(r.out));

    writeSystems(dir, kX, kY);
    QStringList args = {"qrels-agreement",
                        "--qrels",
                        q(dir / "sys-a.qrels"),
                        "--qrels",
                        q(dir / "sys-b.qrels"),
                        "--measure",
                        "P@1",
                        "--json"};
    for (int s = 1; s <= 5; ++s) args << "--run" << q(dir / ("s" + std::to_string(s) + ".run"));
    r = runCliText(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject s = QJsonDocument::fromJson(r.out.toUtf8()).object()["systems"].toObject();
    QCOMPARE(s["measure"].toString(), QString("P_1"));
    QCOMPARE(s["relevance_level"].toInt(), 2);
    QVERIFY(std::abs(s["kendall_tau_b"].toDouble() - 5.0 / std::sqrt(72.0)) < 1e-12);
    QVERIFY(std::abs(s["spearman_rho"].toDouble() - 6.75 / std::sqrt(85.5)) < 1e-12);
    const QJsonArray runs = s["runs"].toArray();
    QCOMPARE(runs.size(), 5);
    QCOMPARE(runs[0].toObject()["name"].toString(), QString("s1"));
    QCOMPARE(runs[0].toObject()["mean_a"].toDouble(), 0.75);
    QCOMPARE(runs[1].toObject()["rank_b"].toDouble(), 1.0);
    QCOMPARE(s["largest_rank_swaps"].toArray()[0].toObject()["name"].toString(), QString("s1"));
    // The default measure is nDCG@20 (TREC 2024 RAG).
    args.removeAt(args.indexOf("--measure") + 1);
    args.removeAt(args.indexOf("--measure"));
    r = runCliText(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8())
                 .object()["systems"]
                 .toObject()["measure"]
                 .toString(),
             QString("ndcg_cut_20"));
  }

  // Grades off the scale and repeats: refused with file:line: field, never clamped.
  void badInputsRefused() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    writeText(dir / "a.qrels", kQrelsA);
    writeText(dir / "four.qrels", "q1 0 d1 0\nq1 0 d2 1\nq1 0 d3 4\n");
    writeText(dir / "neg.qrels", "q1 0 d1 -1\n");
    writeText(dir / "twice.qrels", "q1 0 d1 1\nq2 0 d5 1\nq1 0 d1 2\n");
    const std::string four = (dir / "four.qrels").string();
    auto r = runCliText({"qrels-agreement", "--qrels", q(dir / "a.qrels"), "--qrels",
                         QString::fromStdString(four)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QString::fromStdString(four) + ":3: rel: grade 4 of 'd3'"),
             qPrintable(r.err));
    r = runCliText(
        {"qrels-agreement", "--qrels", q(dir / "neg.qrels"), "--qrels", q(dir / "a.qrels")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(q(dir / "neg.qrels") + ":1: rel: grade -1"), qPrintable(r.err));
    r = runCliText(
        {"qrels-agreement", "--qrels", q(dir / "a.qrels"), "--qrels", q(dir / "twice.qrels")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(q(dir / "twice.qrels") +
                            ":3: docno: 'd1' judged twice for query 'q1' (lines 1 and 3)"),
             qPrintable(r.err));
    // The core check counts every problem, returns at most `max`.
    auto loaded = readTrecQrels(dir / "four.qrels", LoadOptions{});
    std::size_t total = 0;
    QCOMPARE(trecrag::gradeScaleProblems(loaded.value, 0, &total).size(), std::size_t(0));
    QCOMPARE(total, std::size_t(1));
    // Usage: one --qrels, a measure with several columns, a level off the scale.
    r = runCliText({"qrels-agreement", "--qrels", q(dir / "a.qrels")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("give --qrels exactly twice"), qPrintable(r.err));
    r = runCliText({"qrels-agreement", "--qrels", q(dir / "a.qrels"), "--qrels", q(dir / "a.qrels"),
                    "--measure", "P"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("yields several columns"), qPrintable(r.err));
    r = runCliText({"qrels-agreement", "--qrels", q(dir / "a.qrels"), "--qrels", q(dir / "a.qrels"),
                    "-l", "4"});
    QCOMPARE(r.exitCode, 2);
    // No pair in common: the report, and exit 1.
    writeText(dir / "other.qrels", "zz 0 d1 1\n");
    r = runCliText(
        {"qrels-agreement", "--qrels", q(dir / "a.qrels"), "--qrels", q(dir / "other.qrels")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains("Cohen's kappa -"), qPrintable(r.out));
  }

  // TREC DL 2019's qrels (9,260 pairs, read in place) against a copy in the test's folder with
  // every 10th grade moved up by one (3 wraps to 0), every 50th pair dropped and three pairs
  // added; kappa checked against a count made here from the two texts, the runs' means under A
  // against the published figures.
  void trecDl2019AgainstChangedCopy() {
    RAGSCOPE_REQUIRE_DATA("msmarco_trecdl/qrels/qrels.dl19-passage.txt");
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const fs::path original =
        ragscope::test::dataPath("msmarco_trecdl/qrels/qrels.dl19-passage.txt");
    std::istringstream in(readText(original));
    std::string line, changed;
    std::map<std::pair<std::string, std::string>, int> gradeA, gradeB;
    for (std::size_t i = 0; std::getline(in, line); ++i) {
      std::istringstream fields(line);
      std::string qid, iter, doc;
      int rel = 0;
      fields >> qid >> iter >> doc >> rel;
      gradeA[{qid, doc}] = rel;
      if (i % 50 == 7) continue;
      if (i % 10 == 3) rel = (rel + 1) % 4;
      gradeB[{qid, doc}] = rel;
      changed += qid + " 0 " + doc + " " + std::to_string(rel) + "\n";
    }
    for (const char* doc : {"x1", "x2", "x3"}) {
      changed += std::string("19335 0 ") + doc + " 1\n";
      gradeB[{"19335", doc}] = 1;
    }
    writeText(dir / "changed.qrels", changed);
    // The independent count: confusion matrices straight from the two maps.
    std::vector<std::vector<double>> m4(4, std::vector<double>(4, 0)),
        m2(2, std::vector<double>(2, 0));
    std::size_t shared = 0;
    for (const auto& [pair, ga] : gradeA) {
      const auto it = gradeB.find(pair);
      if (it == gradeB.end()) continue;
      ++shared;
      m4[ga][it->second] += 1;
      m2[ga >= 2][it->second >= 2] += 1;
    }
    QCOMPARE(gradeA.size(), std::size_t(9260));
    QCOMPARE(shared, std::size_t(9260 - 186));  // lines 7, 57, ..., 9257: 186 dropped

    const fs::path runs = ragscope::test::dataPath("msmarco_trecdl/runs");
    QStringList args = {"qrels-agreement",        "--qrels",   q(original),   "--qrels",
                        q(dir / "changed.qrels"), "--measure", "ndcg_cut_10", "--json"};
    for (const char* run :
         {"run.msmarco-v1-passage.bm25-default.dl19.txt", "rank_llm/BM25/trec_results_dl19.txt",
          "rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl19.txt",
          "rank_llm/OPEN_AI_ADA2/trec_results_dl19.txt"})
      args << "--run" << q(runs / run);
    const auto r = runCliText(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["pairs"].toObject()["shared"].toInt(), int(shared));
    QCOMPARE(j["pairs"].toObject()["only_a"].toInt(), 186);
    QCOMPARE(j["pairs"].toObject()["only_b"].toInt(), 3);
    QVERIFY(std::abs(j["grades"].toObject()["kappa"].toDouble() - kappaOfCounts(m4)) < 1e-12);
    QVERIFY(std::abs(j["binary"].toObject()["kappa"].toDouble() - kappaOfCounts(m2)) < 1e-12);
    for (int ra = 0; ra < 4; ++ra)
      for (int cb = 0; cb < 4; ++cb)
        QCOMPARE(j["grades"].toObject()["confusion"].toArray()[ra].toArray()[cb].toInt(),
                 int(m4[ra][cb]));
    // Under A (the original qrels) the runs' nDCG@10 are the published figures
    // (msmarco_trecdl/runs/EXPECTED.md): 0.5058, 0.5058, 0.7308, 0.7035.
    const QJsonObject s = j["systems"].toObject();
    QCOMPARE(s["queries"].toInt(), 43);
    const QJsonArray systems = s["runs"].toArray();
    const double published[] = {0.5058, 0.5058, 0.7308, 0.7035};
    std::vector<double> underA, underB;
    for (int i = 0; i < 4; ++i) {
      const QJsonObject run = systems[i].toObject();
      QVERIFY2(std::abs(run["mean_a"].toDouble() - published[i]) < 5e-5,
               qPrintable(QString::number(run["mean_a"].toDouble())));
      underA.push_back(run["mean_a"].toDouble());
      underB.push_back(run["mean_b"].toDouble());
    }
    QVERIFY(std::abs(s["kendall_tau_b"].toDouble() - tauBByPairs(underA, underB)) < 1e-12);
  }
};

QTEST_GUILESS_MAIN(TestQrelsAgreement)
#include "tst_qrelsagreement.moc"
