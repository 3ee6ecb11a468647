#include "core/data/runstream.h"

// Why one pass: the two-pass reader (trecformat.cpp) first counts every chunk's lines per qid so
// that a held run gets each ranking allocated once at its exact size. A streamed run keeps no
// ranking, and needs to know only where each one ends and each chunk's first line number: both
// are known once the chunks before it have been parsed. So chunks are parsed on all cores in any
// order and then put back in file order, a few at a time (a parsed chunk waits for the ones before
// it, and no thread runs more than a few chunks ahead, which bounds memory).

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "core/data/filechunk.h"
#include "core/data/runchunkparser.h"

namespace ragscope::core::runparse {

namespace {

// A chunk parsed and waiting for its turn: its bytes (kept mapped: the entries' docnos point into
// them), its entries (lines counted from the chunk's start) cut into runs of one qid, and what
// parsing found.
struct ParsedChunk {
  FileChunk bytes;
  ByteBuffer lastLine;  // the chunk's last line (FileChunk::last() points here)
  StringArena docnos;   // decoded (percent-escaped) docnos only
  StreamSink sink;
  ChunkStats stats;
  std::string error;

  ParsedChunk() {
    sink.arena = &docnos;
    sink.textOutlivesEntries = true;
  }
  void clear() {
    bytes.release();
    if (lastLine.size() > 4 * kChunkBytes) lastLine = ByteBuffer();  // a very long line's
    docnos.recycle();
    sink.clear();
    stats.clear();
    error.clear();
  }
};

// The ranking open at the end of the chunks put in order so far: it may go on in the next one.
struct Carry {
  std::string qid;
  std::vector<RunEntry> entries;  // lines already absolute
  StringArena docnos;

  void append(const std::vector<RunEntry>& from, const Segment& seg, std::uint64_t lineBase) {
    for (std::size_t k = seg.begin; k < seg.end; ++k) {
      RunEntry e = from[k];
      const std::string_view doc = docnos.store(e.docId());
      e.doc = doc.data();
      e.line += static_cast<std::uint32_t>(lineBase);
      entries.push_back(e);
    }
  }
};

// What one thread hands over after putting a chunk in order: the chunk's rankings that ended in
// it, and a carried ranking that ended there.
struct Handover {
  std::unique_ptr<ParsedChunk> chunk;
  std::uint64_t lineBase = 0;
  std::vector<std::size_t> segments;
  std::unique_ptr<Carry> carried;
};

class OnePassReader {
 public:
  OnePassReader(std::size_t chunks, unsigned threads, const RankingVisitor& visit)
      : m_parsed(chunks),
        m_lineBase(chunks, 0),
        m_stats(chunks),
        m_errors(chunks),
        m_visit(visit),
        m_window(2 * std::size_t{threads} + 2) {}

  // Waits until chunk i is at most a window ahead of the ones put in order; returns an empty
  // chunk to parse into, or nullptr when reading has stopped.
  std::unique_ptr<ParsedChunk> begin(std::size_t i) {
    std::unique_lock lock(m_mutex);
    m_turn.wait(lock, [&] { return m_stop || i < m_next + m_window; });
    if (m_stop) return nullptr;
    if (m_spare.empty()) return std::make_unique<ParsedChunk>();
    auto chunk = std::move(m_spare.back());
    m_spare.pop_back();
    return chunk;
  }

  // Chunk i is parsed: puts in order every chunk that can be, then hands over what ended.
  void finish(std::size_t i, std::unique_ptr<ParsedChunk> chunk) {
    std::vector<Handover> handovers;
    {
      std::lock_guard lock(m_mutex);
      m_parsed[i] = std::move(chunk);
      while (!m_stop && m_next < m_parsed.size() && m_parsed[m_next]) {
        putInOrder(m_next, handovers);
        ++m_next;
      }
    }
    m_turn.notify_all();
    for (auto& h : handovers) deliver(h);
    std::lock_guard lock(m_mutex);
    for (auto& h : handovers)
      if (h.chunk) {
        h.chunk->clear();
        m_spare.push_back(std::move(h.chunk));
      }
  }

  void stop() {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_turn.notify_all();
  }

  bool notGrouped() const { return m_notGrouped; }
  std::size_t ordered() const { return m_next; }
  std::uint64_t lineBase(std::size_t i) const { return m_lineBase[i]; }
  const ChunkStats& stats(std::size_t i) const { return m_stats[i]; }
  const std::string& error(std::size_t i) const { return m_errors[i]; }

 private:
  // Under the lock: chunk k's first line number, its rankings that end in it, and the carry.
  void putInOrder(std::size_t k, std::vector<Handover>& out) {
    std::unique_ptr<ParsedChunk> chunk = std::move(m_parsed[k]);
    m_lineBase[k] = m_lines;
    if (!chunk->error.empty()) {
      m_errors[k] = chunk->error;
      m_stop = true;
      return;
    }
    m_lines += chunk->stats.lines;
    if (m_lines > 0xffffffffull) {
      m_errors[k] = "more than 4294967295 lines";
      m_stop = true;
      return;
    }
    // A chunk whose parser stopped (the first error under Stop, or too many) is the last read.
    const bool last = k + 1 == m_parsed.size() || chunk->stats.stopped;
    Handover h;
    h.lineBase = m_lineBase[k];
    const auto& segments = chunk->sink.segments;
    std::size_t s = 0;
    if (m_carry && !segments.empty() && segments[0].qid == m_carry->qid) {
      m_carry->append(chunk->sink.entries, segments[0], h.lineBase);
      s = 1;
    }
    if (m_carry && (s < segments.size() || last)) {
      m_ended.insert(m_carry->qid);
      h.carried = std::move(m_carry);
    }
    for (; s < segments.size(); ++s) {
      const Segment& seg = segments[s];
      if (m_ended.count(seg.qid)) {
        m_notGrouped = true;
        m_stop = true;
        return;
      }
      if (s + 1 == segments.size() && !last) {
        m_carry = std::make_unique<Carry>();
        m_carry->qid = seg.qid;
        m_carry->append(chunk->sink.entries, seg, h.lineBase);
      } else {
        m_ended.insert(seg.qid);
        h.segments.push_back(s);
      }
    }
    if (last) m_stop = true;
    m_stats[k] = std::move(chunk->stats);
    h.chunk = std::move(chunk);
    out.push_back(std::move(h));
  }

  // Outside the lock: the handover's chunk belongs to this thread now.
  void deliver(Handover& h) {
    if (h.carried && !h.carried->entries.empty())
      m_visit(RankingView{h.carried->qid, {h.carried->entries.data(), h.carried->entries.size()}});
    if (!h.chunk) return;
    auto& entries = h.chunk->sink.entries;
    const auto base = static_cast<std::uint32_t>(h.lineBase);
    for (std::size_t s : h.segments) {
      const Segment& seg = h.chunk->sink.segments[s];
      if (seg.begin == seg.end) continue;  // a qid none of whose lines here was valid
      for (std::size_t k = seg.begin; k < seg.end; ++k) entries[k].line += base;
      m_visit(RankingView{seg.qid, {entries.data() + seg.begin, seg.end - seg.begin}});
    }
  }

  std::mutex m_mutex;
  std::condition_variable m_turn;
  std::vector<std::unique_ptr<ParsedChunk>> m_parsed;  // parsed, not yet in order
  std::vector<std::unique_ptr<ParsedChunk>> m_spare;
  std::vector<std::uint64_t> m_lineBase;
  std::vector<ChunkStats> m_stats;
  std::vector<std::string> m_errors;
  std::unordered_set<std::string> m_ended;  // qids whose ranking has ended
  std::unique_ptr<Carry> m_carry;
  std::size_t m_next = 0;  // the first chunk not yet in order
  std::uint64_t m_lines = 0;
  bool m_stop = false;
  bool m_notGrouped = false;
  const RankingVisitor& m_visit;
  const std::size_t m_window;
};

}  // namespace

bool streamRunFileOnePass(int fd, std::uint64_t dataStart, std::uint64_t size,
                          const std::string& file, const LoadOptions& options, Run& run,
                          LoadReport& report, const RankingVisitor& visit) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> chunks;
  for (std::uint64_t at = dataStart; at < size; at += kChunkBytes)
    chunks.emplace_back(at, std::min(size, at + kChunkBytes));
  const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
  const RunParseContext ctx{options.onError, options.maxLineBytes,
                            options.onError == OnError::Skip ? options.maxErrors : 0};
  OnePassReader reader(chunks.size(), threads, visit);
  std::function<bool(std::size_t)> progress;
  if (options.progress)
    progress = [&](std::size_t done) {
      return options.progress(size * done / chunks.size(), size);
    };

  const bool completed = forEachChunk(chunks.size(), threads, progress, [&](std::size_t i) {
    std::unique_ptr<ParsedChunk> parsed = reader.begin(i);
    if (!parsed) return;
    FileChunk& chunk = parsed->bytes;
    if (chunk.read(fd, dataStart, chunks[i].first, chunks[i].second, size, options.maxLineBytes,
                   parsed->lastLine, parsed->error)) {
      parseRunChunk(chunk.body(), ctx, parsed->stats, parsed->sink);
      if (!parsed->stats.stopped) parseRunChunk(chunk.last(), ctx, parsed->stats, parsed->sink);
      parsed->sink.finish();
    }
    reader.finish(i, std::move(parsed));
  });
  reader.stop();  // wakes any thread still waiting for its turn (after a cancel)
  if (reader.notGrouped()) return false;
  if (!completed) {
    report.cancelled = true;
    return true;
  }
  // Diagnostics in file order, up to where reading ended.
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (!reader.error(i).empty()) {
      report.add({Severity::Error, file, reader.lineBase(i) + 1, "", reader.error(i)},
                 options.maxStoredDiagnostics);
      report.stopped = true;
      break;
    }
    if (i >= reader.ordered()) break;
    if (run.tag.empty()) run.tag = reader.stats(i).firstTag;
    if (!mergeChunkStats(reader.stats(i), reader.lineBase(i), report, options, file)) break;
  }
  if (options.progress && !options.progress(size, size)) report.cancelled = true;
  return true;
}

}  // namespace ragscope::core::runparse
