#include "core/claims/ragchecker.h"

#include <algorithm>
#include <bit>

#include "core/claims/numpycompat.h"

namespace ragscope::core::claims {

namespace {

constexpr std::array<Metric, kMetricCount> kMetrics = {Metric::Precision,
                                                       Metric::Recall,
                                                       Metric::F1,
                                                       Metric::ClaimRecall,
                                                       Metric::ContextPrecision,
                                                       Metric::ContextUtilization,
                                                       Metric::NoiseSensitivityInRelevant,
                                                       Metric::NoiseSensitivityInIrrelevant,
                                                       Metric::Hallucination,
                                                       Metric::SelfKnowledge,
                                                       Metric::Faithfulness};

constexpr std::array<std::string_view, kMetricCount> kKeys = {"precision",
                                                              "recall",
                                                              "f1",
                                                              "claim_recall",
                                                              "context_precision",
                                                              "context_utilization",
                                                              "noise_sensitivity_in_relevant",
                                                              "noise_sensitivity_in_irrelevant",
                                                              "hallucination",
                                                              "self_knowledge",
                                                              "faithfulness"};

// Three-valued logic with the undecided value split by cause: F, T, U (an unparsed label is
// among the undecided inputs), E (only error labels are). Kleene's AND/OR/NOT; when both causes
// meet, U wins (the reply was read and had no label, which is what a user must look at first).
using Tri = std::uint8_t;
constexpr Tri F = 0, T = 1, U = 2, E = 3;

constexpr Tri undecided(Tri a, Tri b) { return (a == U || b == U) ? U : E; }
constexpr Tri and3(Tri a, Tri b) {
  if (a == F || b == F) return F;
  if (a == T && b == T) return T;
  return undecided(a == T ? b : a, b == T ? a : b);
}
constexpr Tri or3(Tri a, Tri b) {
  if (a == T || b == T) return T;
  if (a == F && b == F) return F;
  return undecided(a == F ? b : a, b == F ? a : b);
}
constexpr Tri not3(Tri a) { return a == F ? T : a == T ? F : a; }

template <Tri (*Op)(Tri, Tri)>
constexpr std::array<std::array<Tri, 4>, 4> table() {
  std::array<std::array<Tri, 4>, 4> t{};
  for (Tri a = 0; a < 4; ++a)
    for (Tri b = 0; b < 4; ++b) t[a][b] = Op(a, b);
  return t;
}
constexpr auto kAnd = table<and3>();
constexpr auto kOr = table<or3>();
constexpr std::array<Tri, 4> kNot = {T, F, U, E};

// Label -> Tri per mode (RagChecker: only supported labels are true, everything else false).
constexpr std::array<Tri, kLabelCount> kRagCheckerTri = {T, F, F, T, F, F, F};
constexpr std::array<Tri, kLabelCount> kRagScopeTri = {T, F, F, T, F, U, E};

// Counts of an item list's indicators.
struct Tally {
  std::uint32_t t = 0, f = 0, u = 0, e = 0;
  void add(Tri v) {
    switch (v) {
      case T:
        ++t;
        break;
      case F:
        ++f;
        break;
      case U:
        ++u;
        break;
      default:
        ++e;
        break;
    }
  }
};

MetricScore fromTally(const Tally& c, std::uint32_t total) {
  MetricScore s;
  s.total = total;
  s.scored = c.t + c.f;
  s.unparsed = c.u;
  s.errors = c.e;
  if (s.scored > 0) {
    s.state = ScoreState::Scored;
    s.value = static_cast<double>(c.t) / static_cast<double>(s.scored);
  } else if (total == 0) {
    s.state = ScoreState::Empty;
  } else {
    s.state = c.u > 0 ? ScoreState::Unparsed : ScoreState::Error;
  }
  return s;
}

// RAGChecker's "the formula cannot apply" value: 0.0, counted as a value.
void forceZero(MetricScore& s) {
  s.state = ScoreState::Scored;
  s.value = 0.0;
}

// Reused buffers so a corpus allocates once, not per example.
struct Scratch {
  std::vector<Tri> a2r, r2a, recalled, rel;
  std::vector<std::uint64_t> respMask, ansMask;  // per claim: the chunks that entail it
};

// The item tallies every metric is made of.
struct Tallies {
  Tally precision, recall, claimRecall, contextPrecision, utilization;
  Tally nsRelevant, nsIrrelevant, hallucination, selfKnowledge, faithfulness;
  std::uint32_t utilizationTotal = 0;
};

constexpr std::array<std::uint8_t, kLabelCount> kSupportedBit = {1, 0, 0, 1, 0, 0, 0};

// Counts the labels and, for K <= 64, records each claim's entailing chunks as a bit mask.
LabelCounts countAndMask(const ClaimExample& ex, std::size_t k, Scratch& w) {
  LabelCounts counts;
  for (Label l : ex.answer2response) counts.add(l);
  for (Label l : ex.response2answer) counts.add(l);
  if (k > 64) {
    for (Label l : ex.retrieved2response.cells()) counts.add(l);
    for (Label l : ex.retrieved2answer.cells()) counts.add(l);
    return counts;
  }
  const auto rowMask = [&](const Label* row) {
    std::uint64_t m = 0;
    for (std::size_t c = 0; c < k; ++c) {
      counts.add(row[c]);
      m |= std::uint64_t(kSupportedBit[std::size_t(row[c])]) << c;
    }
    return m;
  };
  w.respMask.resize(ex.responseClaimCount());
  w.ansMask.resize(ex.answerClaimCount());
  for (std::size_t i = 0; i < w.respMask.size(); ++i)
    w.respMask[i] = rowMask(ex.retrieved2response.row(i));
  for (std::size_t j = 0; j < w.ansMask.size(); ++j)
    w.ansMask[j] = rowMask(ex.retrieved2answer.row(j));
  return counts;
}

// Every label resolved (or read RAGChecker's way) and K <= 64: plain booleans over bit masks.
Tallies booleanTallies(const ClaimExample& ex, std::size_t k, const Scratch& w) {
  Tallies t;
  const std::size_t r = ex.responseClaimCount(), g = ex.answerClaimCount();
  const std::uint64_t all = k == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << k) - 1;
  std::uint32_t correct = 0, recalled = 0, used = 0, supportedGold = 0;
  std::uint64_t rel = 0;
  for (std::size_t j = 0; j < g; ++j) {
    const bool support = kSupportedBit[std::size_t(ex.response2answer[j])];
    supportedGold += support;
    rel |= w.ansMask[j];
    if (w.ansMask[j] != 0) {
      ++recalled;
      used += support;
    }
  }
  std::uint32_t nsRel = 0, nsIrr = 0, hal = 0, sk = 0, faithful = 0;
  for (std::size_t i = 0; i < r; ++i) {
    const bool ok = kSupportedBit[std::size_t(ex.answer2response[i])];
    correct += ok;
    const std::uint64_t m = w.respMask[i];
    const bool relevantF = (m & rel) != 0;
    const bool irrelevantF = !relevantF && (m & ~rel & all) != 0;
    faithful += m != 0;
    nsRel += relevantF && !ok;
    nsIrr += irrelevantF && !ok;
    hal += m == 0 && !ok;
    sk += m == 0 && ok;
  }
  const auto u32 = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
  const auto tally = [&](std::uint32_t yes, std::uint32_t n) { return Tally{yes, n - yes, 0, 0}; };
  t.precision = tally(correct, u32(r));
  t.recall = tally(supportedGold, u32(g));
  t.claimRecall = tally(recalled, u32(g));
  t.contextPrecision = tally(u32(std::popcount(rel)), u32(k));
  t.utilization = tally(used, recalled);
  t.utilizationTotal = recalled;
  t.nsRelevant = tally(nsRel, u32(r));
  t.nsIrrelevant = tally(nsIrr, u32(r));
  t.hallucination = tally(hal, u32(r));
  t.selfKnowledge = tally(sk, u32(r));
  t.faithfulness = tally(faithful, u32(r));
  return t;
}

// The general case: three-valued logic, undecided items counted by cause.
Tallies threeValuedTallies(const ClaimExample& ex, Mode mode, std::size_t k, Scratch& w) {
  const auto& tri = mode == Mode::RagChecker ? kRagCheckerTri : kRagScopeTri;
  const std::size_t r = ex.responseClaimCount(), g = ex.answerClaimCount();
  Tallies t;
  w.a2r.resize(r);
  w.r2a.resize(g);
  w.recalled.assign(g, F);
  w.rel.assign(k, F);
  for (std::size_t i = 0; i < r; ++i)
    t.precision.add(w.a2r[i] = tri[std::size_t(ex.answer2response[i])]);
  for (std::size_t j = 0; j < g; ++j)
    t.recall.add(w.r2a[j] = tri[std::size_t(ex.response2answer[j])]);

  // Gold claims x chunks: which gold claim some chunk entails, which chunk entails some claim.
  for (std::size_t j = 0; j < g; ++j) {
    const Label* row = ex.retrieved2answer.row(j);
    Tri any = F;
    for (std::size_t c = 0; c < k; ++c) {
      const Tri v = tri[std::size_t(row[c])];
      any = kOr[any][v];
      w.rel[c] = kOr[w.rel[c]][v];
    }
    w.recalled[j] = any;
    t.claimRecall.add(any);
    if (any != F) {
      ++t.utilizationTotal;
      t.utilization.add(any == T ? w.r2a[j] : any);
    }
  }
  for (std::size_t c = 0; c < k; ++c) t.contextPrecision.add(w.rel[c]);

  // Response claims x chunks.
  for (std::size_t i = 0; i < r; ++i) {
    const Label* row = ex.retrieved2response.row(i);
    Tri faithful = F, relevantF = F, irrelevantF = F;
    for (std::size_t c = 0; c < k; ++c) {
      const Tri v = tri[std::size_t(row[c])];
      faithful = kOr[faithful][v];
      relevantF = kOr[relevantF][kAnd[w.rel[c]][v]];
      irrelevantF = kOr[irrelevantF][kAnd[kNot[w.rel[c]]][v]];
    }
    irrelevantF = kAnd[irrelevantF][kNot[relevantF]];  // exclusive: relevant support wins
    const Tri correct = w.a2r[i];
    const Tri incorrect = kNot[correct];
    t.nsRelevant.add(kAnd[relevantF][incorrect]);
    t.nsIrrelevant.add(kAnd[irrelevantF][incorrect]);
    t.hallucination.add(kAnd[kNot[faithful]][incorrect]);
    t.selfKnowledge.add(kAnd[kNot[faithful]][correct]);
    t.faithfulness.add(faithful);
  }
  return t;
}

ExampleScores score(const ClaimExample& ex, Mode mode, Scratch& w) {
  const std::size_t r = ex.responseClaimCount();
  const std::size_t g = ex.answerClaimCount();
  const std::size_t k = ex.chunkCount();
  ExampleScores out;
  out.labels = countAndMask(ex, k, w);
  const bool boolean = k <= 64 && (mode == Mode::RagChecker || out.labels.unresolved() == 0);
  const Tallies t = boolean ? booleanTallies(ex, k, w) : threeValuedTallies(ex, mode, k, w);
  const Tally &precision = t.precision, &recall = t.recall, &claimRecall = t.claimRecall,
              &contextPrecision = t.contextPrecision, &utilization = t.utilization,
              &nsRelevant = t.nsRelevant, &nsIrrelevant = t.nsIrrelevant,
              &hallucination = t.hallucination, &selfKnowledge = t.selfKnowledge,
              &faithfulness = t.faithfulness;
  const std::uint32_t utilizationTotal = t.utilizationTotal;

  const auto u32 = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
  out[Metric::Precision] = fromTally(precision, u32(r));
  out[Metric::Recall] = fromTally(recall, u32(g));
  out[Metric::ClaimRecall] = fromTally(claimRecall, u32(g));
  out[Metric::ContextPrecision] = fromTally(contextPrecision, u32(k));
  out[Metric::ContextUtilization] = fromTally(utilization, utilizationTotal);
  out[Metric::NoiseSensitivityInRelevant] = fromTally(nsRelevant, u32(r));
  out[Metric::NoiseSensitivityInIrrelevant] = fromTally(nsIrrelevant, u32(r));
  out[Metric::Hallucination] = fromTally(hallucination, u32(r));
  out[Metric::SelfKnowledge] = fromTally(selfKnowledge, u32(r));
  out[Metric::Faithfulness] = fromTally(faithfulness, u32(r));

  const MetricScore& p = out[Metric::Precision];
  const MetricScore& rc = out[Metric::Recall];
  MetricScore f1;
  f1.total = p.total + rc.total;
  f1.scored = p.scored + rc.scored;
  f1.unparsed = p.unparsed + rc.unparsed;
  f1.errors = p.errors + rc.errors;

  if (mode == Mode::RagChecker) {
    // computation.py's guards, in its terms (core/claims/README.md, "RAGChecker metrics").
    if (r == 0) forceZero(out[Metric::Precision]);
    if (g == 0) forceZero(out[Metric::Recall]);
    if (g == 0 || k == 0) {
      forceZero(out[Metric::ClaimRecall]);
      forceZero(out[Metric::ContextPrecision]);
    }
    if (g == 0 || k == 0 || utilizationTotal == 0) forceZero(out[Metric::ContextUtilization]);
    if (r == 0 || k == 0 || g == 0) {
      forceZero(out[Metric::NoiseSensitivityInRelevant]);
      forceZero(out[Metric::NoiseSensitivityInIrrelevant]);
    }
    if (r == 0 || k == 0) {
      forceZero(out[Metric::Hallucination]);
      forceZero(out[Metric::SelfKnowledge]);
      forceZero(out[Metric::Faithfulness]);
    }
    f1.state = ScoreState::Scored;
    const double pv = out[Metric::Precision].value, rv = out[Metric::Recall].value;
    f1.value = (pv > 0 && rv > 0) ? 2 * pv * rv / (pv + rv) : 0.0;
  } else if (p.hasValue() && rc.hasValue()) {
    f1.state = ScoreState::Scored;
    f1.value = (p.value + rc.value) > 0 ? 2 * p.value * rc.value / (p.value + rc.value) : 0.0;
  } else {
    // The first missing part's reason, empty before unparsed before error.
    const ScoreState a = p.hasValue() ? rc.state : p.state;
    const ScoreState b = rc.hasValue() ? p.state : rc.state;
    f1.state = std::min(a, b);
  }
  out[Metric::F1] = f1;
  return out;
}

}  // namespace

std::span<const Metric> allMetrics() { return kMetrics; }

std::string_view metricKey(Metric m) { return kKeys[index(m)]; }

std::string metricName(Metric m) { return "ragchecker." + std::string(metricKey(m)); }

std::string_view metricGroup(Metric m) {
  switch (m) {
    case Metric::Precision:
    case Metric::Recall:
    case Metric::F1:
      return "overall";
    case Metric::ClaimRecall:
    case Metric::ContextPrecision:
      return "retriever";
    default:
      return "generator";
  }
}

std::optional<Metric> metricFromName(std::string_view name) {
  constexpr std::string_view prefix = "ragchecker.";
  if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  for (std::size_t i = 0; i < kKeys.size(); ++i)
    if (kKeys[i] == name) return static_cast<Metric>(i);
  return std::nullopt;
}

std::string_view modeName(Mode m) { return m == Mode::RagChecker ? "ragchecker" : "ragscope"; }

std::optional<Mode> modeFromName(std::string_view name) {
  if (name == "ragchecker") return Mode::RagChecker;
  if (name == "ragscope") return Mode::RagScope;
  return std::nullopt;
}

ExampleScores scoreExample(const ClaimExample& ex, Mode mode) {
  Scratch w;
  return score(ex, mode, w);
}

CorpusScores scoreCorpus(std::span<const ClaimExample> examples, Mode mode) {
  CorpusScores out;
  out.mode = mode;
  out.perExample.reserve(examples.size());
  Scratch w;
  for (const auto& ex : examples) {
    out.perExample.push_back(score(ex, mode, w));
    out.labels += out.perExample.back().labels;
  }
  std::vector<double> values;
  values.reserve(examples.size());
  for (Metric m : kMetrics) {
    CorpusMetric& c = out.metrics[index(m)];
    values.clear();
    for (const auto& e : out.perExample) {
      const MetricScore& s = e[m];
      ++c.examples;
      c.itemsTotal += s.total;
      c.itemsScored += s.scored;
      c.itemsUnparsed += s.unparsed;
      c.itemsErrors += s.errors;
      switch (s.state) {
        case ScoreState::Scored:
          ++c.scored;
          values.push_back(s.value);
          break;
        case ScoreState::Empty:
          ++c.empty;
          break;
        case ScoreState::Unparsed:
          ++c.unparsed;
          break;
        case ScoreState::Error:
          ++c.errors;
          break;
      }
    }
    c.mean = numpyMean(values);
    c.percent = ragcheckerPercent(c.mean);
  }
  return out;
}

}  // namespace ragscope::core::claims
