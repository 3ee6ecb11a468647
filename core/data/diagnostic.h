#pragma once
// Diagnostics and options shared by every loader: problems are recorded with their place
// (`file:line: field: problem`), never swallowed, and the caller chooses to skip or stop.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ragscope::core {

enum class Severity { Warning, Error };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;        // path as given by the user
  std::uint64_t line = 0;  // 1-based; 0 when the problem concerns the whole file
  std::string field;       // "rel", "output[0].answer", "record", ...
  std::string problem;     // human sentence, no trailing period

  // "file:line: field: problem" (line omitted when 0, field when empty).
  std::string toString() const;
};

enum class OnError { Stop, Skip };

// Reports bytes done / bytes total (total 0 when unknown). Return false to cancel the load.
using ProgressFn = std::function<bool(std::uint64_t done, std::uint64_t total)>;

// 64 MiB, or the byte count in the environment variable RAGSCOPE_TEXT_IN_FILE_FROM (a machine
// short of memory lowers it; tests set 1 to read small files the way big ones are read).
std::uint64_t defaultTextInFileFrom();

struct LoadOptions {
  OnError onError = OnError::Stop;
  // A line or record longer than this is an error: we never buffer unbounded input.
  std::size_t maxLineBytes = std::size_t{64} << 20;
  // JSON deeper than this is rejected before parsing (guards the stack on hostile input).
  int maxJsonDepth = 256;
  // Diagnostics beyond this many are counted but not stored.
  std::size_t maxStoredDiagnostics = 10000;
  // Under OnError::Skip a file with this many errors is not read further ("too many errors"):
  // a file of garbage (a binary, the wrong format) ends soon instead of producing millions of
  // diagnostics. 0: no limit.
  std::size_t maxErrors = 1000;
  ProgressFn progress;
  // Docugami and other PDF corpora: chunking of page text (characters).
  std::size_t chunkSize = 1500;
  std::size_t chunkOverlap = 200;
  // A corpus file (MS MARCO TSV, KILT knowledge source, BEIR corpus.jsonl) at least this big
  // leaves its documents' text in the file, read when a view, a prompt or an index needs it:
  // memory then holds ids and offsets (JSON corpora: nothing, see the side index).
  std::uint64_t textInFileFrom = defaultTextInFileFrom();
};

struct LoadReport {
  std::vector<Diagnostic> diagnostics;
  std::uint64_t records = 0;  // records loaded
  std::uint64_t skipped = 0;  // bad records skipped (OnError::Skip)
  std::uint64_t warnings = 0;
  std::uint64_t errors = 0;
  std::uint64_t unstoredDiagnostics = 0;  // over maxStoredDiagnostics, or over kStoredPerKind
  // Diagnostics of one kind (severity and field) past this many are counted, not stored: a 1 GB
  // file with the same problem on every line must not hold a string per line.
  static constexpr std::size_t kStoredPerKind = 100;
  std::map<std::pair<int, std::string>, std::size_t> storedPerKind;
  bool stopped = false;    // stopped at the first error (OnError::Stop)
  bool cancelled = false;  // progress callback asked to stop

  bool ok() const { return !stopped && !cancelled; }
  bool hasErrors() const { return errors > 0; }

  void add(Diagnostic d, std::size_t maxStored);
  void merge(const LoadReport& other, std::size_t maxStored);

  // After an error skipped under OnError::Skip: true once the report holds options.maxErrors
  // errors, after adding "too many errors (N); stopped reading this file" about `file` (at
  // `line`) and setting `stopped`. The loader then stops reading the file.
  bool tooManyErrors(const LoadOptions& options, const std::string& file, std::uint64_t line);
};

template <class T>
struct Loaded {
  T value;
  LoadReport report;
};

}  // namespace ragscope::core
