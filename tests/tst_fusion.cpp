// Run fusion (core/retrieval/fusion.h) and score normalisation (scorenorm.h) against ranx's
// definitions: small runs whose fused scores are worked out by hand in the comments, random runs
// against a plain re-implementation of ranx's formulas written here (maps, as ranx's dicts), the
// exact round trip of the fused scores written, and `ragscope-cli fuse` end to end with its
// error cases.

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/files.h"
#include "core/data/loaders.h"
#include "core/retrieval/fusion.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/scorenorm.h"

using namespace ragscope::core;
using ragscope::test::readText;
using ragscope::test::runCliText;
using ragscope::test::writeText;
namespace fs = std::filesystem;

namespace {

struct Line {
  std::string qid, doc;
  double score;
};

// A run as a reader would hold it: rankings in order of first appearance, entries in line order,
// line numbers from 1.
Run makeRun(const std::vector<Line>& lines, const std::string& source = "run") {
  Run run;
  run.source = source;
  run.tag = source;
  std::uint32_t lineNo = 0;
  for (const Line& l : lines) {
    ++lineNo;
    Ranking* ranking = nullptr;
    for (auto& r : run.rankings)
      if (r.queryId == l.qid) ranking = &r;
    if (!ranking) {
      run.rankings.emplace_back();
      ranking = &run.rankings.back();
      ranking->queryId = l.qid;
    }
    const std::string_view doc = run.arena->store(l.doc);
    ranking->entries.push_back(
        RunEntry{doc.data(), static_cast<std::uint32_t>(doc.size()), lineNo, l.score});
  }
  return run;
}

using Fused = std::vector<std::pair<std::string, double>>;

// The fused ranking of `qid`, best first, as (docno, score).
Fused rankingOf(const Run& run, const std::string& qid) {
  Fused out;
  for (const auto& r : run.rankings)
    if (r.queryId == qid)
      for (const auto& e : r.entries) out.emplace_back(std::string(e.docId()), e.score);
  return out;
}

Loaded<Run> fuse(const std::vector<const Run*>& runs, FusionMethod method,
                 ScoreNorm norm = ScoreNorm::MinMax, std::vector<double> weights = {},
                 double k = kDefaultRrfK, std::size_t depth = 0) {
  FusionOptions o;
  o.method = method;
  o.norm = norm;
  o.weights = std::move(weights);
  o.rrfK = k;
  o.depth = depth;
  return fuseRuns(runs, o);
}

QString text(const Fused& f) {
  QString s;
  for (const auto& [doc, score] : f) s += QString("%1=%2 ").arg(doc.c_str()).arg(score, 0, 'g', 17);
  return s;
}

// ---- The reference: ranx's formulas as written in ranx/normalization and ranx/fusion, over
// ---- maps (ranx's {q_id: {doc_id: score}} dicts). Sums run in docno order here, not in ranking
// ---- order as in the engine, so the two agree to rounding, not bit for bit.
using Dict = std::map<std::string, double>;
using RunDict = std::map<std::string, Dict>;

// A dict's documents best first; equal scores by docno descending (ragscope's stated rule: ranx
// leaves the order of ties to numpy's argsort).
std::vector<std::string> byScore(const Dict& d) {
  std::vector<std::string> docs;
  for (const auto& kv : d) docs.push_back(kv.first);
  std::sort(docs.begin(), docs.end(), [&](const std::string& a, const std::string& b) {
    if (d.at(a) != d.at(b)) return d.at(a) > d.at(b);
    return a > b;
  });
  return docs;
}

Dict refNorm(const Dict& d, ScoreNorm norm) {
  if (d.empty() || norm == ScoreNorm::None) return d;
  double mn = std::numeric_limits<double>::infinity(), mx = -mn, sum = 0;
  for (const auto& [doc, s] : d) {
    mn = std::min(mn, s);
    mx = std::max(mx, s);
    sum += s;
  }
  const double n = static_cast<double>(d.size());
  Dict out;
  for (const auto& [doc, s] : d) {
    switch (norm) {
      case ScoreNorm::MinMax:  // _min_max_norm: (s - min) / max(max - min, 1e-9)
        out[doc] = (s - mn) / std::max(mx - mn, 1e-9);
        break;
      case ScoreNorm::Max:  // _max_norm: s / max(max, 1e-9)
        out[doc] = s / std::max(mx, 1e-9);
        break;
      case ScoreNorm::Sum:  // _sum_norm: (s - min) / max(sum - min * n, 1e-9)
        out[doc] = (s - mn) / std::max(sum - mn * n, 1e-9);
        break;
      case ScoreNorm::Zmuv: {  // _zmuv_norm: (s - mean) / max(np.std, 1e-9), np.std with ddof 0
        const double mean = sum / n;
        double ss = 0;
        for (const auto& kv : d) ss += (kv.second - mean) * (kv.second - mean);
        out[doc] = (s - mean) / std::max(std::sqrt(ss / n), 1e-9);
        break;
      }
      case ScoreNorm::None:
        break;
    }
  }
  return out;
}

RunDict refFuse(const std::vector<RunDict>& runs, FusionMethod method, ScoreNorm norm,
                const std::vector<double>& weights, double k) {
  std::set<std::string> queries;
  for (const auto& r : runs)
    for (const auto& kv : r) queries.insert(kv.first);
  RunDict out;
  for (const auto& q : queries) {
    std::vector<Dict> per;
    for (const auto& r : runs) {
      const Dict d = r.count(q) ? r.at(q) : Dict{};
      if (method == FusionMethod::Rrf) {  // _rrf_score: 1 / (k + i + 1), then comb_sum
        Dict rr;
        const auto docs = byScore(d);
        for (std::size_t i = 0; i < docs.size(); ++i) rr[docs[i]] = 1 / (k + i + 1);
        per.push_back(rr);
      } else {
        per.push_back(refNorm(d, norm));
      }
    }
    std::set<std::string> docs;
    for (const auto& d : per)
      for (const auto& kv : d) docs.insert(kv.first);
    for (const auto& doc : docs) {
      double sum = 0;
      int holding = 0;
      for (std::size_t i = 0; i < per.size(); ++i) {
        const auto it = per[i].find(doc);
        const double s = it == per[i].end() ? 0.0 : it->second;  // res.get(doc_id, 0.0)
        holding += it != per[i].end();
        sum += method == FusionMethod::WeightedSum ? weights[i] * s : s;
      }
      out[q][doc] = method == FusionMethod::CombMnz ? sum * holding : sum;  // sum * len(scores)
    }
  }
  return out;
}

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max({1.0, std::abs(a), std::abs(b)});
}

// Whether a ranking is in trec_eval's order: score descending, ties by docno descending.
bool inTrecOrder(const Ranking& r) {
  for (std::size_t i = 1; i < r.entries.size(); ++i) {
    const RunEntry& a = r.entries[i - 1];
    const RunEntry& b = r.entries[i];
    if (a.score < b.score || (a.score == b.score && a.docId() <= b.docId())) return false;
  }
  return true;
}

std::string shortest(double v) {
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

}  // namespace

class TstFusion : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path dir() const { return fs::path(m_dir.path().toStdString()); }
  fs::path file(const std::string& name, const std::string& text) const {
    writeText(dir() / name, text);
    return dir() / name;
  }

 private slots:
  // Every normalisation on a ranking worked out by hand.
  void normalisationsByHand() {
    // min-max of {5, 3, 1}: (s - 1) / 4 = 1, 0.5, 0.
    std::vector<double> s{5, 3, 1};
    normaliseScores(s, ScoreNorm::MinMax);
    QCOMPARE(s, (std::vector<double>{1, 0.5, 0}));
    // max of {4, 2, 1, 1}: s / 4.
    s = {4, 2, 1, 1};
    normaliseScores(s, ScoreNorm::Max);
    QCOMPARE(s, (std::vector<double>{1, 0.5, 0.25, 0.25}));
    // sum of {4, 2, 1, 1}: sum 8, min x n = 4, so (s - 1) / 4.
    s = {4, 2, 1, 1};
    normaliseScores(s, ScoreNorm::Sum);
    QCOMPARE(s, (std::vector<double>{0.75, 0.25, 0, 0}));
    // zmuv of {4, 0, 4, 0}: mean 2, population variance (4+4+4+4)/4 = 4, std 2 (the sample std
    // would be 2.309...): (s - 2) / 2.
    s = {4, 0, 4, 0};
    normaliseScores(s, ScoreNorm::Zmuv);
    QCOMPARE(s, (std::vector<double>{1, -1, 1, -1}));
    // zmuv of {6, 2, 2, 2}: mean 3, variance (9+1+1+1)/4 = 3, std sqrt(3).
    s = {6, 2, 2, 2};
    normaliseScores(s, ScoreNorm::Zmuv);
    QCOMPARE(s[0], 3 / std::sqrt(3.0));
    QCOMPARE(s[3], -1 / std::sqrt(3.0));
    // none leaves them.
    s = {6, -2};
    normaliseScores(s, ScoreNorm::None);
    QCOMPARE(s, (std::vector<double>{6, -2}));
  }

  // ranx's 1e-9 floor on every denominator.
  void normalisationFloor() {
    // All equal: min-max, sum and zmuv divide 0 by the floor; max divides by the max.
    for (ScoreNorm n : {ScoreNorm::MinMax, ScoreNorm::Sum, ScoreNorm::Zmuv}) {
      std::vector<double> s{7, 7, 7};
      normaliseScores(s, n);
      QCOMPARE(s, (std::vector<double>{0, 0, 0}));
    }
    std::vector<double> s{7, 7};
    normaliseScores(s, ScoreNorm::Max);
    QCOMPARE(s, (std::vector<double>{1, 1}));
    // A spread below 1e-9: divided by 1e-9, not by the spread (which would give 1).
    s = {1 + 1e-10, 1};
    normaliseScores(s, ScoreNorm::MinMax);
    QCOMPARE(s[0], ((1 + 1e-10) - 1) / 1e-9);  // about 0.1
    QVERIFY(s[0] > 0.09 && s[0] < 0.11);
    // max norm of a ranking whose best score is negative: ranx divides by the floor.
    s = {-2, -4};
    normaliseScores(s, ScoreNorm::Max);
    QCOMPARE(s, (std::vector<double>{-2 / 1e-9, -4 / 1e-9}));
    QVERIFY(std::abs(s[0] + 2e9) < 1e-3);
  }

  void names() {
    for (const char* n : {"none", "min-max", "max", "sum", "zmuv"})
      QCOMPARE(scoreNormName(*scoreNormFromName(n)), n);
    QCOMPARE(*scoreNormFromName("min_max"), ScoreNorm::MinMax);
    QVERIFY(!scoreNormFromName("borda"));
    for (const char* m : {"rrf", "combsum", "combmnz", "wsum"})
      QCOMPARE(fusionMethodName(*fusionMethodFromName(m)), m);
    QVERIFY(!fusionMethodFromName("comb_sum"));
  }

  // RRF by hand, k = 60.
  //   A: d1 3, d2 2, d3 1        ranks d1 1, d2 2, d3 3
  //   B: d3 9, d4 8, d1 7        ranks d3 1, d4 2, d1 3
  //   d1 = 1/61 + 1/63 = d3 (124/3843 = 0.032266...), d2 = d4 = 1/62
  //   ties by docno descending: d3, d1, d4, d2.
  void rrfByHand() {
    const Run a = makeRun({{"q1", "d1", 3}, {"q1", "d2", 2}, {"q1", "d3", 1}}, "a");
    const Run b = makeRun({{"q1", "d3", 9}, {"q1", "d4", 8}, {"q1", "d1", 7}}, "b");
    const auto f = fuse({&a, &b}, FusionMethod::Rrf);
    QVERIFY(!f.report.hasErrors());
    const Fused got = rankingOf(f.value, "q1");
    const Fused want{{"d3", 1.0 / 63 + 1.0 / 61},
                     {"d1", 1.0 / 61 + 1.0 / 63},
                     {"d4", 1.0 / 62},
                     {"d2", 1.0 / 62}};
    QCOMPARE(text(got), text(want));
    QVERIFY(std::abs(got[0].second - 124.0 / 3843) < 1e-15);
    QCOMPARE(f.value.tag, std::string("rrf"));
    // k = 0: d1 = 1/1 + 1/3 = 4/3, d3 = 1/3 + 1 = 4/3, d2 = d4 = 1/2.
    const auto k0 = fuse({&a, &b}, FusionMethod::Rrf, ScoreNorm::MinMax, {}, 0);
    QCOMPARE(rankingOf(k0.value, "q1")[1], (std::pair<std::string, double>{"d1", 1 + 1.0 / 3}));
    QCOMPARE(rankingOf(k0.value, "q1")[3], (std::pair<std::string, double>{"d2", 0.5}));
  }

  // RRF's ranks come from the scores in trec_eval's order, not from the line order; and no
  // normalisation changes them.
  void rrfRanksFromScores() {
    // A's lines out of order; d5 and d7 tie at 2, so d7 ranks 2 and d5 ranks 3 (docno desc).
    const Run a = makeRun({{"q", "d5", 2}, {"q", "d1", 1}, {"q", "d9", 4}, {"q", "d7", 2}}, "a");
    const Run b = makeRun({{"q", "d1", 1}}, "b");
    for (ScoreNorm n : {ScoreNorm::None, ScoreNorm::MinMax, ScoreNorm::Zmuv, ScoreNorm::Sum}) {
      const auto f = fuse({&a, &b}, FusionMethod::Rrf, n);
      // d9 1/61, d7 1/62, d5 1/63, d1 1/64 + 1/61.
      const Fused want{
          {"d1", 1.0 / 64 + 1.0 / 61}, {"d9", 1.0 / 61}, {"d7", 1.0 / 62}, {"d5", 1.0 / 63}};
      QCOMPARE(text(rankingOf(f.value, "q")), text(want));
    }
  }

  // CombSUM, CombMNZ and wsum after min-max, by hand.
  //   A: d1 5, d2 3, d3 1   -> (s - 1) / 4  = d1 1,   d2 0.5, d3 0
  //   B: d2 10, d4 6, d1 2  -> (s - 2) / 8  = d2 1,   d4 0.5, d1 0
  //   combsum: d1 1 + 0 = 1, d2 0.5 + 1 = 1.5, d3 0, d4 0.5 (d3 and d4 missing from a run: 0)
  //   combmnz: d1 1 x 2 = 2, d2 1.5 x 2 = 3, d3 0 x 1 = 0, d4 0.5 x 1 = 0.5
  //   wsum 0.25, 0.75: d1 0.25, d2 0.125 + 0.75 = 0.875, d3 0, d4 0.375
  void combByHand() {
    const Run a = makeRun({{"q1", "d1", 5}, {"q1", "d2", 3}, {"q1", "d3", 1}}, "a");
    const Run b = makeRun({{"q1", "d2", 10}, {"q1", "d4", 6}, {"q1", "d1", 2}}, "b");
    QCOMPARE(text(rankingOf(fuse({&a, &b}, FusionMethod::CombSum).value, "q1")),
             text({{"d2", 1.5}, {"d1", 1}, {"d4", 0.5}, {"d3", 0}}));
    QCOMPARE(text(rankingOf(fuse({&a, &b}, FusionMethod::CombMnz).value, "q1")),
             text({{"d2", 3}, {"d1", 2}, {"d4", 0.5}, {"d3", 0}}));
    QCOMPARE(text(rankingOf(
                 fuse({&a, &b}, FusionMethod::WeightedSum, ScoreNorm::MinMax, {0.25, 0.75}).value,
                 "q1")),
             text({{"d2", 0.875}, {"d4", 0.375}, {"d1", 0.25}, {"d3", 0}}));
    // No normalisation: combsum d1 5 + 2 = 7, d2 3 + 10 = 13, d3 1, d4 6.
    QCOMPARE(text(rankingOf(fuse({&a, &b}, FusionMethod::CombSum, ScoreNorm::None).value, "q1")),
             text({{"d2", 13}, {"d1", 7}, {"d4", 6}, {"d3", 1}}));
    // Three runs, combmnz over max norm: C: d1 8, d3 2 -> d1 1, d3 0.25.
    //   A max: d1 1, d2 0.6, d3 0.2; B max: d2 1, d4 0.6, d1 0.2
    //   d1 (1 + 0.2 + 1) x 3, d2 (0.6 + 1) x 2, d3 (0.2 + 0.25) x 2, d4 0.6 x 1
    const Run c = makeRun({{"q1", "d1", 8}, {"q1", "d3", 2}}, "c");
    const auto mnz = fuse({&a, &b, &c}, FusionMethod::CombMnz, ScoreNorm::Max);
    QCOMPARE(text(rankingOf(mnz.value, "q1")), text({{"d1", (1 + 2.0 / 10 + 1) * 3},
                                                     {"d2", (3.0 / 5 + 1) * 2},
                                                     {"d3", (1.0 / 5 + 0.25) * 2},
                                                     {"d4", 6.0 / 10}}));
  }

  // Queries: the union, in order of first appearance; a run without a query adds nothing to it.
  // A document missing from a run adds 0 after normalisation, even under zmuv, where 0 is the
  // mean:
  //   A q1: d1 4, d2 0 -> zmuv (mean 2, std 2): d1 1, d2 -1
  //   B q1: d1 0, d3 4 -> d1 -1, d3 1
  //   combsum q1: d3 1, d1 0, d2 -1; q2 only in B, q0 only in A.
  void unionOfQueriesAndMissingDocuments() {
    const Run a = makeRun({{"q1", "d1", 4}, {"q1", "d2", 0}, {"q0", "x", 1}}, "a");
    const Run b = makeRun({{"q2", "y", 3}, {"q1", "d1", 0}, {"q1", "d3", 4}}, "b");
    const auto f = fuse({&a, &b}, FusionMethod::CombSum, ScoreNorm::Zmuv);
    QVERIFY(!f.report.hasErrors());
    QCOMPARE(f.value.rankings.size(), std::size_t{3});
    QCOMPARE(f.value.rankings[0].queryId, std::string("q1"));
    QCOMPARE(f.value.rankings[1].queryId, std::string("q0"));
    QCOMPARE(f.value.rankings[2].queryId, std::string("q2"));
    QCOMPARE(text(rankingOf(f.value, "q1")), text({{"d3", 1}, {"d1", 0}, {"d2", -1}}));
    // One document, zmuv: (3 - 3) / 1e-9 = 0.
    QCOMPARE(text(rankingOf(f.value, "q2")), text({{"y", 0}}));
  }

  // Ties: docno descending in byte order ("d9" before "d10"), and the depth cut after that sort.
  void tiesAndDepth() {
    const Run a = makeRun({{"q", "d10", 1}, {"q", "d9", 1}, {"q", "d2", 1}, {"q", "a", 5}}, "a");
    const Run b = makeRun({{"q", "zz", 1}}, "b");
    const auto f = fuse({&a, &b}, FusionMethod::CombSum, ScoreNorm::None, {}, 60, 3);
    // a 5; zz 1, d9 1, d2 1, d10 1 tie: zz, d9, d2, d10; cut at 3.
    QCOMPARE(text(rankingOf(f.value, "q")), text({{"a", 5}, {"zz", 1}, {"d9", 1}}));
  }

  // Random runs against the reference re-implementation, every method and normalisation.
  void randomRunsMatchRanx() {
    std::mt19937_64 rng(20240601);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    std::uniform_real_distribution<double> real(-20.0, 20.0);
    int compared = 0;
    for (int round = 0; round < 60; ++round) {
      const int runCount = 2 + pick(3);
      std::vector<Run> runs;
      std::vector<RunDict> dicts;
      for (int r = 0; r < runCount; ++r) {
        std::vector<Line> lines;
        RunDict dict;
        for (int q = 0; q < 6; ++q) {
          if (pick(5) == 0) continue;  // the run does not hold this query
          const std::string qid = "q" + std::to_string(q);
          std::set<int> docs;
          const int n = 1 + pick(15);
          while (static_cast<int>(docs.size()) < n) docs.insert(pick(30));
          for (int d : docs) {
            // Some rounds score on a grid of eighths, so that ties are common.
            const double s = round % 3 == 0 ? pick(8) / 8.0 : real(rng);
            const std::string doc = "doc" + std::to_string(d);
            lines.push_back({qid, doc, s});
            dict[qid][doc] = s;
          }
        }
        std::shuffle(lines.begin(), lines.end(), rng);  // file order plays no part
        runs.push_back(makeRun(lines, "r" + std::to_string(r)));
        dicts.push_back(dict);
      }
      std::vector<const Run*> ptrs;
      for (const Run& r : runs) ptrs.push_back(&r);
      std::vector<double> weights;
      for (int r = 0; r < runCount; ++r) weights.push_back(pick(2) ? real(rng) : pick(4) * 0.25);
      for (FusionMethod m : {FusionMethod::Rrf, FusionMethod::CombSum, FusionMethod::CombMnz,
                             FusionMethod::WeightedSum})
        for (ScoreNorm n : {ScoreNorm::None, ScoreNorm::MinMax, ScoreNorm::Max, ScoreNorm::Sum,
                            ScoreNorm::Zmuv}) {
          const std::vector<double> w =
              m == FusionMethod::WeightedSum ? weights : std::vector<double>{};
          const double k = round % 2 ? 60.0 : pick(10);
          const auto f = fuse(ptrs, m, n, w, k);
          QVERIFY2(!f.report.hasErrors(), qPrintable(ragscope::test::diagnosticsText(f.report)));
          const RunDict want = refFuse(dicts, m, n, w, k);
          QCOMPARE(f.value.rankings.size(), want.size());
          for (const Ranking& r : f.value.rankings) {
            QVERIFY(inTrecOrder(r));
            const Dict& wq = want.at(r.queryId);
            QCOMPARE(r.entries.size(), wq.size());
            for (const RunEntry& e : r.entries) {
              const auto it = wq.find(std::string(e.docId()));
              QVERIFY(it != wq.end());
              QVERIFY2(close(e.score, it->second),
                       qPrintable(QString("%1 %2 %3 %4: %5 vs %6")
                                      .arg(fusionMethodName(m), scoreNormName(n), r.queryId.c_str(),
                                           std::string(e.docId()).c_str())
                                      .arg(e.score, 0, 'g', 17)
                                      .arg(it->second, 0, 'g', 17)));
              ++compared;
            }
          }
        }
    }
    QVERIFY(compared > 40000);
  }

  // The engine refuses what it cannot fuse, naming the file, line and field.
  void inputErrors() {
    const Run a = makeRun({{"q", "d1", 1}, {"q", "d2", 2}, {"q", "d1", 3}}, "a.trec");
    const Run b = makeRun({{"q", "d1", 1}}, "b.trec");
    auto f = fuse({&a, &b}, FusionMethod::CombSum);
    QVERIFY(f.report.hasErrors());
    QVERIFY(f.value.rankings.empty());
    QCOMPARE(f.report.diagnostics.at(0).toString(),
             std::string("a.trec:3: docno: 'd1' retrieved twice for query 'q' (lines 1 and 3)"));
    const Run inf = makeRun({{"q", "d1", 1}, {"q", "d2", -HUGE_VAL}}, "inf.trec");
    f = fuse({&b, &inf}, FusionMethod::Rrf);
    QCOMPARE(f.report.diagnostics.at(0).toString(),
             std::string("inf.trec:2: score: not finite (-inf): fusion needs finite scores"));
    // 1e308 - (-1e308) overflows: min-max cannot normalise it.
    const Run huge = makeRun({{"q", "d1", 1e308}, {"q", "d2", -1e308}}, "huge.trec");
    f = fuse({&b, &huge}, FusionMethod::CombSum);
    QVERIFY(f.report.hasErrors());
    QVERIFY2(f.report.diagnostics.at(0).toString().rfind("huge.trec:", 0) == 0 &&
                 f.report.diagnostics.at(0).field == "score",
             f.report.diagnostics.at(0).toString().c_str());
    // Without normalisation, 1e308 + 1e308 overflows when added.
    const Run big = makeRun({{"q", "d1", 1e308}}, "big.trec");
    f = fuse({&big, &big}, FusionMethod::CombSum, ScoreNorm::None);
    QCOMPARE(f.report.diagnostics.at(0).toString(),
             std::string("big.trec:1: score: the fused score of 'd1' for query 'q' is not finite "
                         "(the scores are too large to add up)"));
    // Options.
    QCOMPARE(fusionOptionsProblem(FusionOptions{}, 1),
             std::string("fusion needs at least two runs, got 1"));
    FusionOptions o;
    o.method = FusionMethod::WeightedSum;
    o.weights = {1};
    QCOMPARE(fusionOptionsProblem(o, 2),
             std::string("wsum needs one weight per run: 2 runs, 1 weight"));
    o.method = FusionMethod::Rrf;
    QCOMPARE(fusionOptionsProblem(o, 2), std::string("weights apply to wsum only, not to rrf"));
    o.weights.clear();
    o.rrfK = -1;
    QVERIFY(!fusionOptionsProblem(o, 2).empty());
    const std::vector<const Run*> one{&b};
    QVERIFY(fuseRuns(one, FusionOptions{}).report.hasErrors());
  }

  // Fused scores are written as the shortest text that reads back as the same double.
  void writtenScoresReadBackExactly() {
    std::mt19937_64 rng(7);
    Run run;
    run.tag = "fused";
    std::vector<double> values{1.0 / 61 + 1.0 / 63,
                               0.1,
                               1.0 / 3,
                               static_cast<double>(0.1f),
                               12.345600128173828,
                               1e-300,
                               5e-324,
                               -0.0,
                               1e21,
                               123456789012345678.0,
                               std::nextafter(1.0, 2.0),
                               2.2250738585072014e-308};
    for (int i = 0; i < 2000; ++i) {
      std::uint64_t bits = rng();
      double v;
      std::memcpy(&v, &bits, sizeof v);
      if (std::isfinite(v)) values.push_back(v);
    }
    std::sort(values.begin(), values.end(), std::greater<>());
    Ranking r;
    r.queryId = "q 1";  // an id with a blank is escaped and read back too
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string_view doc = run.arena->store("d" + std::to_string(i));
      r.entries.push_back(
          RunEntry{doc.data(), static_cast<std::uint32_t>(doc.size()), 0, values[i]});
    }
    run.rankings.push_back(std::move(r));
    const fs::path path = dir() / "exact.trec";
    std::string error;
    QVERIFY2(writeTrecRun(run, path, &error, ScoreText::Shortest), error.c_str());
    const auto back = readTrecRun(path, LoadOptions{});
    QVERIFY(!back.report.hasErrors());
    QCOMPARE(back.value.rankings.at(0).queryId, std::string("q 1"));
    const auto& entries = back.value.rankings.at(0).entries;
    QCOMPARE(entries.size(), values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      QVERIFY2(std::memcmp(&entries[i].score, &values[i], sizeof(double)) == 0,
               qPrintable(QString::number(values[i], 'g', 17)));
    // Shortest: 0.1 is "0.1", 1/3 has 16 digits, and no text is longer than to_chars's.
    std::istringstream lines(readText(path));
    std::string line;
    std::size_t i = 0;
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string q, q0, doc, rank, score;
      fields >> q >> q0 >> doc >> rank >> score;
      QCOMPARE(score, shortest(values[i]));
      ++i;
    }
    QCOMPARE(i, values.size());
    QVERIFY(readText(path).find(" 0.1 fused\n") != std::string::npos);
    QVERIFY(readText(path).find(" 0.3333333333333333 fused\n") != std::string::npos);
    // The float-style text of retrieval runs would not do: 0.1f as a double is written
    // 0.100000001, which reads back as another double.
    std::ostringstream floatText;
    Run one = makeRun({{"q", "d", static_cast<double>(0.1f)}});
    writeTrecRun(one, floatText, ScoreText::Float);
    QVERIFY(floatText.str().find(" 0.100000001 ") != std::string::npos);
    std::ostringstream exactText;
    writeTrecRun(one, exactText, ScoreText::Shortest);
    QVERIFY(exactText.str().find(" 0.10000000149011612 ") != std::string::npos);
  }

  // ragscope-cli fuse end to end: the hand-worked RRF and combmnz runs, written exactly.
  void cliFuses() {
    // Lines out of order and a wrong rank column: ranks come from the scores.
    const fs::path a = file("a.trec",
                            "q1 Q0 d2 9 2 runA\nq1 Q0 d1 9 3 runA\nq1 Q0 d3 9 1 runA\n"
                            "q2 Q0 x 1 1 runA\n");
    const fs::path b = file("b.trec",
                            "# a comment\nq1 Q0 d3 1 9 runB\nq1 Q0 d4 2 8 runB\n"
                            "q1 Q0 d1 3 7 runB\nq3 Q0 y 1 5 runB\n");
    const fs::path out = dir() / "rrf.trec";
    auto r = runCliText({"fuse", a.c_str(), b.c_str(), "--method", "rrf", "--out", out.c_str()});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("fused: 2 runs by rrf (k 60), 3 queries, 6 entries"),
             qPrintable(r.out));
    const std::string d13 = shortest(1.0 / 61 + 1.0 / 63), d24 = shortest(1.0 / 62),
                      one = shortest(1.0 / 61);
    QCOMPARE(readText(out), "q1 Q0 d3 1 " + d13 + " rrf\nq1 Q0 d1 2 " + d13 + " rrf\n" +
                                "q1 Q0 d4 3 " + d24 + " rrf\nq1 Q0 d2 4 " + d24 + " rrf\n" +
                                "q2 Q0 x 1 " + one + " rrf\nq3 Q0 y 1 " + one + " rrf\n");
    // It reads back as the same doubles.
    const auto back = readTrecRun(out, LoadOptions{});
    QCOMPARE(back.value.rankings.at(0).entries.at(0).score, 1.0 / 61 + 1.0 / 63);

    // combmnz, max norm, k = 2, a tag: q1 A max: d1 1, d2 2/3, d3 1/3; B max: d3 1, d4 8/9,
    // d1 7/9: d1 (1 + 7/9) x 2, d3 (1/3 + 1) x 2, d4 8/9, d2 2/3; top 2: d1, d3.
    const fs::path mnz = dir() / "mnz.trec";
    r = runCliText({"fuse", a.c_str(), b.c_str(), "--method=combmnz", "--norm", "max", "--k", "2",
                    "--tag", "hybrid", "-o", mnz.c_str()});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto m = readTrecRun(mnz, LoadOptions{});
    QCOMPARE(m.value.tag, std::string("hybrid"));
    const auto& q1 = m.value.rankings.at(0).entries;
    QCOMPARE(q1.size(), std::size_t{2});
    QCOMPARE(q1[0].docId(), std::string_view("d1"));
    QCOMPARE(q1[0].score, (3.0 / 3 + 7.0 / 9) * 2);
    QCOMPARE(q1[1].docId(), std::string_view("d3"));
    QCOMPARE(q1[1].score, (1.0 / 3 + 9.0 / 9) * 2);

    // wsum with weights.
    const fs::path ws = dir() / "wsum.trec";
    r = runCliText({"fuse", a.c_str(), b.c_str(), "--method", "wsum", "--weights", "0.25,0.75",
                    "--norm", "none", "--out", ws.c_str()});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // q1: d3 0.25 + 6.75 = 7, d1 0.75 + 5.25 = 6, d4 6, d2 0.5.
    QVERIFY2(readText(ws).rfind("q1 Q0 d3 1 7 wsum\nq1 Q0 d4 2 6 wsum\nq1 Q0 d1 3 6 wsum\n"
                                "q1 Q0 d2 4 0.5 wsum\n",
                                0) == 0,
             readText(ws).c_str());
  }

  void cliErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString a = "@a", b = "@b";
    QTest::newRow("one run") << QStringList{a, "--method", "rrf", "--out", "@out"}
                             << "ragscope-cli fuse: need at least two runs to fuse";
    QTest::newRow("no method") << QStringList{a, b, "--out", "@out"}
                               << "no fusion method given (--method rrf|combsum|combmnz|wsum)";
    QTest::newRow("bad method") << QStringList{a, b, "--method", "borda", "--out", "@out"}
                                << "--method: expected one of rrf, combsum, combmnz, wsum";
    QTest::newRow("bad norm") << QStringList{a,        b,      "--method", "rrf",
                                             "--norm", "rank", "--out",    "@out"}
                              << "--norm: expected one of none, min-max, max, sum, zmuv";
    QTest::newRow("no out") << QStringList{a, b, "--method", "rrf"} << "no output file given";
    QTest::newRow("wsum without weights")
        << QStringList{a, b, "--method", "wsum", "--out", "@out"} << "wsum needs --weights";
    QTest::newRow("weights count")
        << QStringList{a, b, "--method", "wsum", "--weights", "1,2,3", "--out", "@out"}
        << "--weights: wsum needs one weight per run: 2 runs, 3 weights";
    QTest::newRow("weights not numbers")
        << QStringList{a, b, "--method", "wsum", "--weights", "1,x", "--out", "@out"}
        << "--weights: expected finite numbers separated by commas, got '1,x'";
    QTest::newRow("weights inf") << QStringList{a,           b,       "--method", "wsum",
                                                "--weights", "1,inf", "--out",    "@out"}
                                 << "--weights: expected finite numbers";
    QTest::newRow("weights for rrf")
        << QStringList{a, b, "--method", "rrf", "--weights", "1,2", "--out", "@out"}
        << "--weights: weights apply to wsum only, not to rrf";
    QTest::newRow("rrf-k for combsum")
        << QStringList{a, b, "--method", "combsum", "--rrf-k", "10", "--out", "@out"}
        << "--rrf-k applies to --method rrf only";
    QTest::newRow("negative rrf-k")
        << QStringList{a, b, "--method", "rrf", "--rrf-k", "-1", "--out", "@out"}
        << "--rrf-k: expected a number >= 0, got '-1'";
    QTest::newRow("k not a number")
        << QStringList{a, b, "--method", "rrf", "--k", "x", "--out", "@out"}
        << "--k: expected 0 (all) or an integer";
    QTest::newRow("out is an input")
        << QStringList{a, b, "--method", "rrf", "--out", b} << "would overwrite RUN";
    QTest::newRow("out links to an input")
        << QStringList{a, b, "--method", "rrf", "--out", "@link"} << "would overwrite RUN";
    QTest::newRow("duplicate docno")
        << QStringList{a, "@dup", "--method", "combsum", "--out", "@out"}
        << "dup.trec:3: docno: 'd1' retrieved twice for query 'q1' (lines 2 and 3)";
    QTest::newRow("infinite score")
        << QStringList{a, "@inf", "--method", "combsum", "--out", "@out"}
        << "inf.trec:2: score: not finite (inf): fusion needs finite scores";
    QTest::newRow("bad score") << QStringList{a, "@bad", "--method", "rrf", "--out", "@out"}
                               << "bad.trec:1: score: not a number: 'x'";
    QTest::newRow("missing field") << QStringList{"@short", a, "--method", "rrf", "--out", "@out"}
                                   << "short.trec:1: tag: missing";
    QTest::newRow("empty run") << QStringList{a, "@empty", "--method", "rrf", "--out", "@out"}
                               << "empty.trec: no ";  // the reader's message, or fuse's own
    QTest::newRow("no such file") << QStringList{a, "@nothere", "--method", "rrf", "--out", "@out"}
                                  << "nothere.trec";
  }

  void cliErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const std::string aText = "q1 Q0 d1 1 3 A\nq1 Q0 d2 2 1 A\n";
    const std::string bText = "q1 Q0 d1 1 2 B\n";
    file("a.trec", aText);
    file("b.trec", bText);
    file("dup.trec", "q1 Q0 d3 1 5 D\nq1 Q0 d1 2 4 D\nq1 Q0 d1 3 3 D\n");
    file("inf.trec", "q1 Q0 d3 1 5 I\nq1 Q0 d1 2 inf I\n");
    file("bad.trec", "q1 Q0 d3 1 x I\n");
    file("short.trec", "q1 Q0 d3 1 2\n");
    file("empty.trec", "# nothing\n\n");
    fs::remove(dir() / "link.trec");
    fs::create_symlink(dir() / "b.trec", dir() / "link.trec");
    fs::remove(dir() / "out.trec");
    for (QString& arg : args)
      if (arg.startsWith('@'))
        arg = QString::fromStdString((dir() / (arg.mid(1).toStdString() + ".trec")).string());
    const auto r = runCliText(QStringList{"fuse"} + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    // Nothing written, no input changed.
    QVERIFY(!fs::exists(dir() / "out.trec"));
    QCOMPARE(readText(dir() / "a.trec"), aText);
    QCOMPARE(readText(dir() / "b.trec"), bText);
    QVERIFY(fs::is_symlink(dir() / "link.trec"));
  }

  void cliHelp() {
    const auto help = runCliText({"fuse", "--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY2(help.out.startsWith("usage: ragscope-cli fuse RUN RUN... --method "),
             qPrintable(help.out));
    // The text as one line: where it wraps plays no part.
    const QString flat = QString(help.out).replace('\n', ' ');
    for (const char* part :
         {"ranx", "the union of the runs' queries", "ranx keeps the first run's queries",
          "1 / (k + rank_i)", "max(max - min, 1e-9)", "std the population standard deviation",
          "equal scores by docno descending", "--weights W,W,...", "--rrf-k K", "--k DEPTH"})
      QVERIFY2(flat.contains(part), part);
    const auto unknown = runCliText({"fuse", "--no-such-option=1"});
    QCOMPARE(unknown.exitCode, 2);
    QCOMPARE(unknown.err, QString("ragscope-cli fuse: unknown option '--no-such-option'\nRun "
                                  "'ragscope-cli fuse --help' for usage.\n"));
    const auto top = runCliText({"--help"});
    QVERIFY(top.out.contains("\n  fuse RUN RUN... --method"));
  }
};

QTEST_GUILESS_MAIN(TstFusion)
#include "tst_fusion.moc"
