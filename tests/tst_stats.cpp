// Statistics engine (core/stats) and its CLI commands against independently known answers:
// bootstrap variance vs sigma^2/s, CI coverage over repeated synthetic samples, bit-identical
// results across thread counts, exact randomization p-values enumerated by hand (Python
// brute force, numbers pasted as literals), Kendall tau-b / Spearman rho with ties computed from
// their definitions, the paired t-test on Student's sleep data, Holm on the textbook example, the
// per-query file reader's diagnostics, the DL19 runs compared by the CLI, and eRAG / end-to-end
// run stores of the demo as CLI inputs (values as `erag/e2e --json` print them).

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/stats/bootstrap.h"
#include "core/stats/contrastive.h"
#include "core/stats/correlation.h"
#include "core/stats/multiple.h"
#include "core/stats/paired.h"
#include "core/stats/perqueryfile.h"
#include "core/stats/random.h"
#include "core/stats/resamplekernel.h"
#include "core/stats/runsummary.h"
#include "core/stats/summary.h"

using namespace ragscope::core;
using namespace ragscope::core::stats;

namespace {

// Deterministic synthetic data (our own generator so the numbers do not depend on the standard
// library's distribution implementations).
std::vector<double> normalSample(std::uint64_t seed, std::size_t n, double mu = 0.0,
                                 double sigma = 1.0) {
  Rng rng(seed);
  std::vector<double> out;
  while (out.size() < n) {
    const double u1 = 1.0 - rng.uniform();  // (0, 1]
    const double u2 = rng.uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    out.push_back(mu + sigma * r * std::cos(2.0 * std::numbers::pi * u2));
    if (out.size() < n) out.push_back(mu + sigma * r * std::sin(2.0 * std::numbers::pi * u2));
  }
  return out;
}

std::vector<double> exponentialSample(std::uint64_t seed, std::size_t n) {
  Rng rng(seed);
  std::vector<double> out(n);
  for (double& v : out) v = -std::log(1.0 - rng.uniform());
  return out;
}

double populationVariance(const std::vector<double>& v) {
  const double m = meanOf(v);
  double ss = 0.0;
  for (double x : v) ss += (x - m) * (x - m);
  return ss / double(v.size());
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return false;
  return true;
}

void writeFile(const QString& path, const std::string& text) {
  std::ofstream out(path.toStdString(), std::ios::binary);
  out << text;
}

using ragscope::test::CliResult;
using ragscope::test::runCli;

}  // namespace

class TestStats : public QObject {
  Q_OBJECT

 private slots:
  void quantileType7();
  void histogramCounts();
  void randomStreamsIndependentOfOrder();
  void bootstrapVarianceMatchesSigma2OverS_data();
  void bootstrapVarianceMatchesSigma2OverS();
  void bootstrapCoverage_data();
  void bootstrapCoverage();
  void bootstrapDeterministicAcrossThreads();
  void bootstrapBcaPieces();
  void bootstrapRejectsBadInput();
  void bootstrapCancel();
  void bootstrapLanesMatchOneByOne();
  void signFlipExact_data();
  void signFlipExact();
  void signFlipMonteCarloAgreesWithExact();
  void signFlipDeterministicAcrossThreads();
  void pairedTTestSleepData();
  void alignReportsUnaligned();
  void comparePairedCounts();
  void holmTextbook();
  void kendallSpearmanWithTies();
  void kendallPerfectAndUndefined();
  void correlationDeterministicAcrossThreads();
  void twoSamplePermutationExact();
  void contrastiveGroups();
  void perQueryFileParses();
  void perQueryFileDiagnostics();
  void cliDl19Compare();
  void cliBootstrapAndCorrelate();
  void cliUnalignedAndErrors();
  void cliRunStores();
  void cliInvalidUtf8Json();
  void cliHugeCounts_data();
  void cliHugeCounts();
  void runLabelsTellRunsApart();
};

void TestStats::quantileType7() {
  // numpy.percentile([1,2,3,4], [25, 50, 90]) (linear) = 1.75, 2.5, 3.7.
  const std::vector<double> v = {1, 2, 3, 4};
  QCOMPARE(quantileSorted(v, 0.25), 1.75);
  QCOMPARE(quantileSorted(v, 0.5), 2.5);
  QVERIFY(std::fabs(quantileSorted(v, 0.9) - 3.7) < 1e-12);
  QCOMPARE(quantileSorted(v, 0.0), 1.0);
  QCOMPARE(quantileSorted(v, 1.0), 4.0);
  QVERIFY(std::isnan(quantileSorted({}, 0.5)));
}

void TestStats::histogramCounts() {
  const std::vector<double> v = {0.0, 0.1, 0.2, 0.5, 0.99, 1.0, NAN};
  const Histogram h = makeHistogram(v, 4);
  QCOMPARE(h.counts.size(), std::size_t(4));
  QCOMPARE(h.low, 0.0);
  QCOMPARE(h.high, 1.0);
  // [0,.25) 3, [.25,.5) 0, [.5,.75) 1, [.75,1] 2 (the maximum falls in the last bin)
  QCOMPARE(h.counts, (std::vector<std::size_t>{3, 0, 1, 2}));
  QCOMPARE(h.nonFinite, std::size_t(1));
  const Histogram ranged = makeHistogram(v, 2, std::make_pair(0.25, 0.75));
  QCOMPARE(ranged.outside, std::size_t(5));
  const Histogram autoBins = makeHistogram(normalSample(1, 10000));
  std::size_t total = 0;
  for (auto c : autoBins.counts) total += c;
  QCOMPARE(total, std::size_t(10000));
  QVERIFY(autoBins.counts.size() > 10 && autoBins.counts.size() <= 512);
  const Histogram single = makeHistogram(std::vector<double>{2.0, 2.0}, 0);
  QCOMPARE(single.counts, (std::vector<std::size_t>{2}));
}

void TestStats::randomStreamsIndependentOfOrder() {
  // A stream is a pure function of (seed, domain, index): drawing stream 7 before or after
  // stream 3 gives the same numbers, and different indices/seeds/domains differ.
  auto first = [](std::uint64_t seed, Domain d, std::uint64_t i) {
    return streamFor(seed, d, i).next();
  };
  const auto a = first(42, Domain::Bootstrap, 7);
  (void)first(42, Domain::Bootstrap, 3);
  QCOMPARE(first(42, Domain::Bootstrap, 7), a);
  QVERIFY(first(42, Domain::Bootstrap, 8) != a);
  QVERIFY(first(43, Domain::Bootstrap, 7) != a);
  QVERIFY(first(42, Domain::SignFlip, 7) != a);
  // below32 is uniform: 60,000 draws over 6 cells, chi-square with 5 df well under 25.
  Rng rng(5);
  std::vector<int> cells(6, 0);
  for (int i = 0; i < 60000; ++i) ++cells[rng.below32(6)];
  double chi2 = 0;
  for (int c : cells) chi2 += (c - 10000.0) * (c - 10000.0) / 10000.0;
  QVERIFY2(chi2 < 25.0, QByteArray::number(chi2).constData());
}

void TestStats::bootstrapVarianceMatchesSigma2OverS_data() {
  QTest::addColumn<int>("kind");  // 0 binary half/half, 1 uniform grid, 2 exponential, 3 normal
  QTest::addColumn<int>("n");
  QTest::addColumn<int>("s");
  QTest::addColumn<int>("B");
  QTest::newRow("binary n=200 s=50 (VERA s)") << 0 << 200 << 50 << 10000;
  QTest::newRow("uniform grid n=100 s=n") << 1 << 100 << 0 << 10000;
  QTest::newRow("exponential n=1000 s=n") << 2 << 1000 << 0 << 10000;
  QTest::newRow("normal n=43 s=n B=500 (VERA B)") << 3 << 43 << 0 << 500;
}

void TestStats::bootstrapVarianceMatchesSigma2OverS() {
  QFETCH(int, kind);
  QFETCH(int, n);
  QFETCH(int, s);
  QFETCH(int, B);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (kind == 0) v[i] = i % 2;
    if (kind == 1) v[i] = i;
  }
  if (kind == 2) v = exponentialSample(11, n);
  if (kind == 3) v = normalSample(12, n, 0.5, 0.2);
  BootstrapOptions o;
  o.resamples = B;
  o.sampleSize = s;
  o.seed = 2024;
  const BootstrapResult r = bootstrap(v, o);
  QVERIFY(r.ok());
  const double size = s ? s : n;
  // In the bootstrap world the s draws are iid from the empirical distribution, so the resample
  // mean has mean x-bar and variance sigma_hat^2 / s (sigma_hat^2 with the 1/n denominator).
  const double expected = populationVariance(v) / size;
  if (kind == 0) QCOMPARE(expected, 0.25 / 50);
  if (kind == 1) QVERIFY(std::fabs(expected - 833.25 / 100) < 1e-9);  // (n^2-1)/12 / n
  // Monte-Carlo error: the sample variance of B means has relative SE ~ sqrt(2/(B-1)) (normal
  // means; the exponential's excess kurtosis / s barely adds). Allow 4 SE.
  const double relSe = std::sqrt(2.0 / (B - 1));
  QVERIFY2(std::fabs(r.variance / expected - 1.0) < 4 * relSe,
           qPrintable(QString("variance %1 expected %2").arg(r.variance).arg(expected)));
  QVERIFY(std::fabs(r.mean - meanOf(v)) < 4 * std::sqrt(expected / B));
  QCOMPARE(r.distribution.size(), std::size_t(B));
  QCOMPARE(r.sampleSize, std::size_t(size));
  QVERIFY(r.ci.low < r.mean && r.mean < r.ci.high);
  // Percentile CI ~ mean +- 1.96 sd for these near-normal distributions of means.
  const double sd = std::sqrt(expected);
  QVERIFY(std::fabs((r.ci.high - r.ci.low) / (2 * 1.959964 * sd) - 1.0) < 0.15);
}

void TestStats::bootstrapCoverage_data() {
  QTest::addColumn<bool>("bca");
  QTest::addColumn<bool>("skewed");
  QTest::addColumn<double>("minCoverage");
  QTest::newRow("percentile, normal n=50") << false << false << 0.91;
  QTest::newRow("BCa, normal n=50") << true << false << 0.91;
  QTest::newRow("BCa, exponential n=50") << true << true << 0.89;
}

void TestStats::bootstrapCoverage() {
  QFETCH(bool, bca);
  QFETCH(bool, skewed);
  QFETCH(double, minCoverage);
  // 1000 independent samples; the true mean is 0 (normal) or 1 (exponential). Nominal 95 %:
  // the binomial SE of the coverage is 0.7 %; bootstrap intervals for n = 50 run a little
  // narrow (percentile ~94 %, worse for skewed data), hence the lower bounds.
  const int reps = 1000;
  int covered = 0;
  BootstrapOptions o;
  o.resamples = 1000;
  o.method = bca ? CiMethod::Bca : CiMethod::Percentile;
  o.keepDistribution = false;
  for (int rep = 0; rep < reps; ++rep) {
    const auto v = skewed ? exponentialSample(1000 + rep, 50) : normalSample(1000 + rep, 50);
    o.seed = rep;
    const BootstrapResult r = bootstrap(v, o);
    const double truth = skewed ? 1.0 : 0.0;
    covered += r.ci.low <= truth && truth <= r.ci.high;
  }
  const double coverage = double(covered) / reps;
  qInfo("coverage %.3f", coverage);
  QVERIFY2(coverage >= minCoverage && coverage <= 0.985, QByteArray::number(coverage).constData());
}

void TestStats::bootstrapDeterministicAcrossThreads() {
  const auto v = exponentialSample(3, 2000);
  BootstrapOptions o;
  o.resamples = 3001;  // odd, so chunks are uneven
  o.seed = 99;
  o.threads = 1;
  const BootstrapResult one = bootstrap(v, o);
  for (unsigned t : {2u, 3u, 7u, 0u}) {
    o.threads = t;
    const BootstrapResult r = bootstrap(v, o);
    QVERIFY(sameBits(one.distribution, r.distribution));
    QCOMPARE(r.mean, one.mean);
    QCOMPARE(r.variance, one.variance);
    QCOMPARE(r.ci.low, one.ci.low);
    QCOMPARE(r.ci.high, one.ci.high);
  }
  o.seed = 100;
  QVERIFY(!sameBits(one.distribution, bootstrap(v, o).distribution));
}

void TestStats::bootstrapBcaPieces() {
  // Acceleration: jackknife of the mean by its definition (leave-one-out means), computed in
  // Python (tests/known.py in the report): 0.0821633422811829.
  const std::vector<double> v = {0.1, 0.4, 0.4, 0.9, 1.0, 2.5};
  BootstrapOptions o;
  o.method = CiMethod::Bca;
  o.resamples = 20000;
  const BootstrapResult r = bootstrap(v, o);
  QVERIFY(std::fabs(r.acceleration - 0.0821633422811829) < 1e-12);
  // z0 = Phi^-1(share of means below the observed mean (+ half the ties)); recompute it.
  double below = 0;
  for (double m : r.distribution)
    below += m < r.observedMean ? 1.0 : (m == r.observedMean ? 0.5 : 0.0);
  QVERIFY(std::fabs(r.biasCorrection - normalQuantile(below / o.resamples)) < 1e-12);
  // Right-skewed data: BCa shifts the interval right of the percentile one.
  o.method = CiMethod::Percentile;
  const BootstrapResult p = bootstrap(v, o);
  QVERIFY(r.ci.high > p.ci.high);
  QVERIFY(r.ci.low > p.ci.low);
  // Constant data: every interval collapses to the value.
  const BootstrapResult c = bootstrap(std::vector<double>(10, 0.3), BootstrapOptions{});
  QCOMPARE(c.ci.low, 0.3);
  QCOMPARE(c.ci.high, 0.3);
  QCOMPARE(c.variance, 0.0);
}

void TestStats::bootstrapRejectsBadInput() {
  QVERIFY(!bootstrap({}, {}).ok());
  QVERIFY(!bootstrap(std::vector<double>{1.0, NAN}, {}).ok());
  BootstrapOptions o;
  o.level = 1.0;
  QVERIFY(!bootstrap(std::vector<double>{1.0, 2.0}, o).ok());
  o.level = 0.9;
  o.resamples = 1;
  QVERIFY(!bootstrap(std::vector<double>{1.0, 2.0}, o).ok());
}

// The eight-lane resampling loop (AVX-512, resamplekernel.h) gives the same bits as resampling one
// by one: sizes with a tail, a block of fewer than eight, and value counts whose rejection draws
// come often (n = 1000003: one draw in ~4300 redrawn) and never (n = 1).
void TestStats::bootstrapLanesMatchOneByOne() {
  if (!resampleLanesAvailable())
    QSKIP("no AVX-512 on this machine: the one-by-one loop runs alone");
  Rng g(7);
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{10000}, std::size_t{1000003}}) {
    std::vector<double> x(n);
    for (double& v : x) v = g.uniform();
    for (std::size_t s : {std::size_t{1}, std::size_t{6}, std::size_t{4001}}) {
      const std::size_t begin = 5, end = 5 + 8 * 12 + 3;  // blocks of eight, then three alone
      std::vector<double> lanes(end - begin), single(end - begin);
      QVERIFY(
          resampleMeansRange(x, s, 42, Domain::Bootstrap, 9, begin, end, lanes.data(), nullptr));
      QVERIFY(resampleMeansRangeScalar(x, s, 42, Domain::Bootstrap, 9, begin, end, single.data(),
                                       nullptr));
      for (std::size_t b = 0; b < lanes.size(); ++b)
        QVERIFY2(std::memcmp(&lanes[b], &single[b], sizeof(double)) == 0,
                 qPrintable(QString("n=%1 s=%2 b=%3").arg(n).arg(s).arg(b)));
    }
  }
}

void TestStats::bootstrapCancel() {
  std::atomic<bool> cancel{true};
  BootstrapOptions o;
  o.cancel = &cancel;
  const BootstrapResult r = bootstrap(normalSample(1, 100), o);
  QVERIFY(r.cancelled);
  QVERIFY(!r.ok());
}

void TestStats::signFlipExact_data() {
  // Counts by brute-force enumeration of all 2^m sign vectors in Python (itertools.product),
  // counting |sum*| >= |sum|.
  QTest::addColumn<std::vector<double>>("d");
  QTest::addColumn<double>("p");
  QTest::newRow("1 2 3: 2/8") << std::vector<double>{1, 2, 3} << 0.25;
  QTest::newRow("1 -2 3 4: 6/16") << std::vector<double>{1, -2, 3, 4} << 0.375;
  QTest::newRow("binary fractions with ties: 12/64")
      << std::vector<double>{0.5, 0.25, -0.125, 0.75, 0.5, -0.25} << 0.1875;
  QTest::newRow("3 1 4 1 5 -9 2 6: 100/256")
      << std::vector<double>{3, 1, 4, 1, 5, -9, 2, 6} << 0.390625;
  QTest::newRow("zeros left out: 1 2 3 0 0 -> 2/8") << std::vector<double>{1, 0, 2, 0, 3} << 0.25;
  QTest::newRow("all zero: p 1") << std::vector<double>{0, 0, 0} << 1.0;
}

void TestStats::signFlipExact() {
  QFETCH(std::vector<double>, d);
  QFETCH(double, p);
  const RandomizationResult r = signFlipTest(d);
  QVERIFY(r.exact);
  QCOMPARE(r.p, p);
}

void TestStats::signFlipMonteCarloAgreesWithExact() {
  // 22 non-zero differences: exact (limit raised) vs 200,000 random sign vectors.
  const auto d = normalSample(77, 22, 0.0, 1.0);
  RandomizationOptions o;
  o.exactLimit = 22;
  const RandomizationResult exact = signFlipTest(d, o);
  QVERIFY(exact.exact);
  QCOMPARE(exact.permutations, std::size_t(1) << 22);
  o.exactLimit = 20;
  o.permutations = 200000;
  const RandomizationResult mc = signFlipTest(d, o);
  QVERIFY(!mc.exact);
  const double se = std::sqrt(exact.p * (1 - exact.p) / 200000);
  QVERIFY2(std::fabs(mc.p - exact.p) < 4 * se + 1e-5,
           qPrintable(QString("mc %1 exact %2").arg(mc.p).arg(exact.p)));
  qInfo("exact %.6f mc %.6f", exact.p, mc.p);
  QVERIFY(exact.p > 0.01 && exact.p < 0.99);  // a case where the comparison means something
}

void TestStats::signFlipDeterministicAcrossThreads() {
  const auto d = normalSample(5, 3000, 0.01, 1.0);
  RandomizationOptions o;
  o.permutations = 5001;
  o.threads = 1;
  const RandomizationResult one = signFlipTest(d, o);
  for (unsigned t : {2u, 5u, 0u}) {
    o.threads = t;
    QCOMPARE(signFlipTest(d, o).p, one.p);
  }
  // Monte-Carlo p never reaches 0: (count + 1) / (N + 1).
  const std::vector<double> big(100, 1.0);
  o.permutations = 999;
  QCOMPARE(signFlipTest(big, o).p, 1.0 / 1000);
}

void TestStats::pairedTTestSleepData() {
  // Student (1908) / Cushny-Peebles sleep data, drug 2 minus drug 1. R: t.test(paired = TRUE)
  // gives t = 4.0621, df = 9, p-value = 0.002833; pure Python (mpmath incomplete beta):
  // t = 4.06212768338204, p = 0.00283289019738427.
  const std::vector<double> d = {1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4};
  const TTestResult r = pairedTTest(d);
  QVERIFY(std::fabs(r.t - 4.06212768338204) < 1e-10);
  QCOMPARE(r.df, 9.0);
  QVERIFY(std::fabs(r.p - 0.00283289019738427) < 1e-12);
  QVERIFY(std::isnan(pairedTTest(std::vector<double>{1.0}).p));
  QCOMPARE(pairedTTest(std::vector<double>{0.0, 0.0}).p, 1.0);
  QCOMPARE(pairedTTest(std::vector<double>{0.5, 0.5}).p, 0.0);
}

void TestStats::alignReportsUnaligned() {
  const QueryValues a = {{"1", 0.5}, {"2", 0.25}, {"3", 1.0}, {"5", 0.0}};
  const QueryValues b = {{"2", 0.5}, {"3", 0.5}, {"4", 0.75}, {"5", 0.0}, {"6", 1.0}};
  const PairedSample s = alignByQid(a, b);
  QCOMPARE(s.qids, (std::vector<std::string>{"2", "3", "5"}));
  QCOMPARE(s.a, (std::vector<double>{0.25, 1.0, 0.0}));
  QCOMPARE(s.b, (std::vector<double>{0.5, 0.5, 0.0}));
  QCOMPARE(s.onlyInA, (std::vector<std::string>{"1"}));
  QCOMPARE(s.onlyInB, (std::vector<std::string>{"4", "6"}));
  const PairedResult r = comparePaired(s);
  QCOMPARE(r.unaligned(), std::size_t(3));
  QCOMPARE(r.onlyInB, s.onlyInB);
}

void TestStats::comparePairedCounts() {
  const std::vector<double> a = {0.5, 0.7, 0.2, 0.9, 0.4};
  const std::vector<double> b = {0.4, 0.7, 0.3, 0.6, 0.1};
  const PairedResult r = comparePaired(a, b);
  QVERIFY(r.ok());
  QCOMPARE(r.n, std::size_t(5));
  QCOMPARE(r.wins, std::size_t(3));
  QCOMPARE(r.ties, std::size_t(1));
  QCOMPARE(r.losses, std::size_t(1));
  QVERIFY(std::fabs(r.meanDiff - 0.12) < 1e-12);
  // d = .1 0 -.1 .3 .3: 4 non-zero -> exact over 16 vectors. |sum*| >= .6 needs the two .3s
  // of one sign and the +-.1 pair not against them (3 of 4 ways), for either sign: 6/16
  // (Python enumeration of the 16 vectors agrees).
  QVERIFY(r.randomization.exact);
  QCOMPARE(r.randomization.nonZero, std::size_t(4));
  QCOMPARE(r.randomization.p, 0.375);
  QVERIFY(r.ci.low <= r.meanDiff && r.meanDiff <= r.ci.high);
  QVERIFY(!comparePaired(std::vector<double>{1.0}, std::vector<double>{}).ok());
  QVERIFY(!comparePaired(std::vector<double>{}, std::vector<double>{}).ok());
}

void TestStats::holmTextbook() {
  // Holm (1979) as in the usual textbook/Wikipedia example: p = .01 .04 .03 .005, alpha .05:
  // sorted .005 .01 .03 .04 times 4 3 2 1 = .02 .03 .06 .04 -> running max .02 .03 .06 .06;
  // H1 and H4 rejected.
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const auto adj = holmAdjust(p);
  const std::vector<double> expected = {0.03, 0.06, 0.06, 0.02};
  for (std::size_t i = 0; i < p.size(); ++i) QVERIFY(std::fabs(adj[i] - expected[i]) < 1e-15);
  QCOMPARE(holmAdjust(std::vector<double>{0.5, 0.9})[1], 1.0);  // capped at 1
  const auto withNan = holmAdjust(std::vector<double>{0.01, NAN, 0.02});
  QVERIFY(std::isnan(withNan[1]));
  QCOMPARE(withNan[0], 0.02);  // m = 2, NaN not counted
  QCOMPARE(bonferroniAdjust(p)[3], 0.02);
}

void TestStats::kendallSpearmanWithTies() {
  // By the definitions in pure Python (O(n^2) pair counts; average ranks; Kendall's
  // tie-corrected variance; t with n-2 df via mpmath's regularized incomplete beta):
  // C = 37, D = 2, ties x-only 4 + both... -> tau_b 0.833569639401697, z 3.21505575946531,
  // p 0.00130419186293634; rho 0.93812095999547, t 7.66199051377661, p 5.95022070769685e-05.
  const std::vector<double> x = {1, 2, 2, 3, 4, 4, 4, 5, 6, 7};
  const std::vector<double> y = {2, 1, 3, 3, 5, 4, 6, 6, 8, 7};
  CorrelationOptions o;
  o.resamples = 2000;
  const CorrelationResult r = correlate(x, y, o);
  QVERIFY(r.ok());
  QVERIFY(std::fabs(r.kendall.value - 0.833569639401697) < 1e-12);
  QVERIFY(std::fabs(r.kendall.statistic - 3.21505575946531) < 1e-11);
  QVERIFY(std::fabs(r.kendall.p - 0.00130419186293634) < 1e-12);
  QVERIFY(std::fabs(r.spearman.value - 0.93812095999547) < 1e-12);
  QVERIFY(std::fabs(r.spearman.statistic - 7.66199051377661) < 1e-10);
  QVERIFY(std::fabs(r.spearman.p - 5.95022070769685e-05) < 1e-15);
  QVERIFY(r.kendall.ci.low < r.kendall.value && r.kendall.value <= r.kendall.ci.high);
  QVERIFY(r.spearman.ci.low < r.spearman.value && r.spearman.value <= r.spearman.ci.high);
  QVERIFY(r.kendall.ci.high <= 1.0 && r.spearman.ci.high <= 1.0);
  // Symmetric in its arguments; ranks average over ties.
  QCOMPARE(kendallTauB(y, x), r.kendall.value);
  QCOMPARE(averageRanks(std::vector<double>{10, 20, 20, 5}), (std::vector<double>{2, 3.5, 3.5, 1}));
}

void TestStats::kendallPerfectAndUndefined() {
  const std::vector<double> x = {1, 2, 3, 4, 5};
  const std::vector<double> rev = {5, 4, 3, 2, 1};
  QCOMPARE(kendallTauB(x, x), 1.0);
  QCOMPARE(kendallTauB(x, rev), -1.0);
  QCOMPARE(spearmanRho(x, rev), -1.0);
  QCOMPARE(correlate(x, rev).spearman.p, 0.0);
  const std::vector<double> flat = {1, 1, 1, 1, 1};
  QVERIFY(std::isnan(kendallTauB(x, flat)));
  QVERIFY(std::isnan(spearmanRho(x, flat)));
  QVERIFY(std::isnan(correlate(x, flat).kendall.p));
  QVERIFY(!correlate(std::vector<double>{1}, std::vector<double>{2}).ok());
  // O(n log n) tau-b equals the O(n^2) definition on a larger tied sample.
  std::vector<double> a, b;
  Rng rng(9);
  for (int i = 0; i < 300; ++i) {
    a.push_back(rng.below32(12));
    b.push_back(double(rng.below32(12)) + 0.5 * a.back());
  }
  double c = 0, d = 0, tx = 0, ty = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = i + 1; j < a.size(); ++j) {
      const double dx = a[i] - a[j], dy = b[i] - b[j];
      if (dx == 0) ++tx;
      if (dy == 0) ++ty;
      if (dx * dy > 0) ++c;
      if (dx * dy < 0) ++d;
    }
  const double n0 = 300.0 * 299 / 2;
  QVERIFY(std::fabs(kendallTauB(a, b) - (c - d) / std::sqrt((n0 - tx) * (n0 - ty))) < 1e-12);
}

void TestStats::correlationDeterministicAcrossThreads() {
  const auto x = normalSample(21, 1000);
  auto y = normalSample(22, 1000);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += x[i];
  CorrelationOptions o;
  o.resamples = 400;
  o.threads = 1;
  const CorrelationResult one = correlate(x, y, o);
  for (unsigned t : {2u, 3u}) {
    o.threads = t;
    const CorrelationResult r = correlate(x, y, o);
    QCOMPARE(r.kendall.ci.low, one.kendall.ci.low);
    QCOMPARE(r.spearman.ci.high, one.spearman.ci.high);
  }
}

void TestStats::twoSamplePermutationExact() {
  // a = {1, 2, 3.5}, b = {4, 5, 6, 2.5}: of the C(7,3) = 35 relabellings, 4 have
  // |mean_a - mean_b| >= the observed one (Python itertools.combinations): p = 4/35.
  const std::vector<double> a = {1.0, 2.0, 3.5};
  const std::vector<double> b = {4.0, 5.0, 6.0, 2.5};
  const double p = permutationTest(a, b, 200000, 7);
  const double exact = 4.0 / 35;
  QVERIFY2(std::fabs(p - exact) < 4 * std::sqrt(exact * (1 - exact) / 200000),
           QByteArray::number(p).constData());
  QCOMPARE(permutationTest(a, b, 20000, 7, 0, 1), permutationTest(a, b, 20000, 7, 0, 2));
}

void TestStats::contrastiveGroups() {
  // VERA-like: on-topic scores high, off-topic low, a second on-topic set like the first.
  std::vector<NamedSample> sets = {{"on-topic", normalSample(1, 200, 0.8, 0.1)},
                                   {"off-topic", normalSample(2, 200, 0.3, 0.1)},
                                   {"on-topic 2", normalSample(3, 200, 0.8, 0.1)}};
  ContrastiveOptions o;
  o.bootstrap.resamples = 500;
  o.bootstrap.sampleSize = 50;
  o.permutations = 2000;
  const ContrastiveResult r = contrastive(sets, o);
  QVERIFY(r.ok());
  QCOMPARE(r.groups.size(), std::size_t(3));
  QCOMPARE(r.pairs.size(), std::size_t(3));
  QCOMPARE(r.groups[0].bootstrap.distribution.size(), std::size_t(500));
  // s = 50 draws: variance of the mean ~ 0.01 / 50.
  QVERIFY(std::fabs(r.groups[1].bootstrap.variance / (populationVariance(sets[1].values) / 50) -
                    1) < 0.3);
  const ContrastivePair& onOff = r.pairs[0];
  QCOMPARE(onOff.first, std::size_t(0));
  QCOMPARE(onOff.second, std::size_t(1));
  QVERIFY(std::fabs(onOff.meanDiff - (meanOf(sets[0].values) - meanOf(sets[1].values))) < 1e-12);
  QVERIFY(onOff.ci.low > 0.4 && onOff.ci.high < 0.6);
  QCOMPARE(onOff.pPermutation, 1.0 / 2001);      // nothing as extreme among 2000 relabellings
  const ContrastivePair& onOn = r.pairs[1 + 1];  // (1, 2) comes after (0, 1), (0, 2)
  QCOMPARE(onOn.first, std::size_t(1));
  const ContrastivePair& sameTopic = r.pairs[1];  // (0, 2)
  QVERIFY(sameTopic.ci.low < 0 && sameTopic.ci.high > 0);
  QVERIFY(sameTopic.pPermutation > 0.01);
  QVERIFY(sameTopic.pHolm >= sameTopic.pPermutation);
  QVERIFY(r.range.first < 0.4 && r.range.second > 0.7);
  // Groups draw from different streams (same seed, same data would otherwise coincide).
  std::vector<NamedSample> twins = {{"a", sets[0].values}, {"b", sets[0].values}};
  const ContrastiveResult t = contrastive(twins, o);
  QVERIFY(!sameBits(t.groups[0].bootstrap.distribution, t.groups[1].bootstrap.distribution));
  QVERIFY(!contrastive(std::vector<NamedSample>{sets[0]}, o).ok());
}

void TestStats::perQueryFileParses() {
  QTemporaryDir dir;
  const QString path = dir.filePath("run.q.txt");
  writeFile(path,
            "runid                 \tq1\tmyrun\n"
            "num_ret               \t301\t1000\n"
            "map                   \t301\t0.2500\n"
            "ndcg_cut_10           \t301\t0.5000\n"
            "map                   \t302\t1.0000\r\n"
            "\n"
            "# a comment\n"
            "relstring 301 1101000\n"
            "ndcg_cut_10  302 +0.75\n"
            "runid                 \tall\tmyrun\n"
            "map                   \tall\t0.6250\n");
  const auto loaded = loadPerQueryFile(path.toStdString(), LoadOptions{});
  QVERIFY(loaded.report.ok());
  QCOMPARE(loaded.report.errors, std::uint64_t(0));
  QCOMPARE(loaded.report.records, std::uint64_t(5));
  const MeasureTable& t = loaded.value;
  QCOMPARE(t.size(), std::size_t(3));
  QCOMPARE(t.at("map").size(), std::size_t(2));  // `all` ignored
  QCOMPARE(t.at("map").at("302"), 1.0);
  QCOMPARE(t.at("ndcg_cut_10").at("302"), 0.75);
  QCOMPARE(t.at("num_ret").at("301"), 1000.0);
}

void TestStats::perQueryFileDiagnostics() {
  QTemporaryDir dir;
  const QString path = dir.filePath("bad.txt");
  writeFile(path,
            "map 1 0.5\n"
            "map 2\n"
            "map 3 high\n"
            "map 1 0.7\n"
            "map 4 0.1 extra\n"
            "map 5 nan\n"
            "map 6 0.2\n");
  LoadOptions skip;
  skip.onError = OnError::Skip;
  const auto loaded = loadPerQueryFile(path.toStdString(), skip);
  QCOMPARE(loaded.report.errors, std::uint64_t(5));
  QCOMPARE(loaded.report.skipped, std::uint64_t(5));
  QCOMPARE(loaded.value.at("map").size(), std::size_t(2));
  const std::string file = path.toStdString();
  const std::vector<std::string> expected = {
      file + ":2: value: line has 2 fields, a per-query line has exactly 3 (measure qid value)",
      file + ":3: value: not a number: 'high'",
      file + ":4: qid: query '1' has a second value for measure 'map'",
      file + ":5: line: line has 4 fields, a per-query line has exactly 3 (measure qid value)",
      file + ":6: value: not a finite number: 'nan'"};
  QCOMPARE(loaded.report.diagnostics.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    QCOMPARE(loaded.report.diagnostics[i].toString(), expected[i]);
  const auto stopped = loadPerQueryFile(path.toStdString(), LoadOptions{});
  QVERIFY(stopped.report.stopped);
  QCOMPARE(stopped.report.errors, std::uint64_t(1));
  const auto missing = loadPerQueryFile(dir.filePath("none.txt").toStdString(), LoadOptions{});
  QVERIFY(missing.report.stopped);
  QCOMPARE(missing.report.errors, std::uint64_t(1));
  LoadOptions cancel;
  cancel.progress = [](std::uint64_t, std::uint64_t) { return false; };
  // Progress is reported every 4 MB: a small file finishes without being asked.
  QVERIFY(!loadPerQueryFile(path.toStdString(), cancel).report.cancelled);
}

void TestStats::cliDl19Compare() {
  RAGSCOPE_REQUIRE_DATA("msmarco_trecdl/qrels/qrels.dl19-passage.txt");
  const QString data = QString::fromStdString(ragscope::test::dataRoot().string());
  const QString qrels = data + "/msmarco_trecdl/qrels/qrels.dl19-passage.txt";
  QTemporaryDir dir;
  const QStringList systems = {"SPLADE_P_P_ENSEMBLE_DISTIL", "BM25", "OPEN_AI_ADA2"};
  for (const QString& s : systems) {
    const CliResult e =
        runCli({"eval", "-q", "-m", "ndcg_cut.10", qrels,
                data + "/msmarco_trecdl/runs/rank_llm/" + s + "/trec_results_dl19.txt"});
    QCOMPARE(e.exitCode, 0);
    writeFile(dir.filePath(s + ".txt"), e.out.toStdString());
  }
  const auto file = [&](const QString& s) { return dir.filePath(s + ".txt"); };
  std::map<QString, nlohmann::json> results;
  for (int i = 0; i < 3; ++i)
    for (int k = i + 1; k < 3; ++k) {
      const CliResult c = runCli(
          {"compare", file(systems[i]), file(systems[k]), "--measure", "ndcg_cut_10", "--json"});
      QCOMPARE(c.exitCode, 0);
      results[systems[i] + "-" + systems[k]] = nlohmann::json::parse(c.out.toStdString());
    }
  const nlohmann::json& sb = results["SPLADE_P_P_ENSEMBLE_DISTIL-BM25"];
  for (const char* key : {"n", "unaligned", "mean_diff", "ci_low", "ci_high", "p_randomization",
                          "p_ttest", "wins", "ties", "losses"})
    QVERIFY2(sb.contains(key), key);
  QCOMPARE(sb["n"].get<int>(), 43);
  QCOMPARE(sb["unaligned"].get<int>(), 0);
  // The figures published with the TREC DL runs: nDCG@10 SPLADE++ ED 0.7308, BM25 0.5058 (means of
  // the printed 4-decimal values).
  QVERIFY(std::fabs(sb["mean_diff"].get<double>() - (0.7308 - 0.5058)) < 5e-5);
  QVERIFY(sb["p_randomization"].get<double>() < 0.05);
  QVERIFY(sb["p_ttest"].get<double>() < 0.05);
  // Paired t on the 43 printed differences, recomputed in pure Python (mpmath incomplete beta):
  // t = 5.472890746559921, p = 2.2666456804869014e-06.
  QVERIFY(std::fabs(sb["t"].get<double>() - 5.472890746559921) < 1e-9);
  QVERIFY(std::fabs(sb["p_ttest"].get<double>() / 2.2666456804869014e-06 - 1.0) < 1e-8);
  QVERIFY(sb["ci_low"].get<double>() > 0.0);
  QCOMPARE(sb["wins"].get<int>() + sb["ties"].get<int>() + sb["losses"].get<int>(), 43);
  // ADA2 vs BM25 (0.7035 vs 0.5058) is clearly better too; SPLADE vs ADA2 is not separable.
  const nlohmann::json& sa = results["SPLADE_P_P_ENSEMBLE_DISTIL-OPEN_AI_ADA2"];
  QVERIFY(std::fabs(sa["mean_diff"].get<double>() - (0.7308 - 0.7035)) < 5e-5);
  QVERIFY(sa["p_randomization"].get<double>() > 0.05);
  const nlohmann::json& ba = results["BM25-OPEN_AI_ADA2"];
  QVERIFY(std::fabs(ba["mean_diff"].get<double>() - (0.5058 - 0.7035)) < 5e-5);
  QVERIFY(ba["p_ttest"].get<double>() < 0.05);

  // The same comparison straight from the runs (--qrels) and all three pairs with Holm.
  const CliResult direct = runCli(
      {"compare", "--qrels", qrels,
       data + "/msmarco_trecdl/runs/rank_llm/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_dl19.txt",
       data + "/msmarco_trecdl/runs/rank_llm/BM25/trec_results_dl19.txt", "--measure",
       "ndcg_cut.10", "--json"});
  QCOMPARE(direct.exitCode, 0);
  const auto dj = nlohmann::json::parse(direct.out.toStdString());
  QVERIFY(std::fabs(dj["mean_diff"].get<double>() - sb["mean_diff"].get<double>()) < 1e-4);
  const CliResult all = runCli({"compare", file(systems[0]), file(systems[1]), file(systems[2]),
                                "--json", "--threads", "1"});
  QCOMPARE(all.exitCode, 0);
  const auto arr = nlohmann::json::parse(all.out.toStdString());
  QVERIFY(arr.is_array());
  QCOMPARE(arr.size(), std::size_t(3));
  std::vector<double> raw;
  for (const auto& j : arr) raw.push_back(j["p_ttest"].get<double>());
  const auto holm = holmAdjust(raw);
  for (std::size_t i = 0; i < 3; ++i) QCOMPARE(arr[i]["p_ttest_holm"].get<double>(), holm[i]);
  // Thread count does not change a seeded result.
  QCOMPARE(arr[0]["ci_low"].get<double>(), sb["ci_low"].get<double>());
  QCOMPARE(arr[0]["p_randomization"].get<double>(), sb["p_randomization"].get<double>());
}

void TestStats::cliBootstrapAndCorrelate() {
  QTemporaryDir dir;
  std::string x, y;
  const auto vx = normalSample(31, 60, 0.5, 0.1);
  const auto vy = normalSample(32, 60, 0.5, 0.1);
  for (int i = 0; i < 60; ++i) {
    x += "P_10 q" + std::to_string(i) + " " + std::to_string(vx[i]) + "\n";
    y += "P_10 q" + std::to_string(i) + " " + std::to_string(vx[i] + vy[i]) + "\n";
  }
  x += "P_10 all 0.5\n";
  writeFile(dir.filePath("x.txt"), x);
  writeFile(dir.filePath("y.txt"), y);
  const CliResult b = runCli({"bootstrap", dir.filePath("x.txt"), "--measure", "P_10", "--B",
                              "2000", "--size", "50", "--seed", "7", "--level", "0.9", "--json"});
  QCOMPARE(b.exitCode, 0);
  const auto bj = nlohmann::json::parse(b.out.toStdString());
  for (const char* key :
       {"n", "B", "size", "seed", "level", "mean", "variance", "ci_low", "ci_high"})
    QVERIFY2(bj.contains(key), key);
  QCOMPARE(bj["n"].get<int>(), 60);
  QCOMPARE(bj["B"].get<int>(), 2000);
  QCOMPARE(bj["size"].get<int>(), 50);
  QCOMPARE(bj["seed"].get<int>(), 7);
  QCOMPARE(bj["level"].get<double>(), 0.9);
  // The CLI is the library: same numbers as a direct call on the printed values.
  std::vector<double> printed;
  for (double v : vx) printed.push_back(std::stod(std::to_string(v)));
  BootstrapOptions o;
  o.resamples = 2000;
  o.sampleSize = 50;
  o.seed = 7;
  o.level = 0.9;
  // The file lists q0, q1, q10, q11, ... (qid byte order): reorder as the reader does.
  std::map<std::string, double> byQid;
  for (int i = 0; i < 60; ++i) byQid["q" + std::to_string(i)] = printed[i];
  std::vector<double> ordered;
  for (const auto& [q, v] : byQid) ordered.push_back(v);
  const BootstrapResult direct = bootstrap(ordered, o);
  QCOMPARE(bj["mean"].get<double>(), direct.mean);
  QCOMPARE(bj["ci_low"].get<double>(), direct.ci.low);
  const CliResult bca = runCli({"bootstrap", dir.filePath("x.txt"), "--bca"});
  QCOMPARE(bca.exitCode, 0);  // sole measure picked without --measure
  QVERIFY(bca.out.contains("BCa"));

  const CliResult c = runCli(
      {"correlate", dir.filePath("x.txt"), dir.filePath("y.txt"), "--measure", "P.10", "--json"});
  QCOMPARE(c.exitCode, 0);
  const auto cj = nlohmann::json::parse(c.out.toStdString());
  for (const char* key : {"n", "kendall_tau_b", "spearman_rho", "p_kendall", "p_spearman"})
    QVERIFY2(cj.contains(key), key);
  QCOMPARE(cj["n"].get<int>(), 60);
  QVERIFY(cj["kendall_tau_b"].get<double>() > 0.3);
  QVERIFY(cj["p_spearman"].get<double>() < 0.01);
}

void TestStats::cliUnalignedAndErrors() {
  QTemporaryDir dir;
  writeFile(dir.filePath("a.txt"), "map 1 0.5\nmap 2 0.6\nmap 3 0.7\nmap 4 0.2\n");
  writeFile(dir.filePath("b.txt"), "map 2 0.1\nmap 3 0.3\nmap 4 0.1\nmap 5 0.9\nmap 6 0.9\n");
  const CliResult c = runCli({"compare", dir.filePath("a.txt"), dir.filePath("b.txt"), "--json"});
  QCOMPARE(c.exitCode, 0);
  const auto j = nlohmann::json::parse(c.out.toStdString());
  QCOMPARE(j["n"].get<int>(), 3);
  QCOMPARE(j["unaligned"].get<int>(), 3);
  QVERIFY(j["only_in_a"] == nlohmann::json::array({"1"}));
  QVERIFY(j["only_in_b"] == nlohmann::json::array({"5", "6"}));
  QVERIFY(c.err.contains("3 unaligned queries"));
  // d = .5 .4 .1, all positive: exact p = 2/8.
  QCOMPARE(j["p_randomization"].get<double>(), 0.25);
  QVERIFY(j["randomization_exact"].get<bool>());

  writeFile(dir.filePath("bad.txt"), "map 1 0.5\nmap 2 oops\n");
  const CliResult bad = runCli({"bootstrap", dir.filePath("bad.txt"), "--measure", "map"});
  QCOMPARE(bad.exitCode, 2);
  QVERIFY(bad.err.contains(":2: value: not a number: 'oops'"));
  QCOMPARE(runCli({"bootstrap", dir.filePath("a.txt"), "--measure", "P_5"}).exitCode, 2);
  QCOMPARE(runCli({"bootstrap", dir.filePath("a.txt"), "--level", "95"}).exitCode, 2);
  QCOMPARE(runCli({"bootstrap", dir.filePath("a.txt"), "--B", "x"}).exitCode, 2);
  QCOMPARE(runCli({"compare", dir.filePath("a.txt")}).exitCode, 2);
  QCOMPARE(runCli({"correlate", "--help"}).exitCode, 0);
}

void TestStats::cliRunStores() {
  // eRAG and end-to-end stores of the demo (offline heuristic reader, contains-answer labels so
  // eRAG's labels are binary and MAP is defined), then the stores as statistics inputs.
  QTemporaryDir dir;
  const QString demo = QString(RAGSCOPE_SOURCE_DIR) + "/resources/demo/";
  const QStringList inputs = {"--dataset", demo + "collection.tsv",
                              "--dataset", demo + "demo-kilt.jsonl",
                              "--run",     demo + "run-good.trec",
                              "--k",       "5",
                              "--metric",  "contains",
                              "--quiet",   "--json"};
  const QString eragDb = dir.filePath("erag.db"), e2eDb = dir.filePath("e2e.db");
  const CliResult erag =
      runCli(QStringList{"erag", "--measures", "P_5,success_1,map", "--store", eragDb} + inputs);
  QVERIFY2(erag.exitCode == 0, erag.err.constData());
  const CliResult e2e = runCli(QStringList{"e2e", "--store", e2eDb} + inputs);
  QVERIFY2(e2e.exitCode == 0, e2e.err.constData());
  const auto ej = nlohmann::json::parse(erag.out.toStdString());
  const auto tj = nlohmann::json::parse(e2e.out.toStdString());
  QCOMPARE(ej["queries"].get<int>(), 29);
  QCOMPARE(ej["n"]["map"].get<int>(), 29);
  QCOMPARE(tj["queries"].get<int>(), 29);

  // The per-query values --json printed, as a `trec_eval -q` style file (17 digits round-trip).
  std::string printed;
  char line[128];
  for (const auto& [qid, row] : ej["per_query"].items())
    for (const char* m : {"P_5", "map"}) {
      std::snprintf(line, sizeof line, "%s\t%s\t%.17g\n", m, qid.c_str(), row[m].get<double>());
      printed += line;
    }
  for (const auto& [qid, v] : tj["per_query"].items()) {
    std::snprintf(line, sizeof line, "contains\t%s\t%.17g\n", qid.c_str(), v.get<double>());
    printed += line;
  }
  writeFile(dir.filePath("printed.txt"), printed);
  // Store vs printed values, paired by qid: every query present on both sides and tied.
  for (const auto& [store, measure] :
       {std::pair{eragDb, QString("P_5")}, std::pair{eragDb, QString("map")},
        std::pair{e2eDb, QString("contains")}}) {
    const CliResult c =
        runCli({"compare", store, dir.filePath("printed.txt"), "--measure", measure, "--json"});
    QVERIFY2(c.exitCode == 0, c.err.constData());
    const auto cj = nlohmann::json::parse(c.out.toStdString());
    QCOMPARE(cj["n"].get<int>(), 29);
    QCOMPARE(cj["unaligned"].get<int>(), 0);
    QCOMPARE(cj["ties"].get<int>(), 29);
    QCOMPARE(cj["mean_diff"].get<double>(), 0.0);
  }
  // bootstrap over a store: n and the observed mean are erag's / e2e's; the end-to-end store's
  // only measure (its metric) needs no --measure.
  const CliResult b =
      runCli({"bootstrap", eragDb, "--measure", "success_1", "--B", "500", "--json"});
  QVERIFY2(b.exitCode == 0, b.err.constData());
  const auto bj = nlohmann::json::parse(b.out.toStdString());
  QCOMPARE(bj["n"].get<int>(), 29);
  QVERIFY(std::fabs(bj["observed_mean"].get<double>() - ej["mean"]["success_1"].get<double>()) <
          1e-12);
  const CliResult bt = runCli({"bootstrap", e2eDb, "--B", "500", "--json"});
  QVERIFY2(bt.exitCode == 0, bt.err.constData());
  const auto btj = nlohmann::json::parse(bt.out.toStdString());
  QCOMPARE(btj["measure"].get<std::string>(), std::string("contains"));
  QVERIFY(std::fabs(btj["observed_mean"].get<double>() - tj["mean"].get<double>()) < 1e-12);

  // correlate eRAG store vs end-to-end store = erag-correlate's eRAG row.
  const CliResult corr =
      runCli({"erag-correlate", "--erag", eragDb, "--e2e", e2eDb, "--resamples", "0", "--json"});
  QVERIFY2(corr.exitCode == 0, corr.err.constData());
  std::map<std::string, std::pair<double, double>> expected;  // measure -> (tau, rho)
  const auto table = nlohmann::json::parse(corr.out.toStdString())["tables"][0];
  for (const auto& row : table["rows"])
    if (row["method"] == "eRAG (contains)")
      expected[row["measure"].get<std::string>()] = {row["kendall_tau"].get<double>(),
                                                     row["spearman_rho"].get<double>()};
  QCOMPARE(expected.size(), std::size_t{3});
  for (const auto& [measure, coefficients] : expected) {
    const CliResult c =
        runCli({"correlate", eragDb, e2eDb, "--measure", QString::fromStdString(measure),
                "--measure-y", "contains", "--B", "100", "--json"});
    QVERIFY2(c.exitCode == 0, c.err.constData());
    const auto cj = nlohmann::json::parse(c.out.toStdString());
    QCOMPARE(cj["n"].get<int>(), 29);
    QCOMPARE(cj["unaligned"].get<int>(), 0);
    QVERIFY2(std::fabs(cj["kendall_tau_b"].get<double>() - coefficients.first) < 1e-12,
             measure.c_str());
    QVERIFY2(std::fabs(cj["spearman_rho"].get<double>() - coefficients.second) < 1e-12,
             measure.c_str());
  }
  QVERIFY(expected["P_5"].first > 0.5);  // eRAG tracks end-to-end quality on the demo
  // A TREC run evaluated with --qrels against the end-to-end store = erag-correlate's qrels row
  // (P_5 over the same top-5 lists: the demo's run has every document in the corpus).
  const CliResult withQrels =
      runCli({"erag-correlate", "--erag", eragDb, "--e2e", e2eDb, "--qrels", demo + "qrels.txt",
              "--measures", "P_5", "--resamples", "0", "--json"});
  QVERIFY2(withQrels.exitCode == 0, withQrels.err.constData());
  const auto qrelsTable = nlohmann::json::parse(withQrels.out.toStdString())["tables"][0];
  const nlohmann::json* qrelsRow = nullptr;
  for (const auto& row : qrelsTable["rows"])
    if (row["method"] == "qrels" && row["measure"] == "P_5") qrelsRow = &row;
  QVERIFY(qrelsRow);
  const CliResult mixed =
      runCli({"correlate", demo + "run-good.trec", e2eDb, "--qrels", demo + "qrels.txt",
              "--measure", "P_5", "--measure-y", "contains", "--B", "100", "--json"});
  QVERIFY2(mixed.exitCode == 0, mixed.err.constData());
  const auto mj = nlohmann::json::parse(mixed.out.toStdString());
  QCOMPARE(mj["n"].get<int>(), (*qrelsRow)["n"].get<int>());
  QVERIFY(std::fabs(mj["kendall_tau_b"].get<double>() - (*qrelsRow)["kendall_tau"].get<double>()) <
          1e-12);
  QVERIFY(std::fabs(mj["spearman_rho"].get<double>() - (*qrelsRow)["spearman_rho"].get<double>()) <
          1e-12);

  // Unknown measure: exit 2 naming the store and what it has.
  const CliResult unknown = runCli({"bootstrap", eragDb, "--measure", "ndcg_cut_10"});
  QCOMPARE(unknown.exitCode, 2);
  QVERIFY2(unknown.err.contains(
               eragDb.toUtf8() +
               ": no per-query values for measure 'ndcg_cut_10' (have: P_5 map success_1)"),
           unknown.err.constData());
  const CliResult unknownE2e =
      runCli({"correlate", eragDb, e2eDb, "--measure", "P_5", "--measure-y", "rouge-l"});
  QCOMPARE(unknownE2e.exitCode, 2);
  QVERIFY2(unknownE2e.err.contains(e2eDb.toUtf8() +
                                   ": no per-query values for measure 'rouge-l' (have: contains)"),
           unknownE2e.err.constData());
  // A SQLite file that is no run store.
  // (the header is what tells a store from a per-query file)
  writeFile(dir.filePath("not-a-store.db"),
            std::string("SQLite format 3\0", 16) + std::string(84, '\0'));
  const CliResult bad = runCli({"bootstrap", dir.filePath("not-a-store.db"), "--measure", "P_5"});
  QCOMPARE(bad.exitCode, 2);
  QVERIFY2(bad.err.startsWith(dir.filePath("not-a-store.db").toUtf8() + ": "), bad.err.constData());
  QVERIFY(runCli({"bootstrap", "--help"}).out.contains("run stores"));
}

void TestStats::runLabelsTellRunsApart() {
  auto result = [](std::string tag, std::string source) {
    EvalResult r;
    r.runId = std::move(tag);
    r.runSource = std::move(source);
    return r;
  };
  const std::vector<EvalResult> results = {
      result("rank", "/d/BM25/dl19.txt"), result("rank", "/d/SPLADE/dl19.txt"),
      result("bm25", "/d/bm25.txt"),      result("", "/d/untagged.txt"),
      result("x", "/a/run/f.txt"),        result("x", "/b/run/f.txt")};
  const std::vector<std::string> expected = {
      "rank (BM25/dl19.txt)", "rank (SPLADE/dl19.txt)", "bm25",
      "/d/untagged.txt",      "x (/a/run/f.txt)",       "x (/b/run/f.txt)"};
  QCOMPARE(runLabels(results), expected);
  QCOMPARE(runLabels({result("r", "f.txt"), result("r", "g.txt")}),
           (std::vector<std::string>{"r (f.txt)", "r (g.txt)"}));
  // The same file opened twice (issue 12, item 7): still one unique label per run.
  QCOMPARE(runLabels({result("r", "/d/f.txt"), result("r", "/d/f.txt"), result("r", "/d/f.txt")}),
           (std::vector<std::string>{"r (/d/f.txt)", "r (/d/f.txt) #2", "r (/d/f.txt) #3"}));

  // Summary: mean as evaluated, n = queries averaged, a CI only for per-query means.
  EvalResult r = result("t", "t.txt");
  MeasureColumn numRet, map;
  numRet.name = "num_ret";
  numRet.kind = MeasureKind::NumRet;
  numRet.integer = true;
  numRet.aggregate = Aggregate::Sum;
  map.name = "map";
  map.kind = MeasureKind::Map;
  r.columns = {numRet, map};
  for (int q = 0; q < 3; ++q) r.queries.push_back({"q" + std::to_string(q), {10.0, 0.25 * q}});
  r.all = {30.0, 0.25};
  r.numQueries = 3;
  const auto s = summarizeRun(r, BootstrapOptions{});
  QCOMPARE(s.size(), std::size_t{2});
  QCOMPARE(s[0].mean, 30.0);
  QVERIFY(std::isnan(s[0].ci.low) && std::isnan(s[0].ci.high));
  QCOMPARE(s[1].mean, 0.25);
  QCOMPARE(s[1].n, std::size_t{3});
  // Three values: the 95 % percentile CI is [min, max] (each extreme resample has p = 1/27).
  QCOMPARE(s[1].ci.low, 0.0);
  QCOMPARE(s[1].ci.high, 0.5);
  BootstrapOptions none;
  none.resamples = 0;
  QVERIFY(std::isnan(summarizeRun(r, none)[1].ci.low));
}

// Issue 12 item 2: a byte that is not UTF-8 in a measure name or qid is named by the reader (a
// warning) and replaced in JSON output (U+FFFD), never an abort (nlohmann type_error 316).
void TestStats::cliInvalidUtf8Json() {
  QTemporaryDir dir;
  const QString a = dir.filePath("a.txt"), b = dir.filePath("b.txt");
  writeFile(a,
            "P\xff"
            "5 q\xfe"
            "1 0.5\nP\xff"
            "5 q2 0.6\nP\xff"
            "5 q3 0.7\nP\xff"
            "5 q4 0.1\n");
  writeFile(b,
            "P\xff"
            "5 q\xfe"
            "1 0.1\nP\xff"
            "5 q2 0.2\nP\xff"
            "5 q3 0.4\nP\xff"
            "5 q4 0.3\n");
  const std::string replaced =
      "P\xef\xbf\xbd"
      "5";  // U+FFFD
  auto check = [&](const QStringList& args) -> nlohmann::json {
    const CliResult r = runCli(args, 20000);
    if (r.exitCode != 0) {
      qWarning("%s: exit %d: %s", qPrintable(args.join(' ')), r.exitCode, r.err.constData());
      return {};
    }
    // The sole measure (with its bad byte) is picked from the file: the output stays valid UTF-8.
    auto j = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    if (j.is_discarded()) qWarning("not valid JSON: %s", r.out.constData());
    if (!r.err.contains((a + ":1: measure: invalid UTF-8").toUtf8()) ||
        !r.err.contains((a + ":1: qid: invalid UTF-8").toUtf8())) {
      qWarning("the reader did not name the bad bytes: %s", r.err.constData());
      return {};
    }
    return j;
  };
  const auto boot = check({"bootstrap", a, "--json", "--B", "200"});
  QVERIFY(boot.is_object());
  QCOMPARE(boot["measure"].get<std::string>(), replaced);
  const auto cmp = check({"compare", a, b, "--json", "--B", "200", "--permutations", "200"});
  QVERIFY(cmp.is_object());
  QCOMPARE(cmp["measure"].get<std::string>(), replaced);
  QCOMPARE(cmp["n"].get<int>(), 4);
  QVERIFY(check({"correlate", a, b, "--json", "--B", "200"}).is_object());

  // A run store whose file name holds a bad byte: `runs --json` lists it as valid JSON.
  const QString demo = QString(RAGSCOPE_SOURCE_DIR) + "/resources/demo/";
  const QString db = dir.filePath("e2e.db");
  const CliResult e2e = runCli({"e2e", "--dataset", demo + "collection.tsv", "--dataset",
                                demo + "demo-kilt.jsonl", "--run", demo + "run-good.trec", "--k",
                                "2", "--metric", "contains", "--quiet", "--store", db});
  QVERIFY2(e2e.exitCode == 0, e2e.err.constData());
  const std::filesystem::path bad = dir.filePath("e2e").toStdString() + "\xff.db";
  std::filesystem::rename(db.toStdString(), bad);
  const CliResult runs = runCli({"runs", dir.path(), "--json"}, 20000);
  QCOMPARE(runs.exitCode, 0);
  const auto list = nlohmann::json::parse(runs.out.toStdString(), nullptr, false);
  QVERIFY2(list.is_array() && list.size() == 1, runs.out.constData());
  QVERIFY(list[0]["path"].get<std::string>().find("e2e\xef\xbf\xbd.db") != std::string::npos);
}

// Issue 12 item 4: a count option beyond its range is a usage error naming the range (exit 2),
// not a length_error / bad_alloc abort or an endless run.
void TestStats::cliHugeCounts_data() {
  QTest::addColumn<QStringList>("args");  // %A% and %B% are two per-query files
  QTest::addColumn<QString>("message");
  const QString boot = "bootstrap";
  QTest::newRow("--B 2^64-1")
      << QStringList{boot, "%A%", "--B", "18446744073709551615"}
      << "--B: expected an integer from 2 to 1000000, got '18446744073709551615'";
  QTest::newRow("--B 2^64") << QStringList{boot, "%A%", "--B", "18446744073709551616"}
                            << "--B: expected an integer from 2 to 1000000";
  QTest::newRow("--B 4e9") << QStringList{boot, "%A%", "--B", "4000000000"}
                           << "--B: expected an integer from 2 to 1000000, got '4000000000'";
  QTest::newRow("--B=4e9") << QStringList{boot, "%A%", "--B=4000000000"}
                           << "--B: expected an integer from 2 to 1000000";
  QTest::newRow("--histogram") << QStringList{boot, "%A%", "--histogram", "4000000000"}
                               << "--histogram: expected an integer from 1 to 10000";
  QTest::newRow("--size") << QStringList{boot, "%A%", "--size", "4000000000"}
                          << "--size: expected an integer from 1 to 1000000";
  QTest::newRow("--threads") << QStringList{boot, "%A%", "--threads", "4000000000"}
                             << "--threads: expected an integer from 0 to 256";
  QTest::newRow("compare --permutations")
      << QStringList{"compare", "%A%", "%B%", "--permutations", "4000000000"}
      << "--permutations: expected an integer from 1 to 10000000";
  QTest::newRow("compare --B") << QStringList{"compare", "%A%", "%B%", "--B", "4000000000"}
                               << "--B: expected an integer from 2 to 1000000";
  QTest::newRow("correlate --B") << QStringList{"correlate", "%A%", "%B%", "--B", "4000000000"}
                                 << "--B: expected an integer from 2 to 1000000";
}

void TestStats::cliHugeCounts() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  QTemporaryDir dir;
  writeFile(dir.filePath("a.txt"), "map 1 0.5\nmap 2 0.6\nmap 3 0.7\nmap 4 0.2\n");
  writeFile(dir.filePath("b.txt"), "map 1 0.1\nmap 2 0.3\nmap 3 0.3\nmap 4 0.1\n");
  for (QString& arg : args) {
    arg.replace("%A%", dir.filePath("a.txt"));
    arg.replace("%B%", dir.filePath("b.txt"));
  }
  const CliResult r = runCli(args, 20000);
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
  QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
