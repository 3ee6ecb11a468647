// ragscope-cli eval: trec_eval-compatible retrieval evaluation. With --format trec (the default)
// stdout diffs line for line against trec_eval's for the measures ragscope implements.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "core/data/loaders.h"
#include "core/export/evaltable.h"
#include "core/metrics/doclevel.h"
#include "core/metrics/measures.h"
#include "core/metrics/retrievalevaluator.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kEvalIntro =
    R"(trec_eval-exact retrieval evaluation (trec_eval 10's measures and conventions). Options may be
glued to their values as in trec_eval (-l2, -M100, -mP.5,10) and single-letter flags combined
(-qc). A run file is evaluated as it is read, in chunks on all cores, in one pass without holding
it when each query's lines are together (otherwise in two passes, holding the scattered queries).
)";

constexpr const char* kMeasureHelp =
    R"(measure to compute, repeatable; any of trec_eval 10's all_trec measures: runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P relstring recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G ndcg ndcg_rel Rndcg ndcg_cut map_cut relative_P success set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret rbp rbp_resid unj, with parameters as trec_eval takes them (P.5,10, ndcg.1=3,2=9, utility.2,-1,0,0, relstring.20, rbp.p=0.9); nicknames official (default), all_trec, set. relstring prints with -q only. rbp is Moffat & Zobel's rank-biased precision with p = 0.8 unless rbp.p=P is given (trec_eval 10 reads uninitialised variables there; its own test outputs are this definition at p = 0.9); rbp_resid uses rbp's p.
ir_measures names are accepted too (quote the parentheses):)";

constexpr const char* kEvalEpilogue =
    R"(csv and json: one table over all runs, each run labelled by its tag, or by tag (folder/file) when
several runs share a tag (rank_llm's DL19 runs are all "rank"). The `all` row gives, per measure,
the mean (as trec_eval prints it), a 95% percentile bootstrap CI of the mean (B resamples of the
per-query values, seed 42; only for measures averaged per query, not counts or gm_map) and n, the
number of queries averaged: csv columns run, qid, n, then M, M_ci_low, M_ci_high per measure
(empty where undefined); json `all` rows hold {"mean","ci_low","ci_high","n"} per measure (null
where undefined). Per-query rows (-q) hold the plain values. In csv, a text cell (run label, qid)
that begins with = + - @, tab or CR gets a leading ' so that spreadsheets do not run it as a
formula (a qid -1 prints as '-1); numbers are never changed.

QRELS or one RUN may be - (standard input). A docno retrieved twice for a query (within the -M
depth) is an input error, as `dataset info` reports it. Rankings are sorted by score descending
with ties broken by docno descending; the rank column is ignored. Exit codes: 0 ok, 1 nothing to
evaluate, 2 usage or input errors (messages on stderr as file:line: field: problem).
)";

// Bounds of the numeric options: --B beyond this would exhaust memory (the CI keeps B means per
// measure), and a relevance level or depth beyond these means nothing.
constexpr std::uint64_t kMaxResamples = 1'000'000;
constexpr std::int64_t kMaxLevel = 1'000'000'000;
constexpr std::uint64_t kMaxDepth = 1'000'000'000;

struct Options {
  bool perQuery = false;
  bool summary = true;
  bool skipBad = false;
  bool docLevel = false;
  EvalSettings settings;
  std::vector<std::string> measureArgs;
  std::string format = "trec";
  std::size_t ciResamples = 10000;
  std::vector<std::string> files;
};

// The command line of eval, trec_eval's options first.
void declare(CommandLine& cli, Options& o) {
  cli.intro(kEvalIntro);
  cli.epilogue(kEvalEpilogue);
  cli.unknownOptionNote("a trec_eval option ragscope does not implement");
  cli.positionals("QRELS RUN...", o.files);
  cli.positionalRoles({{PathRole::Input, "QRELS"}, {PathRole::Input, "RUN"}});
  cli.flag("-q", o.perQuery, "also print each query's values (per-query blocks, then `all`)");
  cli.flag("-c", o.settings.complete,
           "complete: qrels queries missing from a run count as 0 and the mean divides by the "
           "number of qrels queries (default: such queries are skipped)");
  cli.integer("-l", "LEVEL", o.settings.relevanceLevel, -kMaxLevel, kMaxLevel,
              "minimum qrels grade counted relevant (default 1; NDCG ignores it)");
  cli.integer("-M", "DEPTH", o.settings.maxDepth, 0, kMaxDepth,
              "evaluate only the top DEPTH documents of each ranking (after sorting)");
  std::string measureHelp = kMeasureHelp;
  for (const auto& line : irMeasuresAliasText()) measureHelp += "\n  " + line;
  cli.texts("-m", "MEASURE[.P,..]", o.measureArgs, measureHelp);
  cli.flag("-n", o.summary, "no summary (`all`) lines in trec format", false);
  cli.flag("--doc-level", o.docLevel,
           "document level (chunked corpora): a chunk id file#page#n counts as its document "
           "(first occurrence); prints AP (trec_eval), AP over retrieved relevant, P and recall "
           "(-m is not used). QRELS: document-level qrels, or a dataset naming gold documents "
           "(Docugami qna_data.csv, KILT)");
  cli.choice("--format", {"trec", "csv", "json"}, o.format,
             "trec (default: trec_eval's layout), csv or json (one table for all runs)", "F");
  cli.integer("--B", "N", o.ciResamples, 2, kMaxResamples,
              "bootstrap resamples for the csv/json summary CIs (default 10000; 0 = none)",
              "no CIs");
  cli.flag("--skip-bad", o.skipBad,
           "skip malformed input lines (reported) instead of stopping at the first");
}

void printDiagnostics(const LoadReport& report) {
  std::size_t warnings = 0;
  for (const auto& d : report.diagnostics) {
    if (d.severity == Severity::Warning && ++warnings > 20) continue;
    std::cerr << d.toString() << (d.severity == Severity::Warning ? " (warning)" : "") << '\n';
  }
  if (warnings > 20) std::cerr << "... and " << (warnings - 20) << " more warnings\n";
  if (report.unstoredDiagnostics)
    std::cerr << "... and " << report.unstoredDiagnostics << " more diagnostics not stored\n";
}

std::string listSome(const std::vector<std::string>& ids, std::size_t max = 20) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < max; ++i) out += (i ? " " : "") + ids[i];
  if (ids.size() > max) out += " ... (" + std::to_string(ids.size() - max) + " more)";
  return out;
}

}  // namespace

int evalCommand(const Args& args) {
  Options o;
  CommandLine cli("eval");
  declare(cli, o);
  if (auto exit = cli.parse(args)) return *exit;
  if (o.files.size() < 2) return cli.usageError("need a qrels file and at least one run file");
  auto measures = parseMeasureArgs(o.measureArgs);
  constexpr const char* kMeasureHint = " (`ragscope-cli eval --help` lists the measures)";
  if (!measures.ok()) {
    std::cerr << "ragscope-cli eval: -m: " << measures.error << kMeasureHint << '\n';
    return 2;
  }
  o.settings.measures = measures.value;
  if (auto cols = resolveMeasures(o.settings.measures); !cols.ok()) {
    std::cerr << "ragscope-cli eval: -m: " << cols.error << kMeasureHint << '\n';
    return 2;
  }

  LoadOptions load;
  load.onError = o.skipBad ? OnError::Skip : OnError::Stop;
  auto qrels = o.docLevel ? readDocumentQrels(o.files[0], load) : readTrecQrels(o.files[0], load);
  printDiagnostics(qrels.report);
  if (!qrels.report.ok() || (qrels.report.hasErrors() && !o.skipBad)) return 2;

  std::vector<EvalResult> results;
  for (std::size_t f = 1; f < o.files.size(); ++f) {
    // A run file is evaluated as it is read (no run held in memory); --doc-level needs the run.
    EvalResult r;
    if (o.docLevel) {
      auto run = readTrecRun(o.files[f], load);
      printDiagnostics(run.report);
      if (!run.report.ok() || (run.report.hasErrors() && !o.skipBad)) return 2;
      r = evaluateRunDocLevel(qrels.value, run.value, o.settings);
    } else {
      LoadReport report;
      r = evaluateRunFile(qrels.value, o.files[f], o.settings, load, report);
      printDiagnostics(report);
      if (!report.ok() || (report.hasErrors() && !o.skipBad)) return 2;
    }
    for (const auto& d : r.diagnostics) std::cerr << d.toString() << '\n';
    if (!r.ok()) return r.numQueries == 0 && r.diagnostics.size() == 1 ? 1 : 2;
    if (!r.skippedQueries.empty())
      std::cerr << o.files[f] << ": " << r.skippedQueries.size() << " qrels quer"
                << (r.skippedQueries.size() == 1 ? "y" : "ies")
                << " absent from the run skipped (use -c to count them as 0): "
                << listSome(r.skippedQueries) << '\n';
    if (!r.zeroFilledQueries.empty())
      std::cerr << o.files[f] << ": " << r.zeroFilledQueries.size() << " qrels quer"
                << (r.zeroFilledQueries.size() == 1 ? "y" : "ies")
                << " absent from the run counted as 0 (-c): " << listSome(r.zeroFilledQueries)
                << '\n';
    results.push_back(std::move(r));
  }

  if (o.format == "trec") {
    for (const auto& r : results) {
      std::string text = formatTrecEval(r, o.perQuery);
      if (!o.summary) {
        // -n: drop the `all` lines (trec_eval's --nosummary).
        std::string kept;
        std::size_t pos = 0;
        while (pos < text.size()) {
          const std::size_t nl = text.find('\n', pos);
          const std::string line = text.substr(pos, nl - pos + 1);
          if (line.find("\tall\t") == std::string::npos) kept += line;
          pos = nl + 1;
        }
        text = kept;
      }
      // Several runs: each block is identified by a runid line, as trec_eval prints for one run.
      if (results.size() > 1 && text.rfind("runid", 0) != 0) {
        std::string head = "runid";
        head.append(22 - head.size(), ' ');
        std::cout << head << "\tall\t" << r.runId << '\n';
      }
      std::cout << text;
    }
    return 0;
  }

  // csv/json: one table over all runs (core/export/evaltable.h); each mean's CI as the GUI's
  // summary computes it (seed 42, 95% percentile).
  exporting::EvalTableOptions table;
  table.perQuery = o.perQuery;
  table.bootstrap.resamples = o.ciResamples;
  // Document level changes what every number means: its rules come first, as on the page.
  if (o.docLevel) table.conventions = docLevelConventionsText();
  for (auto& line : conventionsText(o.settings)) table.conventions.push_back(std::move(line));
  if (o.format == "csv")
    exporting::writeEvalCsv(std::cout, results, table);
  else
    exporting::writeEvalJson(std::cout, results, table);
  return 0;
}

}  // namespace ragscope::cli
