#pragma once
// The one CSV writer behind every export (CLI tables, reports, GUI "save as CSV"): RFC 4180
// quoting, UTF-8 output, and text cells made safe to open in a spreadsheet.
//
//   CsvWriter w(std::cout);
//   w.text("run").text("qid").text("map").endRow();
//   w.text(label).text(qid).number(0.1785).endRow();
//
// The rules, in the order they apply to a text cell:
//  - UTF-8: bytes that are not valid UTF-8, and NUL bytes, become U+FFFD. CSV has no escape for
//    NUL and many readers stop or truncate at one (ours reports it as binary data), so the cell
//    keeps its length in characters rather than silently losing its tail somewhere downstream.
//  - Formula injection: a text cell beginning with '=', '+', '-', '@', tab or carriage return
//    gets a single quote prepended ("=1+2" -> "'=1+2"), so Excel, LibreOffice and Google Sheets
//    show it as text instead of evaluating it (OWASP's CSV injection advice). This is about the
//    cell's type, not its look: text that happens to look numeric ("-1" as a query id) is text
//    and is neutralised too, because a writer that guessed "is this a number?" could be steered
//    by the data. Numbers go through number(), which never neutralises ("-0.5" stays "-0.5").
//  - Quoting: a cell holding ',', '"', CR or LF is enclosed in double quotes with each '"'
//    doubled. Other cells are written bare, as RFC 4180 allows.
// Rows end with LF by default: what `ragscope-cli eval --format csv` has always printed and what
// line-based tools expect; every CSV reader we know (Python's csv, Excel, LibreOffice, ours)
// accepts it. LineEnd::CrLf gives RFC 4180's CRLF for consumers that insist. No BOM is written.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <type_traits>

namespace ragscope::core::exporting {

class CsvWriter {
 public:
  enum class LineEnd { Lf, CrLf };

  explicit CsvWriter(std::ostream& out, LineEnd lineEnd = LineEnd::Lf);

  // A text cell, with the rules above.
  CsvWriter& text(std::string_view value);

  // A numeric cell, never neutralised. Doubles are written with 17 significant digits (they read
  // back as the same double; "%.17g" in the C locale whatever the process locale); NaN, our
  // "undefined", is an empty cell; infinities are "inf" and "-inf".
  CsvWriter& number(double value);
  template <std::integral I>
  requires(!std::same_as<I, bool>) CsvWriter& number(I value) {
    if constexpr (std::is_signed_v<I>)
      return integer(static_cast<std::int64_t>(value));
    else
      return unsignedInteger(static_cast<std::uint64_t>(value));
  }

  // An empty cell (a missing value).
  CsvWriter& empty();

  // Ends the row. A row of one empty cell is written as "" so that it survives as a record
  // (readers skip blank lines); a row with no cells at all is a blank line.
  CsvWriter& endRow();

  // False once the stream has failed (disk full, closed pipe).
  bool ok() const { return m_out.good(); }

 private:
  CsvWriter& integer(std::int64_t value);
  CsvWriter& unsignedInteger(std::uint64_t value);
  void separate();
  void raw(std::string_view cell);

  std::ostream& m_out;
  LineEnd m_lineEnd;
  std::size_t m_cells = 0;  // cells written in the current row
  bool m_lastEmpty = false;
};

}  // namespace ragscope::core::exporting
