// ragscope-cli dataset info: load files/folders as one dataset and print what came in and what
// went wrong, as text or one JSON object. ragscope-cli dataset doc: print one document of it.

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

usage: ragscope-cli dataset doc PATH... ID [--paragraphs A-B] [--json] [--format F] [--skip-bad]

Load the dataset as above and print the document ID: its id, title, paragraph count and text.
A KILT page's paragraphs are the elements of its "text" array, numbered from 0 as KILT provenance
counts them (start_paragraph_id, end_paragraph_id); any other document's are its lines.
--paragraphs A-B (or A) prints paragraphs A to B only, joined by newlines. Big corpora
(a KILT knowledge source or BEIR corpus.jsonl of 64 MiB or more) are read through their side
index (FILE.ragscope-docs, written on the first open, or in the cache folder when the file's
folder is read-only), so only the one record is read.

Options (doc):
  --paragraphs A-B  print paragraphs A to B (inclusive, from 0)
  --json            print {"id", "title", "paragraph_count", "first", "last", "paragraphs": [...],
                    "text"} instead of text

Exit codes (doc): 0 printed, 1 no document with that id (or the range is not in it), 2 usage or
input errors.
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

// The options info and doc share; `positional` receives the other arguments.
struct LoadArgs {
  std::vector<std::string> positional;
  std::optional<std::string> format;
  bool json = false;
  bool skipBad = false;
  std::optional<std::string> paragraphs;  // doc only
};

// Returns an exit code when the arguments end the command (help, usage error), nullopt otherwise.
std::optional<int> parseLoadArgs(const Args& args, bool doc, LoadArgs& out) {
  for (std::size_t i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << help();
      return 0;
    }
    if (a == "--json") {
      out.json = true;
    } else if (a == "--skip-bad") {
      out.skipBad = true;
    } else if (a == "--format") {
      if (i + 1 >= args.size()) return usageError("--format needs a value: " + formatNames(", "));
      out.format = args[++i];
    } else if (a.rfind("--format=", 0) == 0) {
      out.format = a.substr(9);
    } else if (doc && a == "--paragraphs") {
      if (i + 1 >= args.size()) return usageError("--paragraphs needs a range A-B (or A)");
      out.paragraphs = args[++i];
    } else if (doc && a.rfind("--paragraphs=", 0) == 0) {
      out.paragraphs = a.substr(13);
    } else if (a == "--") {
      out.positional.insert(out.positional.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "'");
    } else {
      out.positional.push_back(a);
    }
  }
  return std::nullopt;
}

// Loads `paths` as one dataset, with a live percentage on a terminal. An exit code when the
// arguments are wrong.
std::optional<int> loadPaths(const std::vector<std::string>& paths, const LoadArgs& a, Loaded<Dataset>& loaded) {
  if (paths.empty()) return usageError("no PATH given");
  std::optional<Format> format;
  if (a.format) {
    format = formatFromName(*a.format);
    if (!format) return usageError("unknown format '" + *a.format + "'; known formats: " + formatNames(", "));
  }
  std::vector<DatasetPart> parts;
  for (const auto& p : paths) {
    DatasetPart part{p, format};
    // Say so up front when we cannot tell a file's format, rather than as one more diagnostic
    // (a special file or CR-only line ends are the loader's to name: the format is not the issue).
    if (!format && std::filesystem::is_regular_file(p) && !specialFileProblem(p) && !checkLineEnds(p) &&
        !detectFormat(p))
      return usageError("cannot tell the format of '" + p + "'; give it with --format, one of: " + formatNames(", "));
    parts.push_back(std::move(part));
  }

  LoadOptions options;
  options.onError = a.skipBad ? OnError::Skip : OnError::Stop;
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
  loaded = loadDataset(parts, options);
  if (tty && shown >= 0) std::cerr << "\r               \r" << std::flush;
  return std::nullopt;
}

int infoCommand(const Args& args) {
  LoadArgs a;
  if (auto exit = parseLoadArgs(args, false, a)) return *exit;
  Loaded<Dataset> loaded;
  if (auto exit = loadPaths(a.positional, a, loaded)) return *exit;
  if (a.json)
    printJson(loaded.value, loaded.report);
  else
    printText(loaded.value, loaded.report);
  return loaded.report.hasErrors() || !loaded.report.ok() ? 2 : 0;
}

// "3-7" -> {3, 7}; "4" -> {4, 4}; nullopt when not a range of non-negative integers A <= B.
std::optional<std::pair<std::size_t, std::size_t>> parseRange(const std::string& text) {
  const auto dash = text.find('-');
  auto number = [](const std::string& s) -> std::optional<std::size_t> {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return static_cast<std::size_t>(std::stoul(s));
  };
  const auto a = number(text.substr(0, dash));
  const auto b = dash == std::string::npos ? a : number(text.substr(dash + 1));
  if (!a || !b || *a > *b) return std::nullopt;
  return std::make_pair(*a, *b);
}

int docCommand(const Args& args) {
  LoadArgs a;
  if (auto exit = parseLoadArgs(args, true, a)) return *exit;
  if (a.positional.size() < 2) return usageError("doc needs PATH... and the document ID");
  const std::string id = a.positional.back();
  a.positional.pop_back();
  std::optional<std::pair<std::size_t, std::size_t>> range;
  if (a.paragraphs) {
    range = parseRange(*a.paragraphs);
    if (!range) return usageError("--paragraphs takes A-B or A (numbers from 0, A <= B), not '" + *a.paragraphs + "'");
  }
  Loaded<Dataset> loaded;
  if (auto exit = loadPaths(a.positional, a, loaded)) return *exit;
  if (loaded.report.hasErrors() || !loaded.report.ok()) {
    for (const auto& diag : loaded.report.diagnostics)
      if (diag.severity == Severity::Error) std::cerr << diag.toString() << "\n";
    std::cerr << "ragscope-cli dataset doc: the dataset did not load cleanly (see 'dataset info')\n";
    return 2;
  }
  const auto doc = loaded.value.corpus.find(id);
  if (!doc) {
    std::cerr << "ragscope-cli dataset doc: no document '" << id << "' in the corpus (" << loaded.value.corpus.size()
              << " documents)\n";
    return 1;
  }
  const std::size_t count = doc->paragraphCount();
  std::string error;
  std::optional<std::string> text;
  if (range) {
    text = doc->paragraphRange(range->first, range->second, error);
    if (!text) {
      std::cerr << "ragscope-cli dataset doc: " << id << ": " << error << "\n";
      return 1;
    }
  } else {
    text = doc->fullText();
  }
  const std::size_t first = range ? range->first : 0;
  const std::size_t last = range ? range->second : (count == 0 ? 0 : count - 1);
  if (a.json) {
    nlohmann::json out{{"id", doc->id}, {"title", doc->title}, {"paragraph_count", count}};
    if (count > 0) {
      out["first"] = first;
      out["last"] = last;
      nlohmann::json list = nlohmann::json::array();
      for (std::size_t p = first; p <= last; ++p) {
        std::string one;
        if (auto t = doc->paragraphRange(p, p, one)) list.push_back(std::move(*t));
      }
      out["paragraphs"] = std::move(list);
    }
    out["text"] = *text;
    exporting::writeJson(std::cout, out, 2);
    return 0;
  }
  std::cout << "id: " << doc->id << "\n"
            << "title: " << doc->title << "\n"
            << "paragraphs: " << count;
  if (range) std::cout << " (printing " << first << "-" << last << ")";
  std::cout << "\n\n" << *text << "\n";
  return 0;
}

}  // namespace

int datasetCommand(const Args& args) {
  // args[0] == "dataset"
  if (args.size() < 2) return usageError("missing subcommand (expected 'info' or 'doc')");
  if (args[1] == "--help" || args[1] == "-h") {
    std::cout << help();
    return 0;
  }
  if (args[1] == "info") return infoCommand(args);
  if (args[1] == "doc") return docCommand(args);
  return usageError("unknown subcommand '" + args[1] + "' (expected 'info' or 'doc')");
}

}  // namespace ragscope::cli
