#include "core/data/jsonguard.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <system_error>

#include "core/util/inputfile.h"

namespace ragscope::core {

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;

bool isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string printable(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", u);
  return buf;
}

}  // namespace

std::optional<std::size_t> jsonDepthExceededAt(std::string_view text, int maxDepth) {
  JsonNesting nesting;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (nesting.feed(text[i]) > maxDepth) return i;
  return std::nullopt;
}

std::optional<std::string> checkJsonDepth(std::string_view text, int maxDepth) {
  if (const auto at = jsonDepthExceededAt(text, maxDepth))
    return "JSON nested deeper than " + std::to_string(maxDepth) + " levels (at byte " +
           std::to_string(*at + 1) + ")";
  return std::nullopt;
}

std::optional<std::string> jsonIdToString(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_unsigned()) return std::to_string(value.get<std::uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  return std::nullopt;
}

JsonErrorPlace describeJsonParseError(std::string_view text, std::uint64_t firstLine,
                                      std::size_t byte, std::string_view what,
                                      std::uint64_t firstColumn) {
  JsonErrorPlace place;
  if (byte == 0) {
    // "[json.exception.out_of_range.406] number overflow parsing '1e400'": find the token.
    const std::string_view marker = "parsing '";
    if (const auto at = what.find(marker); at != std::string_view::npos) {
      const auto start = at + marker.size();
      const auto end = what.find('\'', start);
      const std::string_view token =
          what.substr(start, end == std::string_view::npos ? end : end - start);
      if (const auto pos = token.empty() ? std::string_view::npos : text.find(token);
          pos != std::string_view::npos)
        byte = pos + 1;
    }
  }
  const std::size_t upto = std::min(byte > 0 ? byte - 1 : 0, text.size());
  std::size_t lineStart = 0;
  place.line = firstLine;
  for (std::size_t i = 0; i < upto; ++i)
    if (text[i] == '\n') {
      ++place.line;
      lineStart = i + 1;
    }
  // nlohmann: "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
  std::string_view msg = what;
  if (auto col = msg.find("column "); col != std::string_view::npos) {
    if (auto colon = msg.find(": ", col); colon != std::string_view::npos)
      msg.remove_prefix(colon + 2);
  } else if (auto bracket = msg.find("] "); bracket != std::string_view::npos) {
    msg.remove_prefix(bracket + 2);
  }
  const std::uint64_t column =
      (place.line == firstLine ? firstColumn - 1 : 0) + (upto - lineStart) + 1;
  place.problem = "invalid JSON at column " + std::to_string(column) + ": " + std::string(msg);
  return place;
}

JsonArrayReader::JsonArrayReader(const std::filesystem::path& path, std::size_t maxElementBytes,
                                 int maxDepth)
    : m_maxElement(maxElementBytes), m_maxDepth(maxDepth) {
  m_file = openForReading(path, m_openError, m_fileSize);
  if (!m_file) return;
  m_buf.resize(kChunk);
}

JsonArrayReader::~JsonArrayReader() {
  if (m_file) std::fclose(m_file);
}

bool JsonArrayReader::refill() {
  m_consumed += m_len;  // everything in the old chunk has been scanned
  m_pos = m_len = m_segStart = 0;
  if (!m_file) return false;
  const std::size_t n = std::fread(m_buf.data(), 1, m_buf.size(), m_file);
  if (n == 0) return false;
  m_len = n;
  if (m_firstChunk) {
    m_firstChunk = false;
    if (n >= 3 && static_cast<unsigned char>(m_buf[0]) == 0xEF &&
        static_cast<unsigned char>(m_buf[1]) == 0xBB &&
        static_cast<unsigned char>(m_buf[2]) == 0xBF)
      m_pos = m_segStart = m_lineStart = 3;
  }
  return true;
}

JsonArrayReader::Status JsonArrayReader::fail(std::string problem, bool fatal) {
  m_error = std::move(problem);
  m_fatal = m_fatal || fatal;
  return Status::Error;
}

void JsonArrayReader::keepSegment(std::size_t end) {
  if (!m_tooLong) {
    m_elem.append(m_buf.data() + m_segStart, end - m_segStart);
    if (m_elem.size() > m_maxElement) {
      // Keep scanning to the element's end so reading can resume, but stop buffering it.
      m_tooLong = true;
      m_elem.clear();
      m_elem.shrink_to_fit();
    }
  }
  m_segStart = end;
}

JsonArrayReader::Status JsonArrayReader::finishElement(std::size_t end, std::string_view& element) {
  keepSegment(end);
  m_state = State::AfterElement;
  if (m_tooLong) {
    m_errorLine = m_elementLine;
    return fail("element longer than " + std::to_string(m_maxElement) + " bytes", false);
  }
  if (m_tooDeep) {
    m_errorLine = m_elementLine;
    return fail("JSON nested deeper than " + std::to_string(m_maxDepth) + " levels", false);
  }
  element = m_elem;
  return Status::Element;
}

JsonArrayReader::Status JsonArrayReader::next(std::string_view& element) {
  if (!m_file || m_fatal) return Status::End;
  for (;;) {
    if (m_pos >= m_len) {
      if (m_state == State::InElement) keepSegment(m_len);
      if (!refill()) {
        if (std::ferror(m_file)) {
          m_errorLine = m_line;
          return fail("read error", true);
        }
        // A final newline ends the last line; it does not open a new one.
        const std::uint64_t lastLine = (m_last == '\n' && m_line > 1) ? m_line - 1 : m_line;
        switch (m_state) {
          case State::AfterArray:
            return Status::End;
          case State::BeforeArray:
            m_errorLine = 0;
            return fail("empty file: expected a JSON array", true);
          case State::InElement:
            m_errorLine = lastLine;
            return fail("unexpected end of file: the JSON is truncated (element " +
                            std::to_string(m_index) + " began at line " +
                            std::to_string(m_elementLine) + ")",
                        true);
          default:
            m_errorLine = lastLine;
            return fail("unexpected end of file: the JSON array is not closed", true);
        }
      }
      continue;
    }
    const char c = m_buf[m_pos];
    switch (m_state) {
      case State::BeforeArray:
        if (isJsonSpace(c)) break;
        if (c != '[') {
          m_errorLine = m_line;
          return fail("expected a JSON array ('[') but found " + printable(c), true);
        }
        m_state = State::BeforeElement;
        break;

      case State::BeforeElement:
      case State::AfterComma:
        if (isJsonSpace(c)) break;
        if (c == ']') {
          if (m_state == State::AfterComma) {
            m_errorLine = m_line;
            return fail("trailing comma before ']'", true);
          }
          m_state = State::AfterArray;
          break;
        }
        if (c == ',' || c == ':' || c == '}') {
          m_errorLine = m_line;
          return fail("unexpected " + printable(c) + " where an array element should start", true);
        }
        // An element starts here.
        m_index = m_started ? m_index + 1 : 0;
        m_started = true;
        m_elementLine = m_line;
        m_elementColumn = m_consumed + m_pos - m_lineStart + 1;
        m_elem.clear();
        m_stack.clear();
        m_depth = 0;
        m_tooLong = m_tooDeep = m_inString = m_escape = false;
        m_scalar = m_stringScalar = false;
        m_segStart = m_pos;
        m_state = State::InElement;
        if (c == '"') {
          m_stringScalar = true;
          m_inString = true;
          break;
        }
        if (c != '{' && c != '[') m_scalar = true;
        continue;  // the element's first byte is scanned as part of the element

      case State::InElement:
        if (m_scalar) {
          if (isJsonSpace(c) || c == ',' || c == ']') return finishElement(m_pos, element);
          break;
        }
        if (m_inString) {
          if (m_escape) {
            m_escape = false;
          } else if (c == '\\') {
            m_escape = true;
          } else if (c == '"') {
            m_inString = false;
            if (m_stringScalar) {
              ++m_pos;
              return finishElement(m_pos, element);
            }
          } else if (c == '\n') {
            ++m_line;  // invalid in JSON strings, but keep line numbers right for the report
            m_lineStart = m_consumed + m_pos + 1;
          }
          m_last = c;
          ++m_pos;
          continue;
        }
        if (c == '"') {
          m_inString = true;
        } else if (c == '{' || c == '[') {
          ++m_depth;
          if (m_stack.size() < static_cast<std::size_t>(m_maxDepth) + 1) m_stack.push_back(c);
          if (static_cast<long>(m_depth) + 1 > m_maxDepth) m_tooDeep = true;  // +1: outer array
        } else if (c == '}' || c == ']') {
          if (m_depth <= m_stack.size()) {
            const char open = m_stack.back();
            if ((open == '{') != (c == '}')) {
              m_errorLine = m_line;
              return fail("mismatched " + printable(c) + " (element " + std::to_string(m_index) +
                              " began at line " + std::to_string(m_elementLine) + ")",
                          true);
            }
            m_stack.pop_back();
          }
          if (--m_depth == 0) {
            ++m_pos;
            return finishElement(m_pos, element);
          }
        }
        break;

      case State::AfterElement:
        if (isJsonSpace(c)) break;
        if (c == ',') {
          m_state = State::AfterComma;
          break;
        }
        if (c == ']') {
          m_state = State::AfterArray;
          break;
        }
        m_errorLine = m_line;
        return fail("expected ',' or ']' after element " + std::to_string(m_index) + " but found " +
                        printable(c),
                    true);

      case State::AfterArray:
        if (isJsonSpace(c)) break;
        m_errorLine = m_line;
        return fail("unexpected data after the closing ']': " + printable(c), true);
    }
    if (c == '\n') {
      ++m_line;
      m_lineStart = m_consumed + m_pos + 1;
    }
    m_last = c;
    ++m_pos;
  }
}

}  // namespace ragscope::core
