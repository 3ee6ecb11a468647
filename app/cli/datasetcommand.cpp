// ragscope-cli dataset info: load files/folders as one dataset and print what came in and what
// went wrong, as text or one JSON object.

#include <unistd.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "core/data/dataset.h"
#include "core/data/inputfile.h"
#include "core/data/linereader.h"
#include "core/export/json.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kHelp =
    R"(usage: ragscope-cli dataset info PATH... [--format F] [--json] [--skip-bad]

Load one or more files or folders as one dataset and print its counts (queries, queries with gold
outputs and with gold documents, documents, judgments per grade, runs, examples) followed by
every diagnostic as "file:line: field: problem".

A folder is loaded as a unit when it is BEIR (corpus.jsonl + queries.jsonl) or Docugami
(qna_data.csv + docs/); any other folder is a bundle whose recognised files are each loaded
(e.g. an MS MARCO / TREC DL folder with topics/, qrels/, runs/). PATH - reads standard input
(with --format). Devices, FIFOs and anything under /proc, /sys or /dev are never read (in a
bundle they are named and skipped), nor files with CR-only line ends; with --skip-bad a file
stops after 1000 errors.

Options:
  --format F   format of every PATH (default: detected from names and first bytes); one of:
               %FORMATS%
               With a bundle folder, only its files of format F are loaded.
  --json       print one JSON object instead of text
  --skip-bad   skip bad records and go on (default: stop at the first error)
  -h, --help   this help

Exit codes: 0 loaded without errors (warnings allowed), 2 usage or input errors (also when bad
records were skipped with --skip-bad).
)";

std::string formatNames(std::string_view sep) {
  std::string out;
  for (const auto f : allFormats()) {
    if (!out.empty()) out += sep;
    out += formatName(f);
  }
  return out;
}

std::string help() {
  // The format list, wrapped under its option at 100 columns.
  std::string list, line;
  const std::string indent(15, ' ');
  for (const auto f : allFormats()) {
    const std::string item = std::string(formatName(f)) + ",";
    if (!line.empty() && indent.size() + line.size() + 1 + item.size() > 100) {
      list += (list.empty() ? "" : "\n" + indent) + line;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + item;
  }
  line.pop_back();  // the last comma
  list += (list.empty() ? "" : "\n" + indent) + line;
  std::string text = kHelp;
  const std::string marker = "%FORMATS%";
  text.replace(text.find(marker), marker.size(), list);
  return text;
}

int usageError(const std::string& message) {
  std::cerr << "ragscope-cli dataset: " << message << "\n"
            << "Run 'ragscope-cli dataset --help' for usage.\n";
  return 2;
}

const char* severityName(Severity s) { return s == Severity::Error ? "error" : "warning"; }

struct Counts {
  std::size_t queries = 0;
  std::size_t queriesWithGold = 0;
  std::size_t queriesWithGoldDocs = 0;  // gold provenance (KILT, Docugami SOURCE(S))
  std::size_t documents = 0;
  std::size_t judgments = 0;
  std::map<int, std::size_t> grades;
  std::size_t qrelsQueries = 0;
  std::size_t examples = 0;
};

Counts countsOf(const Dataset& d) {
  Counts c;
  c.queries = d.queries.size();
  for (const auto& q : d.queries)
    if (!q.gold.empty()) ++c.queriesWithGold;
  for (const auto& q : d.queries)
    if (!q.goldDocIds().empty()) ++c.queriesWithGoldDocs;
  c.documents = d.corpus.size();
  c.judgments = d.qrels.judgmentCount();
  c.grades = d.qrels.gradeCounts();
  c.qrelsQueries = d.qrels.byQuery.size();
  c.examples = d.examples.size();
  return c;
}

void printText(const Dataset& d, const LoadReport& r) {
  const Counts c = countsOf(d);
  std::cout << "dataset: " << d.name << "\n";
  std::cout << "parts:\n";
  for (const auto& p : d.parts)
    std::cout << "  " << p.path.string() << " (" << (p.format ? formatName(*p.format) : "?")
              << ")\n";
  std::cout << "queries: " << c.queries << "\n";
  std::cout << "queries with gold outputs: " << c.queriesWithGold << "\n";
  std::cout << "queries with gold documents: " << c.queriesWithGoldDocs << "\n";
  std::cout << "documents: " << c.documents << "\n";
  std::cout << "judgments: " << c.judgments;
  if (!c.grades.empty()) {
    std::cout << " (";
    bool first = true;
    for (const auto& [grade, n] : c.grades) {
      std::cout << (first ? "" : ", ") << "grade " << grade << ": " << n;
      first = false;
    }
    std::cout << ")";
  }
  std::cout << "\n";
  std::cout << "qrels queries: " << c.qrelsQueries << "\n";
  std::cout << "runs: " << d.runs.size() << "\n";
  for (const auto& run : d.runs)
    std::cout << "  " << run.tag << " (" << run.source << "): " << run.rankings.size()
              << " queries, " << run.entryCount() << " entries\n";
  std::cout << "examples: " << c.examples << "\n";
  std::cout << "records loaded: " << r.records << "\n";
  std::cout << "diagnostics: " << r.errors << " errors, " << r.warnings << " warnings, "
            << r.skipped << " skipped";
  if (r.stopped) std::cout << ", stopped";
  if (r.cancelled) std::cout << ", cancelled";
  std::cout << "\n";
  for (const auto& diag : r.diagnostics)
    std::cout << diag.toString() << (diag.severity == Severity::Warning ? " (warning)" : "")
              << "\n";
  if (r.unstoredDiagnostics > 0)
    std::cout << "... and " << r.unstoredDiagnostics << " more diagnostics\n";
}

void printJson(const Dataset& d, const LoadReport& r) {
  const Counts c = countsOf(d);
  nlohmann::json out;
  out["name"] = d.name;
  out["parts"] = nlohmann::json::array();
  for (const auto& p : d.parts)
    out["parts"].push_back({{"path", p.path.string()},
                            {"format", p.format ? std::string(formatName(*p.format)) : ""}});
  out["queries"] = c.queries;
  out["queries_with_gold"] = c.queriesWithGold;
  out["queries_with_gold_docs"] = c.queriesWithGoldDocs;
  out["documents"] = c.documents;
  out["judgments"] = c.judgments;
  nlohmann::json grades = nlohmann::json::object();
  for (const auto& [grade, n] : c.grades) grades[std::to_string(grade)] = n;
  out["judgments_by_grade"] = grades;
  out["qrels_queries"] = c.qrelsQueries;
  out["runs"] = nlohmann::json::array();
  for (const auto& run : d.runs)
    out["runs"].push_back({{"tag", run.tag},
                           {"source", run.source},
                           {"queries", run.rankings.size()},
                           {"entries", run.entryCount()}});
  out["examples"] = c.examples;
  out["records"] = r.records;
  out["errors"] = r.errors;
  out["warnings"] = r.warnings;
  out["skipped"] = r.skipped;
  out["stopped"] = r.stopped;
  out["cancelled"] = r.cancelled;
  out["unstored_diagnostics"] = r.unstoredDiagnostics;
  out["diagnostics"] = nlohmann::json::array();
  for (const auto& diag : r.diagnostics)
    out["diagnostics"].push_back({{"severity", severityName(diag.severity)},
                                  {"file", diag.file},
                                  {"line", diag.line},
                                  {"field", diag.field},
                                  {"problem", diag.problem},
                                  {"text", diag.toString()}});
  // Diagnostics may quote raw input that is not UTF-8: writeJson replaces such bytes.
  exporting::writeJson(std::cout, out, 2);
}

}  // namespace

int datasetCommand(const Args& args) {
  // args[0] == "dataset"
  if (args.size() < 2) return usageError("missing subcommand (expected 'info')");
  if (args[1] == "--help" || args[1] == "-h") {
    std::cout << help();
    return 0;
  }
  if (args[1] != "info")
    return usageError("unknown subcommand '" + args[1] + "' (expected 'info')");

  std::vector<std::string> paths;
  std::optional<std::string> formatArg;
  bool json = false;
  bool skipBad = false;
  for (std::size_t i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << help();
      return 0;
    }
    if (a == "--json") {
      json = true;
    } else if (a == "--skip-bad") {
      skipBad = true;
    } else if (a == "--format") {
      if (i + 1 >= args.size()) return usageError("--format needs a value: " + formatNames(", "));
      formatArg = args[++i];
    } else if (a.rfind("--format=", 0) == 0) {
      formatArg = a.substr(9);
    } else if (a == "--") {
      paths.insert(paths.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "'");
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) return usageError("no PATH given");

  std::optional<Format> format;
  if (formatArg) {
    format = formatFromName(*formatArg);
    if (!format)
      return usageError("unknown format '" + *formatArg + "'; known formats: " + formatNames(", "));
  }

  std::vector<DatasetPart> parts;
  for (const auto& p : paths) {
    DatasetPart part{p, format};
    // Say so up front when we cannot tell a file's format, rather than as one more diagnostic
    // (a special file or CR-only line ends are the loader's to name: the format is not the issue).
    if (!format && std::filesystem::is_regular_file(p) && !specialFileProblem(p) &&
        !checkLineEnds(p) && !detectFormat(p))
      return usageError("cannot tell the format of '" + p +
                        "'; give it with --format, one of: " + formatNames(", "));
    parts.push_back(std::move(part));
  }

  LoadOptions options;
  options.onError = skipBad ? OnError::Skip : OnError::Stop;
  // A live percentage for big loads (the full MS MARCO collection takes tens of seconds), only
  // on a terminal so that redirected output stays clean.
  const bool tty = isatty(STDERR_FILENO) != 0;
  int shown = -1;
  if (tty) {
    options.progress = [&shown](std::uint64_t done, std::uint64_t total) {
      const int pct = total > 0 ? static_cast<int>(100 * done / total) : 0;
      if (pct != shown) {
        shown = pct;
        std::cerr << "\rloading... " << pct << "%" << std::flush;
      }
      return true;
    };
  }
  auto loaded = loadDataset(parts, options);
  if (tty && shown >= 0) std::cerr << "\r               \r" << std::flush;
  if (json)
    printJson(loaded.value, loaded.report);
  else
    printText(loaded.value, loaded.report);
  return loaded.report.hasErrors() || !loaded.report.ok() ? 2 : 0;
}

}  // namespace ragscope::cli
