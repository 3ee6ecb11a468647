#pragma once
// Streaming RFC 4180 CSV record reader. Quoted fields may hold separators, doubled quotes and
// newlines (Docugami's answers span dozens of lines), so records are not lines: each record is
// reported with the line on which it began. The file is read through a fixed buffer; a record
// longer than the cap is skipped without being buffered, so a hostile file cannot exhaust memory.
//
//   CsvReader csv(path, options.maxLineBytes);
//   std::vector<std::string> header, fields;
//   if (csv.readHeader(header) != CsvReader::Status::Record) { ... csv.error() ... }
//   while (true) {
//     auto st = csv.next(fields);
//     if (st == CsvReader::Status::End) break;
//     if (st == CsvReader::Status::Error) { report csv.error(); if (!csv.canContinue()) break;
//     continue; } use(fields, csv.recordLine());
//   }

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

struct CsvError {
  std::uint64_t line = 0;  // the line on which the offending record began
  std::string field;       // "record", or a column name when one field is at fault
  std::string problem;
};

class CsvReader {
 public:
  enum class Status { Record, End, Error };

  CsvReader(const std::filesystem::path& path, std::size_t maxRecordBytes, char separator = ',');
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  bool isOpen() const { return m_file != nullptr; }
  std::string openError() const { return m_openError; }

  // Reads the first record as the header (BOM already stripped) and from then on requires every
  // record to have as many fields; a mismatch is an Error naming the expected columns. A header
  // naming one column twice is an Error (fatal: field = the name, problem names both columns),
  // for every CSV input: which of the two a reader kept would decide its figures silently.
  Status readHeader(std::vector<std::string>& names);

  // Next record. Blank lines between records are skipped (they are not records). On Error the
  // offending record has been consumed to its end, so reading can go on with the next one unless
  // canContinue() is false (unterminated quote at end of file, read error).
  Status next(std::vector<std::string>& fields);

  const CsvError& error() const { return m_error; }
  bool canContinue() const { return !m_fatal; }

  std::uint64_t recordLine() const { return m_recordLine; }
  std::uint64_t bytesRead() const { return m_consumed; }
  std::uint64_t fileSize() const { return m_fileSize; }
  const std::vector<std::string>& header() const { return m_header; }

 private:
  int get();  // next byte or -1 at end (or on a read error, see m_ioError)
  int peek();
  bool refill();
  Status fail(std::string field, std::string problem, bool fatal);

  std::FILE* m_file = nullptr;
  std::string m_openError;
  std::vector<char> m_buf;
  std::size_t m_pos = 0;
  std::size_t m_end = 0;
  bool m_eof = false;
  bool m_ioError = false;
  bool m_first = true;
  bool m_fatal = false;
  char m_sep;
  std::size_t m_maxRecord;
  std::uint64_t m_line = 1;  // line of the next unread byte
  std::uint64_t m_recordLine = 0;
  std::uint64_t m_consumed = 0;
  std::uint64_t m_fileSize = 0;
  std::vector<std::string> m_header;
  std::size_t m_expectedFields = 0;  // 0 until a header is read
  CsvError m_error;
};

}  // namespace ragscope::core
