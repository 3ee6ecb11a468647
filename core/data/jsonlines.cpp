#include "core/data/jsonlines.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <istream>
#include <limits>
#include <optional>
#include <streambuf>
#include <system_error>
#include <utility>

#include "core/data/jsonguard.h"
#include "core/data/linereader.h"
#include "core/util/inputfile.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core {

using nlohmann::json;

namespace {

constexpr std::uint64_t kProgressStep = std::uint64_t{4} << 20;
constexpr std::size_t kSourceBuffer = std::size_t{1} << 20;

std::string humanBytes(std::size_t n) { return std::to_string(n) + " bytes"; }

// ---- one place for "what happens to a record and its problems" -------------------------------

class Sink {
 public:
  Sink(const LoadOptions& options, LoadReport& report, std::string file, const JsonRecordFn& fn)
      : m_options(options), m_report(report), m_file(std::move(file)), m_fn(fn) {}

  const std::string& file() const { return m_file; }

  // Hands one parsed record to the loader. False when the load must stop.
  bool deliver(json& record, const JsonRecordPlace& place, std::string prefix) {
    RecordProblems problems(m_file, place.line, std::move(prefix));
    m_fn(record, place, problems);
    return settle(problems);
  }

  // A record that could not even be parsed. False when the load must stop.
  bool fail(std::uint64_t line, std::string_view field, std::string problem) {
    RecordProblems problems(m_file, line, {});
    problems.error(field, std::move(problem));
    return settle(problems);
  }

  // The rest of the file cannot be read: recorded, and the load ends as incomplete.
  void fatal(std::uint64_t line, std::string_view field, std::string problem) {
    RecordProblems problems(m_file, line, {});
    problems.error(field, std::move(problem));
    for (auto& d : problems.items()) m_report.add(std::move(d), m_options.maxStoredDiagnostics);
    m_report.stopped = true;
  }

  // Throttled progress; false (and report.cancelled) when the caller cancels.
  bool progress(std::uint64_t done, std::uint64_t total) {
    if (m_report.cancelled) return false;
    if (done - m_lastProgress < kProgressStep) return true;
    m_lastProgress = done;
    if (m_options.progress && !m_options.progress(done, total)) {
      m_report.cancelled = true;
      return false;
    }
    return true;
  }

  void finish(std::uint64_t total) {
    if (m_options.progress && m_report.ok()) m_options.progress(total, total);
  }

  LoadReport& report() { return m_report; }
  const LoadOptions& options() const { return m_options; }

 private:
  bool settle(RecordProblems& problems) {
    const bool bad = problems.hasErrors();
    for (auto& d : problems.items()) m_report.add(std::move(d), m_options.maxStoredDiagnostics);
    if (!bad) {
      ++m_report.records;
      return true;
    }
    if (m_options.onError == OnError::Skip) {
      ++m_report.skipped;
      return !m_report.tooManyErrors(m_options, m_file, problems.line());
    }
    m_report.stopped = true;
    return false;
  }

  const LoadOptions& m_options;
  LoadReport& m_report;
  std::string m_file;
  const JsonRecordFn& m_fn;
  std::uint64_t m_lastProgress = 0;
};

// ---- the file under both byte sources ---------------------------------------------------------

// What both byte sources do with their file: open it with its size (for progress), keep why it
// did not open, tell a read error from the end, close it; skip a UTF-8 BOM at its start; and the
// progress callback whose false cancels the read.
class SourceFile {
 public:
  explicit SourceFile(const std::filesystem::path& path) {
    m_file = openForReading(path, m_openError, m_size);
  }
  ~SourceFile() {
    if (m_file) std::fclose(m_file);
  }
  SourceFile(const SourceFile&) = delete;
  SourceFile& operator=(const SourceFile&) = delete;

  bool isOpen() const { return m_file != nullptr; }
  const std::string& openError() const { return m_openError; }
  std::uint64_t size() const { return m_size; }
  bool readError() const { return m_file && std::ferror(m_file); }

  void setProgress(std::function<bool(std::uint64_t)> fn) { m_progress = std::move(fn); }
  bool cancelled() const { return m_cancelled; }

 protected:
  static bool startsWithBom(const std::vector<char>& buf, std::size_t n) {
    return n >= 3 && static_cast<unsigned char>(buf[0]) == 0xEF &&
           static_cast<unsigned char>(buf[1]) == 0xBB && static_cast<unsigned char>(buf[2]) == 0xBF;
  }

  std::FILE* m_file = nullptr;
  std::function<bool(std::uint64_t)> m_progress;
  bool m_first = true;    // no block read yet (a BOM may come)
  bool m_halted = false;  // reading ended early: cancelled (or a token over its limit)
  bool m_cancelled = false;

 private:
  std::string m_openError;
  std::uint64_t m_size = 0;
};

// ---- buffered byte source with line counting and progress (streams of objects) --------------

class ByteSource : public SourceFile {
 public:
  explicit ByteSource(const std::filesystem::path& path) : SourceFile(path) {
    if (!m_file) return;
    m_buf.resize(kSourceBuffer);
  }
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  int peek() {
    if (m_halted) return -1;
    if (m_pos == m_end && !fill()) return -1;
    return static_cast<unsigned char>(m_buf[m_pos]);
  }

  int get() {
    int c = peek();
    if (c < 0) return c;
    ++m_pos;
    ++m_offset;
    if (c == '\n') ++m_newlines;
    return c;
  }

  // 1-based line of the next byte to be read.
  std::uint64_t line() const { return m_newlines + 1; }
  std::uint64_t offset() const { return m_offset; }

 private:
  bool fill() {
    if (!m_file || m_eof) return false;
    if (m_progress && !m_progress(m_offset)) {
      m_halted = m_cancelled = true;
      return false;
    }
    std::size_t n = std::fread(m_buf.data(), 1, m_buf.size(), m_file);
    if (n == 0) {
      m_eof = true;
      return false;
    }
    m_pos = 0;
    m_end = n;
    if (m_first) {
      m_first = false;
      if (startsWithBom(m_buf, n)) {
        m_pos = 3;
        m_offset = 3;
        if (m_pos == m_end) return fill();
      }
    }
    return true;
  }

  std::vector<char> m_buf;
  std::size_t m_pos = 0;
  std::size_t m_end = 0;
  std::uint64_t m_offset = 0;
  std::uint64_t m_newlines = 0;
  bool m_eof = false;
};

// The input of the SAX walk over whole-file documents: a std::streambuf, so nlohmann's stream
// adapter reads bytes with the inline sbumpc() fast path (a byte-at-a-time iterator was 3x
// slower). Lines are counted lazily (only record starts and errors need one), and the per-token
// cap, progress and cancel are checked at each buffer refill.
class StreamSource : public std::streambuf, public SourceFile {
 public:
  explicit StreamSource(const std::filesystem::path& path) : SourceFile(path) {
    if (!m_file) return;
    m_buf.resize(kStreamChunk);
    setg(m_buf.data(), m_buf.data(), m_buf.data());
  }
  StreamSource(const StreamSource&) = delete;
  StreamSource& operator=(const StreamSource&) = delete;

  std::uint64_t offset() const {
    return m_chunkStart + static_cast<std::uint64_t>(gptr() - eback());
  }

  // 1-based line of the next byte to be read.
  std::uint64_t line() {
    catchUp();
    return m_newlines + 1;
  }
  // Line of the last byte read: where a token ended even after the lexer's one-byte lookahead
  // (a number is only known to end at the byte after it, possibly a newline).
  std::uint64_t lastByteLine() {
    const std::uint64_t next = line();
    const char last = gptr() > eback() ? gptr()[-1] : m_lastOfPrevious;
    return last == '\n' && next > 1 ? next - 1 : next;
  }

  // Reading more than `limit` bytes without a mark() ends the input (checked per refill, so the
  // overshoot is below one chunk). Guards the lexer, which buffers a whole token before an event.
  void setTokenLimit(std::size_t limit) { m_tokenLimit = limit; }
  void mark() { m_markOffset = offset(); }
  bool overLong() const { return m_overLong; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (!m_file || m_halted) return traits_type::eof();
    catchUp();
    if (egptr() > eback()) m_lastOfPrevious = egptr()[-1];
    m_chunkStart += static_cast<std::uint64_t>(egptr() - eback());
    m_counted = 0;
    setg(m_buf.data(), m_buf.data(), m_buf.data());
    if (m_tokenLimit != 0 && m_chunkStart - m_markOffset > m_tokenLimit) {
      m_halted = m_overLong = true;
      return traits_type::eof();
    }
    if (m_progress && !m_progress(m_chunkStart)) {
      m_halted = m_cancelled = true;
      return traits_type::eof();
    }
    std::size_t n = std::fread(m_buf.data(), 1, m_buf.size(), m_file);
    std::size_t start = 0;
    if (m_first && startsWithBom(m_buf, n)) {
      start = 3;
      m_chunkStart += 3;
    }
    m_first = false;
    if (n <= start) {
      m_halted = true;
      return traits_type::eof();
    }
    // The chunk begins after the BOM so offsets count from the first JSON byte's position.
    setg(m_buf.data() + start, m_buf.data() + start, m_buf.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  static constexpr std::size_t kStreamChunk = std::size_t{256} << 10;

  void catchUp() {
    const char* from = eback() + m_counted;
    const char* to = gptr();
    while (from < to) {
      const void* nl = std::memchr(from, '\n', static_cast<std::size_t>(to - from));
      if (!nl) break;
      ++m_newlines;
      from = static_cast<const char*>(nl) + 1;
    }
    m_counted = static_cast<std::size_t>(to - eback());
  }

  std::vector<char> m_buf;
  std::uint64_t m_chunkStart = 0;  // file offset of eback()
  std::size_t m_counted = 0;       // bytes of the current chunk whose newlines are counted
  std::uint64_t m_newlines = 0;
  char m_lastOfPrevious = 0;
  std::size_t m_tokenLimit = 0;
  std::uint64_t m_markOffset = 0;
  bool m_overLong = false;
};

// ---- whole-file documents: SAX walk that builds one record at a time ---------------------------

class ArrayElementSax : public nlohmann::json_sax<json> {
 public:
  ArrayElementSax(Sink& sink, StreamSource& source, std::string arrayKey)
      : m_sink(sink), m_source(source), m_key(std::move(arrayKey)) {}

  bool null() override { return scalar(json(nullptr)); }
  bool boolean(bool v) override { return scalar(json(v)); }
  bool number_integer(number_integer_t v) override { return scalar(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(json(v)); }
  bool string(string_t& v) override { return scalar(json(std::move(v))); }
  bool binary(binary_t&) override { return scalar(json(nullptr)); }  // not produced by JSON text
  bool start_object(std::size_t) override { return open(json::value_t::object); }
  bool start_array(std::size_t) override { return open(json::value_t::array); }
  // A member name given twice (core/util/jsonstrict.h): inside a record the record is refused
  // (found exactly as it is built, or by the member check when it is not built); outside, in
  // the document around the records, the rest of the file is not read.
  bool end_object() override {
    if (!m_check.endObject()) {
      if (m_inRecord) {
        noteRecordProblem(m_check.error().field, m_check.error().problem);
      } else {
        m_sink.fatal(m_source.line(),
                     m_check.error().field.empty() ? "document" : m_check.error().field,
                     m_check.error().problem + "; the rest of the file is not read");
        m_failed = true;
        return false;
      }
    }
    return close();
  }
  bool end_array() override {
    m_check.endArray();
    return close();
  }

  bool key(string_t& k) override {
    m_check.key(k);
    m_source.mark();
    if (m_depth == 1 && !m_rootIsArray) m_rootKey = k;
    if (m_building) m_pendingKey = std::move(k);
    return checkRecordSize();
  }

  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    if (m_source.cancelled()) {
      m_sink.report().cancelled = true;
      return false;
    }
    const std::string where = m_inRecord ? recordPath() : std::string("document");
    if (m_source.overLong()) {
      m_sink.fatal(m_source.line(), where,
                   "a single JSON value is longer than maxLineBytes (" +
                       humanBytes(m_sink.options().maxLineBytes) +
                       "); the rest of the file is not read");
    } else {
      m_sink.fatal(m_source.line(), where,
                   describeParseError(ex.what(), 1, false) + "; the rest of the file is not read");
    }
    m_failed = true;
    return false;
  }

  bool failed() const { return m_failed; }
  bool foundArray() const { return m_foundArray; }
  bool stoppedByLoader() const { return m_stoppedByLoader; }

 private:
  std::string recordPath() const {
    return (m_rootIsArray ? std::string() : m_key) + "[" + std::to_string(m_index) + "]";
  }

  bool open(json::value_t type) {
    m_source.mark();
    if (m_depth >= m_sink.options().maxJsonDepth) {
      m_sink.fatal(m_source.line(), m_inRecord ? recordPath() : std::string("document"),
                   "JSON nested deeper than " + std::to_string(m_sink.options().maxJsonDepth) +
                       " levels (maxJsonDepth); the rest of the file is not read");
      m_failed = true;
      return false;
    }
    if (m_depth == 0) {
      if (type == json::value_t::array) {
        m_rootIsArray = true;
        m_foundArray = true;
        m_elementDepth = 1;
      } else {
        m_elementDepth = 2;
      }
    } else if (m_depth == 1 && !m_rootIsArray && m_rootKey == m_key) {
      if (type != json::value_t::array) return wrongTargetType();
      m_foundArray = true;
      m_inTarget = true;
    }
    if (inRecordArea() && m_depth == m_elementDepth) beginRecord();
    ++m_depth;
    if (m_building) push(json(type));  // before the check opens it: push names it by its path
    if (type == json::value_t::object)
      m_check.startObject();  // depth is bounded above, the check's own limit is not reached
    else
      m_check.startArray();
    return checkRecordSize();
  }

  bool close() {
    m_source.mark();
    --m_depth;
    if (m_building && !m_stack.empty()) m_stack.pop_back();
    if (m_inRecord && m_depth == m_elementDepth) return endRecord();
    if (m_inTarget && m_depth == 1) m_inTarget = false;
    return true;
  }

  bool scalar(json value) {
    m_check.value();
    m_source.mark();
    if (m_depth == 1 && !m_rootIsArray && m_rootKey == m_key) return wrongTargetType();
    if (m_depth == 0) {
      m_sink.fatal(
          m_source.line(), "document",
          "top level is a " + jsonTypeName(value) + ", expected an object with \"" + m_key + "\"");
      m_failed = true;
      return false;
    }
    if (inRecordArea() && m_depth == m_elementDepth) {  // a scalar element is a (bad) record
      beginRecord();
      push(std::move(value));
      return endRecord();
    }
    if (m_building) push(std::move(value));
    return checkRecordSize();
  }

  bool inRecordArea() const { return m_rootIsArray ? m_depth >= 1 : m_inTarget; }

  bool wrongTargetType() {
    m_sink.fatal(m_source.line(), m_key, "expected an array of records");
    m_failed = true;
    return false;
  }

  void noteRecordProblem(const std::string& field, const std::string& problem) {
    if (m_recordProblem) return;
    m_recordProblem.emplace(field, problem);
  }

  void beginRecord() {
    m_recordProblem.reset();
    m_inRecord = true;
    m_building = true;
    m_recordLine = m_source.lastByteLine();
    m_recordStart = m_source.offset();
    m_record = json();
    m_stack.clear();
  }

  // Adds a value at the current place of the record being built; containers become the new place.
  void push(json value) {
    const bool container = value.is_object() || value.is_array();
    json* slot = nullptr;
    if (m_stack.empty()) {
      m_record = std::move(value);
      slot = &m_record;
    } else {
      json& parent = *m_stack.back();
      if (parent.is_object()) {
        if (parent.contains(m_pendingKey))
          noteRecordProblem(m_check.path(), jsonRepeatedMemberMessage(m_pendingKey));
        slot = &(parent[m_pendingKey] = std::move(value));
      } else {
        parent.push_back(std::move(value));
        slot = &parent.back();
      }
    }
    if (container) m_stack.push_back(slot);
  }

  bool checkRecordSize() {
    if (m_building && m_source.offset() - m_recordStart > m_sink.options().maxLineBytes) {
      // Stop building (memory stays bounded); the record is reported when it ends.
      m_building = false;
      m_tooLong = true;
      m_record = json();
      m_stack.clear();
    }
    return true;
  }

  bool endRecord() {
    m_inRecord = false;
    m_stack.clear();
    const std::size_t index = m_index++;
    bool keepGoing;
    if (m_tooLong) {
      m_tooLong = false;
      keepGoing = m_sink.fail(
          m_recordLine, pathFor(index),
          "record longer than maxLineBytes (" + humanBytes(m_sink.options().maxLineBytes) + ")");
    } else if (m_recordProblem) {
      m_building = false;
      keepGoing = m_sink.fail(m_recordLine, m_recordProblem->first, m_recordProblem->second);
      m_record = json();
    } else {
      m_building = false;
      JsonRecordPlace place{m_recordLine, index};
      keepGoing = m_sink.deliver(m_record, place, pathFor(index));
      m_record = json();
    }
    m_recordProblem.reset();
    if (!keepGoing) m_stoppedByLoader = true;
    return keepGoing;
  }

  std::string pathFor(std::size_t index) const {
    return (m_rootIsArray ? std::string() : m_key) + "[" + std::to_string(index) + "]";
  }

  Sink& m_sink;
  StreamSource& m_source;
  std::string m_key;
  std::string m_rootKey;
  std::string m_pendingKey;
  int m_depth = 0;
  int m_elementDepth = 2;
  bool m_rootIsArray = false;
  bool m_inTarget = false;
  bool m_foundArray = false;
  bool m_inRecord = false;
  bool m_building = false;
  bool m_tooLong = false;
  bool m_failed = false;
  bool m_stoppedByLoader = false;
  std::uint64_t m_recordLine = 0;
  std::uint64_t m_recordStart = 0;
  std::size_t m_index = 0;
  json m_record;
  std::vector<json*> m_stack;
  JsonMemberCheck m_check{std::numeric_limits<int>::max()};
  std::optional<std::pair<std::string, std::string>> m_recordProblem;  // field, problem
};

void streamDocument(Sink& sink, const std::filesystem::path& path, std::string_view arrayKey) {
  StreamSource source(path);
  if (!source.isOpen()) {
    sink.fatal(0, {}, source.openError());
    return;
  }
  source.setTokenLimit(sink.options().maxLineBytes);
  const std::uint64_t total = source.size();
  source.setProgress([&sink, total](std::uint64_t done) { return sink.progress(done, total); });

  ArrayElementSax sax(sink, source, std::string(arrayKey));
  std::istream in(&source);
  json::sax_parse(in, &sax);
  if (sink.report().cancelled || sax.failed() || sax.stoppedByLoader()) return;
  if (source.readError()) {
    sink.fatal(source.line(), {}, "read error");
    return;
  }
  if (!sax.foundArray()) {
    sink.fatal(0, arrayKey, "no \"" + std::string(arrayKey) + "\" array in the document");
    return;
  }
  sink.finish(total);
}

// ---- a stream of objects that may span lines ----------------------------------------------------

void readConcatenated(Sink& sink, const std::filesystem::path& path) {
  ByteSource source(path);
  if (!source.isOpen()) {
    sink.fatal(0, {}, source.openError());
    return;
  }
  const std::uint64_t total = source.size();
  source.setProgress([&sink, total](std::uint64_t done) { return sink.progress(done, total); });
  const std::size_t maxBytes = sink.options().maxLineBytes;
  const int maxDepth = sink.options().maxJsonDepth;
  std::size_t index = 0;
  std::string text;
  for (;;) {
    int c;
    while ((c = source.peek()) >= 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n'))
      source.get();
    if (c < 0) break;
    const std::uint64_t line = source.line();
    if (c != '{') {
      while ((c = source.get()) >= 0 && c != '\n') {
      }
      if (!sink.fail(line, "record", "unexpected text outside a JSON object")) return;
      continue;
    }
    // Find the object's end by bracket depth outside strings, buffering at most maxBytes.
    text.clear();
    bool tooLong = false, tooDeep = false, closed = false;
    JsonNesting nesting;
    while ((c = source.get()) >= 0) {
      const char ch = static_cast<char>(c);
      if (!tooLong) {
        if (text.size() >= maxBytes) {
          tooLong = true;
          std::string().swap(text);
        } else {
          text.push_back(ch);
        }
      }
      const int before = nesting.depth();
      const int depth = nesting.feed(ch);
      if (depth > maxDepth) tooDeep = true;
      if (depth == 0 && before == 1) {
        closed = true;
        break;
      }
    }
    if (source.cancelled()) {
      sink.report().cancelled = true;
      return;
    }
    const std::size_t thisIndex = index++;
    if (!closed) {
      sink.fatal(line, "record", "end of file inside a JSON object (truncated file?)");
      return;
    }
    bool keepGoing = true;
    if (tooLong) {
      keepGoing = sink.fail(line, "record",
                            "record longer than maxLineBytes (" + humanBytes(maxBytes) + ")");
    } else if (tooDeep) {
      keepGoing = sink.fail(
          line, "record",
          "JSON nested deeper than " + std::to_string(maxDepth) + " levels (maxJsonDepth)");
    } else {
      json record;
      JsonStrictError why;
      if (parseJsonStrict(text, record, &why, maxDepth))
        keepGoing = sink.deliver(record, JsonRecordPlace{line, thisIndex}, {});
      else if (why.repeated)  // placed on the repeated name's own line
        keepGoing = sink.fail(
            line + static_cast<std::uint64_t>(std::count(
                       text.begin(),
                       text.begin() + static_cast<std::ptrdiff_t>(std::min(why.byte, text.size())),
                       '\n')),
            why.field, why.problem);
      else
        keepGoing = sink.fail(line, "record", describeParseError(why.problem, line, false));
    }
    if (!keepGoing) return;
  }
  if (source.cancelled()) {
    sink.report().cancelled = true;
    return;
  }
  if (source.readError()) {
    sink.fatal(source.line(), {}, "read error");
    return;
  }
  sink.finish(total);
}

// ---- JSON lines -------------------------------------------------------------------------------

void readLines(Sink& sink, const std::filesystem::path& path) {
  const LoadOptions& options = sink.options();
  LineReader reader(path, options.maxLineBytes);
  if (!reader.isOpen()) {
    sink.fatal(0, {}, reader.openError());
    return;
  }
  std::size_t index = 0;
  std::string_view line;
  for (;;) {
    const auto status = reader.next(line);
    if (status == LineReader::Status::End) break;
    if (status == LineReader::Status::IoError) {
      sink.fatal(reader.lineNumber(), {}, "read error");
      return;
    }
    if (!sink.progress(reader.bytesRead(), reader.fileSize())) return;
    if (status == LineReader::Status::TooLong) {
      ++index;
      if (!sink.fail(
              reader.lineNumber(), "record",
              "line longer than maxLineBytes (" + humanBytes(options.maxLineBytes) + "), not read"))
        return;
      continue;
    }
    const std::string_view text = trim(line);
    if (text.empty()) continue;
    const std::size_t thisIndex = index++;
    if (auto tooDeep = checkJsonDepth(text, options.maxJsonDepth)) {
      if (!sink.fail(reader.lineNumber(), "record", *tooDeep + " (maxJsonDepth)")) return;
      continue;
    }
    json record;
    // Strict: a member name given twice is the record's error, naming the member
    // (core/util/jsonstrict.h); json::parse would keep the last one.
    if (JsonStrictError why; !parseJsonStrict(text, record, &why, options.maxJsonDepth)) {
      if (!sink.fail(reader.lineNumber(), why.repeated ? why.field : std::string("record"),
                     why.repeated ? why.problem : describeParseError(why.problem, 1, true)))
        return;
      continue;
    }
    if (!sink.deliver(record, JsonRecordPlace{reader.lineNumber(), thisIndex}, {})) return;
  }
  sink.finish(reader.fileSize());
}

// Looks at the first value: '[' -> array; an object whose first line does not close it -> a
// stream of multi-line objects; anything else -> JSON lines.
JsonLayout detectLayout(const std::filesystem::path& path, std::size_t maxBytes) {
  ByteSource source(path);
  if (!source.isOpen()) return JsonLayout::Lines;  // the reader reports the open error
  int c;
  while ((c = source.peek()) >= 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n'))
    source.get();
  if (c == '[') return JsonLayout::TopLevelArray;
  if (c != '{') return JsonLayout::Lines;
  bool inString = false, escaped = false;
  int depth = 0;
  std::size_t n = 0;
  while ((c = source.get()) >= 0 && n++ <= maxBytes) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      else if (c == '\n')
        return JsonLayout::Lines;  // a raw newline inside a string: broken either way
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return JsonLayout::Lines;
    } else if (c == '\n')
      return JsonLayout::ConcatenatedObjects;
  }
  return JsonLayout::Lines;
}

std::string sanitizeForMessage(std::string_view s, std::size_t maxLen) {
  std::string out;
  for (char ch : s) {
    if (out.size() >= maxLen) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(ch);
    out.push_back(u >= 0x7f || u < 0x20 ? '?' : ch);
  }
  return out;
}

}  // namespace

// ---- readers ----------------------------------------------------------------------------------

LoadReport readJsonRecords(const std::filesystem::path& path, const LoadOptions& options,
                           const JsonRecordFn& fn, JsonLayout layout) {
  LoadReport report;
  Sink sink(options, report, path.string(), fn);
  // Standard input can be read only once: it is taken as JSON lines, never sniffed.
  if (layout == JsonLayout::Auto)
    layout = isStdinPath(path) ? JsonLayout::Lines : detectLayout(path, options.maxLineBytes);
  switch (layout) {
    case JsonLayout::ConcatenatedObjects:
      readConcatenated(sink, path);
      break;
    case JsonLayout::TopLevelArray:
      streamDocument(sink, path, {});
      break;
    case JsonLayout::Auto:
    case JsonLayout::Lines:
      readLines(sink, path);
      break;
  }
  return report;
}

LoadReport readJsonArrayElements(const std::filesystem::path& path, const LoadOptions& options,
                                 std::string_view arrayKey, const JsonRecordFn& fn) {
  LoadReport report;
  Sink sink(options, report, path.string(), fn);
  streamDocument(sink, path, arrayKey);
  return report;
}

LoadOptions withProgressOffset(const LoadOptions& options, std::uint64_t offset,
                               std::uint64_t total) {
  LoadOptions copy = options;
  if (options.progress) {
    ProgressFn outer = options.progress;
    copy.progress = [outer, offset, total](std::uint64_t done, std::uint64_t) {
      return outer(offset + done, total);
    };
  }
  return copy;
}

std::string describeParseError(const std::string& what, std::uint64_t firstLine, bool singleLine) {
  std::string_view s = what;
  if (s.rfind("[json.exception", 0) == 0) {
    auto close = s.find("] ");
    if (close != std::string_view::npos) s.remove_prefix(close + 2);
  }
  std::string position;
  constexpr std::string_view kAt = "parse error at line ";
  if (s.rfind(kAt, 0) == 0) {
    std::string_view rest = s.substr(kAt.size());
    std::uint64_t line = 0;
    std::size_t i = 0;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9')
      line = line * 10 + (rest[i++] - '0');
    constexpr std::string_view kCol = ", column ";
    if (rest.substr(i, kCol.size()) == kCol) {
      i += kCol.size();
      std::size_t j = i;
      while (j < rest.size() && rest[j] >= '0' && rest[j] <= '9') ++j;
      const std::string column(rest.substr(i, j - i));
      position = singleLine ? "column " + column
                            : "line " + std::to_string(firstLine + (line > 0 ? line - 1 : 0)) +
                                  ", column " + column;
      rest.remove_prefix(j);
      if (rest.rfind(": ", 0) == 0) rest.remove_prefix(2);
      s = rest;
    }
  } else if (s.rfind("parse error: ", 0) == 0) {
    s.remove_prefix(13);
  }
  std::string out = "invalid JSON: " + sanitizeForMessage(s, 200);
  if (!position.empty()) out += " (" + position + ")";
  return out;
}

}  // namespace ragscope::core
