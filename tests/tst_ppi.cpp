// Prediction-powered inference (core/stats/ppi.h, core/eval/inputs/ppiinputs.h, `ragscope-cli
// ppi`): classical PPI and PPI++ against worked examples (the arithmetic written out below, checked
// with Python's statistics module), lambda's clipping, the refused inputs, a coverage simulation
// with a biased judge, the items of judged metrics built from human labels, and the CLI on CSV
// files and on a judging run store with a labels store.

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "common/cli.h"
#include "common/files.h"
#include "core/eval/inputs/ppifiles.h"
#include "core/eval/inputs/ppiinputs.h"
#include "core/eval/jobs/claimverdicts.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/label.h"
#include "core/labels/labelscope.h"
#include "core/labels/labelstore.h"
#include "core/stats/ppi.h"
#include "core/stats/random.h"
#include "core/store/runstore.h"

using namespace ragscope::core;
using namespace ragscope::core::stats;
namespace fs = std::filesystem;

namespace {

constexpr double kTol = 1e-9;

// The worked example: n = 4 labelled items, N_u = 6 unlabelled.
//   labelled   Y = 1 0 1 0      f = 1 0 1 1
//   unlabelled f = 1 1 0 1 0 1
PpiInput workedExample() {
  PpiInput in;
  in.labelledY = {1, 0, 1, 0};
  in.labelledF = {1, 0, 1, 1};
  in.unlabelledF = {1, 1, 0, 1, 0, 1};
  return in;
}

// z = Phi^-1(0.975)
constexpr double kZ95 = 1.959963984540054;

eval::PremiseVerdicts premiseOf(std::string premise, std::vector<claims::Label> labels) {
  eval::PremiseVerdicts v;
  v.premise = std::move(premise);
  v.labels = std::move(labels);
  return v;
}

bool near(double a, double b) { return std::abs(a - b) <= kTol; }

std::string cliPath(const QTemporaryDir& dir, const char* name) {
  return (fs::path(dir.path().toStdString()) / name).string();
}

}  // namespace

class TestPpi : public QObject {
  Q_OBJECT

 private slots:
  void classicalByHand();
  void ppiPlusPlusByHand();
  void judgeAndHumanOnlyByHand();
  void lambdaClipsAtZero();
  void lambdaClipsAtOne();
  void constantJudgeUsesZero();
  void refusedInputs();
  void coverageWithBiasedJudge();
  void claimItemsFromLabels();
  void eragAndAnswerItems();
  void csvFilesRead();
  void csvFilesRefused();
  void cliOnCsvFiles();
  void cliErrors();
  void cliOnRunStore();
  void correctnessUsesLabelsAgainstTheGoldAnswer();
  void labelsFollowTheStoreNotItsFileName();
};

void TestPpi::classicalByHand() {
  // lambda = 1:
  //   mean_U(f) = 4/6 = 0.666667;  Y - f = 0 0 0 -1, mean -0.25
  //   estimate = 0.666667 - 0.25 = 0.416667
  //   var_U(f) = p(1-p) = (2/3)(1/3) = 2/9, / N_u = 1/27 = 0.037037
  //   var_L(Y - f): mean -0.25, var = 0.25 * 0.75 = 0.1875, / n = 0.046875
  //   se = sqrt(0.083912) = 0.289676;  half = 1.959964 * 0.289676 = 0.567754
  //   interval [-0.151087, 0.984421]
  PpiOptions o;
  o.lambda = 1.0;
  const PpiResult r = ppiMean(workedExample(), o);
  QVERIFY2(r.ok(), r.error.c_str());
  QCOMPARE(r.lambda, 1.0);
  QCOMPARE(r.nLabelled, std::size_t(4));
  QCOMPARE(r.nUnlabelled, std::size_t(6));
  QVERIFY(near(r.estimate, 5.0 / 12.0));
  const double se = std::sqrt(1.0 / 27.0 + 0.1875 / 4.0);
  QVERIFY(near(r.ci.low, 5.0 / 12.0 - kZ95 * se));
  QVERIFY(near(r.ci.high, 5.0 / 12.0 + kZ95 * se));
  QVERIFY(std::abs(r.ci.low - -0.151087360037097) < 1e-9);
  QVERIFY(std::abs(r.ci.high - 0.9844206933704303) < 1e-9);
}

void TestPpi::ppiPlusPlusByHand() {
  // lambda = cov_L(Y, f) / ((1 + n/N_u) * var_pooled(f)):
  //   mean_L(Y) = 0.5, mean_L(f) = 0.75
  //   (Y - 0.5)(f - 0.75) = 0.125, 0.375, 0.125, -0.125; sum 0.5, / n = 0.125
  //   pooled f: 7 ones of 10, mean 0.7, sample var = (7*0.09 + 3*0.49) / 9 = 2.1/9 = 7/30
  //   1 + n/N_u = 1 + 4/6 = 5/3;  denominator = 5/3 * 7/30 = 7/18
  //   lambda = 0.125 * 18/7 = 9/28 = 0.321429 (inside [0, 1], not clipped)
  // estimate = lambda mean_U(f) + mean_L(Y) - lambda mean_L(f)
  //          = 0.5 + 9/28 (2/3 - 3/4) = 0.5 - 9/336 = 0.473214
  // var_U(lambda f) = lambda^2 * 2/9 = 18/784, / 6 = 0.00382653
  // Y - lambda f = 19/28, 0, 19/28, -9/28: in 28ths mean 7.25, squared deviations
  //   138.0625 + 52.5625 + 138.0625 + 264.0625 = 592.75, / 4 = 148.1875, / 784 = 0.189014, / 4
  //   = 0.0472536
  // se = sqrt(0.0510801) = 0.226009;  half = 0.442970;  interval [0.030244, 0.916184]
  const PpiResult r = ppiMean(workedExample(), {});
  QVERIFY2(r.ok(), r.error.c_str());
  QVERIFY(near(r.lambda, 9.0 / 28.0));
  QVERIFY(near(r.estimate, 0.5 - 9.0 / 336.0));
  const double se = std::sqrt(18.0 / 784.0 / 6.0 + 148.1875 / 784.0 / 4.0);
  QVERIFY(near(r.ci.low, r.estimate - kZ95 * se));
  QVERIFY(near(r.ci.high, r.estimate + kZ95 * se));
  QVERIFY(std::abs(r.ci.low - 0.03024422348305089) < 1e-9);
  QVERIFY(std::abs(r.ci.high - 0.9161843479455206) < 1e-9);

  // Another level: z = Phi^-1(0.95) = 1.644854
  PpiOptions o90;
  o90.level = 0.90;
  const PpiResult r90 = ppiMean(workedExample(), o90);
  QVERIFY(near(r90.ci.high - r90.estimate, 1.6448536269514722 * se));
}

void TestPpi::judgeAndHumanOnlyByHand() {
  // judge only: f over all 10 items, mean 0.7, var_pop 0.21, se = sqrt(0.021) = 0.144914,
  //   interval 0.7 +- 0.284026 = [0.415974, 0.984026]
  // human only: Y over the 4 labelled items, mean 0.5, var_pop 0.25, se = 0.25,
  //   interval 0.5 +- 0.489991 = [0.010009, 0.989991]
  const PpiResult r = ppiMean(workedExample(), {});
  QVERIFY(near(r.judgeOnly.mean, 0.7));
  QCOMPARE(r.judgeOnly.n, std::size_t(10));
  QVERIFY(near(r.judgeOnly.ci.low, 0.7 - kZ95 * std::sqrt(0.021)));
  QVERIFY(near(r.judgeOnly.ci.high, 0.7 + kZ95 * std::sqrt(0.021)));
  QVERIFY(near(r.humanOnly.mean, 0.5));
  QCOMPARE(r.humanOnly.n, std::size_t(4));
  QVERIFY(near(r.humanOnly.ci.low, 0.5 - kZ95 * 0.25));
  QVERIFY(std::abs(r.humanOnly.ci.low - 0.010009003864986599) < 1e-9);
}

void TestPpi::lambdaClipsAtZero() {
  // Y = 1 0 1 1, f = 1 1 1 0 (labelled); unlabelled f = 1 1 0 1 1 0
  //   mean_L(Y) = mean_L(f) = 0.75; (Y-.75)(f-.75) = .0625 -.1875 .0625 -.1875: cov = -0.0625
  //   lambda = negative -> clipped to 0: the estimate is the human mean 0.75, the interval the
  //   human-only one: var_L(Y) = 0.1875, se = sqrt(0.1875/4) = 0.216506, [0.325655, 1.174345]
  PpiInput in;
  in.labelledY = {1, 0, 1, 1};
  in.labelledF = {1, 1, 1, 0};
  in.unlabelledF = {1, 1, 0, 1, 1, 0};
  const PpiResult r = ppiMean(in, {});
  QVERIFY2(r.ok(), r.error.c_str());
  QCOMPARE(r.lambda, 0.0);
  QVERIFY(near(r.estimate, 0.75));
  QVERIFY(std::abs(r.ci.low - 0.3256553497214357) < 1e-9);
  QVERIFY(std::abs(r.ci.high - 1.1743446502785644) < 1e-9);
  QVERIFY(near(r.ci.low, r.humanOnly.ci.low));
}

void TestPpi::lambdaClipsAtOne() {
  // Y = 2 0 2 0, f = 1 0 1 0; unlabelled f = 1 0 1 0 1 0
  //   cov_L = ((1)(.5) + (-1)(-.5)) * 2 / 4 = 0.5; pooled f: 5 of 10, sample var = 2.5/9
  //   lambda = 0.5 / (5/3 * 2.5/9) = 1.08 -> clipped to 1 (classical PPI)
  //   estimate = mean_U(f) 0.5 + mean_L(Y - f) (1 0 1 0: 0.5) = 1.0
  PpiInput in;
  in.labelledY = {2, 0, 2, 0};
  in.labelledF = {1, 0, 1, 0};
  in.unlabelledF = {1, 0, 1, 0, 1, 0};
  const PpiResult r = ppiMean(in, {});
  QVERIFY2(r.ok(), r.error.c_str());
  QCOMPARE(r.lambda, 1.0);
  QVERIFY(near(r.estimate, 1.0));
  PpiOptions classical;
  classical.lambda = 1.0;
  const PpiResult c = ppiMean(in, classical);
  QVERIFY(near(c.ci.low, r.ci.low));
  QVERIFY(near(c.ci.high, r.ci.high));
}

void TestPpi::constantJudgeUsesZero() {
  // f = 1 everywhere: var(f) = 0, the judge says nothing; lambda 0, the human mean (2/3).
  PpiInput in;
  in.labelledY = {1, 0, 1};
  in.labelledF = {1, 1, 1};
  in.unlabelledF = {1, 1};
  const PpiResult r = ppiMean(in, {});
  QVERIFY2(r.ok(), r.error.c_str());
  QCOMPARE(r.lambda, 0.0);
  QVERIFY(near(r.estimate, 2.0 / 3.0));
}

void TestPpi::refusedInputs() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  PpiInput noLabels;
  noLabels.unlabelledF = {1, 0, 1};
  PpiResult r = ppiMean(noLabels, {});
  QVERIFY(!r.ok());
  QVERIFY2(r.error.find("n = 0") != std::string::npos, r.error.c_str());
  // The judge-only mean is still there for the views that show it beside the error.
  QVERIFY(near(r.judgeOnly.mean, 2.0 / 3.0));
  QVERIFY(std::isnan(r.estimate));

  PpiInput allLabelled;
  allLabelled.labelledY = {1, 0};
  allLabelled.labelledF = {1, 1};
  r = ppiMean(allLabelled, {});
  QVERIFY(!r.ok());
  QVERIFY2(r.error.find("N_u = 0") != std::string::npos, r.error.c_str());
  QVERIFY(near(r.humanOnly.mean, 0.5));

  PpiInput mismatch = workedExample();
  mismatch.labelledF.pop_back();
  r = ppiMean(mismatch, {});
  QVERIFY(!r.ok());
  QVERIFY2(r.error.find("4 human values but 3 judge values") != std::string::npos, r.error.c_str());

  for (int where = 0; where < 3; ++where) {
    PpiInput bad = workedExample();
    (where == 0 ? bad.labelledY : where == 1 ? bad.labelledF : bad.unlabelledF)[1] = nan;
    r = ppiMean(bad, {});
    QVERIFY(!r.ok());
    QVERIFY2(r.error.find("not a finite number") != std::string::npos, r.error.c_str());
  }
  PpiInput inf = workedExample();
  inf.unlabelledF[0] = std::numeric_limits<double>::infinity();
  QVERIFY(!ppiMean(inf, {}).ok());
  PpiOptions badLevel;
  badLevel.level = 1.0;
  QVERIFY(!ppiMean(workedExample(), badLevel).ok());
}

void TestPpi::coverageWithBiasedJudge() {
  // A judge wrong in one direction more than the other: true Y ~ Bernoulli(0.6); the judge says
  // 1 for 95% of the true 1s and for 50% of the true 0s, so mean(f) = 0.6*0.95 + 0.4*0.5 = 0.77.
  // N = 2000 items, the first n = 200 labelled (the items are i.i.d., so these are a random
  // sample), 400 seeded repetitions. The 95% PPI intervals (PPI++ and classical) cover the true
  // mean 0.6 close to 95% of the time (binomial sd sqrt(.95*.05/400) = 1.1 points: [0.92,
  // 0.98] is about 2.7 sd either side); the judge-only interval (half-width about 0.018 around
  // 0.77) almost never does.
  constexpr std::size_t kN = 2000, kLabelled = 200, kRepetitions = 400;
  constexpr double kTrueMean = 0.6;
  std::size_t coveredTuned = 0, coveredClassical = 0, coveredJudge = 0, coveredHuman = 0;
  double widthTuned = 0, widthHuman = 0;
  PpiOptions classical;
  classical.lambda = 1.0;
  for (std::size_t rep = 0; rep < kRepetitions; ++rep) {
    Rng rng(mix64(0x5eed0000ULL + rep));
    PpiInput in;
    for (std::size_t i = 0; i < kN; ++i) {
      const double y = rng.uniform() < kTrueMean ? 1.0 : 0.0;
      const double f = rng.uniform() < (y == 1.0 ? 0.95 : 0.5) ? 1.0 : 0.0;
      if (i < kLabelled) {
        in.labelledY.push_back(y);
        in.labelledF.push_back(f);
      } else {
        in.unlabelledF.push_back(f);
      }
    }
    const PpiResult tuned = ppiMean(in, {});
    const PpiResult plain = ppiMean(in, classical);
    QVERIFY(tuned.ok() && plain.ok());
    auto covers = [&](const Interval& ci) { return ci.low <= kTrueMean && kTrueMean <= ci.high; };
    coveredTuned += covers(tuned.ci);
    coveredClassical += covers(plain.ci);
    coveredJudge += covers(tuned.judgeOnly.ci);
    coveredHuman += covers(tuned.humanOnly.ci);
    widthTuned += tuned.ci.high - tuned.ci.low;
    widthHuman += tuned.humanOnly.ci.high - tuned.humanOnly.ci.low;
  }
  const double n = double(kRepetitions);
  qInfo(
      "coverage over %zu repetitions: PPI++ %.4f, classical PPI %.4f, judge only %.4f, "
      "human only %.4f; mean width PPI++ %.4f, human only %.4f",
      kRepetitions, coveredTuned / n, coveredClassical / n, coveredJudge / n, coveredHuman / n,
      widthTuned / n, widthHuman / n);
  QVERIFY(coveredTuned / n >= 0.92 && coveredTuned / n <= 0.98);
  QVERIFY(coveredClassical / n >= 0.92 && coveredClassical / n <= 0.98);
  QVERIFY(coveredJudge / n < 0.5);
  // The judge's information narrows the interval below the human-only one.
  QVERIFY(widthTuned < widthHuman);
}

void TestPpi::claimItemsFromLabels() {
  // Two judged answers of "claims.db":
  //   q1 response claims A B C: vs chunks (faith) S U unparsed; vs gold (correct) S S U
  //      gold claims G1 G2: vs the response (cover) S N
  //   q2 response claims D E: vs chunks S S; not judged against the gold answer
  using claims::Label;
  eval::JudgeReport report;
  eval::JudgedQuery q1;
  q1.qid = "q1";
  q1.responseClaims.claims = {"A", "B", "C"};
  q1.goldClaims.claims = {"G1", "G2"};
  q1.verdicts.push_back(
      premiseOf("faith", {Label::Supported, Label::Unsupported, Label::Unparsed}));
  q1.verdicts.push_back(
      premiseOf("correct", {Label::Supported, Label::Supported, Label::Unsupported}));
  q1.verdicts.push_back(premiseOf("cover", {Label::Entailment, Label::Neutral}));
  eval::JudgedQuery q2;
  q2.qid = "q2";
  q2.responseClaims.claims = {"D", "E"};
  q2.verdicts.push_back(premiseOf("faith", {Label::Supported, Label::Supported}));
  report.queries = {q1, q2};

  auto label = [](std::string scope, std::string qid, std::string item, std::string value,
                  std::string annotator, std::string context = {},
                  std::optional<labels::ClaimPremise> premise = std::nullopt) {
    labels::Label l;
    l.target = {labels::TargetKind::Claim, std::move(scope), std::move(qid), std::move(item),
                premise};
    l.value = std::move(value);
    l.annotator = std::move(annotator);
    l.context = std::move(context);
    return l;
  };
  // The store is /tmp/somewhere/runs/claims.db, the labels' folder (the project's) /tmp/somewhere:
  // "runs/claims.db" and the absolute path name it; "claims.db" (another file of the same name)
  // and "other.db" do not. Labels without a premise were judged against the chunks.
  const auto gold = labels::ClaimPremise::GoldAnswer;
  const std::vector<labels::Label> labels = {
      label("runs/claims.db", "q1", "response:0", "unsupported", "ana", "A"),          // Y 0
      label("/tmp/somewhere/runs/claims.db", "q1", "response:0", "supported", "bob"),  // mean 0.5
      label("runs/claims.db", "q1", "response:2", "supported", "ana"),    // faith: unparsed
      label("runs/claims.db", "q2", "response:1", "cannot_tell", "ana"),  // abstained
      label("runs/claims.db", "q2", "response:0", "supported", "ana", "OLD TEXT"),  // stale
      label("runs/claims.db", "q9", "response:0", "supported", "ana"),              // no answer
      label("other.db", "q1", "response:1", "supported", "ana"),                    // another run
      label("claims.db", "q1", "response:1", "supported", "ana"),   // same name, not it
      label("runs/claims.db", "q1", "gold:1", "supported", "ana"),  // coverage: Y 1, f 0
      label("runs/claims.db", "q1", "response:0", "unsupported", "ana", "A", gold),  // Y 0
      label("runs/claims.db", "q1", "response:2", "supported", "ana", {}, gold),     // Y 1
  };
  const auto metrics = eval::claimPpiItems(
      report, labels::ScopeMatcher("/tmp/somewhere", "/tmp/somewhere/runs/claims.db"), labels);
  QCOMPARE(metrics.size(), std::size_t(3));

  // faithfulness: q1 A (f 1, Y 0.5), q1 B (f 0), q1 C unresolved, q2 D (f 1, stale label), q2 E
  // (f 1, cannot_tell); the two labels against the gold answer are not its truth.
  const auto& faith = metrics[0];
  QCOMPARE(faith.metric, std::string("faithfulness"));
  QCOMPARE(faith.input.labelledY, (std::vector<double>{0.5}));
  QCOMPARE(faith.input.labelledF, (std::vector<double>{1}));
  QCOMPARE(faith.input.unlabelledF, (std::vector<double>{0, 1, 1}));
  QCOMPARE(faith.judgeUnresolved, std::size_t(1));
  QCOMPARE(faith.abstained, std::size_t(1));
  QCOMPARE(faith.severalAnnotators, std::size_t(1));
  QCOMPARE(faith.staleLabels, std::size_t(1));
  QCOMPARE(faith.labelsNotUsed, std::size_t(2));  // q1 response:2 (unresolved), q9 response:0
  QCOMPARE(faith.otherPremise, std::size_t(2));   // q1 response:0 and response:2 vs the gold

  // correctness: q1 A (f 1, Y 0), B (f 1), C (f 0, Y 1); q2 not judged against the gold. Only
  // the labels judged against the gold answer: the chunk verdicts on A (0.5) and C are not Y.
  const auto& correct = metrics[1];
  QCOMPARE(correct.metric, std::string("correctness"));
  QCOMPARE(correct.input.labelledY, (std::vector<double>{0, 1}));
  QCOMPARE(correct.input.labelledF, (std::vector<double>{1, 0}));
  QCOMPARE(correct.input.unlabelledF, (std::vector<double>{1}));
  QCOMPARE(correct.labelsNotUsed, std::size_t(0));
  QCOMPARE(correct.otherPremise, std::size_t(5));  // the chunk-premise targets of this run
  // classical PPI: mean_U(f) = 1, mean_L(Y - f) = (-1 + 1) / 2 = 0: estimate 1
  PpiOptions classical;
  classical.lambda = 1.0;
  QVERIFY(near(ppiMean(correct.input, classical).estimate, 1.0));

  const auto& cover = metrics[2];
  QCOMPARE(cover.metric, std::string("coverage"));
  QCOMPARE(cover.input.labelledY, (std::vector<double>{1}));
  QCOMPARE(cover.input.labelledF, (std::vector<double>{0}));
  QCOMPARE(cover.input.unlabelledF, (std::vector<double>{1}));

  // Scopes name a store by its path, never by its file name (core/labels/labelscope.h).
  const labels::ScopeMatcher names("/x", "/x/runs/claims.db");
  QVERIFY(names("runs/claims.db"));
  QVERIFY(names("/x/runs/claims.db"));
  QVERIFY(names("runs/../runs/claims.db"));
  QVERIFY(!names("claims.db"));
  QVERIFY(!names("/y/runs/claims.db"));
  QVERIFY(!names("runs/claims.db.bak"));
  QVERIFY(!names(""));
}

void TestPpi::eragAndAnswerItems() {
  // eRAG: q1's documents d1 d2 d3 with eRAG labels 1, 0 and none (no output yet);
  // a human grade of d2: 1. Items: d1 (f 1), d2 (f 0, Y 1); d3 left out.
  eval::EragReport report;
  eval::PlannedQuery q;
  q.qid = "q1";
  q.docIds = {"d1", "d2", "d3"};
  report.queries = {q};
  report.labels = {{1.0, 0.0, std::nullopt}};
  labels::Label grade;
  grade.target = {labels::TargetKind::EragDoc, "erag.db", "q1", "d2"};
  grade.value = "1";
  grade.annotator = "ana";
  const auto erag = eval::eragPpiItems(report, labels::ScopeMatcher("", "erag.db"), {grade});
  QVERIFY(erag.has_value());
  QCOMPARE(erag->input.labelledY, (std::vector<double>{1}));
  QCOMPARE(erag->input.labelledF, (std::vector<double>{0}));
  QCOMPARE(erag->input.unlabelledF, (std::vector<double>{1}));
  QCOMPARE(erag->judgeUnresolved, std::size_t(1));

  // Answers: per-query scores q1 0.2, q2 0.8; q2 labelled "partially" (0.5) by ana and
  // "correct" (1) by bob: Y = 0.75; a label of q7 (no score) is not used.
  stats::QueryValues values{{"q1", 0.2}, {"q2", 0.8}};
  auto answer = [](std::string qid, std::string value, std::string who) {
    labels::Label l;
    l.target = {labels::TargetKind::Answer, "e2e.db", std::move(qid), ""};
    l.value = std::move(value);
    l.annotator = std::move(who);
    return l;
  };
  const auto items = eval::answerPpiItems(
      "rouge-l", values, labels::ScopeMatcher("", "e2e.db"),
      {answer("q2", "partially", "ana"), answer("q2", "correct", "bob"), answer("q7", "0", "a")});
  QCOMPARE(items.metric, std::string("answer:rouge-l"));
  QCOMPARE(items.input.labelledY, (std::vector<double>{0.75}));
  QCOMPARE(items.input.labelledF, (std::vector<double>{0.8}));
  QCOMPARE(items.input.unlabelledF, (std::vector<double>{0.2}));
  QCOMPARE(items.severalAnnotators, std::size_t(1));
  QCOMPARE(items.labelsNotUsed, std::size_t(1));
}

namespace {

// The worked example as CSV files: items a..j, a-d labelled (listed in another order).
void writeWorkedExampleCsv(const QTemporaryDir& dir) {
  ragscope::test::writeText(cliPath(dir, "pred.csv"),
                            "id,value\na,1\nb,0\nc,1\nd,1\ne,1\nf,1\ng,0\nh,1\ni,0\nj,1\n");
  ragscope::test::writeText(cliPath(dir, "human.csv"), "id,value\nd,0\nb,0\na,1\nc,1\n");
}

}  // namespace

void TestPpi::csvFilesRead() {
  QTemporaryDir dir;
  writeWorkedExampleCsv(dir);
  const auto files = eval::readPpiFiles(cliPath(dir, "pred.csv"), cliPath(dir, "human.csv"));
  QVERIFY2(files.ok(), files.error.c_str());
  // Items in the predictions' order.
  QCOMPARE(files.labelledIds, (std::vector<std::string>{"a", "b", "c", "d"}));
  QCOMPARE(files.input.labelledY, workedExample().labelledY);
  QCOMPARE(files.input.labelledF, workedExample().labelledF);
  QCOMPARE(files.input.unlabelledF, workedExample().unlabelledF);
}

void TestPpi::csvFilesRefused() {
  QTemporaryDir dir;
  const std::string pred = cliPath(dir, "pred.csv"), human = cliPath(dir, "human.csv");
  auto errorOf = [&](const std::string& p, const std::string& h) {
    ragscope::test::writeText(pred, p);
    ragscope::test::writeText(human, h);
    return eval::readPpiFiles(pred, human).error;
  };
  const std::string good = "id,value\na,1\nb,0\nc,1\n";
  std::string e = errorOf(good, "id,value\na,1\nzz,0\nyy,1\n");
  QVERIFY2(e.find(human + ": 2 id(s) not in " + pred + ": \"zz\" (line 3), \"yy\" (line 4)") !=
               std::string::npos,
           e.c_str());
  e = errorOf("id,value\na,1\nb,0\na,1\n", "id,value\na,1\n");
  QVERIFY2(e.find(pred + ":4: id: \"a\" is also on line 2") != std::string::npos, e.c_str());
  e = errorOf(good, "id,value\na,1\na,0\n");
  QVERIFY2(e.find(human + ":3: id: \"a\" is also on line 2") != std::string::npos, e.c_str());
  e = errorOf(good, "id,value\na,yes\n");
  QVERIFY2(e.find(human + ":2: value: \"yes\" is not a finite number") != std::string::npos,
           e.c_str());
  e = errorOf("id,value\na,1\nb,nan\n", "id,value\na,1\n");
  QVERIFY2(e.find(pred + ":3: value: \"nan\" is not a finite number") != std::string::npos,
           e.c_str());
  e = errorOf("qid,score\na,1\n", "id,value\na,1\n");
  QVERIFY2(e.find(pred + ":1: header: expected the columns id and value") != std::string::npos,
           e.c_str());
  e = errorOf(good, "id,value\n,1\n");
  QVERIFY2(e.find(human + ":2: id: empty") != std::string::npos, e.c_str());
  e = errorOf(good, "");
  QVERIFY2(e.find("empty") != std::string::npos, e.c_str());
}

void TestPpi::cliOnCsvFiles() {
  QTemporaryDir dir;
  writeWorkedExampleCsv(dir);
  const QString pred = QString::fromStdString(cliPath(dir, "pred.csv"));
  const QString human = QString::fromStdString(cliPath(dir, "human.csv"));
  auto r = ragscope::test::runCli({"ppi", "--predictions", pred, "--labels", human, "--json"});
  QVERIFY2(r.exitCode == 0, r.err.constData());
  const auto j = nlohmann::json::parse(r.out.toStdString());
  // The worked example's figures (ppiPlusPlusByHand, judgeAndHumanOnlyByHand).
  QVERIFY(std::abs(j["estimate"].get<double>() - 0.47321428571428575) < 1e-9);
  QVERIFY(std::abs(j["ci_low"].get<double>() - 0.03024422348305089) < 1e-9);
  QVERIFY(std::abs(j["ci_high"].get<double>() - 0.9161843479455206) < 1e-9);
  QVERIFY(std::abs(j["lambda"].get<double>() - 9.0 / 28.0) < 1e-12);
  QCOMPARE(j["n_labelled"].get<int>(), 4);
  QCOMPARE(j["n_unlabelled"].get<int>(), 6);
  QVERIFY(std::abs(j["judge_only"]["mean"].get<double>() - 0.7) < 1e-12);
  QVERIFY(std::abs(j["judge_only"]["ci_low"].get<double>() - 0.41597423491067465) < 1e-9);
  QVERIFY(std::abs(j["judge_only"]["ci_high"].get<double>() - 0.9840257650893253) < 1e-9);
  QVERIFY(std::abs(j["human_only"]["mean"].get<double>() - 0.5) < 1e-12);
  QVERIFY(std::abs(j["human_only"]["ci_low"].get<double>() - 0.010009003864986599) < 1e-9);
  QVERIFY(std::abs(j["human_only"]["ci_high"].get<double>() - 0.9899909961350134) < 1e-9);
  QCOMPARE(j.size(), std::size_t(8));

  // Classical PPI through --lambda 1.
  r = ragscope::test::runCli(
      {"ppi", "--predictions", pred, "--labels", human, "--lambda", "1", "--json"});
  QVERIFY2(r.exitCode == 0, r.err.constData());
  const auto c = nlohmann::json::parse(r.out.toStdString());
  QVERIFY(std::abs(c["estimate"].get<double>() - 5.0 / 12.0) < 1e-9);
  QVERIFY(std::abs(c["ci_low"].get<double>() - -0.151087360037097) < 1e-9);
  QCOMPARE(c["lambda"].get<double>(), 1.0);

  // Text: the three rows with their figures.
  const auto t = ragscope::test::runCliText({"ppi", "--predictions", pred, "--labels", human});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err));
  QVERIFY2(t.out.contains("PPI++ (lambda tuned): 10 items, 4 labelled, 6 unlabelled; 95%"),
           qPrintable(t.out));
  QVERIFY2(t.out.contains("PPI estimate    0.4732  [0.0302, 0.9162]  lambda 0.3214"),
           qPrintable(t.out));
  QVERIFY2(t.out.contains("judge only      0.7000  [0.4160, 0.9840]"), qPrintable(t.out));
  QVERIFY2(t.out.contains("human only      0.5000  [0.0100, 0.9900]"), qPrintable(t.out));
}

void TestPpi::cliErrors() {
  QTemporaryDir dir;
  writeWorkedExampleCsv(dir);
  const QString pred = QString::fromStdString(cliPath(dir, "pred.csv"));
  const QString human = QString::fromStdString(cliPath(dir, "human.csv"));
  const QString unknown = QString::fromStdString(cliPath(dir, "unknown.csv"));
  ragscope::test::writeText(unknown.toStdString(), "id,value\na,1\nq42,0\n");
  auto t = ragscope::test::runCliText({"ppi", "--predictions", pred, "--labels", unknown});
  QCOMPARE(t.exitCode, 2);
  QVERIFY2(t.err.contains("1 id(s) not in") && t.err.contains("\"q42\" (line 3)"),
           qPrintable(t.err));
  t = ragscope::test::runCliText({"ppi", "--predictions", pred});
  QCOMPARE(t.exitCode, 2);
  QVERIFY2(t.err.contains("ppi needs --labels"), qPrintable(t.err));
  t = ragscope::test::runCliText(
      {"ppi", "--predictions", pred, "--labels", human, "--lambda", "sometimes"});
  QCOMPARE(t.exitCode, 2);
  QVERIFY2(t.err.contains("--lambda: expected auto or a finite number"), qPrintable(t.err));
  t = ragscope::test::runCliText({"ppi", "--predictions", pred, "--labels", human, "--level", "1"});
  QCOMPARE(t.exitCode, 2);
  // Every item labelled: no estimate, said so.
  t = ragscope::test::runCliText({"ppi", "--predictions", human, "--labels", human});
  QCOMPARE(t.exitCode, 2);
  QVERIFY2(t.err.contains("N_u = 0"), qPrintable(t.err));
  t = ragscope::test::runCliText({"ppi", "--help"});
  QCOMPARE(t.exitCode, 0);
  QVERIFY(t.out.contains("--predictions FILE --labels FILE"));
  QVERIFY(t.out.contains("--metric M"));
}

void TestPpi::cliOnRunStore() {
  // The demo's offline judging run: 18 response claims judged against the chunks, 12 of them
  // supported. Four labelled by a person (claim indexes from 0):
  //   q01 response:0  judge supported    human supported     Y 1 f 1
  //   q04 response:1  judge unsupported  human supported     Y 1 f 0
  //   q12 response:1  judge supported    human unsupported   Y 0 f 1
  //   q13 response:1  judge unsupported  human unsupported   Y 0 f 0
  // classical PPI: the 14 unlabelled claims hold 12 - 2 = 10 supported: mean_U(f) = 10/14;
  //   Y - f = 0 1 -1 0, mean 0, var_pop 0.5
  //   estimate = 10/14 = 0.714286
  //   se = sqrt((10/14)(4/14)/14 + 0.5/4) = sqrt(0.0145773 + 0.125) = 0.373601
  // judge only: 12/18 = 0.666667 +- z sqrt((2/9)/18) = +- z 0.111111
  // human only: 0.5 +- z sqrt(0.25/4) = +- z 0.25
  const fs::path demo = fs::path(RAGSCOPE_SOURCE_DIR) / "resources/demo/runs/claims-offline.db";
  QTemporaryDir dir;
  const fs::path store = fs::path(dir.path().toStdString()) / "runs/claims-offline.db";
  fs::create_directories(store.parent_path());
  fs::copy_file(demo, store);
  const fs::path project = fs::path(dir.path().toStdString()) / "demo.ragscope.json";
  ragscope::test::writeText(project, "{}\n");
  {
    labels::LabelStore labelsStore;
    std::string err;
    QVERIFY2(labelsStore.open(labels::labelsStorePath(project), &err), err.c_str());
    std::vector<labels::Label> add;
    for (const auto& [qid, item, value] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"q01", "response:0", "supported"},
             {"q04", "response:1", "supported"},
             {"q12", "response:1", "unsupported"},
             {"q13", "response:1", "unsupported"}}) {
      labels::Label l;
      l.target = {labels::TargetKind::Claim, "runs/claims-offline.db", qid, item};
      l.value = value;
      l.annotator = "ana";
      l.time = "2026-11-27T10:00:00Z";
      add.push_back(l);
    }
    QVERIFY2(labelsStore.add(add, &err), err.c_str());
  }
  const QString storeArg = QString::fromStdString(store.string());
  for (const QString& labelsArg :
       {QString::fromStdString(project.string()),
        QString::fromStdString(labels::labelsStorePath(project).string())}) {
    auto r = ragscope::test::runCli({"ppi", "--store", storeArg, "--labels", labelsArg, "--metric",
                                     "faithfulness", "--lambda", "1", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["n_labelled"].get<int>(), 4);
    QCOMPARE(j["n_unlabelled"].get<int>(), 14);
    const double se = std::sqrt((10.0 / 14) * (4.0 / 14) / 14 + 0.5 / 4);
    QVERIFY(std::abs(j["estimate"].get<double>() - 10.0 / 14) < 1e-9);
    QVERIFY(std::abs(j["ci_low"].get<double>() - (10.0 / 14 - kZ95 * se)) < 1e-9);
    QVERIFY(std::abs(j["judge_only"]["mean"].get<double>() - 12.0 / 18) < 1e-9);
    QVERIFY(std::abs(j["judge_only"]["ci_high"].get<double>() - (12.0 / 18 + kZ95 / 9)) < 1e-9);
    QVERIFY(std::abs(j["human_only"]["mean"].get<double>() - 0.5) < 1e-12);
    QVERIFY(std::abs(j["human_only"]["ci_low"].get<double>() - (0.5 - kZ95 * 0.25)) < 1e-9);
  }
  // The report's human-labels section, from the same labels (ragscope-cli report --labels):
  // PPI++ on these four labels has lambda = 0 (cov_L(Y, f) = 0: Y = 1 1 0 0, f = 1 0 1 0), so
  // its estimate and interval are the human-only ones, 0.5 +- z 0.25.
  const QString reportJson = dir.filePath("report.json");
  auto rep = ragscope::test::runCli({"report", "--store", storeArg, "--labels",
                                     QString::fromStdString(project.string()), "--B", "0", "--out",
                                     reportJson});
  QVERIFY2(rep.exitCode == 0, rep.err.constData());
  const auto doc = nlohmann::json::parse(ragscope::test::readText(reportJson.toStdString()));
  const auto& human = doc["runs"][0]["human_labels"];
  QCOMPARE(human["counts"].size(), std::size_t(1));
  QCOMPARE(human["counts"][0]["kind"].get<std::string>(), std::string("claim"));
  QCOMPARE(human["counts"][0]["annotator"].get<std::string>(), std::string("ana"));
  QCOMPARE(human["counts"][0]["labels"].get<int>(), 4);
  const nlohmann::json* faith = nullptr;
  for (const auto& p : human["ppi"])
    if (p["metric"] == "faithfulness") faith = &p;
  QVERIFY(faith);
  QCOMPARE((*faith)["labelled"].get<int>(), 4);
  QCOMPARE((*faith)["items"].get<int>(), 18);
  QCOMPARE((*faith)["lambda"].get<double>(), 0.0);
  QVERIFY(std::abs((*faith)["estimate"].get<double>() - 0.5) < 1e-12);
  QVERIFY(std::abs((*faith)["ci_low"].get<double>() - (0.5 - kZ95 * 0.25)) < 1e-9);
  QVERIFY(std::abs((*faith)["judge_only"]["mean"].get<double>() - 12.0 / 18) < 1e-9);
  QVERIFY(std::abs((*faith)["human_only"]["ci_high"].get<double>() - (0.5 + kZ95 * 0.25)) < 1e-9);
  // Judge vs human for ana's four claims: 2 of 4 agree (q01 and q13).
  QVERIFY(!human["agreement"].empty());
  QVERIFY2(human["agreement"][0].get<std::string>().find("4 compared, accuracy 0.500") !=
               std::string::npos,
           human["agreement"][0].get<std::string>().c_str());
  // The questions of the lowest-scoring queries.
  QCOMPARE(doc["runs"][0]["questions"]["q01"].get<std::string>(),
           std::string("When was the Harbor City Water Authority founded?"));
  // The CSV grain "labels": one row per metric.
  const QString labelsCsv = dir.filePath("labels.csv");
  rep = ragscope::test::runCli({"report", "--store", storeArg, "--labels",
                                QString::fromStdString(project.string()), "--B", "0", "--out",
                                labelsCsv, "--grain", "labels"});
  QVERIFY2(rep.exitCode == 0, rep.err.constData());
  const std::string csv = ragscope::test::readText(labelsCsv.toStdString());
  QVERIFY2(csv.starts_with("run,metric,items,labelled,judge_mean,judge_ci_low,judge_ci_high,"
                           "human_mean,human_ci_low,human_ci_high,ppi_estimate,ppi_ci_low,"
                           "ppi_ci_high,lambda,problem\r\n"),
           csv.c_str());
  QVERIFY2(csv.find("\r\nclaims-offline,faithfulness,18,4,") != std::string::npos, csv.c_str());

  // An unknown metric names the ones there are.
  auto t =
      ragscope::test::runCliText({"ppi", "--store", storeArg, "--labels",
                                  QString::fromStdString(project.string()), "--metric", "fluency"});
  QCOMPARE(t.exitCode, 2);
  QVERIFY2(t.err.contains("has no metric 'fluency'; it has: faithfulness, correctness, coverage"),
           qPrintable(t.err));
  // Text output names the items.
  t = ragscope::test::runCliText({"ppi", "--store", storeArg, "--labels",
                                  QString::fromStdString(project.string()), "--metric",
                                  "faithfulness"});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err));
  QVERIFY2(t.out.startsWith("faithfulness: response claims vs the retrieved chunks\n"),
           qPrintable(t.out));
}

namespace {

// `labels` added to the labels store of `project` (made when missing), all by "ana".
void addLabels(const fs::path& project, std::vector<labels::Label> add) {
  labels::LabelStore store;
  std::string err;
  QVERIFY2(store.open(labels::labelsStorePath(project), &err), err.c_str());
  for (auto& l : add) {
    l.annotator = "ana";
    l.time = "2026-11-27T10:00:00Z";
  }
  QVERIFY2(store.add(add, &err), err.c_str());
}

}  // namespace

void TestPpi::correctnessUsesLabelsAgainstTheGoldAnswer() {
  // Issue 35, item 10, on the demo's judging run. Four claims labelled in the labelling queue as
  // it was (no premise: against the retrieved chunks), two labelled against the gold answer:
  //   correctness: n_labelled 2 (the gold-answer ones: supported 1, unsupported 0; human-only
  //                mean 0.5), the four chunk verdicts left out and counted;
  //   faithfulness: n_labelled 4.
  // Before, all six were correctness' Y (n_labelled 6).
  const fs::path demo = fs::path(RAGSCOPE_SOURCE_DIR) / "resources/demo/runs/claims-offline.db";
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const fs::path store = root / "runs/claims-offline.db";
  fs::create_directories(store.parent_path());
  fs::copy_file(demo, store);
  const fs::path project = root / "demo.ragscope.json";
  ragscope::test::writeText(project, "{}\n");
  const auto report = eval::readJudgeReport(store, {});
  QVERIFY2(report.error.empty(), report.error.c_str());
  // Claims whose verdicts against both premises are resolved, and how many correctness items.
  std::vector<std::pair<std::string, std::size_t>> both;
  std::size_t correctnessItems = 0;
  for (const auto& q : report.queries)
    for (std::size_t i = 0; i < q.responseClaims.claims.size(); ++i) {
      const auto gold = eval::responseClaimVsGold(q, i);
      const auto chunks = eval::responseClaimVsChunks(q, i);
      const bool goldResolved = gold && claims::isResolved(*gold);
      correctnessItems += goldResolved ? 1 : 0;
      if (goldResolved && chunks && claims::isResolved(*chunks)) both.emplace_back(q.qid, i);
    }
  QVERIFY(both.size() >= 6);
  std::vector<labels::Label> add;
  for (std::size_t k = 0; k < 6; ++k) {
    labels::Label l;
    l.target = {labels::TargetKind::Claim, "runs/claims-offline.db", both[k].first,
                "response:" + std::to_string(both[k].second)};
    if (k >= 4) l.target.premise = labels::ClaimPremise::GoldAnswer;
    l.value = k == 5 ? "unsupported" : "supported";
    add.push_back(l);
  }
  addLabels(project, add);
  const QString storeArg = QString::fromStdString(store.string());
  const QString labelsArg = QString::fromStdString(project.string());
  auto r = ragscope::test::runCli(
      {"ppi", "--store", storeArg, "--labels", labelsArg, "--metric", "correctness", "--json"});
  QVERIFY2(r.exitCode == 0, r.err.constData());
  auto j = nlohmann::json::parse(r.out.toStdString());
  QCOMPARE(j["n_labelled"].get<std::size_t>(), std::size_t(2));
  QCOMPARE(j["n_labelled"].get<std::size_t>() + j["n_unlabelled"].get<std::size_t>(),
           correctnessItems);
  QVERIFY(std::abs(j["human_only"]["mean"].get<double>() - 0.5) < 1e-12);
  r = ragscope::test::runCli(
      {"ppi", "--store", storeArg, "--labels", labelsArg, "--metric", "faithfulness", "--json"});
  QVERIFY2(r.exitCode == 0, r.err.constData());
  j = nlohmann::json::parse(r.out.toStdString());
  QCOMPARE(j["n_labelled"].get<std::size_t>(), std::size_t(4));
  QVERIFY(std::abs(j["human_only"]["mean"].get<double>() - 1.0) < 1e-12);
  const auto t = ragscope::test::runCliText(
      {"ppi", "--store", storeArg, "--labels", labelsArg, "--metric", "correctness"});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err));
  QVERIFY2(t.out.contains("human truth: the claim labels judged against the gold answer; 4 "
                          "labelled claim(s) judged against another premise not used"),
           qPrintable(t.out));
  // The report's human-labels section: the same counts, and a note naming the left-out labels.
  const QString reportJson = dir.filePath("report.json");
  auto rep = ragscope::test::runCli(
      {"report", "--store", storeArg, "--labels", labelsArg, "--B", "0", "--out", reportJson});
  QVERIFY2(rep.exitCode == 0, rep.err.constData());
  const auto doc = nlohmann::json::parse(ragscope::test::readText(reportJson.toStdString()));
  const auto& human = doc["runs"][0]["human_labels"];
  bool sawCorrectness = false;
  for (const auto& p : human["ppi"])
    if (p["metric"] == "correctness") {
      sawCorrectness = true;
      QCOMPARE(p["labelled"].get<int>(), 2);
    }
  QVERIFY(sawCorrectness);
  QVERIFY2(human.dump().find("correctness: 4 labelled claim(s) judged against another premise") !=
               std::string::npos,
           human.dump().c_str());
}

void TestPpi::labelsFollowTheStoreNotItsFileName() {
  // Issue 35, item 11: runs/e2e-good.db and other/e2e-good.db, two copies of the demo's
  // end-to-end run under one file name; three answer labels of runs/e2e-good.db. They are the
  // labels of that file (also through a link to it), never of other/e2e-good.db.
  const fs::path demo = fs::path(RAGSCOPE_SOURCE_DIR) / "resources/demo/runs/e2e-good.db";
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  fs::create_directories(root / "runs");
  fs::create_directories(root / "other");
  fs::copy_file(demo, root / "runs/e2e-good.db");
  fs::copy_file(demo, root / "other/e2e-good.db");
  fs::create_symlink(root / "runs/e2e-good.db", root / "link.db");
  const fs::path project = root / "demo.ragscope.json";
  ragscope::test::writeText(project, "{}\n");
  std::vector<std::string> qids;
  {
    store::RunStore runStore;
    std::string err;
    QVERIFY2(runStore.openReadOnly(root / "runs/e2e-good.db", &err), err.c_str());
    stats::BootstrapOptions noIntervals;
    noIntervals.resamples = 0;
    const auto report = eval::computeE2eReport(runStore, noIntervals);
    QVERIFY2(report.error.empty(), report.error.c_str());
    qids = report.qids;
  }
  QVERIFY(qids.size() >= 4);
  std::vector<labels::Label> add;
  for (std::size_t k = 0; k < 3; ++k) {
    labels::Label l;
    l.target = {labels::TargetKind::Answer, "runs/e2e-good.db", qids[k], ""};
    l.value = k == 0 ? "incorrect" : "correct";
    add.push_back(l);
  }
  addLabels(project, add);
  const QString labelsArg = QString::fromStdString(project.string());
  auto ppi = [&](const fs::path& store) {
    return ragscope::test::runCli({"ppi", "--store", QString::fromStdString(store.string()),
                                   "--labels", labelsArg, "--metric", "answer:rouge-l", "--json"});
  };
  for (const fs::path& same : {root / "runs/e2e-good.db", root / "link.db"}) {
    const auto r = ppi(same);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["n_labelled"].get<int>(), 3);
    QVERIFY(std::abs(j["human_only"]["mean"].get<double>() - 2.0 / 3.0) < 1e-12);
  }
  const auto other = ppi(root / "other/e2e-good.db");
  QCOMPARE(other.exitCode, 2);
  QVERIFY2(other.err.contains("no item has a human label (n = 0)"), other.err.constData());
  // The report of the other store has no human label either.
  const QString reportJson = dir.filePath("report.json");
  const auto rep = ragscope::test::runCli(
      {"report", "--store", QString::fromStdString((root / "other/e2e-good.db").string()),
       "--labels", labelsArg, "--B", "0", "--out", reportJson});
  QVERIFY2(rep.exitCode == 0, rep.err.constData());
  const auto doc = nlohmann::json::parse(ragscope::test::readText(reportJson.toStdString()));
  const auto& human = doc["runs"][0]["human_labels"];
  QVERIFY2(human["counts"].empty(), human.dump().c_str());
  QVERIFY2(human.dump().find("no human label of this run yet") != std::string::npos,
           human.dump().c_str());
}

QTEST_GUILESS_MAIN(TestPpi)
#include "tst_ppi.moc"
