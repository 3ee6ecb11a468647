#include "core/data/linereader.h"

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/util/inputfile.h"

namespace ragscope::core {

namespace {
constexpr std::size_t kMinBuffer = std::size_t{1} << 20;
// How much of a file's start is looked at for CR-only line ends.
constexpr std::size_t kLineEndSniff = std::size_t{64} << 10;
}  // namespace

bool looksCrOnly(std::string_view head) {
  if (head.find('\n') != std::string_view::npos) return false;
  const auto cr = head.find('\r');
  // A CR that ends the text may be the first half of a CRLF cut by the sniff window.
  return cr != std::string_view::npos && cr + 1 < head.size();
}

std::string crOnlyProblem(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return "file uses CR-only line ends (classic Mac); convert them to LF first, e.g. tr '\\r' "
         "'\\n' < '" +
         name + "' > '" + name + ".txt'";
}

std::optional<std::string> checkLineEnds(const std::filesystem::path& path) {
  if (isStdinPath(path)) return std::nullopt;  // reading it here would consume it
  std::string error;
  std::uint64_t size = 0;
  std::FILE* file = openForReading(path, error, size);
  if (!file) return std::nullopt;
  std::string head(kLineEndSniff, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), file));
  std::fclose(file);
  if (looksCrOnly(head)) return crOnlyProblem(path);
  return std::nullopt;
}

LineReader::LineReader(const std::filesystem::path& path, std::size_t maxLineBytes)
    : m_maxLine(maxLineBytes) {
  m_file = openForReading(path, m_openError, m_fileSize);
  if (!m_file) return;
  // Starts small and grows (up to one maximal line) only when a long line needs it. A smaller
  // file gets a buffer of its size: zero-filling 1 MiB costs a small `eval` a third of its time
  // (every page touched is a page fault).
  const std::size_t first = m_fileSize > 0 && m_fileSize < kMinBuffer
                                ? static_cast<std::size_t>(m_fileSize) + 1
                                : kMinBuffer;
  m_buf.resize(std::min(first, maxLineBytes + 2));
  // The first block tells CR-only line ends apart: refused, since every line would run into one.
  refill();
  if (!std::ferror(m_file) &&
      looksCrOnly(
          std::string_view(m_buf.data() + m_begin, std::min(m_end - m_begin, kLineEndSniff)))) {
    m_openError = crOnlyProblem(path);
    std::fclose(m_file);
    m_file = nullptr;
  }
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
        static_cast<unsigned char>(m_buf[1]) == 0xBB &&
        static_cast<unsigned char>(m_buf[2]) == 0xBF) {
      m_begin = 3;
      m_consumed += 3;
    }
  }
  m_end += n;
  return true;
}

bool LineReader::discardLine() {
  for (;;) {
    const void* nl = std::memchr(m_buf.data() + m_begin, '\n', m_end - m_begin);
    if (nl) {
      const std::size_t pos = static_cast<const char*>(nl) - m_buf.data();
      m_consumed += pos + 1 - m_begin;
      m_begin = pos + 1;
      return true;
    }
    m_consumed += m_end - m_begin;
    m_begin = m_end = 0;
    if (!refill()) return false;
  }
}

LineReader::Status LineReader::next(std::string_view& line) {
  if (!m_file) return Status::IoError;
  if (m_discarding) {
    m_discarding = false;
    if (!discardLine()) return std::ferror(m_file) ? Status::IoError : Status::End;
  }
  std::size_t scanFrom = m_begin;
  for (;;) {
    const char* start = m_buf.data() + scanFrom;
    const void* nl = std::memchr(start, '\n', m_end - scanFrom);
    if (nl) {
      std::size_t pos = static_cast<const char*>(nl) - m_buf.data();
      std::size_t len = pos - m_begin;
      ++m_lineNumber;
      m_lineOffset = m_consumed;
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
      // The over-long line is skipped to its end by the next call, never buffered.
      ++m_lineNumber;
      m_discarding = true;
      return Status::TooLong;
    }
    std::size_t scanned = m_end - m_begin;
    if (!refill()) {
      if (std::ferror(m_file)) return Status::IoError;
      if (m_end > m_begin) {  // last line without a newline
        ++m_lineNumber;
        std::size_t len = m_end - m_begin;
        m_lineOffset = m_consumed;
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
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
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
  return report.tooManyErrors(options, file, at);
}

}  // namespace ragscope::core
