#include "core/export/csv.h"

#include <charconv>
#include <cmath>
#include <string>

#include "core/data/textcheck.h"
#include "core/metrics/normalize.h"

namespace ragscope::core::exporting {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Valid UTF-8 without NUL (nearly every cell) is returned as is; otherwise each offending byte
// becomes U+FFFD, as nlohmann's error_handler_t::replace does for the JSON exports.
std::string_view asUtf8(std::string_view s, std::string& buffer) {
  if (!checkText(s)) return s;
  buffer.clear();
  for (std::size_t pos = 0; pos < s.size();) {
    std::size_t length = 1;
    const long cp = decodeUtf8(s, pos, length);
    if (cp <= 0)
      buffer += kReplacement;
    else
      buffer.append(s.substr(pos, length));
    pos += length;
  }
  return buffer;
}

bool startsFormula(std::string_view s) {
  if (s.empty()) return false;
  switch (s.front()) {
    case '=':
    case '+':
    case '-':
    case '@':
    case '\t':
    case '\r':
      return true;
    default:
      return false;
  }
}

}  // namespace

CsvWriter::CsvWriter(std::ostream& out, LineEnd lineEnd) : m_out(out), m_lineEnd(lineEnd) {}

void CsvWriter::separate() {
  if (m_cells++ > 0) m_out.put(',');
}

void CsvWriter::raw(std::string_view cell) {
  separate();
  m_out.write(cell.data(), static_cast<std::streamsize>(cell.size()));
  m_lastEmpty = cell.empty();
}

CsvWriter& CsvWriter::text(std::string_view value) {
  std::string utf8Buffer;
  const std::string_view cell = asUtf8(value, utf8Buffer);
  const bool neutralise = startsFormula(cell);
  if (cell.find_first_of(",\"\r\n") == std::string_view::npos) {
    if (neutralise) {
      separate();
      m_out.put('\'');
      m_out.write(cell.data(), static_cast<std::streamsize>(cell.size()));
      m_lastEmpty = false;
    } else {
      raw(cell);
    }
    return *this;
  }
  std::string quoted = neutralise ? "\"'" : "\"";
  quoted.reserve(cell.size() + 4);
  for (const char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  raw(quoted);
  return *this;
}

CsvWriter& CsvWriter::number(double value) {
  if (std::isnan(value)) return empty();
  // to_chars, not printf or ostream: both follow the process locale (Qt applications set it from
  // the environment), which would turn 0.5 into "0,5" and split the cell.
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, 17);
  raw(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  return *this;
}

CsvWriter& CsvWriter::integer(std::int64_t value) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  raw(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  return *this;
}

CsvWriter& CsvWriter::unsignedInteger(std::uint64_t value) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  raw(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  return *this;
}

CsvWriter& CsvWriter::empty() {
  raw({});
  return *this;
}

CsvWriter& CsvWriter::endRow() {
  if (m_cells == 1 && m_lastEmpty) m_out.write("\"\"", 2);
  if (m_lineEnd == LineEnd::CrLf) m_out.put('\r');
  m_out.put('\n');
  m_cells = 0;
  m_lastEmpty = false;
  return *this;
}

}  // namespace ragscope::core::exporting
