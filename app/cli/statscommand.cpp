// ragscope-cli bootstrap / compare / correlate: the statistics engine (core/stats) over
// `trec_eval -q` per-query files, eRAG / end-to-end run stores, or TREC runs evaluated in-process
// when --qrels is given.

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "core/data/loaders.h"
#include "core/eval/storedscores.h"
#include "core/export/json.h"
#include "core/metrics/measures.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/stats/bootstrap.h"
#include "core/stats/correlation.h"
#include "core/stats/multiple.h"
#include "core/stats/paired.h"
#include "core/stats/perqueryfile.h"
#include "core/store/runstore.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
using namespace ragscope::core::stats;

constexpr const char* kInputHelp = R"(Inputs are `trec_eval -q` outputs (`measure qid value` lines; `all` rows ignored), run stores
of `ragscope-cli erag` / `e2e` (SQLite files, recognised by their header), or, with --qrels
QRELS, TREC run files evaluated in-process with trec_eval conventions. Values are paired by
query id. The measure is named as printed (ndcg_cut_10) or as requested (ndcg_cut.10); it may be
omitted when a file holds only one measure. In run stores:
  - an eRAG store holds the measures its run was made with (erag --measures: P_5, success_5,
    map, ...), per query as `erag --json` prints them;
  - an end-to-end store holds one measure named by its downstream metric (rouge-l, f1, em,
    accuracy, contains, ...), e.g. `correlate erag.db e2e.db --measure P_5 --measure-y rouge-l`.
Only queries with every output scored count (as in erag/e2e's summaries). With --qrels, TREC runs
and run stores mix: `correlate RUN e2e.db --qrels QRELS --measure P_5 --measure-y rouge-l`.
)";

constexpr const char* kBootstrapHelp = R"(usage: ragscope-cli bootstrap FILE --measure M [--B N] [--size S] [--seed S] [--level L] [--bca]
                              [--qrels QRELS] [--threads T] [--histogram BINS] [--json]

Bootstrap of the mean of a measure's per-query values (VERA §3.3): B resamples (default 10000)
of size S (default n) drawn with replacement; prints the bootstrap mean, the variance of the
resample means (B-1 denominator) and the percentile (or --bca) confidence interval at level L
(default 0.95). Seed default 42; the result is the same for a seed on any number of threads.
)";

constexpr const char* kCompareHelp = R"(usage: ragscope-cli compare A B [C...] [--measure M]... [--seed S] [--permutations N] [--B N]
                            [--level L] [--bca] [--qrels QRELS] [--threads T] [--json]

Paired comparison of runs on the query ids they share (A minus B): mean difference with a paired
bootstrap CI, Fisher randomization (sign-flip) test (default 10000 permutations; exact when at
most 20 differences are non-zero), paired t-test, wins/ties/losses. Queries in only one run are
reported, never silently dropped. With more than two runs every pair is compared (earlier minus
later), and with several --measure options every measure; p-values are then also Holm-adjusted
over all comparisons (p_*_holm).
)";

constexpr const char* kCorrelateHelp = R"(usage: ragscope-cli correlate X Y --measure M [--measure-y M2] [--B N] [--seed S] [--level L]
                              [--qrels QRELS] [--threads T] [--json]

Rank correlation of X's and Y's per-query values on shared query ids: Kendall's tau-b (ties
handled; p from the normal approximation with tie-corrected variance) and Spearman's rho (average
ranks; p from Student's t with n-2 df), with percentile bootstrap CIs (B default 1000).
--measure-y takes Y's values from another measure (X and Y may then be the same file).
)";

// Bounds of the count options (usage errors beyond them). Far above what a test needs (B 10^4
// gives CI ends to about 0.01 standard errors), far below what exhausts memory or patience.
constexpr std::uint64_t kMaxResamples = 1'000'000;
constexpr std::uint64_t kMaxSampleSize = 1'000'000;
constexpr std::uint64_t kMaxPermutations = 10'000'000;
constexpr std::uint64_t kMaxThreads = 256;
constexpr std::uint64_t kMaxHistogramBins = 10'000;

constexpr const char* kLimitsHelp = R"(Counts are bounded: --B 2..1000000, --size 1..1000000, --permutations 1..10000000,
--histogram 1..10000, --threads 0..256 (0: one per core).
)";

struct CommonOptions {
  std::vector<std::string> files;
  std::vector<std::string> measures;
  std::string measureY;
  std::optional<std::string> qrels;
  std::size_t resamples = 0;  // 0 = command default
  std::size_t size = 0;
  std::uint64_t seed = kDefaultSeed;
  double level = 0.95;
  bool bca = false;
  std::size_t permutations = 10000;
  unsigned threads = 0;
  std::size_t histogramBins = 0;
  bool histogram = false;
  bool json = false;
  bool help = false;
};

// The resampling settings bootstrap, compare and correlate take alike from the command line:
// --B (or the command's default B), --seed, --level and --threads.
template <class StatsOptions>
StatsOptions resamplingOptions(const CommonOptions& o, std::size_t defaultResamples) {
  StatsOptions options;
  options.resamples = o.resamples ? o.resamples : defaultResamples;
  options.seed = o.seed;
  options.level = o.level;
  options.threads = o.threads;
  return options;
}

// Returns an error message, empty when fine.
std::string parseCommon(const Args& args, CommonOptions& o) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i];
    std::optional<std::string> glued;
    if (a.rfind("--", 0) == 0) {
      if (const auto eq = a.find('='); eq != std::string::npos) {
        glued = a.substr(eq + 1);
        a = a.substr(0, eq);
      }
    }
    auto value = [&](std::string& out) -> std::string {
      if (glued) {
        out = *glued;
        return {};
      }
      if (i + 1 >= args.size()) return a + " needs a value";
      out = args[++i];
      return {};
    };
    // Every count is bounded: a huge --B or --histogram would otherwise end in bad_alloc, a
    // huge --permutations or --size in a run that never finishes.
    auto number = [&](std::uint64_t& out, std::uint64_t min, std::uint64_t max) -> std::string {
      std::string text;
      if (auto e = value(text); !e.empty()) return e;
      if (!parseUnsigned(text, out) || out < min || out > max)
        return countRangeError(a, min, max, text);
      return {};
    };
    std::string err;
    std::uint64_t u = 0;
    if (a == "-h" || a == "--help") {
      o.help = true;
      return {};
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--bca") {
      o.bca = true;
    } else if (a == "--measure" || a == "-m") {
      std::string m;
      err = value(m);
      o.measures.push_back(m);
    } else if (a == "--measure-y") {
      err = value(o.measureY);
    } else if (a == "--qrels") {
      std::string q;
      err = value(q);
      o.qrels = q;
    } else if (a == "--B" || a == "-B" || a == "--resamples") {
      if ((err = number(u, 2, kMaxResamples)).empty()) o.resamples = u;
    } else if (a == "--size") {
      if ((err = number(u, 1, kMaxSampleSize)).empty()) o.size = u;
    } else if (a == "--seed") {
      if ((err = number(u, 0, std::numeric_limits<std::uint64_t>::max())).empty()) o.seed = u;
    } else if (a == "--permutations") {
      if ((err = number(u, 1, kMaxPermutations)).empty()) o.permutations = u;
    } else if (a == "--threads") {
      if ((err = number(u, 0, kMaxThreads)).empty()) o.threads = static_cast<unsigned>(u);
    } else if (a == "--histogram") {
      if ((err = number(u, 1, kMaxHistogramBins)).empty()) {
        o.histogram = true;
        o.histogramBins = u;
      }
    } else if (a == "--level") {
      std::string text;
      if ((err = value(text)).empty() &&
          (!parseFiniteDouble(text, o.level) || !(o.level > 0.0 && o.level < 1.0)))
        err = "--level: expected a number strictly between 0 and 1, got '" + text + "'";
    } else if (a.size() > 1 && a[0] == '-') {
      err = "unknown option '" + a + "'";
    } else {
      o.files.push_back(a);
    }
    if (!err.empty()) return err;
  }
  return {};
}

void printDiagnostics(const LoadReport& report) {
  for (const auto& d : report.diagnostics)
    std::cerr << d.toString() << (d.severity == Severity::Warning ? " (warning)" : "") << '\n';
  if (report.unstoredDiagnostics)
    std::cerr << "... and " << report.unstoredDiagnostics << " more diagnostics not stored\n";
}

// "ndcg_cut.10" <-> "ndcg_cut_10": the per-query files use the printed form.
std::string printedForm(std::string m) {
  if (const auto dot = m.find('.'); dot != std::string::npos && m.find(',') == std::string::npos)
    m[dot] = '_';
  return m;
}

// Loads every input once and hands out per-query values by measure.
class Inputs {
 public:
  explicit Inputs(const CommonOptions& o) : m_options(o) {}

  // False (after printing diagnostics) when an input could not be read.
  bool load() {
    if (m_options.qrels && !prepareEvaluation()) return false;
    for (const auto& f : m_options.files) {
      std::optional<MeasureTable> table;
      if (store::RunStore::hasSqliteHeader(f)) table = loadStore(f);
      else if (m_options.qrels) table = evaluateRun(f);
      else table = loadPerQuery(f);
      if (!table) return false;
      m_tables.push_back(std::move(*table));
    }
    return true;
  }

  // The measure to use when none was named: the only one all inputs hold.
  std::optional<std::string> soleMeasure() const {
    if (m_tables.empty() || m_tables[0].size() != 1) return std::nullopt;
    return m_tables[0].begin()->first;
  }

  const QueryValues* values(std::size_t input, const std::string& measure) const {
    const MeasureTable& t = m_tables[input];
    if (auto it = t.find(measure); it != t.end()) return &it->second;
    if (auto it = t.find(printedForm(measure)); it != t.end()) return &it->second;
    std::cerr << m_options.files[input] << ": no per-query values for measure '" << measure
              << "' (have:";
    for (const auto& [name, v] : t) std::cerr << ' ' << name;
    std::cerr << ")\n";
    return nullptr;
  }

 private:
  bool anyStore() const {
    for (const auto& f : m_options.files)
      if (store::RunStore::hasSqliteHeader(f)) return true;
    return false;
  }

  static std::optional<MeasureTable> loadPerQuery(const std::string& f) {
    auto loaded = loadPerQueryFile(f, LoadOptions{});
    printDiagnostics(loaded.report);
    if (!loaded.report.ok() || loaded.report.hasErrors()) return std::nullopt;
    if (loaded.value.empty()) {
      std::cerr << f << ": no per-query values (is it `trec_eval -q` output?)\n";
      return std::nullopt;
    }
    return std::move(loaded.value);
  }

  static std::optional<MeasureTable> loadStore(const std::string& f) {
    eval::StoredScores stored = eval::readStoredScores(f);
    if (!stored.ok()) {
      std::cerr << stored.error << '\n';
      return std::nullopt;
    }
    return std::move(stored.table);
  }

  // Reads the qrels and resolves the measures once, for every run evaluated in-process.
  bool prepareEvaluation() {
    auto qrels = readTrecQrels(*m_options.qrels, LoadOptions{});
    printDiagnostics(qrels.report);
    if (!qrels.report.ok() || qrels.report.hasErrors()) return false;
    m_qrels = std::move(qrels.value);
    std::vector<std::string> requested = m_options.measures;
    if (!m_options.measureY.empty()) requested.push_back(m_options.measureY);
    if (requested.empty()) {
      std::cerr << "--measure is required with --qrels\n";
      return false;
    }
    m_settings.threads = m_options.threads ? m_options.threads : 2;
    for (const std::string& m : requested) {
      auto parsed = parseMeasureArgs({m});
      if (!parsed.ok() || !resolveMeasures(parsed.value).ok()) {
        // Printed form ("ndcg_cut_10") -> request form ("ndcg_cut.10").
        std::string alt = m;
        if (const auto us = alt.rfind('_'); us != std::string::npos) alt[us] = '.';
        auto again = parseMeasureArgs({alt});
        if (!again.ok() || !resolveMeasures(again.value).ok()) {
          // Not a retrieval measure: fine when it names a run store's measure (e.g. rouge-l).
          if (anyStore()) continue;
          std::cerr << "--measure: unknown measure '" << m << "'\n";
          return false;
        }
        parsed = again;
      }
      m_settings.measures.insert(m_settings.measures.end(), parsed.value.begin(), parsed.value.end());
    }
    return true;
  }

  std::optional<MeasureTable> evaluateRun(const std::string& f) const {
    if (m_settings.measures.empty()) {
      std::cerr << "--measure: no retrieval measure to evaluate " << f << " with\n";
      return std::nullopt;
    }
    auto run = readTrecRun(f, LoadOptions{});
    printDiagnostics(run.report);
    if (!run.report.ok() || run.report.hasErrors()) return std::nullopt;
    const EvalResult r = evaluate(m_qrels, run.value, m_settings);
    for (const auto& d : r.diagnostics) std::cerr << d.toString() << '\n';
    if (!r.ok()) return std::nullopt;
    MeasureTable table;
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      if (!r.columns[c].perQuery || !r.columns[c].numeric()) continue;
      QueryValues& qv = table[r.columns[c].name];
      for (const auto& q : r.queries) qv.emplace(q.qid, q.values[c]);
    }
    return table;
  }

  const CommonOptions& m_options;
  Qrels m_qrels;
  EvalSettings m_settings;
  std::vector<MeasureTable> m_tables;
};

std::string fmt(double v, int precision = 4) {
  if (std::isnan(v)) return "nan";
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}

std::string fmtP(double p) {
  if (std::isnan(p)) return "nan";
  std::ostringstream s;
  if (p != 0.0 && p < 1e-4) s << std::scientific << std::setprecision(2) << p;
  else s << std::fixed << std::setprecision(4) << p;
  return s.str();
}

std::string joined(const std::vector<std::string>& v, std::size_t max = 20) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) out += (i ? " " : "") + v[i];
  if (v.size() > max) out += " ... (" + std::to_string(v.size() - max) + " more)";
  return out.empty() ? "-" : out;
}

// Prepares options and inputs shared by all three commands; returns an exit code or -1 to go on.
int prepare(const Args& args, const char* help, std::size_t minFiles, std::size_t maxFiles,
            CommonOptions& o, std::optional<Inputs>& inputs) {
  if (const std::string err = parseCommon(args, o); !err.empty()) {
    std::cerr << "ragscope-cli " << args[0] << ": " << err << "\n\n"
              << help << '\n' << kInputHelp << '\n' << kLimitsHelp;
    return 2;
  }
  if (o.help) {
    std::cout << help << '\n' << kInputHelp << '\n' << kLimitsHelp;
    return 0;
  }
  if (o.files.size() < minFiles || o.files.size() > maxFiles) {
    std::cerr << "ragscope-cli " << args[0] << ": wrong number of input files\n\n" << help;
    return 2;
  }
  inputs.emplace(o);
  if (!inputs->load()) return 2;
  if (o.measures.empty()) {
    if (auto m = inputs->soleMeasure()) {
      o.measures.push_back(*m);
    } else {
      std::cerr << "ragscope-cli " << args[0] << ": --measure is required (the input holds "
                << "several measures)\n";
      return 2;
    }
  }
  return -1;
}

}  // namespace

int bootstrapCommand(const Args& args) {
  CommonOptions o;
  std::optional<Inputs> inputs;
  if (const int rc = prepare(args, kBootstrapHelp, 1, 1, o, inputs); rc >= 0) return rc;
  if (o.measures.size() != 1) {
    std::cerr << "ragscope-cli bootstrap: give exactly one --measure\n";
    return 2;
  }
  const QueryValues* qv = inputs->values(0, o.measures[0]);
  if (!qv) return 2;
  std::vector<double> values;
  for (const auto& [qid, v] : *qv) values.push_back(v);

  BootstrapOptions bo = resamplingOptions<BootstrapOptions>(o, 10000);
  bo.sampleSize = o.size;
  bo.method = o.bca ? CiMethod::Bca : CiMethod::Percentile;
  bo.keepDistribution = o.histogram;
  const BootstrapResult r = bootstrap(values, bo);
  if (!r.ok()) {
    std::cerr << "ragscope-cli bootstrap: " << r.error << '\n';
    return 1;
  }
  Histogram h;
  if (o.histogram) h = makeHistogram(r.distribution, o.histogramBins);

  if (o.json) {
    nlohmann::ordered_json j;
    j["n"] = r.n;
    j["B"] = r.resamples;
    j["size"] = r.sampleSize;
    j["seed"] = r.seed;
    j["level"] = r.level;
    j["mean"] = r.mean;
    j["variance"] = r.variance;
    j["ci_low"] = r.ci.low;
    j["ci_high"] = r.ci.high;
    j["measure"] = printedForm(o.measures[0]);
    j["observed_mean"] = r.observedMean;
    j["std_error"] = r.standardError;
    j["ci_method"] = o.bca ? "bca" : "percentile";
    if (o.bca) {
      j["bca_z0"] = r.biasCorrection;
      j["bca_acceleration"] = r.acceleration;
    }
    if (o.histogram) {
      j["histogram"] = {{"low", h.low}, {"high", h.high}, {"counts", h.counts}};
    }
    exporting::writeJson(std::cout, j);
    return 0;
  }
  std::cout << "measure        " << printedForm(o.measures[0]) << '\n'
            << "n              " << r.n << '\n'
            << "B              " << r.resamples << '\n'
            << "size           " << r.sampleSize << '\n'
            << "seed           " << r.seed << '\n'
            << "observed mean  " << fmt(r.observedMean) << '\n'
            << "bootstrap mean " << fmt(r.mean) << '\n'
            << "variance       " << std::scientific << std::setprecision(6) << r.variance
            << std::defaultfloat << '\n'
            << "std error      " << fmt(r.standardError, 6) << '\n'
            << "CI " << fmt(r.level * 100, 1) << "% " << (o.bca ? "BCa       " : "percentile")
            << " [" << fmt(r.ci.low) << ", " << fmt(r.ci.high) << "]\n";
  if (o.histogram) {
    std::size_t peak = 1;
    for (auto c : h.counts) peak = std::max(peak, c);
    for (std::size_t i = 0; i < h.counts.size(); ++i)
      std::cout << fmt(h.binLow(i)) << ' ' << std::setw(7) << h.counts[i] << ' '
                << std::string(h.counts[i] * 50 / peak, '#') << '\n';
  }
  return 0;
}

int compareCommand(const Args& args) {
  CommonOptions o;
  std::optional<Inputs> inputs;
  if (const int rc = prepare(args, kCompareHelp, 2, 1000, o, inputs); rc >= 0) return rc;

  struct Row {
    std::string a, b, measure;
    PairedResult r;
  };
  std::vector<Row> rows;
  for (const std::string& m : o.measures) {
    for (std::size_t i = 0; i < o.files.size(); ++i) {
      for (std::size_t k = i + 1; k < o.files.size(); ++k) {
        const QueryValues* va = inputs->values(i, m);
        const QueryValues* vb = inputs->values(k, m);
        if (!va || !vb) return 2;
        PairedOptions po = resamplingOptions<PairedOptions>(o, 10000);
        po.permutations = o.permutations;
        po.method = o.bca ? CiMethod::Bca : CiMethod::Percentile;
        po.keepDistribution = false;
        rows.push_back({o.files[i], o.files[k], printedForm(m), comparePaired(alignByQid(*va, *vb), po)});
      }
    }
  }
  std::vector<double> pr, pt;
  for (const auto& row : rows) {
    pr.push_back(row.r.randomization.p);
    pt.push_back(row.r.ttest.p);
  }
  const auto prHolm = holmAdjust(pr);
  const auto ptHolm = holmAdjust(pt);

  int rc = 0;
  for (const auto& row : rows) {
    if (!row.r.ok()) {
      std::cerr << "ragscope-cli compare: " << row.a << " vs " << row.b << ": " << row.r.error << '\n';
      rc = 1;
    }
    if (row.r.unaligned())
      std::cerr << "ragscope-cli compare: " << row.r.unaligned() << " unaligned queries (only in "
                << row.a << ": " << joined(row.r.onlyInA) << "; only in " << row.b << ": "
                << joined(row.r.onlyInB) << ")\n";
  }

  if (o.json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const PairedResult& r = rows[i].r;
      nlohmann::ordered_json j;
      j["n"] = r.n;
      j["unaligned"] = r.unaligned();
      j["mean_diff"] = r.meanDiff;
      j["ci_low"] = r.ci.low;
      j["ci_high"] = r.ci.high;
      j["p_randomization"] = r.randomization.p;
      j["p_ttest"] = r.ttest.p;
      j["wins"] = r.wins;
      j["ties"] = r.ties;
      j["losses"] = r.losses;
      j["a"] = rows[i].a;
      j["b"] = rows[i].b;
      j["measure"] = rows[i].measure;
      j["mean_a"] = r.meanA;
      j["mean_b"] = r.meanB;
      j["t"] = r.ttest.t;
      j["randomization_exact"] = r.randomization.exact;
      j["permutations"] = r.randomization.permutations;
      j["seed"] = o.seed;
      j["level"] = o.level;
      j["p_randomization_holm"] = prHolm[i];
      j["p_ttest_holm"] = ptHolm[i];
      j["only_in_a"] = r.onlyInA;
      j["only_in_b"] = r.onlyInB;
      all.push_back(std::move(j));
    }
    exporting::writeJson(std::cout, rows.size() == 1 ? all[0] : all);
    return rc;
  }
  const bool many = rows.size() > 1;
  std::cout << "A minus B, paired on shared qids; CI " << fmt(o.level * 100, 1) << "% "
            << (o.bca ? "BCa" : "percentile") << " (B " << (o.resamples ? o.resamples : 10000)
            << "), randomization test (" << o.permutations << " sign flips unless exact), seed "
            << o.seed << (many ? "; Holm-adjusted p in parentheses" : "") << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const PairedResult& r = rows[i].r;
    std::cout << '\n'
              << "A " << rows[i].a << "\nB " << rows[i].b << "\nmeasure " << rows[i].measure << '\n'
              << "  n " << r.n << "  unaligned " << r.unaligned() << "  W/T/L " << r.wins << '/'
              << r.ties << '/' << r.losses << '\n'
              << "  mean A " << fmt(r.meanA) << "  mean B " << fmt(r.meanB) << "  diff "
              << fmt(r.meanDiff) << "  CI [" << fmt(r.ci.low) << ", " << fmt(r.ci.high) << "]\n"
              << "  p randomization " << fmtP(r.randomization.p)
              << (r.randomization.exact ? " (exact)" : "")
              << (many ? " (" + fmtP(prHolm[i]) + ")" : "") << "  p t-test " << fmtP(r.ttest.p)
              << (many ? " (" + fmtP(ptHolm[i]) + ")" : "") << "  t " << fmt(r.ttest.t, 3) << '\n';
  }
  return rc;
}

int correlateCommand(const Args& args) {
  CommonOptions o;
  std::optional<Inputs> inputs;
  if (const int rc = prepare(args, kCorrelateHelp, 1, 2, o, inputs); rc >= 0) return rc;
  if (o.measures.size() != 1) {
    std::cerr << "ragscope-cli correlate: give exactly one --measure (and optionally --measure-y)\n";
    return 2;
  }
  const std::size_t yInput = o.files.size() == 2 ? 1 : 0;
  if (o.files.size() == 1 && o.measureY.empty()) {
    std::cerr << "ragscope-cli correlate: one input needs --measure-y\n";
    return 2;
  }
  const QueryValues* vx = inputs->values(0, o.measures[0]);
  const QueryValues* vy = inputs->values(yInput, o.measureY.empty() ? o.measures[0] : o.measureY);
  if (!vx || !vy) return 2;
  const PairedSample s = alignByQid(*vx, *vy);
  if (s.unaligned())
    std::cerr << "ragscope-cli correlate: " << s.unaligned() << " unaligned queries (only in X: "
              << joined(s.onlyInA) << "; only in Y: " << joined(s.onlyInB) << ")\n";
  const CorrelationOptions co = resamplingOptions<CorrelationOptions>(o, 1000);
  const CorrelationResult r = correlate(s.a, s.b, co);
  if (!r.ok()) {
    std::cerr << "ragscope-cli correlate: " << r.error << '\n';
    return 1;
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["n"] = r.n;
    j["kendall_tau_b"] = r.kendall.value;
    j["spearman_rho"] = r.spearman.value;
    j["p_kendall"] = r.kendall.p;
    j["p_spearman"] = r.spearman.p;
    j["unaligned"] = s.unaligned();
    j["kendall_ci_low"] = r.kendall.ci.low;
    j["kendall_ci_high"] = r.kendall.ci.high;
    j["spearman_ci_low"] = r.spearman.ci.low;
    j["spearman_ci_high"] = r.spearman.ci.high;
    j["B"] = co.resamples;
    j["seed"] = co.seed;
    j["level"] = co.level;
    exporting::writeJson(std::cout, j);
    return 0;
  }
  std::cout << "n " << r.n << "  unaligned " << s.unaligned() << "  CI "
            << fmt(o.level * 100, 1) << "% percentile bootstrap (B " << co.resamples << ", seed "
            << co.seed << ")\n"
            << "Kendall tau-b  " << fmt(r.kendall.value) << "  p " << fmtP(r.kendall.p) << "  CI ["
            << fmt(r.kendall.ci.low) << ", " << fmt(r.kendall.ci.high) << "]\n"
            << "Spearman rho   " << fmt(r.spearman.value) << "  p " << fmtP(r.spearman.p)
            << "  CI [" << fmt(r.spearman.ci.low) << ", " << fmt(r.spearman.ci.high) << "]\n";
  return 0;
}

}  // namespace ragscope::cli
