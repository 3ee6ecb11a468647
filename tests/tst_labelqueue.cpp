// The labelling queue's selection (core/labels/labelqueue.h, core/labels/README.md "Labelling
// queue"): a seeded sample is the same for the same seed and a subset without repeats; the
// stratified sample follows the judge's verdicts in proportion (largest remainders, worked out by
// hand below); the claims whose repeats flipped come first; the unjudged documents of a run's
// top k are found in trec_eval's order (a hand-made run and qrels); the claim candidates of the
// demo judging run are every response claim once; and when a human verdict disagrees with the
// judge.

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <set>

#include "common/files.h"
#include "core/data/loaders.h"
#include "core/eval/inputs/claimlabels.h"
#include "core/eval/jobs/claimverdicts.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/labelqueue.h"

using namespace ragscope;
using namespace ragscope::core::labels;
namespace fs = std::filesystem;

namespace {

// `n` claim candidates; the first `flipped` have flipped repeats; verdicts cycle through
// `verdicts` by counts: {"supported", 60} gives the next 60 items "supported".
std::vector<QueueItem> candidates(const std::vector<std::pair<std::string, int>>& verdicts,
                                  int flipped = 0) {
  std::vector<QueueItem> out;
  int i = 0;
  for (const auto& [verdict, count] : verdicts)
    for (int c = 0; c < count; ++c, ++i) {
      QueueItem item;
      item.target = {TargetKind::Claim, "claims.db", "q" + std::to_string(i / 4),
                     "response:" + std::to_string(i % 4)};
      item.judge = verdict;
      item.flipped = i < flipped;
      out.push_back(item);
    }
  return out;
}

std::vector<std::string> keys(const std::vector<QueueItem>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) out.push_back(item.target.key());
  return out;
}

std::size_t distinctKeys(const std::vector<QueueItem>& items) {
  const auto k = keys(items);
  return std::set<std::string>(k.begin(), k.end()).size();
}

}  // namespace

class TestLabelQueue : public QObject {
  Q_OBJECT

 private slots:
  void seededSampleIsDeterministic() {
    const auto items = candidates({{"supported", 100}});
    QueueOptions o;
    o.size = 10;
    o.seed = 7;
    const auto a = selectQueue(items, o);
    const auto b = selectQueue(items, o);
    QCOMPARE(a.size(), std::size_t(10));
    QCOMPARE(keys(a), keys(b));                  // same seed, same queue
    QCOMPARE(distinctKeys(a), std::size_t(10));  // drawn without replacement
    std::set<std::string> all;
    for (const auto& k : keys(items)) all.insert(k);
    for (const auto& k : keys(a)) QVERIFY(all.count(k));
    o.seed = 8;
    QVERIFY(keys(selectQueue(items, o)) != keys(a));  // another seed, another sample
    // Asking for more than there is gives every candidate once.
    o.size = 500;
    const auto every = selectQueue(items, o);
    QCOMPARE(every.size(), items.size());
    QCOMPARE(distinctKeys(every), items.size());
  }

  void skipLeavesOutLabelledTargets() {
    const auto items = candidates({{"supported", 20}});
    QueueOptions o;
    o.size = 100;
    for (int i = 0; i < 5; ++i) o.skip.insert(items[std::size_t(i)].target.key());
    const auto queue = selectQueue(items, o);
    QCOMPARE(queue.size(), std::size_t(15));
    for (const auto& item : queue) QVERIFY(!o.skip.count(item.target.key()));
  }

  void proportionalAllocationByHand() {
    // 100 items in strata 50 / 30 / 15 / 5, 10 to draw: quotas 5, 3, 1.5, 0.5; the floors give
    // 9; the one left goes to the largest remainder, 0.5 twice: the earlier stratum (15) wins.
    QCOMPARE(proportionalAllocation({50, 30, 15, 5}, 10), (std::vector<std::size_t>{5, 3, 2, 0}));
    // 7 / 2 / 1, 5 to draw: quotas 3.5, 1, 0.5: floors 3, 1, 0; remainders .5, 0, .5: the first.
    QCOMPARE(proportionalAllocation({7, 2, 1}, 5), (std::vector<std::size_t>{4, 1, 0}));
    // 1 / 1 / 1, 2 to draw: every remainder 2/3: the first two strata.
    QCOMPARE(proportionalAllocation({1, 1, 1}, 2), (std::vector<std::size_t>{1, 1, 0}));
    // Asking for everything (or more): each stratum whole.
    QCOMPARE(proportionalAllocation({4, 0, 2}, 9), (std::vector<std::size_t>{4, 0, 2}));
  }

  void stratifiedFollowsTheJudgesVerdicts() {
    // 60 supported, 30 unsupported, 10 contradiction; 20 drawn: 12, 6 and 2.
    const auto items = candidates({{"supported", 60}, {"unsupported", 30}, {"contradiction", 10}});
    QueueOptions o;
    o.order = QueueOrder::StratifiedByJudge;
    o.size = 20;
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      o.seed = seed;
      const auto queue = selectQueue(items, o);
      QCOMPARE(queue.size(), std::size_t(20));
      std::map<std::string, int> counts;
      for (const auto& item : queue) ++counts[item.judge];
      QCOMPARE(counts["supported"], 12);
      QCOMPARE(counts["unsupported"], 6);
      QCOMPARE(counts["contradiction"], 2);
      QCOMPARE(keys(selectQueue(items, o)), keys(queue));  // deterministic per seed
      QCOMPARE(distinctKeys(queue), std::size_t(20));
      // Shuffled afterwards: the verdicts do not come in blocks (the first 12 are not all one).
      std::set<std::string> firstTwelve;
      for (int i = 0; i < 12; ++i) firstTwelve.insert(queue[std::size_t(i)].judge);
      QVERIFY(firstTwelve.size() > 1);
    }
  }

  void disagreementsBetweenRepeatsFirst() {
    // 7 flipped among 100 (the first 7 built); their position in the candidates does not matter.
    auto items = candidates({{"supported", 50}, {"unsupported", 50}}, 7);
    std::reverse(items.begin(), items.end());
    QueueOptions o;
    o.order = QueueOrder::DisagreementsFirst;
    o.size = 10;
    o.seed = 3;
    const auto queue = selectQueue(items, o);
    QCOMPARE(queue.size(), std::size_t(10));
    for (int i = 0; i < 7; ++i) QVERIFY(queue[std::size_t(i)].flipped);
    for (int i = 7; i < 10; ++i) QVERIFY(!queue[std::size_t(i)].flipped);
    o.size = 5;
    for (const auto& item : selectQueue(items, o)) QVERIFY(item.flipped);
  }

  void unjudgedDocumentsInTheTopK() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root(dir.path().toStdString());
    // q1 ranks d1 > d2 > d3 > d4; q2 ties e1 and e2 at 2.0 (trec_eval: docno descending, so e2
    // ranks first), then e3. Qrels judge q1's d1 (1) and d3 (0), q2's e2 (2) and e9 (unretrieved).
    test::writeText(root / "run.trec",
                    "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\nq1 Q0 d4 4 0.5 r\n"
                    "q2 Q0 e1 1 2.0 r\nq2 Q0 e2 2 2.0 r\nq2 Q0 e3 3 1.0 r\n");
    test::writeText(root / "qrels.txt", "q1 0 d1 1\nq1 0 d3 0\nq2 0 e2 2\nq2 0 e9 1\n");
    const auto run = core::readTrecRun(root / "run.trec", {});
    const auto qrels = core::readTrecQrels(root / "qrels.txt", {});
    // Top 3: q1 d2 (rank 2; d1 and d3 are judged); q2 e1 (rank 2), e3 (rank 3).
    const auto top3 = unjudgedTopK(run.value, qrels.value, 3, "demo");
    QCOMPARE(top3.size(), std::size_t(3));
    QCOMPARE(top3[0].target, (Target{TargetKind::Relevance, "demo", "q1", "d2"}));
    QCOMPARE(top3[0].rank, std::size_t(2));
    QCOMPARE(top3[1].target, (Target{TargetKind::Relevance, "demo", "q2", "e1"}));
    QCOMPARE(top3[1].rank, std::size_t(2));
    QCOMPARE(top3[2].target, (Target{TargetKind::Relevance, "demo", "q2", "e3"}));
    QCOMPARE(top3[2].rank, std::size_t(3));
    // Top 1 is judged in both queries; top 4 adds q1's d4 (rank 4).
    QVERIFY(unjudgedTopK(run.value, qrels.value, 1, "demo").empty());
    const auto top4 = unjudgedTopK(run.value, qrels.value, 4, "demo");
    QCOMPARE(top4.size(), std::size_t(4));
    // Top ranks first across queries: rank 2 (q1 d2, q2 e1), then 3 (e3), then 4 (d4).
    QueueOptions o;
    o.order = QueueOrder::TopRanksFirst;
    o.size = 3;
    const auto queue = selectQueue(top4, o);
    QCOMPARE(keys(queue), (std::vector<std::string>{top3[0].target.key(), top3[1].target.key(),
                                                    top3[2].target.key()}));
  }

  void claimCandidatesOfTheDemoRun() {
    const std::string store = RAGSCOPE_SOURCE_DIR "/resources/demo/runs/claims-offline.db";
    const auto report = core::eval::readJudgeReport(store, {});
    QVERIFY2(report.error.empty(), report.error.c_str());
    std::size_t claims = 0;
    for (const auto& q : report.queries) claims += q.responseClaims.claims.size();
    QVERIFY(claims > 0);
    const auto items = core::eval::claimCandidates(report, "runs/claims-offline.db");
    QCOMPARE(items.size(), claims);
    QCOMPARE(distinctKeys(items), claims);
    // The first answer's claims, in order, with the judge's verdict against the chunks, each
    // target recording that premise.
    const auto& first = report.queries.front();
    for (std::size_t i = 0; i < first.responseClaims.claims.size(); ++i) {
      QCOMPARE(items[i].target.qid, first.qid);
      QCOMPARE(items[i].target.item, "response:" + std::to_string(i));
      QCOMPARE(items[i].target.premise, std::optional(ClaimPremise::Chunks));
      QCOMPARE(items[i].context, first.responseClaims.claims[i]);
      const auto v = core::eval::responseClaimVsChunks(first, i);
      QCOMPARE(items[i].judge, v ? judgeVerdict(*v).value_or("") : std::string());
    }
    // Against the gold answer: the same claims, other targets, the judge's verdict against the
    // gold answer (a chunk-premise label does not leave them out of the queue).
    const auto vsGold =
        core::eval::claimCandidates(report, "runs/claims-offline.db", ClaimPremise::GoldAnswer);
    QCOMPARE(vsGold.size(), claims);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < first.responseClaims.claims.size(); ++i) {
      QCOMPARE(vsGold[i].target.premise, std::optional(ClaimPremise::GoldAnswer));
      QVERIFY(vsGold[i].target.key() != items[i].target.key());
      const auto v = core::eval::responseClaimVsGold(first, i);
      QCOMPARE(vsGold[i].judge, v ? judgeVerdict(*v).value_or("") : std::string());
    }
    for (std::size_t i = 0; i < claims; ++i) differ += vsGold[i].judge != items[i].judge;
    QVERIFY(differ > 0);  // the demo's judge answers the two questions differently
    QueueOptions o;
    o.size = claims;
    for (const auto& item : items) o.skip.insert(item.target.key());  // all labelled vs chunks
    QCOMPARE(selectQueue(vsGold, o).size(), claims);
    QCOMPARE(selectQueue(items, o).size(), std::size_t(0));
    // Gold claims against the response: one item per gold claim.
    std::size_t gold = 0;
    for (const auto& q : report.queries) gold += q.goldClaims.claims.size();
    const auto goldItems = core::eval::claimCandidates(report, "x", ClaimPremise::Response);
    QCOMPARE(goldItems.size(), gold);
    QVERIFY(goldItems.front().target.item.starts_with("gold:"));
  }

  void whenAHumanDisagreesWithTheJudge() {
    using L = core::claims::Label;
    QVERIFY(!claimDisagrees(L::Supported, "supported"));
    QVERIFY(!claimDisagrees(L::Entailment, "supported"));
    QVERIFY(claimDisagrees(L::Supported, "unsupported"));
    QVERIFY(claimDisagrees(L::Entailment, "neutral"));
    // A binary judge's "unsupported" covers neutral and contradiction.
    QVERIFY(!claimDisagrees(L::Unsupported, "contradiction"));
    QVERIFY(!claimDisagrees(L::Unsupported, "neutral"));
    QVERIFY(claimDisagrees(L::Unsupported, "supported"));
    // Three-way verdicts are compared as they are.
    QVERIFY(claimDisagrees(L::Neutral, "contradiction"));
    QVERIFY(!claimDisagrees(L::Contradiction, "contradiction"));
    // Abstentions and unresolved verdicts never disagree.
    QVERIFY(!claimDisagrees(L::Supported, "cannot_tell"));
    QVERIFY(!claimDisagrees(L::Unparsed, "supported"));
    QVERIFY(!claimDisagrees(L::Error, "unsupported"));
  }
};

QTEST_GUILESS_MAIN(TestLabelQueue)
#include "tst_labelqueue.moc"
