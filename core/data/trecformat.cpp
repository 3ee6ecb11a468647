// TREC run readers (see core/data/README.md; the qrels reader is in trecqrels.cpp), following
// trec_eval's own parser where it defines behaviour: whitespace-separated fields, `#` lines and
// blank lines skipped, run fields after the sixth ignored (with a warning here).
//
// Runs can be hundreds of MB (7M lines). A regular file is cut into 8 MiB chunks (mapped, see
// filechunk.h) parsed on all cores. A run that is kept is read in two passes (see readRunFile):
// the first counts lines per qid, so that each ranking is allocated once at its exact size in the
// run's huge-page pool, the second writes every entry straight into its place. A run that is only
// streamed (evaluated as read) takes one pass when each query's lines are together (runstream.cpp)
// and falls back to the two passes otherwise. Standard input is read in blocks whose two halves are
// parsed on two threads and appended in file order. The line parser is in runchunkparser.h.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/data/filechunk.h"
#include "core/data/linefields.h"
#include "core/data/linereader.h"
#include "core/data/loaders.h"
#include "core/data/runchunkparser.h"
#include "core/data/runstream.h"
#include "core/data/textcheck.h"
#include "core/data/trecid.h"
#include "core/util/bytes.h"
#include "core/util/inputfile.h"

namespace ragscope::core {

namespace {

using namespace runparse;

constexpr std::size_t kBlockBytes = std::size_t{16} << 20;
// Below this a block is parsed on one thread: starting a thread costs more than it saves.
constexpr std::size_t kSplitThreshold = std::size_t{1} << 20;

// ---- Standard input: read in blocks, two halves of each block parsed on two threads ----------

// Appends parsed blocks to the run (file order), fixing line numbers to absolute ones.
class RunAssembler {
 public:
  explicit RunAssembler(Run& run) : m_run(run) {}

  void append(const StreamSink& chunk, std::uint64_t lineBase) {
    const auto base = static_cast<std::uint32_t>(lineBase);
    for (const auto& seg : chunk.segments) {
      if (seg.begin == seg.end) continue;  // no valid line
      Ranking& ranking = rankingFor(seg.qid);
      const std::size_t old = ranking.entries.size();
      ranking.entries.insert(ranking.entries.end(),
                             chunk.entries.begin() + static_cast<std::ptrdiff_t>(seg.begin),
                             chunk.entries.begin() + static_cast<std::ptrdiff_t>(seg.end));
      for (std::size_t k = old; k < ranking.entries.size(); ++k) ranking.entries[k].line += base;
    }
  }

 private:
  Ranking& rankingFor(const std::string& qid) {
    auto it = m_index.find(qid);
    if (it == m_index.end()) {
      it = m_index.emplace(qid, m_run.rankings.size()).first;
      m_run.rankings.push_back(Ranking{qid, RunEntries(PoolAllocator<RunEntry>())});
    }
    return m_run.rankings[it->second];
  }

  Run& m_run;
  std::unordered_map<std::string, std::size_t> m_index;
};

void readRunStream(std::FILE* fp, std::uint64_t total, const std::filesystem::path& path,
                   const LoadOptions& options, Run& run, LoadReport& report) {
  const std::string file = path.string();
  const RunParseContext ctx{options.onError, options.maxLineBytes,
                            options.onError == OnError::Skip ? options.maxErrors : 0};
  RunAssembler assembler(run);
  StringArena helperArena;  // the second parser thread's docnos; adopted by the run at the end
  ChunkStats firstStats, secondStats;
  StreamSink first, second;
  first.arena = run.arena.get();
  second.arena = &helperArena;

  std::vector<char> buf(kBlockBytes);
  std::size_t have = 0;        // bytes in buf
  std::uint64_t lineBase = 0;  // lines fully consumed before buf[0]
  std::uint64_t consumed = 0;  // bytes consumed (for progress)
  bool eof = false;
  bool firstRead = true;
  bool discarding = false;       // skipping the rest of an over-long line
  bool lineEndsChecked = false;  // the first block was looked at for CR-only line ends

  auto parseAndAppend = [&](const char* b, const char* e) {
    const std::size_t size = static_cast<std::size_t>(e - b);
    firstStats.clear();
    secondStats.clear();
    first.clear();
    second.clear();
    const char* mid = e;
    if (size >= kSplitThreshold) {
      const char* m = b + size / 2;
      const char* nl =
          static_cast<const char*>(std::memchr(m, '\n', static_cast<std::size_t>(e - m)));
      if (nl && nl + 1 < e) mid = nl + 1;
    }
    if (mid < e) {
      std::thread helper([&] { parseRunChunk(mid, e, ctx, secondStats, second); });
      parseRunChunk(b, mid, ctx, firstStats, first);
      helper.join();
    } else {
      parseRunChunk(b, e, ctx, firstStats, first);
    }
    first.finish();
    second.finish();
    if (run.tag.empty())
      run.tag = !firstStats.firstTag.empty() ? firstStats.firstTag : secondStats.firstTag;
    const bool more = mergeChunkStats(firstStats, lineBase, report, options, file);
    assembler.append(first, lineBase);
    if (!more) return;
    if (mid < e) {
      if (mergeChunkStats(secondStats, lineBase + firstStats.lines, report, options, file))
        assembler.append(second, lineBase + firstStats.lines);
      lineBase += firstStats.lines + secondStats.lines;
    } else {
      lineBase += firstStats.lines;
    }
  };

  while (!report.stopped && !report.cancelled) {
    if (!eof && have < buf.size()) {
      std::size_t n = std::fread(buf.data() + have, 1, buf.size() - have, fp);
      if (n == 0) {
        if (std::ferror(fp)) {
          report.add({Severity::Error, file, lineBase + 1, "", "read error"},
                     options.maxStoredDiagnostics);
          report.stopped = true;
          break;
        }
        eof = true;
      }
      if (firstRead && n > 0) {
        firstRead = false;
        if (n >= 3 && static_cast<unsigned char>(buf[0]) == 0xEF &&
            static_cast<unsigned char>(buf[1]) == 0xBB &&
            static_cast<unsigned char>(buf[2]) == 0xBF) {
          std::memmove(buf.data(), buf.data() + 3, n - 3);
          n -= 3;
          consumed += 3;
        }
      }
      have += n;
      if (!eof && have < buf.size()) continue;  // short read: fill the block first
    }
    if (!lineEndsChecked) {
      lineEndsChecked = true;
      constexpr std::size_t kSniff = std::size_t{64} << 10;
      if (looksCrOnly(std::string_view(buf.data(), std::min(have, kSniff)))) {
        // Read as is, the whole file would be one line: one query, and a wrong answer.
        report.add({Severity::Error, file, 0, "", crOnlyProblem(path)},
                   options.maxStoredDiagnostics);
        report.stopped = true;
        break;
      }
    }
    if (discarding) {
      const char* nl = static_cast<const char*>(std::memchr(buf.data(), '\n', have));
      if (!nl) {
        consumed += have;
        have = 0;
        if (eof) break;
        continue;
      }
      const std::size_t skip = static_cast<std::size_t>(nl - buf.data()) + 1;
      consumed += skip;
      std::memmove(buf.data(), buf.data() + skip, have - skip);
      have -= skip;
      discarding = false;
    }
    if (have == 0) {
      if (eof) break;
      continue;
    }
    // Parse up to the last newline; keep the partial line for the next block.
    std::size_t cut = have;
    if (!eof) {
      const char* last = nullptr;
      for (std::size_t k = have; k > 0; --k)
        if (buf[k - 1] == '\n') {
          last = buf.data() + k - 1;
          break;
        }
      if (!last) {
        // One line fills the whole buffer: grow up to the line cap, then give up on that line.
        if (buf.size() < options.maxLineBytes + 2) {
          buf.resize(std::min(buf.size() * 2, options.maxLineBytes + 2));
          continue;
        }
        ++lineBase;
        report.add({Severity::Error, file, lineBase, "line",
                    "longer than " + std::to_string(options.maxLineBytes) + " bytes"},
                   options.maxStoredDiagnostics);
        if (options.onError == OnError::Stop) {
          report.stopped = true;
          break;
        }
        ++report.skipped;
        consumed += have;
        have = 0;
        discarding = true;
        continue;
      }
      cut = static_cast<std::size_t>(last - buf.data()) + 1;
    }
    parseAndAppend(buf.data(), buf.data() + cut);
    consumed += cut;
    std::memmove(buf.data(), buf.data() + cut, have - cut);
    have -= cut;
    if (options.progress && !options.progress(consumed, total)) {
      report.cancelled = true;
      break;
    }
    if (eof && have == 0) break;
  }
  run.arena->absorb(std::move(helperArena));
}

// ---- Regular files: chunks of the file parsed on all cores, in two passes
// ------------------------
//
// Pass 1 counts each chunk's lines per qid; from those counts every ranking gets its exact size in
// the run's pool, and every chunk the place its entries go. Pass 2 parses the chunks again and
// writes each entry straight into its place: no per-line allocation, no copy, no regrowth.

// Pass 1: (qid, number of lines) in file order, for every line that pass 2 hands to its sink's
// line(). Most lines repeat the qid of the line before: those are only found and counted. A line
// counted here that pass 2 then rejects (too long, a NUL byte) leaves a hole in its place, which
// pass 2 closes up; it never moves a line to another place.
struct CountSink {
  struct Count {
    std::string qid;
    std::size_t lines = 0;
  };
  std::vector<Count> counts;
  void line(std::string_view qid) {
    if (counts.empty() || !sameBytes(counts.back().qid, qid))
      counts.push_back({std::string(qid), 0});
    ++counts.back().lines;
  }
};

// Returns the number of lines in `text` (the last one ends at its end).
std::uint64_t countRunChunk(std::string_view text, std::size_t maxLineBytes, CountSink& sink) {
  const char* const end = text.data() + text.size();
  std::uint64_t lines = 0;
  LineFields fields;
  const char* p = text.data();
  while (p < end) {
    ++lines;
    if (!sink.counts.empty()) {
      const std::string& qid = sink.counts.back().qid;
      const auto left = static_cast<std::size_t>(end - p);
      if (left > qid.size() && isFieldSpace(p[qid.size()]) &&
          sameBytes(std::string_view(p, qid.size()), qid)) {
        ++sink.counts.back().lines;
        const char* nl =
            static_cast<const char*>(std::memchr(p + qid.size(), '\n', left - qid.size()));
        p = nl ? nl + 1 : end;
        continue;
      }
    }
    const char* lineStart = p;
    const char* lineEnd = nullptr;
    p = splitLine(p, end, fields, lineEnd);
    if (static_cast<std::size_t>(lineEnd - lineStart) > maxLineBytes || fields.nul) continue;
    if (fields.count == 0 || fields.field[0].front() == '#') continue;  // blank or comment
    sink.line(fields.field[0]);
  }
  return lines;
}

// Pass 2: each qid run of the chunk has its place in a ranking, found by pass 1.
struct Place {
  std::size_t ranking = 0;
  RunEntry* dest = nullptr;  // nullptr: streamed (the ranking's only place, handed to the visitor)
  std::size_t capacity = 0;  // lines pass 1 counted
  std::size_t filled = 0;    // valid entries written
};

// A worker's ranking being streamed: entries and docnos reused from one ranking to the next.
struct StreamedRanking {
  Ranking ranking;
  StringArena docnos;
};

struct PlaceSink {
  std::vector<Place>* places = nullptr;
  StringArena* arena = nullptr;         // docnos of places held in the run
  StreamedRanking* streamed = nullptr;  // streaming mode: the worker's reusable ranking
  const RankingVisitor* visit = nullptr;
  const std::vector<Ranking>* rankings = nullptr;
  std::size_t at = 0;
  std::string_view current;
  bool started = false;
  std::uint32_t lineBase = 0;

  void line(std::string_view qid) {
    if (started && sameBytes(qid, current)) return;
    if (started) {
      deliver();
      ++at;
    }
    started = true;
    current = qid;
  }
  void entry(std::string_view docno, std::uint32_t line, double score, bool /*inText*/) {
    Place& p = (*places)[at];
    if (p.filled >= p.capacity) return;
    ++p.filled;
    if (!p.dest) {
      const std::string_view doc = streamed->docnos.store(docno);
      streamed->ranking.entries.push_back(
          RunEntry{doc.data(), static_cast<std::uint32_t>(doc.size()), line + lineBase, score});
      return;
    }
    const std::string_view doc = arena->store(docno);
    p.dest[p.filled - 1] =
        RunEntry{doc.data(), static_cast<std::uint32_t>(doc.size()), line + lineBase, score};
  }
  // A streamed place is complete when its qid's lines end: hand it over, then reuse the memory.
  void deliver() {
    if (!started || !streamed || at >= places->size() || (*places)[at].dest) return;
    Ranking& r = streamed->ranking;
    if (!r.entries.empty()) {
      r.queryId = (*rankings)[(*places)[at].ranking].queryId;
      (*visit)(viewOf(r));
    }
    r.entries.clear();
    streamed->docnos.recycle();
  }
};

struct ChunkWork {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  ChunkStats stats;  // pass 2's (pass 1 only counts lines)
  std::uint64_t lines = 0;
  std::vector<CountSink::Count> counts;
  std::vector<Place> places;
  StringArena arena;
  std::string error;
};

// Streaming (visit set): a ranking with a single place is parsed into the worker's reusable
// ranking and handed over as soon as its lines end; the others are held in the run, then handed
// over.
void readRunFile(int fd, std::uint64_t size, const std::filesystem::path& path,
                 const LoadOptions& options, Run& run, LoadReport& report,
                 const RankingVisitor* visit, const std::function<void()>* restart) {
  const std::string file = path.string();
  // Byte order mark and CR-only line ends, from the head of the file.
  std::uint64_t dataStart = 0;
  {
    std::vector<char> head(static_cast<std::size_t>(std::min<std::uint64_t>(size, 64 << 10)));
    const ssize_t n = ::pread(fd, head.data(), head.size(), 0);
    if (n < 0) {
      report.add({Severity::Error, file, 0, "", std::string("read error: ") + std::strerror(errno)},
                 options.maxStoredDiagnostics);
      report.stopped = true;
      return;
    }
    head.resize(static_cast<std::size_t>(n));
    if (head.size() >= 3 && static_cast<unsigned char>(head[0]) == 0xEF &&
        static_cast<unsigned char>(head[1]) == 0xBB && static_cast<unsigned char>(head[2]) == 0xBF)
      dataStart = 3;
    if (looksCrOnly(std::string_view(head.data(), head.size()))) {
      // Read as is, the whole file would be one line: one query, and a wrong answer.
      report.add({Severity::Error, file, 0, "", crOnlyProblem(path)}, options.maxStoredDiagnostics);
      report.stopped = true;
      return;
    }
  }
  if (visit) {
    if (streamRunFileOnePass(fd, dataStart, size, file, options, run, report, *visit)) return;
    // A query's lines are in several places: what was handed over is void; two passes now.
    if (restart && *restart) (*restart)();
  }
  std::vector<ChunkWork> chunks;
  for (std::uint64_t at = dataStart; at < size; at += kChunkBytes) {
    chunks.emplace_back();
    chunks.back().from = at;
    chunks.back().to = std::min(size, at + kChunkBytes);
  }
  const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
  const RunParseContext ctx{options.onError, options.maxLineBytes,
                            options.onError == OnError::Skip ? options.maxErrors : 0};
  // What a worker reuses from chunk to chunk: the bytes read, and the ranking being streamed.
  struct Workspace {
    ByteBuffer buf;
    StreamedRanking streamed;
  };
  std::vector<Workspace> workspaces(threads);
  std::mutex workspaceMutex;
  std::vector<Workspace*> freeWorkspaces;
  for (auto& w : workspaces) freeWorkspaces.push_back(&w);
  auto withWorkspace = [&](auto&& use) {
    Workspace* w;
    {
      std::lock_guard lock(workspaceMutex);
      w = freeWorkspaces.back();
      freeWorkspaces.pop_back();
    }
    use(*w);
    // A chunk that ends in a very long line grows its buffer up to the line cap (64 MiB by
    // default). That buffer is not kept for the worker's next chunk: long lines then cost one
    // such buffer at a time, not one per worker and pass.
    if (w->buf.size() > 4 * kChunkBytes) w->buf = ByteBuffer();
    std::lock_guard lock(workspaceMutex);
    freeWorkspaces.push_back(w);
  };
  const std::size_t steps = chunks.size() * 2;
  auto progressAt = [&](std::size_t offset) -> std::function<bool(std::size_t)> {
    if (!options.progress) return {};
    return [&, offset](std::size_t done) {
      return options.progress(size * (offset + done) / steps, size);
    };
  };

  // Pass 1: lines per qid.
  if (!forEachChunk(chunks.size(), threads, progressAt(0), [&](std::size_t i) {
        ChunkWork& c = chunks[i];
        withWorkspace([&](Workspace& w) {
          FileChunk chunk;
          if (!chunk.read(fd, dataStart, c.from, c.to, size, options.maxLineBytes, w.buf, c.error))
            return;
          CountSink counter;
          c.lines = countRunChunk(chunk.body(), options.maxLineBytes, counter) +
                    countRunChunk(chunk.last(), options.maxLineBytes, counter);
          c.counts = std::move(counter.counts);
        });
      })) {
    report.cancelled = true;
    return;
  }
  for (const auto& c : chunks)
    if (!c.error.empty()) {
      report.add({Severity::Error, file, 0, "", c.error}, options.maxStoredDiagnostics);
      report.stopped = true;
      return;
    }

  // Rankings are named by their ids: a qid written with escapes (trecid.h) is decoded, and lines
  // of the same id written two ways go to one ranking.
  for (auto& c : chunks)
    for (auto& count : c.counts)
      if (count.qid.find('%') != std::string::npos && hasTrecEscape(count.qid))
        count.qid = decodeTrecId(count.qid);
  // Sizes: every ranking once, in order of first appearance, each with its exact size.
  std::unordered_map<std::string, std::size_t> index;
  std::vector<std::size_t> sizes;
  std::vector<std::size_t> placeCount;
  for (const auto& c : chunks)
    for (const auto& count : c.counts) {
      auto [it, inserted] = index.try_emplace(count.qid, sizes.size());
      if (inserted) {
        sizes.push_back(0);
        placeCount.push_back(0);
      }
      sizes[it->second] += count.lines;
      ++placeCount[it->second];
    }
  run.rankings.reserve(sizes.size());
  std::vector<std::string_view> names(sizes.size());
  for (const auto& [qid, at] : index) names[at] = qid;
  const PoolAllocator<RunEntry> alloc(run.pool.get());
  auto streamed = [&](std::size_t r) { return visit && placeCount[r] == 1; };
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    run.rankings.push_back(Ranking{std::string(names[r]), RunEntries(alloc)});
    if (!streamed(r)) run.rankings.back().entries.resize(sizes[r]);
  }
  std::vector<std::size_t> fill(sizes.size(), 0);
  std::vector<std::uint64_t> lineBase(chunks.size(), 0);
  std::uint64_t lines = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    lineBase[i] = lines;
    lines += chunks[i].lines;
    for (const auto& count : chunks[i].counts) {
      const std::size_t r = index[count.qid];
      chunks[i].places.push_back(
          {r, streamed(r) ? nullptr : run.rankings[r].entries.data() + fill[r], count.lines, 0});
      fill[r] += count.lines;
    }
    chunks[i].counts.clear();
    chunks[i].counts.shrink_to_fit();
  }
  if (lines > 0xffffffffull) {
    report.add({Severity::Error, file, 0, "", "more than 4294967295 lines"},
               options.maxStoredDiagnostics);
    report.stopped = true;
    return;
  }

  // Pass 2: parse, writing each entry into its place.
  if (!forEachChunk(chunks.size(), threads, progressAt(chunks.size()), [&](std::size_t i) {
        ChunkWork& c = chunks[i];
        withWorkspace([&](Workspace& w) {
          FileChunk chunk;
          if (!chunk.read(fd, dataStart, c.from, c.to, size, options.maxLineBytes, w.buf, c.error))
            return;
          // Held rankings' docnos: one region for the chunk when the whole run is held; when
          // streaming, the few held ones (crossing a chunk's end) grow the arena from 64 KiB.
          if (!visit) c.arena.reserve(chunk.body().size() + chunk.last().size());
          PlaceSink sink;
          sink.places = &c.places;
          sink.arena = &c.arena;
          sink.lineBase = static_cast<std::uint32_t>(lineBase[i]);
          if (visit) {
            sink.streamed = &w.streamed;
            sink.visit = visit;
            sink.rankings = &run.rankings;
          }
          parseRunChunk(chunk.body(), ctx, c.stats, sink);
          if (!c.stats.stopped) parseRunChunk(chunk.last(), ctx, c.stats, sink);
          if (!c.stats.stopped) sink.deliver();
          w.streamed.ranking.entries.clear();
          w.streamed.docnos.recycle();
        });
      })) {
    report.cancelled = true;
    run.rankings.clear();  // partly written
    return;
  }
  if (options.progress && !options.progress(size, size)) {
    report.cancelled = true;
    return;
  }
  // Diagnostics in file order; the load ends at the first error (Stop) or after too many (Skip),
  // and what later chunks parsed is dropped, as a sequential read would never have read it.
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    bool more = true;
    if (!chunks[i].error.empty()) {
      report.add({Severity::Error, file, lineBase[i] + 1, "", chunks[i].error},
                 options.maxStoredDiagnostics);
      report.stopped = true;
      more = false;
    } else {
      more = mergeChunkStats(chunks[i].stats, lineBase[i], report, options, file);
    }
    if (!more) {
      for (std::size_t j = i + 1; j < chunks.size(); ++j)
        for (auto& p : chunks[j].places) p.filled = 0;
      break;
    }
  }
  for (const auto& c : chunks)
    if (run.tag.empty() && !c.stats.firstTag.empty()) run.tag = c.stats.firstTag;
  // Lines that were not valid entries leave holes at the end of their places: close them up, and
  // drop rankings left with no entry (a qid all of whose lines were bad), as the stream reader.
  bool anyHole = false;
  for (const auto& c : chunks)
    for (const auto& p : c.places) anyHole = anyHole || (p.dest && p.filled < p.capacity);
  if (anyHole) {
    std::vector<std::size_t> kept(run.rankings.size(), 0);
    for (const auto& c : chunks)
      for (const auto& p : c.places) {
        if (!p.dest) continue;  // streamed, handed over already
        RunEntry* base = run.rankings[p.ranking].entries.data();
        if (base + kept[p.ranking] != p.dest)
          std::memmove(base + kept[p.ranking], p.dest, p.filled * sizeof(RunEntry));
        kept[p.ranking] += p.filled;
      }
    for (std::size_t r = 0; r < run.rankings.size(); ++r) run.rankings[r].entries.resize(kept[r]);
    run.rankings.erase(std::remove_if(run.rankings.begin(), run.rankings.end(),
                                      [](const Ranking& r) { return r.entries.empty(); }),
                       run.rankings.end());
  }
  for (auto& c : chunks) run.arena->absorb(std::move(c.arena));
  if (visit) {
    // The rankings held (lines in several places of the file) go now, on all cores.
    std::vector<std::size_t> held;
    for (std::size_t r = 0; r < run.rankings.size(); ++r)
      if (!run.rankings[r].entries.empty()) held.push_back(r);
    if (!report.stopped && !report.cancelled)
      forEachChunk(held.size(), threads, {},
                   [&](std::size_t k) { (*visit)(viewOf(run.rankings[held[k]])); });
    run.rankings.clear();
  }
}

Loaded<Run> readRunWith(const std::filesystem::path& path, const LoadOptions& options,
                        const RankingVisitor* visit, const std::function<void()>* restart) {
  Loaded<Run> result;
  Run& run = result.value;
  LoadReport& report = result.report;
  const std::string file = path.string();
  run.source = file;

  std::string openError;
  std::uint64_t total = 0;
  std::FILE* fp = openForReading(path, openError, total);
  if (!fp) {
    report.add({Severity::Error, file, 0, "", openError}, options.maxStoredDiagnostics);
    report.stopped = true;
    return result;
  }
  if (isStdinPath(path))
    readRunStream(fp, total, path, options, run, report);
  else
    readRunFile(fileno(fp), total, path, options, run, report, visit, restart);
  std::fclose(fp);
  if (run.tag.empty()) run.tag = path.filename().string();
  if (report.records == 0 && !report.hasErrors() && report.ok()) {
    // trec_eval refuses such a file; evaluating it would print zeros for every query.
    report.add({Severity::Error, file, 0, "",
                "no result lines: the file is empty or holds only comments and blank lines"},
               options.maxStoredDiagnostics);
    report.stopped = true;
  }
  if (visit && isStdinPath(path)) {
    if (report.ok()) {
      for (const auto& r : run.rankings) (*visit)(viewOf(r));
    }
    run.rankings.clear();
  }
  return result;
}

}  // namespace

Loaded<Run> readTrecRun(const std::filesystem::path& path, const LoadOptions& options) {
  return readRunWith(path, options, nullptr, nullptr);
}

Loaded<Run> streamTrecRun(const std::filesystem::path& path, const LoadOptions& options,
                          const RankingVisitor& visit, const std::function<void()>& restart) {
  return readRunWith(path, options, &visit, &restart);
}

void checkRunDocnos(Run& run, LoadReport& report, const LoadOptions& options) {
  struct Repeat {
    std::uint64_t line;
    std::uint64_t firstLine;
    std::size_t ranking;
    std::size_t entry;
  };
  std::vector<Repeat> repeats;
  // Per ranking, an open-addressing table of entry indices (reused, no allocation per entry): a
  // hash map of views cost a third of the load time of a 2M-line run.
  constexpr std::uint32_t kEmpty = 0xffffffffu;
  std::vector<std::uint32_t> slots;
  const std::hash<std::string_view> hash;
  for (std::size_t r = 0; r < run.rankings.size(); ++r) {
    const auto& entries = run.rankings[r].entries;
    std::size_t capacity = 16;
    while (capacity < 2 * entries.size()) capacity *= 2;
    slots.assign(capacity, kEmpty);
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const std::string_view doc = entries[k].docId();
      for (std::size_t at = hash(doc) & (capacity - 1);; at = (at + 1) & (capacity - 1)) {
        if (slots[at] == kEmpty) {
          slots[at] = static_cast<std::uint32_t>(k);
          break;
        }
        const RunEntry& first = entries[slots[at]];
        if (first.docId() == doc) {
          repeats.push_back({entries[k].line, first.line, r, k});
          break;
        }
      }
    }
  }
  if (repeats.empty()) return;
  std::sort(repeats.begin(), repeats.end(),
            [](const Repeat& a, const Repeat& b) { return a.line < b.line; });
  std::vector<std::vector<std::size_t>> drop(run.rankings.size());
  for (const Repeat& rep : repeats) {
    const Ranking& ranking = run.rankings[rep.ranking];
    // The words of eval's evaluator (core/metrics/retrievalevaluator.cpp), so both agree.
    report.add({Severity::Error, run.source, rep.line, "docno",
                "'" + std::string(ranking.entries[rep.entry].docId()) +
                    "' retrieved twice for query '" + ranking.queryId + "' (lines " +
                    std::to_string(rep.firstLine) + " and " + std::to_string(rep.line) + ")"},
               options.maxStoredDiagnostics);
    if (options.onError == OnError::Stop) {
      report.stopped = true;
      return;
    }
    ++report.skipped;
    drop[rep.ranking].push_back(rep.entry);
    if (report.tooManyErrors(options, run.source, rep.line)) return;
  }
  for (std::size_t r = 0; r < drop.size(); ++r) {
    if (drop[r].empty()) continue;
    std::sort(drop[r].begin(), drop[r].end());
    auto& entries = run.rankings[r].entries;
    std::size_t out = 0, d = 0;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      if (d < drop[r].size() && drop[r][d] == k) {
        ++d;
        continue;
      }
      entries[out++] = entries[k];
    }
    entries.resize(out);
    report.records -= std::min<std::uint64_t>(report.records, drop[r].size());
  }
}

LoadReport loadTrecRun(const std::filesystem::path& path, Dataset& into,
                       const LoadOptions& options) {
  auto loaded = readTrecRun(path, options);
  if (loaded.report.ok()) checkRunDocnos(loaded.value, loaded.report, options);
  if (loaded.report.ok()) into.runs.push_back(std::move(loaded.value));
  return std::move(loaded.report);
}

}  // namespace ragscope::core
