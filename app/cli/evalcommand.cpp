// ragscope-cli eval: trec_eval-compatible retrieval evaluation. With --format trec (the default)
// stdout diffs line for line against trec_eval's for the measures ragscope implements.

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "core/data/loaders.h"
#include "core/export/csv.h"
#include "core/export/json.h"
#include "core/metrics/doclevel.h"
#include "core/metrics/measures.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/stats/runsummary.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kEvalHelp = R"(usage: ragscope-cli eval [options] QRELS RUN... [--format trec|csv|json]

trec_eval-exact retrieval evaluation (trec_eval 10's measures and conventions). Options may be
glued to their values as in trec_eval (-l2, -M100, -mP.5,10) and single-letter flags combined
(-qc). A run file is evaluated as it is read, in chunks on all cores, in one pass without holding
it when each query's lines are together (otherwise in two passes, holding the scattered queries).

  -q                 also print each query's values (per-query blocks, then `all`)
  -c                 complete: qrels queries missing from a run count as 0 and the mean divides
                     by the number of qrels queries (default: such queries are skipped)
  -l LEVEL           minimum qrels grade counted relevant (default 1; NDCG ignores it)
  -M DEPTH           evaluate only the top DEPTH documents of each ranking (after sorting)
  -m MEASURE[.P,..]  measure to compute, repeatable; any of trec_eval 10's all_trec measures:
                     runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank
                     iprec_at_recall P relstring recall infAP gm_bpref Rprec_mult utility
                     11pt_avg binG G ndcg ndcg_rel Rndcg ndcg_cut map_cut relative_P success
                     set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret rbp
                     rbp_resid unj, with parameters as trec_eval takes them (P.5,10,
                     ndcg.1=3,2=9, utility.2,-1,0,0, relstring.20, rbp.p=0.9); nicknames
                     official (default), all_trec, set. relstring prints with -q only.
                     rbp is Moffat & Zobel's rank-biased precision with p = 0.8 unless rbp.p=P
                     is given (trec_eval 10 reads uninitialised variables there; its own test
                     outputs are this definition at p = 0.9); rbp_resid uses rbp's p.
                     ir_measures names are accepted too (quote the parentheses):
@IRMEASURES@  -n                 no summary (`all`) lines in trec format
  --doc-level        document level (chunked corpora): a chunk id file#page#n counts as its
                     document (first occurrence); prints AP (trec_eval), AP over retrieved
                     relevant, P and recall (-m is not used). QRELS: document-level qrels, or a
                     dataset naming gold documents (Docugami qna_data.csv, KILT)
  --format F         trec (default: trec_eval's layout), csv or json (one table for all runs)
  --B N              bootstrap resamples for the csv/json summary CIs (default 10000; 0 = none;
                     at most 1000000)
  --skip-bad         skip malformed input lines (reported) instead of stopping at the first
  -h, --help         this text

csv and json: one table over all runs, each run labelled by its tag, or by tag (folder/file) when
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

// The help text with the ir_measures names filled in from the one table that parses them.
std::string evalHelp() {
  std::string help = kEvalHelp;
  std::string names;
  for (const auto& line : irMeasuresAliasText()) names += "                       " + line + "\n";
  help.replace(help.find("@IRMEASURES@"), 12, names);
  return help;
}

// Bounds of the numeric options: --B beyond this would exhaust memory (the CI keeps B means per
// measure), and a relevance level or depth beyond these means nothing.
constexpr long kMaxResamples = 1'000'000;
constexpr long kMaxLevel = 1'000'000'000;
constexpr long kMaxDepth = 1'000'000'000;

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

bool parseLong(const std::string& text, long& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (errno || *end != '\0') return false;
  out = v;
  return true;
}

// Returns an error message, or empty on success; sets `help` for -h/--help.
std::string parseArgs(const Args& args, Options& o, bool& help) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      help = true;
      return {};
    }
    if (a == "--format" || a.rfind("--format=", 0) == 0) {
      if (a == "--format") {
        if (i + 1 >= args.size()) return "--format needs a value (trec, csv or json)";
        o.format = args[++i];
      } else {
        o.format = a.substr(9);
      }
      if (o.format != "trec" && o.format != "csv" && o.format != "json")
        return "unknown --format '" + o.format + "' (trec, csv or json)";
      continue;
    }
    if (a == "--skip-bad") {
      o.skipBad = true;
      continue;
    }
    if (a == "--B") {
      long v = 0;
      if (i + 1 >= args.size()) return "--B needs a number of resamples: 0 (no CIs) or 2 to 1000000";
      if (!parseLong(args[i + 1], v) || v < 0 || v == 1 || v > kMaxResamples)
        return "--B: expected 0 (no CIs) or an integer from 2 to " + std::to_string(kMaxResamples) +
               ", got '" + args[i + 1].substr(0, 40) + "'";
      o.ciResamples = static_cast<std::size_t>(v);
      ++i;
      continue;
    }
    if (a == "--doc-level") {
      o.docLevel = true;
      continue;
    }
    if (a == "-" || a.size() < 2 || a[0] != '-') {
      o.files.push_back(a);
      continue;
    }
    if (a.rfind("--", 0) == 0) return "unknown option '" + a + "'";
    // getopt-style cluster: flags, then at most one option taking a value (glued or next arg).
    for (std::size_t k = 1; k < a.size(); ++k) {
      const char c = a[k];
      if (c == 'q') {
        o.perQuery = true;
      } else if (c == 'c') {
        o.settings.complete = true;
      } else if (c == 'n') {
        o.summary = false;
      } else if (c == 'l' || c == 'M' || c == 'm') {
        std::string value = a.substr(k + 1);
        if (value.empty()) {
          if (i + 1 >= args.size()) return std::string("option -") + c + " needs a value";
          value = args[++i];
        }
        if (c == 'm') {
          o.measureArgs.push_back(value);
        } else {
          long v = 0;
          const long min = c == 'l' ? -kMaxLevel : 0;
          const long max = c == 'l' ? kMaxLevel : kMaxDepth;
          if (!parseLong(value, v) || v < min || v > max)
            return std::string("option -") + c + ": expected an integer from " + std::to_string(min) +
                   " to " + std::to_string(max) + ", got '" + value.substr(0, 40) + "'";
          if (c == 'l')
            o.settings.relevanceLevel = static_cast<int>(v);
          else
            o.settings.maxDepth = static_cast<std::size_t>(v);
        }
        break;
      } else {
        return std::string("unsupported option -") + c + " (trec_eval option not implemented by ragscope)";
      }
    }
  }
  if (o.files.size() < 2) return "need a qrels file and at least one run file";
  return {};
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

// Integer measures (num_ret, ...) print without a fraction; NaN (undefined) is an empty cell.
void csvValue(exporting::CsvWriter& csv, const MeasureColumn& c, double v) {
  if (c.integer && !std::isnan(v))
    csv.number(static_cast<long>(v));
  else
    csv.number(v);
}

}  // namespace

int evalCommand(const Args& args) {
  Options o;
  bool help = false;
  const std::string error = parseArgs(args, o, help);
  if (help) {
    std::cout << evalHelp();
    return 0;
  }
  if (!error.empty()) {
    std::cerr << "ragscope-cli eval: " << error << "\n\n" << evalHelp();
    return 2;
  }
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
      std::cerr << o.files[f] << ": " << r.skippedQueries.size()
                << " qrels quer" << (r.skippedQueries.size() == 1 ? "y" : "ies")
                << " absent from the run skipped (use -c to count them as 0): " << listSome(r.skippedQueries)
                << '\n';
    if (!r.zeroFilledQueries.empty())
      std::cerr << o.files[f] << ": " << r.zeroFilledQueries.size()
                << " qrels quer" << (r.zeroFilledQueries.size() == 1 ? "y" : "ies")
                << " absent from the run counted as 0 (-c): " << listSome(r.zeroFilledQueries) << '\n';
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

  // csv/json: one table, rows (run, qid, measures...), per-query rows with -q, then `all` with
  // each measure's mean, bootstrap CI and n.
  const auto& columns = results.front().columns;
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].numeric()) shown.push_back(i);  // relstring is trec format's only
  const std::vector<std::string> labels = stats::runLabels(results);
  stats::BootstrapOptions bootstrap;  // seed 42, 95 % percentile, as the GUI's summary
  bootstrap.resamples = o.ciResamples;
  std::vector<std::vector<stats::MeasureSummary>> summaries;
  for (const auto& r : results) summaries.push_back(stats::summarizeRun(r, bootstrap));
  if (o.format == "csv") {
    exporting::CsvWriter csv(std::cout);
    csv.text("run").text("qid").text("n");
    for (auto i : shown)
      csv.text(columns[i].name)
          .text(columns[i].name + "_ci_low")
          .text(columns[i].name + "_ci_high");
    csv.endRow();
    for (std::size_t k = 0; k < results.size(); ++k) {
      const EvalResult& r = results[k];
      if (o.perQuery)
        for (const auto& q : r.queries) {
          csv.text(labels[k]).text(q.qid).empty();
          for (auto i : shown) {
            if (columns[i].perQuery)
              csvValue(csv, columns[i], q.values[i]);
            else
              csv.empty();
            csv.empty().empty();
          }
          csv.endRow();
        }
      csv.text(labels[k]).text("all").number(r.numQueries);
      for (auto i : shown) {
        const stats::MeasureSummary& m = summaries[k][i];
        csvValue(csv, columns[i], m.mean);
        csv.number(m.ci.low).number(m.ci.high);
      }
      csv.endRow();
    }
    return 0;
  }
  nlohmann::ordered_json doc;
  nlohmann::ordered_json cols = nlohmann::ordered_json::array({"run", "qid"});
  for (auto i : shown) cols.push_back(columns[i].name);
  doc["columns"] = cols;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  auto real = [](double v) -> nlohmann::ordered_json {
    if (std::isnan(v)) return nullptr;
    return v;
  };
  auto value = [&](const MeasureColumn& c, double v) -> nlohmann::ordered_json {
    if (c.integer && !std::isnan(v)) return static_cast<long>(v);
    return real(v);
  };
  for (std::size_t k = 0; k < results.size(); ++k) {
    const EvalResult& r = results[k];
    if (o.perQuery)
      for (const auto& q : r.queries) {
        nlohmann::ordered_json row;
        row["run"] = labels[k];
        row["qid"] = q.qid;
        for (auto i : shown)
          if (columns[i].perQuery) row[columns[i].name] = value(columns[i], q.values[i]);
        rows.push_back(row);
      }
    nlohmann::ordered_json row;
    row["run"] = labels[k];
    row["qid"] = "all";
    for (auto i : shown) {
      const stats::MeasureSummary& m = summaries[k][i];
      row[columns[i].name] = {{"mean", value(columns[i], m.mean)},
                              {"ci_low", real(m.ci.low)},
                              {"ci_high", real(m.ci.high)},
                              {"n", m.n}};
    }
    rows.push_back(row);
  }
  doc["rows"] = rows;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < results.size(); ++k) {
    const EvalResult& r = results[k];
    runs.push_back({{"run", labels[k]},
                    {"tag", r.runId},
                    {"source", r.runSource},
                    {"num_q", r.numQueries},
                    {"skipped_queries", r.skippedQueries},
                    {"zero_filled_queries", r.zeroFilledQueries},
                    {"ignored_run_queries", r.ignoredRunQueries.size()}});
  }
  doc["runs"] = runs;
  doc["bootstrap"] = {{"B", bootstrap.resamples},
                      {"seed", bootstrap.seed},
                      {"level", bootstrap.level},
                      {"ci", "percentile"}};
  // Document level changes what every number means: its rules come first, as on the page.
  std::vector<std::string> conventions = o.docLevel ? docLevelConventionsText() : std::vector<std::string>{};
  for (auto& line : conventionsText(o.settings)) conventions.push_back(std::move(line));
  doc["conventions"] = conventions;
  exporting::writeJson(std::cout, doc, 2);
  return 0;
}

}  // namespace ragscope::cli
