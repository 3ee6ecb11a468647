#include "app/cli/statsoptions.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

namespace ragscope::cli {

namespace {

constexpr const char* kInputHelp =
    R"(Inputs are `trec_eval -q` outputs (`measure qid value` lines; `all` rows ignored), run stores
of `ragscope-cli erag` / `e2e` (SQLite files, recognised by their header), or, with --qrels
QRELS, TREC run files evaluated in-process with trec_eval conventions. Values are paired by
query id. The measure is named as printed (ndcg_cut_10), as requested (ndcg_cut.10) or by its
ir_measures name (nDCG@10); it may be omitted when a file holds only one measure. In run stores:
  - an eRAG store holds the measures its run was made with (erag --measures: P_5, success_5,
    map, ...), per query as `erag --json` prints them;
  - an end-to-end store holds one measure named by its downstream metric (rouge-l, f1, em,
    accuracy, contains, ...), e.g. `correlate erag.db e2e.db --measure P_5 --measure-y rouge-l`.
Only queries with every output scored count (as in erag/e2e's summaries). With --qrels, TREC runs
and run stores mix: `correlate RUN e2e.db --qrels QRELS --measure P_5 --measure-y rouge-l`.
)";

constexpr const char* kBootstrapIntro =
    R"(Bootstrap of the mean of a measure's per-query values (VERA §3.3): B resamples
(default 10000) of size S (default n) drawn with replacement; prints the bootstrap mean, the
variance of the resample means (B-1 denominator) and the percentile (or --bca) confidence interval
at level L (default 0.95). Seed default 42; the result is the same for a seed on any number of
threads.
)";

constexpr const char* kCompareIntro =
    R"(Paired comparison of runs on the query ids they share (A minus B): mean difference with a
paired bootstrap CI, Fisher randomization (sign-flip) test (default 10000 permutations; exact when
at most 20 differences are non-zero), paired t-test, wins/ties/losses. Queries in only one run are
reported, never silently dropped. With more than two runs every pair is compared (earlier minus
later), and with several --measure options every measure; p-values are then also Holm-adjusted over
all comparisons (p_*_holm).
)";

constexpr const char* kCorrelateIntro =
    R"(Rank correlation of X's and Y's per-query values on shared query ids: Kendall's tau-b (ties
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

}  // namespace

void declareStatsOptions(CommandLine& cli, StatsOptions& o, StatsCommand command) {
  const bool bootstrap = command == StatsCommand::Bootstrap;
  const bool compare = command == StatsCommand::Compare;
  switch (command) {
    case StatsCommand::Bootstrap:
      cli.synopsis(
          "FILE [--measure M] [--B N] [--size S] [--seed S] [--level L] [--bca] "
          "[--qrels QRELS] [--threads T] [--histogram BINS] [--json]");
      cli.intro(kBootstrapIntro);
      cli.positionals("FILE", o.files);
      cli.positionalRoles({{PathRole::Input, {}}});
      break;
    case StatsCommand::Compare:
      cli.synopsis(
          "A B [C...] [--measure M]... [--seed S] [--permutations N] [--B N] "
          "[--level L] [--bca] [--qrels QRELS] [--threads T] [--json]");
      cli.intro(kCompareIntro);
      cli.positionals("A B [C...]", o.files);
      cli.positionalRoles({{PathRole::Input, {}}});
      break;
    case StatsCommand::Correlate:
      cli.synopsis(
          "X Y --measure M [--measure-y M2] [--B N] [--seed S] [--level L] "
          "[--qrels QRELS] [--threads T] [--json]");
      cli.intro(kCorrelateIntro);
      cli.positionals("X Y", o.files);
      cli.positionalRoles({{PathRole::Input, {}}});
      break;
  }
  cli.epilogue(kInputHelp);
  cli.texts("-m, --measure", "M", o.measures,
            compare ? "the measure compared, repeatable (every measure is compared)"
                    : "the measure (may be omitted when the input holds only one)");
  if (command == StatsCommand::Correlate)
    cli.text("--measure-y", "M2", o.measureY, "Y's measure (default: --measure)");
  cli.path("--qrels", "QRELS", o.qrels,
           "evaluate inputs that are TREC run files against QRELS (trec_eval conventions)")
      .input();
  cli.integer("-B, --B, --resamples", "N", o.resamples, 2, kMaxResamples,
              std::string("bootstrap resamples, from 2 to 1000000 (default ") +
                  (command == StatsCommand::Correlate ? "1000)" : "10000)"));
  if (bootstrap)
    cli.integer("--size", "S", o.size, 1, kMaxSampleSize,
                "resample size, from 1 to 1000000 (default: n)");
  cli.integer("--seed", "S", o.seed, 0, std::numeric_limits<std::uint64_t>::max(),
              "random seed (default 42)");
  cli.number("--level", "L", o.level, NumberBounds::strictlyBetween(0, 1),
             "confidence level of the intervals (default 0.95)");
  if (bootstrap || compare)
    cli.flag("--bca", o.bca, "bias-corrected and accelerated intervals (default: percentile)");
  if (compare)
    cli.integer("--permutations", "N", o.permutations, 1, kMaxPermutations,
                "sign flips of the randomization test, from 1 to 10000000 (default 10000)");
  cli.integer("--threads", "T", o.threads, 0, kMaxThreads,
              "threads, from 0 to 256 (default 0: one per core)");
  if (bootstrap)
    cli.integer("--histogram", "BINS", o.histogramBins, 1, kMaxHistogramBins,
                "also print the distribution of the resample means in BINS bins (at most 10000)");
  cli.flag("--json", o.json, "print one JSON object (compare: an array for several comparisons)");
}

std::optional<int> prepareStats(const Args& args, CommandLine& cli, StatsOptions& o,
                                std::size_t minFiles, std::size_t maxFiles,
                                core::eval::StatsInputs& inputs) {
  if (auto exit = cli.parse(args)) return exit;
  if (o.files.size() < minFiles || o.files.size() > maxFiles)
    return cli.usageError("wrong number of input files");
  if (o.qrels && o.measures.empty() && o.measureY.empty())
    return cli.usageError("--measure is required with --qrels");
  core::eval::StatsInputRequest request;
  request.files = o.files;
  request.measures = o.measures;
  request.measureY = o.measureY;
  request.qrels = o.qrels;
  request.threads = o.threads;
  const bool loaded = inputs.load(request);
  for (const auto& m : inputs.messages()) std::cerr << m << '\n';
  if (!loaded) return 2;
  if (o.measures.empty()) {
    if (auto m = inputs.soleMeasure()) {
      o.measures.push_back(*m);
    } else {
      std::cerr << "ragscope-cli " << args[0]
                << ": --measure is required (the input holds several measures)\n";
      return 2;
    }
  }
  return std::nullopt;
}

const core::stats::QueryValues* statsValues(const core::eval::StatsInputs& inputs,
                                            std::size_t input, const std::string& measure) {
  std::string error;
  const auto* values = inputs.values(input, measure, &error);
  if (!values) std::cerr << error << '\n';
  return values;
}

std::string formatValue(double v, int precision) {
  if (std::isnan(v)) return "nan";
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}

std::string formatP(double p) {
  if (std::isnan(p)) return "nan";
  std::ostringstream s;
  if (p != 0.0 && p < 1e-4)
    s << std::scientific << std::setprecision(2) << p;
  else
    s << std::fixed << std::setprecision(4) << p;
  return s.str();
}

std::string joinedIds(const std::vector<std::string>& ids, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < max; ++i) out += (i ? " " : "") + ids[i];
  if (ids.size() > max) out += " ... (" + std::to_string(ids.size() - max) + " more)";
  return out.empty() ? "-" : out;
}

}  // namespace ragscope::cli
