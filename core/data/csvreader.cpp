#include "core/data/csvreader.h"

#include <cerrno>
#include <cstring>
#include <system_error>
#include <unordered_map>

#include "core/util/inputfile.h"

namespace ragscope::core {

namespace {
constexpr std::size_t kBufferBytes = std::size_t{64} << 10;
}

CsvReader::CsvReader(const std::filesystem::path& path, std::size_t maxRecordBytes, char separator)
    : m_sep(separator), m_maxRecord(maxRecordBytes) {
  m_file = openForReading(path, m_openError, m_fileSize);
  if (!m_file) return;
  m_buf.resize(kBufferBytes);
}

CsvReader::~CsvReader() {
  if (m_file) std::fclose(m_file);
}

bool CsvReader::refill() {
  if (m_eof || !m_file) return false;
  std::size_t n = std::fread(m_buf.data(), 1, m_buf.size(), m_file);
  m_pos = 0;
  m_end = n;
  if (n == 0) {
    m_eof = true;
    m_ioError = std::ferror(m_file) != 0;
    return false;
  }
  if (m_first) {
    m_first = false;
    // A BOM is only meaningful as the very first bytes of the file.
    if (n >= 3 && static_cast<unsigned char>(m_buf[0]) == 0xEF &&
        static_cast<unsigned char>(m_buf[1]) == 0xBB &&
        static_cast<unsigned char>(m_buf[2]) == 0xBF) {
      m_pos = 3;
      m_consumed += 3;
    }
  }
  return m_pos < m_end || refill();
}

int CsvReader::get() {
  if (m_pos == m_end && !refill()) return -1;
  ++m_consumed;
  return static_cast<unsigned char>(m_buf[m_pos++]);
}

int CsvReader::peek() {
  if (m_pos == m_end && !refill()) return -1;
  return static_cast<unsigned char>(m_buf[m_pos]);
}

CsvReader::Status CsvReader::fail(std::string field, std::string problem, bool fatal) {
  m_error.line = m_recordLine;
  m_error.field = std::move(field);
  m_error.problem = std::move(problem);
  if (fatal) m_fatal = true;
  return Status::Error;
}

CsvReader::Status CsvReader::readHeader(std::vector<std::string>& names) {
  Status st = next(names);
  if (st != Status::Record) return st;
  // Two columns of one name are two values for one thing: which one a reader keeps would decide
  // the figures silently, so the file is refused.
  std::unordered_map<std::string_view, std::size_t> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto [it, inserted] = seen.try_emplace(names[i], i);
    if (!inserted)
      return fail(names[i],
                  "duplicate column name '" + names[i] + "' (columns " +
                      std::to_string(it->second + 1) + " and " + std::to_string(i + 1) + ")",
                  true);
  }
  m_header = names;
  m_expectedFields = names.size();
  return st;
}

CsvReader::Status CsvReader::next(std::vector<std::string>& fields) {
  fields.clear();
  if (!m_file) {
    m_recordLine = 0;
    return fail("file", m_openError.empty() ? "not open" : m_openError, true);
  }
  if (m_fatal) return Status::End;

  enum class State { FieldStart, Unquoted, Quoted, AfterQuote };
  std::string field;
  for (;;) {  // once per physical record; blank lines loop back here
    m_recordLine = m_line;
    fields.clear();
    field.clear();
    State state = State::FieldStart;
    std::size_t bytes = 0;
    bool tooLong = false;
    bool quoted = false;
    std::string problem;
    std::string problemField = "record";

    auto columnName = [&](std::size_t index) {
      if (index < m_header.size() && !m_header[index].empty()) return m_header[index];
      return "field " + std::to_string(index + 1);
    };
    auto push = [&] {
      if (!tooLong) fields.push_back(std::move(field));
      field.clear();
    };
    auto append = [&](int c) {
      if (!tooLong) field.push_back(static_cast<char>(c));
    };

    for (;;) {
      int c = get();
      if (c < 0) {
        if (m_ioError) return fail("record", "read error", true);
        if (state == State::Quoted) {
          return fail("record",
                      "unterminated quoted field: the record that begins on line " +
                          std::to_string(m_recordLine) +
                          " reaches the end of the file inside quotes",
                      true);
        }
        if (state == State::FieldStart && fields.empty() && bytes == 0) return Status::End;
        push();
        break;
      }
      ++bytes;
      if (bytes > m_maxRecord && !tooLong) {
        // Keep scanning (quotes decide where the record ends) but stop storing it.
        tooLong = true;
        fields.clear();
        fields.shrink_to_fit();
        field.clear();
        field.shrink_to_fit();
      }
      if (c == 0 && problem.empty()) problem = "NUL byte in the record (binary data?)";
      if (c == '\n') {
        ++m_line;
        if (state == State::Quoted) {
          append(c);
          continue;
        }
        push();
        break;
      }
      // The CR of a CRLF record end is not data; a CR inside quotes is kept verbatim.
      if (c == '\r' && state != State::Quoted && peek() == '\n') continue;

      switch (state) {
        case State::FieldStart:
          if (c == '"') {
            state = State::Quoted;
            quoted = true;
          } else if (c == m_sep) {
            push();
          } else {
            append(c);
            state = State::Unquoted;
          }
          break;
        case State::Unquoted:
          // A quote inside an unquoted field is kept literally (as Python's csv module does).
          if (c == m_sep) {
            push();
            state = State::FieldStart;
          } else {
            append(c);
          }
          break;
        case State::Quoted:
          if (c == '"')
            state = State::AfterQuote;
          else
            append(c);
          break;
        case State::AfterQuote:
          if (c == '"') {
            append(c);
            state = State::Quoted;
          } else if (c == m_sep) {
            push();
            state = State::FieldStart;
          } else {
            if (problem.empty()) {
              problemField = columnName(fields.size());
              problem =
                  "text after the closing quote (a quote inside a quoted field must be doubled)";
            }
            append(c);
            state = State::Unquoted;
          }
          break;
      }
    }

    if (!tooLong && problem.empty() && !quoted && fields.size() == 1 && fields[0].empty())
      continue;  // blank line: not a record

    if (tooLong) {
      fields.clear();
      return fail("record",
                  "record longer than " + std::to_string(m_maxRecord) +
                      " bytes (the maximum line/record length): skipped",
                  false);
    }
    if (!problem.empty()) return fail(problemField, problem, false);
    if (m_expectedFields > 0 && fields.size() != m_expectedFields) {
      std::string cols;
      for (std::size_t i = 0; i < m_header.size(); ++i) {
        if (i) cols += ", ";
        cols += m_header[i];
      }
      return fail("record",
                  "has " + std::to_string(fields.size()) + " fields, expected " +
                      std::to_string(m_expectedFields) + " (" + cols + ")",
                  false);
    }
    return Status::Record;
  }
}

}  // namespace ragscope::core
