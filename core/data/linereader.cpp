#include "core/data/linereader.h"
#include "core/data/inputfile.h"

#include <cerrno>
#include <cstring>
#include <system_error>

namespace ragscope::core {

namespace {
constexpr std::size_t kMinBuffer = std::size_t{1} << 20;
}

LineReader::LineReader(const std::filesystem::path& path, std::size_t maxLineBytes)
    : m_maxLine(maxLineBytes) {
  m_file = openForReading(path, m_openError, m_fileSize);
  if (!m_file) return;
  // Starts small and grows (up to one maximal line) only when a long line needs it.
  m_buf.resize(std::min(kMinBuffer, maxLineBytes + 2));
}

LineReader::~LineReader() {
  if (m_file) std::fclose(m_file);
}

bool LineReader::refill() {
  if (m_eof) return false;
  if (m_begin > 0) {
    std::memmove(m_buf.data(), m_buf.data() + m_begin, m_end - m_begin);
    m_end -= m_begin;
    m_begin = 0;
  }
  if (m_end == m_buf.size()) {
    if (m_buf.size() >= m_maxLine + 2) return false;  // full: the caller skips the long line
    m_buf.resize(std::min(m_buf.size() * 2, m_maxLine + 2));
  }
  std::size_t n = std::fread(m_buf.data() + m_end, 1, m_buf.size() - m_end, m_file);
  if (n == 0) {
    m_eof = true;
    return false;
  }
  if (m_first) {
    m_first = false;
    if (m_end == 0 && n >= 3 && static_cast<unsigned char>(m_buf[0]) == 0xEF &&
        static_cast<unsigned char>(m_buf[1]) == 0xBB && static_cast<unsigned char>(m_buf[2]) == 0xBF) {
      m_begin = 3;
      m_consumed += 3;
    }
  }
  m_end += n;
  return true;
}

LineReader::Status LineReader::next(std::string_view& line) {
  if (!m_file) return Status::IoError;
  std::size_t scanFrom = m_begin;
  for (;;) {
    const char* start = m_buf.data() + scanFrom;
    const void* nl = std::memchr(start, '\n', m_end - scanFrom);
    if (nl) {
      std::size_t pos = static_cast<const char*>(nl) - m_buf.data();
      std::size_t len = pos - m_begin;
      ++m_lineNumber;
      m_consumed += len + 1;
      if (len > m_maxLine) {
        m_begin = pos + 1;
        return Status::TooLong;
      }
      line = std::string_view(m_buf.data() + m_begin, len);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      m_begin = pos + 1;
      return Status::Line;
    }
    std::size_t pending = m_end - m_begin;
    if (pending > m_maxLine) {
      // Discard the over-long line up to its end without buffering it.
      ++m_lineNumber;
      for (;;) {
        m_consumed += m_end - m_begin;
        m_begin = m_end = 0;
        if (!refill()) return std::ferror(m_file) ? Status::IoError : Status::TooLong;
        const void* nl2 = std::memchr(m_buf.data(), '\n', m_end);
        if (nl2) {
          std::size_t pos = static_cast<const char*>(nl2) - m_buf.data();
          m_consumed += pos + 1;
          m_begin = pos + 1;
          return Status::TooLong;
        }
      }
    }
    std::size_t scanned = m_end - m_begin;
    if (!refill()) {
      if (std::ferror(m_file)) return Status::IoError;
      if (m_end > m_begin) {  // last line without a newline
        ++m_lineNumber;
        std::size_t len = m_end - m_begin;
        m_consumed += len;
        line = std::string_view(m_buf.data() + m_begin, len);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        m_begin = m_end;
        return Status::Line;
      }
      return Status::End;
    }
    scanFrom = m_begin + scanned;
  }
}

void splitWhitespace(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0, n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= n) break;
    std::size_t j = i;
    while (j < n && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    out.push_back(line.substr(i, j - i));
    i = j;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

bool recordLineError(LoadReport& report, const LoadOptions& options, const std::string& file,
                     std::uint64_t at, const char* field, std::string problem) {
  report.add({Severity::Error, file, at, field, std::move(problem)}, options.maxStoredDiagnostics);
  if (options.onError == OnError::Stop) {
    report.stopped = true;
    return true;
  }
  ++report.skipped;
  return false;
}

}  // namespace ragscope::core
