#pragma once
// Streaming line reader for the text formats: fixed-size buffer, UTF-8 BOM skipped, CRLF and a
// missing final newline handled, and a hard cap on line length so a hostile file cannot make us
// buffer hundreds of MB. Lines are returned as views valid until the next call.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

class LineReader {
 public:
  enum class Status { Line, End, TooLong, IoError };

  explicit LineReader(const std::filesystem::path& path, std::size_t maxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  bool isOpen() const { return m_file != nullptr; }
  std::string openError() const { return m_openError; }

  // Next line without its terminator ("\n" or "\r\n"). On TooLong the rest of the line is
  // skipped, lineNumber() names it, and reading may continue with the next line.
  Status next(std::string_view& line);

  std::uint64_t lineNumber() const { return m_lineNumber; }
  std::uint64_t bytesRead() const { return m_consumed; }
  std::uint64_t fileSize() const { return m_fileSize; }

 private:
  bool refill();

  std::FILE* m_file = nullptr;
  std::string m_openError;
  std::vector<char> m_buf;
  std::size_t m_begin = 0;
  std::size_t m_end = 0;
  std::size_t m_maxLine;
  std::uint64_t m_lineNumber = 0;
  std::uint64_t m_consumed = 0;
  std::uint64_t m_fileSize = 0;
  bool m_eof = false;
  bool m_first = true;
};

// Split on runs of spaces/tabs (TREC files allow either).
void splitWhitespace(std::string_view line, std::vector<std::string_view>& out);
std::string_view trim(std::string_view s);

}  // namespace ragscope::core
