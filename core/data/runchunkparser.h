#pragma once

// The parser of TREC run lines shared by the run readers (trecformat.cpp: standard input and the
// two-pass reader of regular files; runstream.cpp: the one-pass streaming reader). Internal to
// core/data: the public entry points are in loaders.h.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/linefields.h"
#include "core/data/model.h"
#include "core/data/textcheck.h"
#include "core/data/trecid.h"
#include "core/util/bytes.h"
#include "core/util/decimal.h"

namespace ragscope::core::runparse {

// Regular files are read in chunks of this many bytes, parsed on all cores.
constexpr std::uint64_t kChunkBytes = std::uint64_t{8} << 20;

// Shows at most `max` bytes of `s`, control bytes escaped (for messages).
std::string printable(std::string_view s, std::size_t max = 40);

// A problem found by a parser thread; the line is relative to the start of its chunk.
struct LocalDiag {
  Severity severity;
  std::uint64_t line;
  const char* field;
  std::string problem;
};

// What parsing a chunk found besides its entries. Diagnostics past kStoredPerKind of one kind
// (severity and field) are only counted: a file with the same warning on every line stays small.
struct ChunkStats {
  std::vector<LocalDiag> diags;
  std::map<std::pair<int, const char*>, std::size_t> perKind;
  std::uint64_t unstoredErrors = 0;
  std::uint64_t unstoredWarnings = 0;
  std::uint64_t lines = 0;  // newlines consumed (== lines, the chunk always ends on a line end)
  std::uint64_t skipped = 0;
  std::uint64_t records = 0;
  bool stopped = false;
  std::string firstTag;

  void add(LocalDiag d) {
    std::size_t& n = perKind[{static_cast<int>(d.severity), d.field}];
    if (n < LoadReport::kStoredPerKind) {
      ++n;
      diags.push_back(std::move(d));
    } else if (d.severity == Severity::Error) {
      ++unstoredErrors;
    } else {
      ++unstoredWarnings;
    }
  }
  void clear() { *this = ChunkStats{}; }
};

struct RunParseContext {
  OnError onError;
  std::size_t maxLineBytes;
  std::size_t maxErrors;  // a chunk stops after this many (LoadOptions::maxErrors; 0: no limit)
};

// Ids are bytes to trec_eval, but JSON and the views show text: an id that is not UTF-8 is named
// (a warning) so that the U+FFFD it becomes in JSON output is no surprise.
constexpr std::size_t kMaxUtf8WarningsPerChunk = 100;

std::string utf8Problem(const std::string& why);

// Parses [begin, end): whole lines, the last one ends at `end` (with or without its newline).
// Every line that is neither blank nor a comment is announced to the sink with its qid
// (sink.line) before it is checked, and valid ones are then handed over (sink.entry: docno bytes,
// line, score, and whether the docno bytes lie in [begin, end) or in a temporary (a decoded id)).
template <class Sink>
void parseRunChunk(const char* begin, const char* end, const RunParseContext& ctx, ChunkStats& out,
                   Sink& sink) {
  // An empty chunk (a line that filled a whole chunk was read by the one before) may come as two
  // null pointers.
  if (begin == end) return;
  const char* p = begin;
  std::uint64_t line = out.lines;  // a chunk may come in two pieces: its lines go on counting
  std::size_t errors = 0;
  std::size_t utf8Warnings = 0;
  auto fail = [&](const char* field, std::string problem) {
    out.add({Severity::Error, line, field, std::move(problem)});
    if (ctx.onError == OnError::Stop || (ctx.maxErrors != 0 && ++errors >= ctx.maxErrors)) {
      out.stopped = true;
      return true;
    }
    ++out.skipped;
    return false;
  };
  LineFields fields;
  const std::string_view* f = fields.field;
  while (p < end) {
    const char* lineEnd = nullptr;
    const char* lineStart = p;
    p = splitLine(p, end, fields, lineEnd);
    ++line;
    std::string_view text(lineStart, static_cast<std::size_t>(lineEnd - lineStart));
    if (text.size() > ctx.maxLineBytes) {
      if (fail("line", "longer than " + std::to_string(ctx.maxLineBytes) + " bytes")) break;
      continue;
    }
    if (fields.nul) {
      if (fail("line", "contains a NUL byte (binary data?)")) break;
      continue;
    }
    // Fields: qid iter docno rank score tag [ignored...]
    const int n = fields.count;
    const std::size_t extra = fields.extra;
    if (n == 0) continue;               // blank line
    if (f[0].front() == '#') continue;  // comment line
    sink.line(f[0]);
    if (n < 6) {
      static const char* const names[] = {"qid", "iter", "docno", "rank", "score", "tag"};
      if (fail(names[n], "missing: line has " + std::to_string(n) +
                             " fields, a TREC run line needs 6 (qid Q0 docno rank score tag)"))
        break;
      continue;
    }
    double score = 0.0;
    const std::errc ec = parseDecimal(f[4], score);
    if (ec != std::errc() || std::isnan(score)) {
      if (ec == std::errc::result_out_of_range) {
        if (fail("score", "out of range: '" + printable(f[4]) + "'")) break;
      } else if (fail("score", "not a number: '" + printable(f[4]) + "'")) {
        break;
      }
      continue;
    }
    if (f[2].size() > 0xffffffffu) {
      if (fail("docno", "too long")) break;
      continue;
    }
    if (extra > 0)
      out.add({Severity::Warning, line, "line",
               std::to_string(extra) +
                   " extra field(s) after the run tag ignored (as trec_eval does)"});
    if (fields.high && utf8Warnings < kMaxUtf8WarningsPerChunk && checkText(text)) {
      static const char* const names[] = {"qid", "iter", "docno", "rank", "score", "tag"};
      for (int k : {0, 2, 5})
        if (auto bad = checkText(f[k]); bad && utf8Warnings++ < kMaxUtf8WarningsPerChunk)
          out.add({Severity::Warning, line, names[k], utf8Problem(*bad)});
    }
    if (out.firstTag.empty()) out.firstTag = std::string(f[5]);
    // Ids with blanks (PDF chunk ids) or '%' are written percent-encoded: see trecid.h.
    if (f[2].find('%') == std::string_view::npos || !hasTrecEscape(f[2]))
      sink.entry(f[2], static_cast<std::uint32_t>(line), score, true);
    else
      sink.entry(decodeTrecId(f[2]), static_cast<std::uint32_t>(line), score, false);
    ++out.records;
  }
  out.lines = line;
}

template <class Sink>
void parseRunChunk(std::string_view text, const RunParseContext& ctx, ChunkStats& out, Sink& sink) {
  parseRunChunk(text.data(), text.data() + text.size(), ctx, out, sink);
}

// Adds a chunk's diagnostics and counts to the report (file order, absolute lines). Returns false
// when the load ends there (the first error under OnError::Stop, or too many errors).
bool mergeChunkStats(const ChunkStats& chunk, std::uint64_t lineBase, LoadReport& report,
                     const LoadOptions& options, const std::string& file);

struct Segment {
  std::string qid;
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Entries in file order, cut into runs of one qid.
struct StreamSink {
  StringArena* arena = nullptr;
  // The parsed bytes outlive the entries (the one-pass reader keeps its chunk until the entries
  // are handed over): docnos found in them are pointed at, not copied.
  bool textOutlivesEntries = false;
  std::vector<RunEntry> entries;
  std::vector<Segment> segments;
  std::string_view current;  // the qid as written of the last segment
  std::string escapedQid;    // its bytes, when they hold an escape (segments hold it decoded)

  void line(std::string_view qid) {
    if (!segments.empty() && sameBytes(qid, current)) return;
    if (!segments.empty()) segments.back().end = entries.size();
    // Lines are grouped by their qid's bytes; the ranking is named by the id (trecid.h).
    if (qid.find('%') != std::string_view::npos && hasTrecEscape(qid)) {
      segments.push_back({decodeTrecId(qid), entries.size(), entries.size()});
      escapedQid.assign(qid);
      current = escapedQid;
    } else {
      segments.push_back({std::string(qid), entries.size(), entries.size()});
      current = segments.back().qid;
    }
  }
  void entry(std::string_view docno, std::uint32_t line, double score, bool inText) {
    const std::string_view doc = inText && textOutlivesEntries ? docno : arena->store(docno);
    entries.push_back(RunEntry{doc.data(), static_cast<std::uint32_t>(doc.size()), line, score});
  }
  void finish() {
    if (!segments.empty()) segments.back().end = entries.size();
  }
  void clear() {
    entries.clear();
    segments.clear();
    current = {};
  }
};

// Runs `job(i)` for i in [0, n) on `threads` threads (the caller's among them), in order of i;
// the caller reports progress between its jobs and stops everyone when asked to.
template <class Job>
bool forEachChunk(std::size_t n, unsigned threads, const std::function<bool(std::size_t)>& progress,
                  Job&& job) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<bool> cancelled{false};
  auto work = [&](bool caller) {
    for (;;) {
      if (cancelled.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      job(i);
      const std::size_t d = done.fetch_add(1) + 1;
      if (caller && progress && !progress(d)) cancelled = true;
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads && t < n; ++t) helpers.emplace_back(work, false);
  work(true);
  for (auto& h : helpers) h.join();
  return !cancelled;
}

}  // namespace ragscope::core::runparse
