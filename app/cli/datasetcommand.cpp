// ragscope-cli dataset info: load files/folders as one dataset and print what came in and what
// went wrong, as text or one JSON object. ragscope-cli dataset doc: print one document of it.

#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "core/data/dataset.h"
#include "core/data/linereader.h"
#include "core/data/textfile.h"
#include "core/export/datasetsummary.h"
#include "core/export/json.h"
#include "core/util/inputfile.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kInfoIntro =
    R"(Load one or more files or folders as one dataset and print its counts (queries, queries with gold
outputs and with gold documents, documents, judgments per grade, runs, examples) followed by
every diagnostic as "file:line: field: problem".

A folder is loaded as a unit when it is BEIR (corpus.jsonl + queries.jsonl) or Docugami
(qna_data.csv + docs/); any other folder is a bundle whose recognised files are each loaded
(e.g. an MS MARCO / TREC DL folder with topics/, qrels/, runs/). PATH - reads standard input
(with --format). Devices, FIFOs and anything under /proc, /sys or /dev are never read (in a
bundle they are named and skipped), nor files with CR-only line ends; with --skip-bad a file
stops after 1000 errors.
)";

constexpr const char* kInfoEpilogue =
    R"(Exit codes: 0 loaded without errors (warnings allowed), 2 usage or input errors (also when bad
records were skipped with --skip-bad).
)";

constexpr const char* kDocIntro =
    R"(Load the dataset as `dataset info` does and print the document ID: its id, title, paragraph count
and text. A KILT page's paragraphs are the elements of its "text" array, numbered from 0 as KILT
provenance counts them (start_paragraph_id, end_paragraph_id); any other document's are its
lines. Big corpora (a KILT knowledge source or BEIR corpus.jsonl of 64 MiB or more) are read
through their side index (FILE.ragscope-docs, written on the first open, or in the cache folder
when the file's folder is read-only), so only the one record is read. That record is checked
against the side index (a whole line whose id, title and text are where it says); a side index
that proves wrong is refused (a note on stderr) and rebuilt, then the document is read again.
)";

constexpr const char* kDocEpilogue =
    R"(Exit codes: 0 printed, 1 no document with that id (or the range is not in it), 2 usage or input
errors, or the text could not be read (the file changed since it was loaded).
)";

std::string formatNames(std::string_view sep) {
  std::string out;
  for (const auto f : allFormats()) {
    if (!out.empty()) out += sep;
    out += formatName(f);
  }
  return out;
}

// The options info and doc share; `positional` receives the other arguments.
struct LoadArgs {
  std::vector<std::string> positional;
  std::optional<std::string> format;
  bool json = false;
  bool skipBad = false;
  std::optional<std::string> paragraphs;  // doc only
};

// The command line of `dataset info` or (doc) `dataset doc`.
void declare(CommandLine& cli, LoadArgs& a, bool doc) {
  if (doc) {
    cli.synopsis("PATH... ID [--paragraphs A-B] [--json] [--format F] [--skip-bad]");
    cli.intro(kDocIntro);
    cli.epilogue(kDocEpilogue);
    cli.positionals("PATH... ID", a.positional);
    cli.positionalRoles({{PathRole::Input, "PATH"}});  // ID too: never written, harmless
    cli.text("--paragraphs", "A-B", a.paragraphs,
             "print paragraphs A to B only (inclusive, from 0; or A alone), joined by newlines");
  } else {
    cli.synopsis("PATH... [--format F] [--json] [--skip-bad]");
    cli.intro(kInfoIntro);
    cli.epilogue(kInfoEpilogue);
    cli.positionals("PATH...", a.positional);
    cli.positionalRoles({{PathRole::Input, "PATH"}});
  }
  // A string, not a choice: an unknown name is answered with every known one (loadPaths).
  cli.text("--format", "F", a.format,
           "format of every PATH (default: detected from names and first bytes); one of: " +
               formatNames(", ") +
               ". With a bundle folder, only its files of format F are loaded.");
  cli.flag("--json", a.json,
           doc ? "print {\"id\", \"title\", \"paragraph_count\", \"first\", \"last\", "
                 "\"paragraphs\": [...], \"text\"} instead of text"
               : "print one JSON object instead of text");
  cli.flag("--skip-bad", a.skipBad,
           "skip bad records and go on (default: stop at the first error)");
}

// Loads `paths` as one dataset, with a live percentage on a terminal. An exit code when the
// arguments are wrong.
std::optional<int> loadPaths(const CommandLine& cli, const std::vector<std::string>& paths,
                             const LoadArgs& a, Loaded<Dataset>& loaded) {
  if (paths.empty()) return cli.usageError("no PATH given");
  std::optional<Format> format;
  if (a.format) {
    format = formatFromName(*a.format);
    if (!format)
      return cli.usageError("unknown format '" + *a.format +
                            "'; known formats: " + formatNames(", "));
  }
  std::vector<DatasetPart> parts;
  for (const auto& p : paths) {
    DatasetPart part{p, format};
    // Say so up front when we cannot tell a file's format, rather than as one more diagnostic
    // (a special file or CR-only line ends are the loader's to name: the format is not the issue).
    if (!format && std::filesystem::is_regular_file(p) && !specialFileProblem(p) &&
        !checkLineEnds(p) && !detectFormat(p))
      return cli.usageError("cannot tell the format of '" + p +
                            "'; give it with --format, one of: " + formatNames(", "));
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
  CommandLine cli("dataset info");
  declare(cli, a, false);
  if (auto exit = cli.parse(args, 2)) return *exit;
  Loaded<Dataset> loaded;
  if (auto exit = loadPaths(cli, a.positional, a, loaded)) return *exit;
  if (a.json)
    exporting::writeDatasetSummaryJson(std::cout, loaded.value, loaded.report);
  else
    exporting::writeDatasetSummaryText(std::cout, loaded.value, loaded.report);
  return loaded.report.hasErrors() || !loaded.report.ok() ? 2 : 0;
}

// "3-7" -> {3, 7}; "4" -> {4, 4}; nullopt when not a range of non-negative integers A <= B.
std::optional<std::pair<std::size_t, std::size_t>> parseRange(const std::string& text) {
  const auto dash = text.find('-');
  auto number = [](const std::string& s) -> std::optional<std::size_t> {
    std::uint64_t v = 0;
    if (s.size() > 9 || !parseUnsigned(s, v)) return std::nullopt;
    return static_cast<std::size_t>(v);
  };
  const auto a = number(text.substr(0, dash));
  const auto b = dash == std::string::npos ? a : number(text.substr(dash + 1));
  if (!a || !b || *a > *b) return std::nullopt;
  return std::make_pair(*a, *b);
}

int docCommand(const Args& args) {
  LoadArgs a;
  CommandLine cli("dataset doc");
  declare(cli, a, true);
  if (auto exit = cli.parse(args, 2)) return *exit;
  if (a.positional.size() < 2) return cli.usageError("doc needs PATH... and the document ID");
  const std::string id = a.positional.back();
  a.positional.pop_back();
  std::optional<std::pair<std::size_t, std::size_t>> range;
  if (a.paragraphs) {
    range = parseRange(*a.paragraphs);
    if (!range)
      return cli.usageError("--paragraphs takes A-B or A (numbers from 0, A <= B), not '" +
                            *a.paragraphs + "'");
  }
  // A side index that proves wrong when the document is read (recordcheck.h) is refused and the
  // dataset loaded once more, which rebuilds it: the text printed is always the record's own.
  Loaded<Dataset> loaded;
  std::optional<Document> doc;
  std::optional<std::string> text;
  std::size_t count = 0;
  for (int attempt = 0;; ++attempt) {
    loaded = {};
    if (auto exit = loadPaths(cli, a.positional, a, loaded)) return *exit;
    if (loaded.report.hasErrors() || !loaded.report.ok()) {
      for (const auto& diag : loaded.report.diagnostics)
        if (diag.severity == Severity::Error) std::cerr << diag.toString() << "\n";
      std::cerr
          << "ragscope-cli dataset doc: the dataset did not load cleanly (see 'dataset info')\n";
      return 2;
    }
    doc = loaded.value.corpus.find(id);
    if (!doc) {
      std::cerr << "ragscope-cli dataset doc: no document '" << id << "' in the corpus ("
                << loaded.value.corpus.size() << " documents)\n";
      return 1;
    }
    count = doc->paragraphCount();
    std::string error;
    if (range && range->second >= count) {
      (void)doc->paragraphRange(range->first, range->second, error);
      std::cerr << "ragscope-cli dataset doc: " << id << ": " << error << "\n";
      return 1;
    }
    if (range)
      text = doc->paragraphRange(range->first, range->second, error);
    else
      text = doc->stored.file ? readStoredText(doc->stored, error) : std::optional(doc->text);
    if (text) break;
    std::cerr << "ragscope-cli dataset doc: " << id << ": " << error << "\n";
    const DocIndex* index = doc->stored.file ? doc->stored.file->index() : nullptr;
    if (attempt > 0 || !index || !index->refuted()) return 2;
    std::cerr << "ragscope-cli dataset doc: loading the dataset again, with a new side index\n";
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
        auto t = doc->paragraphRange(p, p, one);
        if (!t) {  // the file changed since the text was read
          std::cerr << "ragscope-cli dataset doc: " << id << ": " << one << "\n";
          return 2;
        }
        list.push_back(std::move(*t));
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
  auto usageError = [](const std::string& message) {
    std::cerr << "ragscope-cli dataset: " << message << "\n"
              << "Run 'ragscope-cli dataset --help' for usage.\n";
    return 2;
  };
  if (args.size() < 2) return usageError("missing subcommand (expected 'info' or 'doc')");
  if (args[1] == "--help" || args[1] == "-h") {
    LoadArgs unused;
    CommandLine info("dataset info"), doc("dataset doc");
    declare(info, unused, false);
    declare(doc, unused, true);
    std::cout << info.help() << '\n' << doc.help();
    return 0;
  }
  if (args[1] == "info") return infoCommand(args);
  if (args[1] == "doc") return docCommand(args);
  return usageError("unknown subcommand '" + args[1] + "' (expected 'info' or 'doc')");
}

}  // namespace ragscope::cli
