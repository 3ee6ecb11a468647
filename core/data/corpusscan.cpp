#include "core/data/corpusscan.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "core/data/corpusrecord.h"
#include "core/data/linereader.h"
#include "core/util/fasthash.h"

namespace ragscope::core {

namespace {

// Pieces of the file handed to the threads: big enough that a thread's set-up is nothing, small
// enough that two threads finish together and progress moves.
constexpr std::uint64_t kPiece = std::uint64_t{16} << 20;
constexpr std::size_t kReadBlock = std::size_t{1} << 20;

// What one piece of the file gave; lines and string offsets count from the piece's start until
// the pieces are joined in file order.
struct Piece {
  std::uint64_t start = 0, end = 0;
  std::vector<DocIndexEntry> entries;
  std::vector<std::uint32_t> paragraphs;
  std::string strings;
  std::vector<Diagnostic> diagnostics;
  std::uint64_t lines = 0;  // lines starting in the piece
  std::string readError;
  bool done = false;
};

// A sliding buffer over the file: the lines of a piece are found without a read per line. One
// allocation per thread, grown only for a line longer than it (up to maxLineBytes): a buffer
// reallocated per read made each thread's malloc arena keep tens of MB.
class Window {
 public:
  Window(int fd, std::uint64_t size) : m_fd(fd), m_size(size), m_buf(kWindowBytes) {}

  // Makes the buffer hold [from, min(to, size)) (and as much after it as fits); false on a read
  // error.
  bool cover(std::uint64_t from, std::uint64_t to) {
    to = std::min(to, m_size);
    if (from >= m_start && to <= end()) return true;
    if (from < m_start || from > end()) {
      m_start = from;
      m_used = 0;
    } else if (from > m_start) {  // keep the bytes from `from` on, at the buffer's start
      std::memmove(m_buf.data(), m_buf.data() + (from - m_start),
                   static_cast<std::size_t>(end() - from));
      m_used = static_cast<std::size_t>(end() - from);
      m_start = from;
    }
    if (to - m_start > m_buf.size()) m_buf.resize(static_cast<std::size_t>(to - m_start));
    while (end() < to) {
      const std::size_t room = m_buf.size() - m_used;
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(room, m_size - end()));
      const ssize_t n = ::pread(m_fd, m_buf.data() + m_used, want, static_cast<off_t>(end()));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      m_used += static_cast<std::size_t>(n);
    }
    return true;
  }
  std::uint64_t end() const { return m_start + m_used; }
  std::string_view bytes(std::uint64_t from, std::uint64_t to) const {
    return std::string_view(m_buf.data() + (from - m_start), static_cast<std::size_t>(to - from));
  }
  // The first '\n' at or after `from` within what the buffer holds; npos when none.
  std::uint64_t newlineFrom(std::uint64_t from) const {
    if (from >= end()) return std::string_view::npos;
    const void* at =
        std::memchr(m_buf.data() + (from - m_start), '\n', static_cast<std::size_t>(end() - from));
    return at ? m_start + static_cast<std::uint64_t>(static_cast<const char*>(at) - m_buf.data())
              : std::string_view::npos;
  }

 private:
  static constexpr std::size_t kWindowBytes = std::size_t{4} << 20;
  int m_fd;
  std::uint64_t m_size;
  std::vector<char> m_buf;
  std::uint64_t m_start = 0;
  std::size_t m_used = 0;
};

const char* idKeyName(CorpusLayout layout) {
  return layout == CorpusLayout::KiltPages ? "wikipedia_id" : "_id";
}

// Reads the records starting in [piece.start, piece.end).
void readPiece(Window& window, std::uint64_t size, CorpusRecordReader& reader,
               const LoadOptions& options, Piece& piece, const std::atomic<bool>& stop) {
  std::uint64_t p = piece.start;
  auto fail = [&] {
    piece.readError = std::string("read error: ") + std::strerror(errno ? errno : EIO);
  };
  if (p > 0) {
    // The piece's first line starts after the first newline at or after start - 1.
    std::uint64_t scanFrom = p - 1;
    while (true) {
      if (!window.cover(scanFrom, scanFrom + kReadBlock)) return fail();
      const std::uint64_t nl = window.newlineFrom(scanFrom);
      if (nl != std::string_view::npos) {
        p = nl + 1;
        break;
      }
      if (window.end() >= size) return;
      scanFrom = window.end();
    }
  }
  const std::uint64_t maxLine = options.maxLineBytes;
  while (p < piece.end && p < size && !stop.load(std::memory_order_relaxed)) {
    ++piece.lines;
    std::uint64_t searched = p;
    std::uint64_t nl = std::string_view::npos;
    while (true) {
      if (!window.cover(p, std::min(searched + kReadBlock, p + maxLine + 1))) return fail();
      nl = window.newlineFrom(searched);
      if (nl != std::string_view::npos || window.end() >= size || window.end() - p > maxLine) break;
      searched = window.end();
    }
    const std::uint64_t lineEnd = nl == std::string_view::npos ? window.end() : nl;
    if (lineEnd - p > maxLine) {
      Diagnostic d{
          Severity::Error,
          {},
          piece.lines,
          "record",
          "line longer than maxLineBytes (" + std::to_string(maxLine) + " bytes), not read"};
      piece.diagnostics.push_back(std::move(d));
      // Skip to the line's end without keeping it.
      std::uint64_t from = window.end();
      while (nl == std::string_view::npos && from < size) {
        if (!window.cover(from, from + kReadBlock)) return fail();
        nl = window.newlineFrom(from);
        from = window.end();
      }
      p = nl == std::string_view::npos ? size : nl + 1;
      continue;
    }
    std::string_view line = window.bytes(p, lineEnd);
    std::uint64_t offset = p;
    if (p == 0 && line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") {  // a UTF-8 BOM
      line.remove_prefix(3);
      offset = 3;
    }
    if (const std::string_view record = trim(line); !record.empty())
      reader.read(record, offset + static_cast<std::uint64_t>(record.data() - line.data()),
                  piece.lines, {piece.entries, piece.paragraphs, piece.strings, piece.diagnostics});
    p = lineEnd + 1;
  }
}

// Joins pieces in file order into one content, skipping bad records (up to the error cap) and
// leaving out repeated ids, as a sequential read would.
class Joiner {
 public:
  Joiner(const std::filesystem::path& path, CorpusLayout layout, const LoadOptions& options,
         CorpusScan& out)
      : m_file(path.string()), m_layout(layout), m_options(options), m_out(out) {}

  // False once the read must end (too many errors).
  bool join(Piece& piece) {
    std::size_t d = 0;
    std::uint64_t stopAt = UINT64_MAX;  // a line past which nothing is taken
    for (auto& diag : piece.diagnostics) diag.line += m_lines;
    for (auto& e : piece.entries) e.line += m_lines;
    for (const DocIndexEntry& local : piece.entries) {
      // Diagnostics of earlier lines first, so the first error comes where a sequential read
      // meets it.
      while (d < piece.diagnostics.size() && piece.diagnostics[d].line <= local.line &&
             stopAt == UINT64_MAX)
        if (!diagnostic(piece.diagnostics[d++])) stopAt = piece.diagnostics[d - 1].line;
      if (local.line >= stopAt) break;
      // Errors and this record's warnings share its line; only warnings can precede an entry.
      addEntry(piece, local);
    }
    while (d < piece.diagnostics.size() && stopAt == UINT64_MAX)
      if (!diagnostic(piece.diagnostics[d++])) stopAt = piece.diagnostics[d - 1].line;
    m_lines += piece.lines;
    return stopAt == UINT64_MAX;
  }

 private:
  // Every bad record is skipped, whatever the caller's policy: a Stop reader's view is the
  // report as it stood at the first error, noted here (storedcorpus.cpp applies it).
  bool diagnostic(Diagnostic& diag) {
    diag.file = m_file;
    const bool error = diag.severity == Severity::Error;
    const std::uint64_t line = diag.line;
    LoadReport& r = m_out.report;
    r.add(std::move(diag), m_options.maxStoredDiagnostics);
    if (!error) return true;
    if (!m_out.firstError)
      m_out.firstError = CorpusScan::FirstError{
          r.diagnostics.size(),        r.records, r.warnings, r.errors, r.unstoredDiagnostics,
          m_out.content.entries.size()};
    ++r.skipped;
    return !r.tooManyErrors(m_options, m_file, line);
  }

  void addEntry(const Piece& piece, DocIndexEntry e) {
    DocIndexContent& c = m_out.content;
    const std::string_view id = std::string_view(piece.strings).substr(e.stringOffset, e.idLength);
    if (auto first = firstWithId(id)) {
      Diagnostic d{Severity::Warning, m_file, e.line, idKeyName(m_layout),
                   "\"" + std::string(id) + "\" is already in the corpus (line " +
                       std::to_string(*first) + "); this " +
                       (m_layout == CorpusLayout::KiltPages ? "page" : "document") +
                       " is not added"};
      m_out.report.add(std::move(d), m_options.maxStoredDiagnostics);
      ++m_out.report.records;  // read without error, as the in-memory loaders count it
      return;
    }
    const std::uint64_t localStrings = e.stringOffset;
    e.stringOffset = c.strings.size();
    c.strings.append(piece.strings, localStrings, std::uint64_t{e.idLength} + e.titleLength);
    const std::uint64_t localParagraphs = e.firstParagraph;
    e.firstParagraph = c.paragraphs.size();
    c.paragraphs.insert(
        c.paragraphs.end(), piece.paragraphs.begin() + static_cast<std::ptrdiff_t>(localParagraphs),
        piece.paragraphs.begin() + static_cast<std::ptrdiff_t>(localParagraphs + e.paragraphCount));
    c.entries.push_back(e);
    remember(c.entries.size() - 1);
    ++m_out.report.records;
  }

  std::string_view idOf(std::size_t i) const {
    const DocIndexEntry& e = m_out.content.entries[i];
    return std::string_view(m_out.content.strings).substr(e.stringOffset, e.idLength);
  }

  // The line of the document already holding `id`, if any (open addressing over positions + 1).
  std::optional<std::uint64_t> firstWithId(std::string_view id) const {
    if (m_slots.empty()) return std::nullopt;
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t s = fastHash64(id) & mask;; s = (s + 1) & mask) {
      if (m_slots[s] == 0) return std::nullopt;
      if (idOf(m_slots[s] - 1) == id) return m_out.content.entries[m_slots[s] - 1].line;
    }
  }

  void remember(std::size_t i) {
    if ((i + 1) * 2 > m_slots.size()) {
      std::vector<std::uint32_t> old;
      old.swap(m_slots);
      m_slots.assign(std::max<std::size_t>(1024, old.size() * 2), 0);
      for (std::uint32_t at : old)
        if (at) insert(at - 1);
    }
    insert(i);
  }

  void insert(std::size_t i) {
    const std::size_t mask = m_slots.size() - 1;
    std::size_t s = fastHash64(idOf(i)) & mask;
    while (m_slots[s] != 0) s = (s + 1) & mask;
    m_slots[s] = static_cast<std::uint32_t>(i + 1);
  }

  std::string m_file;
  CorpusLayout m_layout;
  const LoadOptions& m_options;
  CorpusScan& m_out;
  std::uint64_t m_lines = 0;
  std::vector<std::uint32_t> m_slots;
};

}  // namespace

CorpusScan scanCorpusFile(const std::filesystem::path& path, CorpusLayout layout,
                          const LoadOptions& options) {
  CorpusScan out;
  out.content.layout = layout;
  const std::string file = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  auto fatal = [&](std::string problem) {
    out.report.add({Severity::Error, file, 0, {}, std::move(problem)},
                   options.maxStoredDiagnostics);
    out.report.stopped = true;
    out.failed = true;
  };
  if (fd < 0) {
    fatal(std::string("cannot open: ") + std::strerror(errno));
    return out;
  }
  if (auto crOnly =
          checkLineEnds(path)) {  // every line would run into one: refused as LineReader does
    ::close(fd);
    fatal(*crOnly);
    return out;
  }
  const auto before = stampOf(fd);
  if (!before) {
    ::close(fd);
    fatal("cannot read the file's size and time");
    return out;
  }
  out.content.source = *before;
  const std::uint64_t size = before->size;

  std::vector<Piece> pieces(static_cast<std::size_t>((size + kPiece - 1) / kPiece));
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    pieces[i].start = i * kPiece;
    pieces[i].end = std::min(size, (i + 1) * kPiece);
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> bytesDone{0};
  std::mutex mutex;
  std::condition_variable finished;
  auto worker = [&] {
    CorpusRecordReader reader(layout, options.maxJsonDepth, file);
    Window window(fd, size);
    for (std::size_t i; !stop.load() && (i = next.fetch_add(1)) < pieces.size();) {
      readPiece(window, size, reader, options, pieces[i], stop);
      bytesDone += pieces[i].end - pieces[i].start;
      std::lock_guard lock(mutex);
      pieces[i].done = true;
      finished.notify_all();
    }
  };
  const unsigned threads = std::max(
      1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                             static_cast<unsigned>(std::max<std::size_t>(1, pieces.size()))));
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) workers.emplace_back(worker);

  // This thread joins the pieces in order as they finish and reports progress (callbacks never
  // run on a worker).
  Joiner joiner(path, layout, options, out);
  std::uint64_t reported = 0;  // progress never goes back (pieces finish out of order)
  auto progress = [&](std::uint64_t done) {
    reported = std::max(reported, done);
    return !options.progress || options.progress(reported, size);
  };
  if (!progress(0)) stop = true;
  for (std::size_t i = 0; i < pieces.size() && !stop.load(); ++i) {
    {
      std::unique_lock lock(mutex);
      while (!pieces[i].done) {
        finished.wait_for(lock, std::chrono::milliseconds(100));
        if (!pieces[i].done && options.progress) {
          lock.unlock();
          const bool goOn = progress(bytesDone.load());
          lock.lock();
          if (!goOn) {
            stop = true;
            break;
          }
        }
      }
    }
    if (stop.load()) break;
    if (!pieces[i].readError.empty()) {
      fatal(pieces[i].readError);
      stop = true;
      break;
    }
    if (!joiner.join(pieces[i])) stop = true;
    const std::uint64_t joined = pieces[i].end;
    pieces[i] = Piece{};  // its memory is given back as soon as it is joined
    if (!stop.load() && i + 1 < pieces.size() && !progress(joined)) stop = true;
  }
  const bool cancelled = stop.load() && !out.report.stopped;
  stop = true;
  for (auto& w : workers) w.join();
  const auto after = stampOf(fd);
  ::close(fd);
  if (cancelled) {
    out.report.cancelled = true;
    return out;
  }
  if (!out.report.stopped && (!after || !(*after == *before))) {
    fatal("changed while it was being read: load it again");
    return out;
  }
  // The last report can still cancel: nothing is written then.
  if (!out.report.stopped && !progress(size)) out.report.cancelled = true;
  return out;
}

}  // namespace ragscope::core
