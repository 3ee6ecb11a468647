// ragscope-cli fuse (core/retrieval/README.md, "Fusion"): several TREC runs fused into one, with
// ranx's definitions (core/retrieval/fusion.h).

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "app/cli/retrieveroptions.h"
#include "core/data/loaders.h"
#include "core/retrieval/fusion.h"
#include "core/retrieval/retriever.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kIntro =
    R"(Fuse two or more TREC runs into one run file, with ranx's definitions (AmenRa/ranx,
ranx/fusion and ranx/normalization). For each query and document, over the runs RUN_i:
  rrf       sum of 1 / (k + rank_i), rank_i the document's rank in RUN_i (1 = best), k = --rrf-k
  combsum   sum of s_i, the document's score in RUN_i after --norm
  combmnz   combsum x the number of runs holding the document
  wsum      sum of w_i x s_i, the weights of --weights in the order of the runs
A run without the document adds 0 (after normalisation). --norm (default min-max, as ranx's
fuse()) rescales each run's scores for each query before combsum, combmnz and wsum:
  min-max   (s - min) / max(max - min, 1e-9)
  max       s / max(max, 1e-9)
  sum       (s - min) / max(sum - min x n, 1e-9)
  zmuv      (s - mean) / max(std, 1e-9), std the population standard deviation
  none      scores as they are
rrf uses ranks only, so --norm does not change it.
)";

constexpr const char* kEpilogue =
    R"(Queries: the union of the runs' queries, a query missing from a run counting as that run
returning nothing for it. (ranx keeps the first run's queries: its fusion functions take the first
run's, and its fuse() refuses runs whose queries differ.)

Order: ranks come from the scores in trec_eval's order (score descending, equal scores by docno
descending), never from the file's rank column or line order. The fused ranking is sorted the
same way (fused score descending, ties by docno descending, so the rank written is trec_eval's)
and cut at --k. Scores are written as the shortest text that reads back as the same double.

Input errors (a docno twice for one query, an infinite score, scores too large to add up) are
named as file:line: field: problem, and nothing is written.

Exit codes: 0 ok, 2 usage or input errors.
)";

// A bound on --k as `retrieve` has one: past it a number is a typo, not a depth.
constexpr std::uint64_t kMaxDepth = 100'000'000;

struct FuseArgs {
  std::vector<std::string> runs;
  std::string method, norm = "min-max";
  std::optional<std::string> out, tag;
  std::vector<double> weights;
  double rrfK = kDefaultRrfK;
  std::size_t depth = 0;
};

void declare(CommandLine& cli, FuseArgs& a) {
  cli.synopsis(
      "RUN RUN... --method rrf|combsum|combmnz|wsum [--norm none|min-max|max|sum|zmuv] "
      "[--weights W,W,...] [--rrf-k K] [--k DEPTH] [--tag T] --out RUN");
  cli.intro(kIntro);
  cli.epilogue(kEpilogue);
  cli.positionals("RUN...", a.runs);
  cli.positionalRoles({{PathRole::Input, "RUN"}});
  cli.choice("--method", {"rrf", "combsum", "combmnz", "wsum"}, a.method,
             "fusion method (required)");
  cli.choice("--norm", {"none", "min-max", "max", "sum", "zmuv"}, a.norm,
             "score normalisation before combsum, combmnz and wsum (default min-max)");
  cli.custom(
      "--weights", "W,W,...", [&a](const std::string& v) { return parseWeightList(v, a.weights); },
      "wsum: one weight per run, in the order of the runs (required for wsum)");
  cli.number("--rrf-k", "K", a.rrfK, NumberBounds::atLeast(0), "rrf: k (default 60)");
  cli.integer("--k", "DEPTH", a.depth, 1, kMaxDepth,
              "documents kept per query in the fused run (default: all)", "all");
  cli.text("--tag", "T", a.tag, "run tag (default: the method's name)");
  cli.path("-o, --out", "FILE", a.out, "run file to write (required; never one of the inputs)")
      .output();
}

void printDiagnostics(const LoadReport& report) {
  for (const auto& d : report.diagnostics)
    std::cerr << d.toString() << (d.severity == Severity::Warning ? " (warning)" : "") << '\n';
  if (report.unstoredDiagnostics)
    std::cerr << "... and " << report.unstoredDiagnostics << " more diagnostics not stored\n";
}

}  // namespace

int fuseCommand(const Args& args) {
  FuseArgs a;
  CommandLine cli("fuse");
  declare(cli, a);
  if (auto exit = cli.parse(args)) return *exit;
  if (a.runs.size() < 2) return cli.usageError("need at least two runs to fuse");
  if (a.method.empty())
    return cli.usageError("no fusion method given (--method rrf|combsum|combmnz|wsum)");
  if (!a.out) return cli.usageError("no output file given (--out RUN)");

  FusionOptions o;
  o.method = *fusionMethodFromName(a.method);
  o.norm = *scoreNormFromName(a.norm);
  o.weights = a.weights;
  o.rrfK = a.rrfK;
  o.depth = a.depth;
  if (a.tag) o.tag = *a.tag;
  if (o.method == FusionMethod::WeightedSum && !cli.given("--weights"))
    return cli.usageError("wsum needs --weights (one per run)");
  if (std::string problem = fusionOptionsProblem(o, a.runs.size()); !problem.empty())
    return cli.usageError((cli.given("--weights") ? "--weights: " : "") + problem);
  if (cli.given("--rrf-k") && o.method != FusionMethod::Rrf)
    return cli.usageError("--rrf-k applies to --method rrf only");

  std::vector<Loaded<Run>> loaded;
  loaded.reserve(a.runs.size());
  for (const std::string& path : a.runs) {
    loaded.push_back(readTrecRun(path, LoadOptions{}));
    const LoadReport& report = loaded.back().report;
    printDiagnostics(report);
    if (!report.ok() || report.hasErrors()) return 2;
    if (loaded.back().value.rankings.empty()) {
      std::cerr << path << ": no run lines (an empty or comment-only run)\n";
      return 2;
    }
  }
  std::vector<const Run*> runs;
  for (const auto& l : loaded) runs.push_back(&l.value);
  Loaded<Run> fused = fuseRuns(runs, o);
  printDiagnostics(fused.report);
  if (fused.report.hasErrors()) return 2;

  std::string error;
  if (!writeTrecRun(fused.value, *a.out, &error, ScoreText::Shortest)) {
    std::cerr << "ragscope-cli fuse: " << error << '\n';
    return 2;
  }
  std::cout << "fused: " << runs.size() << " runs by " << a.method;
  if (o.method == FusionMethod::Rrf)
    std::cout << " (k " << o.rrfK << ")";
  else
    std::cout << " (norm " << a.norm << ")";
  std::cout << ", " << fused.value.rankings.size() << " queries, " << fused.value.entryCount()
            << " entries\n";
  std::cout << "wrote: " << *a.out << " (tag " << sanitizeRunTag(fused.value.tag) << ")\n";
  return 0;
}

}  // namespace ragscope::cli
