#pragma once
// Guards for JSON input from untrusted files, shared by the JSON loaders.
//
// nlohmann::json parses recursively, so a file of a million '[' would exhaust the stack: every
// loader checks the nesting depth with a cheap byte scan before handing text to the parser.
//
//   if (auto why = checkJsonDepth(line, options.maxJsonDepth)) { report(*why); continue; }
//   auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
//
// Big files that are one JSON array (rank_llm results, lists of examples) are read element by
// element with JsonArrayReader, so memory stays at one element and each element knows its line:
//
//   JsonArrayReader reader(path, options.maxLineBytes, options.maxJsonDepth);
//   std::string_view element;
//   for (;;) {
//     auto st = reader.next(element);
//     if (st == JsonArrayReader::Status::End) break;
//     if (st == JsonArrayReader::Status::Error) { report(reader.errorLine(), reader.error());
//                                                 if (!reader.canContinue()) break; continue; }
//     parse(element, reader.elementLine());
//   }

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

// nullopt when `text` nests at most maxDepth arrays/objects; otherwise a problem sentence such as
// "JSON nested deeper than 256 levels (at byte 1027)". Brackets inside strings do not count.
// The scan does not validate the JSON otherwise: the parser does that afterwards.
std::optional<std::string> checkJsonDepth(std::string_view text, int maxDepth);
// The byte offset where nesting first goes deeper than maxDepth, or nullopt.
std::optional<std::size_t> jsonDepthExceededAt(std::string_view text, int maxDepth);

// Bracket depth outside JSON strings, fed one byte at a time: the one scanner behind the depth
// guards and the object-boundary search of concatenated-JSON streams.
class JsonNesting {
 public:
  // Depth after `c`. A closer at depth 0 (malformed input) leaves it at 0: parsers report that.
  int feed(char c) {
    if (m_inString) {
      if (m_escape)
        m_escape = false;
      else if (c == '\\')
        m_escape = true;
      else if (c == '"')
        m_inString = false;
    } else if (c == '"') {
      m_inString = true;
    } else if (c == '{' || c == '[') {
      ++m_depth;
    } else if ((c == '}' || c == ']') && m_depth > 0) {
      --m_depth;
    }
    return m_depth;
  }
  int depth() const { return m_depth; }

 private:
  int m_depth = 0;
  bool m_inString = false;
  bool m_escape = false;
};

// Ids are always strings (core/data/README.md): a JSON string is taken as is, an integer is written
// in decimal (`1` and `"1"` are the same id). nullopt for anything else (floats, objects, null).
std::optional<std::string> jsonIdToString(const nlohmann::json& value);

// Where a nlohmann parse_error happened and what it says, in our terms: `text` is what was parsed,
// starting at line `firstLine` of the file; `byte` and `what` come from the exception
// (e.byte, e.what()). The returned problem drops nlohmann's "[json.exception...] ... line 1,
// column N" prefix, which would name positions inside the text rather than inside the file.
struct JsonErrorPlace {
  std::uint64_t line = 0;
  std::string problem;
};
// `firstColumn` is the 1-based column of text[0] on its line (an array element may start mid-line).
// For nlohmann's other parse exceptions (out_of_range 406: a number beyond a double, such as
// 1e400) pass byte 0: the place is then that of the number the message quotes.
JsonErrorPlace describeJsonParseError(std::string_view text, std::uint64_t firstLine,
                                      std::size_t byte, std::string_view what,
                                      std::uint64_t firstColumn = 1);

// Streams the elements of a top-level JSON array without holding the file in memory.
class JsonArrayReader {
 public:
  enum class Status { Element, End, Error };

  JsonArrayReader(const std::filesystem::path& path, std::size_t maxElementBytes, int maxDepth);
  ~JsonArrayReader();
  JsonArrayReader(const JsonArrayReader&) = delete;
  JsonArrayReader& operator=(const JsonArrayReader&) = delete;

  bool isOpen() const { return m_file != nullptr; }
  const std::string& openError() const { return m_openError; }

  // Next element's raw JSON text, valid until the next call. Element syntax is not checked
  // beyond bracket matching (parse the text to validate it). On Error, canContinue() tells
  // whether the offending element was skipped to its end (too long, too deep) or the file's
  // structure is broken (not an array, truncated, mismatched brackets) and reading must stop.
  Status next(std::string_view& element);

  std::uint64_t elementLine() const { return m_elementLine; }      // 1-based first line of element
  std::uint64_t elementColumn() const { return m_elementColumn; }  // 1-based, bytes
  std::size_t elementIndex() const { return m_index; }             // 0-based, last element seen
  const std::string& error() const { return m_error; }
  std::uint64_t errorLine() const { return m_errorLine; }
  bool canContinue() const { return !m_fatal; }

  std::uint64_t bytesRead() const { return m_consumed + m_pos; }
  std::uint64_t fileSize() const { return m_fileSize; }

 private:
  enum class State { BeforeArray, BeforeElement, AfterComma, InElement, AfterElement, AfterArray };

  bool refill();
  Status fail(std::string problem, bool fatal);
  void keepSegment(std::size_t end);
  Status finishElement(std::size_t end, std::string_view& element);

  std::FILE* m_file = nullptr;
  std::string m_openError;
  std::vector<char> m_buf;
  std::size_t m_pos = 0;
  std::size_t m_len = 0;
  std::size_t m_segStart = 0;    // where the current element's unbuffered bytes start in m_buf
  std::uint64_t m_consumed = 0;  // bytes of the chunks before the current one
  std::uint64_t m_fileSize = 0;
  std::uint64_t m_line = 1;
  std::uint64_t m_lineStart = 0;  // file offset of the current line's first byte
  char m_last = '\0';             // last byte scanned, to place an end-of-file error
  bool m_firstChunk = true;

  std::size_t m_maxElement;
  int m_maxDepth;
  State m_state = State::BeforeArray;
  std::string m_elem;
  std::vector<char> m_stack;  // open brackets, kept up to maxDepth (beyond: counted only)
  std::size_t m_depth = 0;    // nesting inside the element
  bool m_scalar = false;      // element is a bare number/literal
  bool m_stringScalar = false;
  bool m_inString = false;
  bool m_escape = false;
  bool m_tooLong = false;
  bool m_tooDeep = false;
  bool m_fatal = false;
  bool m_started = false;  // an element has been returned (index is meaningful)
  std::uint64_t m_elementLine = 0;
  std::uint64_t m_elementColumn = 0;
  std::size_t m_index = 0;
  std::string m_error;
  std::uint64_t m_errorLine = 0;
};

}  // namespace ragscope::core
