#pragma once
// Streaming line reader for the text formats: fixed-size buffer, UTF-8 BOM skipped, CRLF and a
// missing final newline handled, and a hard cap on line length so a hostile file cannot make us
// buffer hundreds of MB. Lines are returned as views valid until the next call. A file that is
// not a regular file, or whose line ends are CR alone (classic Mac: the whole file would read as
// one line), does not open: openError() says why.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"

namespace ragscope::core {

class LineReader {
 public:
  enum class Status { Line, End, TooLong, IoError };

  explicit LineReader(const std::filesystem::path& path, std::size_t maxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  bool isOpen() const { return m_file != nullptr; }
  // Why the file did not open, as a whole sentence ("cannot open: No such file or directory",
  // "is not a regular file (a FIFO (named pipe)); ...", "file uses CR-only line ends ...").
  std::string openError() const { return m_openError; }

  // Next line without its terminator ("\n" or "\r\n"). On TooLong lineNumber() names the line,
  // which is skipped to its end by the next call (so a caller that stops there reads no further),
  // and reading may continue with the next line.
  Status next(std::string_view& line);

  std::uint64_t lineNumber() const { return m_lineNumber; }
  // The file offset of the first byte of the line next() returned last.
  std::uint64_t lineOffset() const { return m_lineOffset; }
  std::uint64_t bytesRead() const { return m_consumed; }
  std::uint64_t fileSize() const { return m_fileSize; }

 private:
  bool refill();
  // Skips the rest of an over-long line; false at the end of the file or on a read error.
  bool discardLine();

  std::FILE* m_file = nullptr;
  std::string m_openError;
  std::vector<char> m_buf;
  std::size_t m_begin = 0;
  std::size_t m_end = 0;
  std::size_t m_maxLine;
  std::uint64_t m_lineNumber = 0;
  std::uint64_t m_consumed = 0;
  std::uint64_t m_lineOffset = 0;
  std::uint64_t m_fileSize = 0;
  bool m_eof = false;
  bool m_first = true;
  bool m_discarding = false;  // the rest of an over-long line is still to be skipped
};

// CR-only line ends (classic Mac OS): `head`, the first bytes of a file, holds a CR followed by
// more text and no LF at all. Such a file would be read as one long line.
bool looksCrOnly(std::string_view head);
// The problem sentence for such a file, naming a command that converts it.
std::string crOnlyProblem(const std::filesystem::path& path);
// Reads the first 64 KiB of a regular file and returns crOnlyProblem() when they look CR-only.
std::optional<std::string> checkLineEnds(const std::filesystem::path& path);

// Records an error about line `at` of a line-based loader's file. Returns true when the load stops
// there (OnError::Stop, or options.maxErrors reached); with Skip the line counts as skipped and
// the caller goes on.
bool recordLineError(LoadReport& report, const LoadOptions& options, const std::string& file,
                     std::uint64_t at, const char* field, std::string problem);

// The read loop of the whitespace-field loaders (qrels, `trec_eval -q` files), so they report
// files alike: the file not opening (LineReader::openError()) and a read error stop the load, a
// line over options.maxLineBytes is a "line" error, progress is called every 4 MiB (false
// cancels). Every other line goes to `onLine(at, line)` (`at` 1-based), which returns false to
// stop.
template <class OnLine>
void readLoaderLines(const std::filesystem::path& path, const LoadOptions& options,
                     LoadReport& report, OnLine&& onLine) {
  constexpr std::uint64_t kProgressStep = std::uint64_t{4} << 20;
  const std::string file = path.string();
  LineReader reader(path, options.maxLineBytes);
  if (!reader.isOpen()) {
    report.add({Severity::Error, file, 0, "", reader.openError()}, options.maxStoredDiagnostics);
    report.stopped = true;
    return;
  }
  std::string_view line;
  std::uint64_t nextProgress = kProgressStep;
  for (;;) {
    const auto status = reader.next(line);
    if (status == LineReader::Status::End) return;
    if (status == LineReader::Status::IoError) {
      report.add({Severity::Error, file, reader.lineNumber(), "", "read error"},
                 options.maxStoredDiagnostics);
      report.stopped = true;
      return;
    }
    const std::uint64_t at = reader.lineNumber();
    if (options.progress && reader.bytesRead() >= nextProgress) {
      nextProgress = reader.bytesRead() + kProgressStep;
      if (!options.progress(reader.bytesRead(), reader.fileSize())) {
        report.cancelled = true;
        return;
      }
    }
    if (status == LineReader::Status::TooLong) {
      if (recordLineError(report, options, file, at, "line",
                          "longer than " + std::to_string(options.maxLineBytes) + " bytes"))
        return;
      continue;
    }
    if (!onLine(at, line)) return;
  }
}

// Split on runs of spaces/tabs (TREC files allow either).
void splitWhitespace(std::string_view line, std::vector<std::string_view>& out);
std::string_view trim(std::string_view s);

}  // namespace ragscope::core
