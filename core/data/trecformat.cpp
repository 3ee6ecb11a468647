// TREC run and qrels readers (SPEC §3), following trec_eval's own parsers where they define
// behaviour: whitespace-separated fields, `#` lines and blank lines skipped, run fields after the
// sixth ignored (with a warning here), qrels `rel` read as an integer (`2.7` -> 2, as atol does).
//
// Runs can be hundreds of MB (7M lines), so the run reader reads big blocks (not the whole file,
// which would double the peak memory), cuts each block at a newline near its middle and parses
// the two halves on two threads. Each half keeps its docnos in its own arena and its entries in
// per-query segments; the halves are then appended in file order, so rankings keep file order.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/data/inputfile.h"
#include "core/data/linereader.h"
#include "core/data/loaders.h"
#include "core/data/textcheck.h"
#include "core/data/trecid.h"

namespace ragscope::core {

namespace {

constexpr std::size_t kBlockBytes = std::size_t{16} << 20;
// Below this a block is parsed on one thread: starting a thread costs more than it saves.
constexpr std::size_t kSplitThreshold = std::size_t{1} << 20;

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string printable(std::string_view s, std::size_t max = 40) {
  std::string out;
  for (char c : s.substr(0, max)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

// A problem found by a parser thread; the line is relative to the start of its chunk.
struct LocalDiag {
  Severity severity;
  std::uint64_t line;
  const char* field;
  std::string problem;
};

struct Segment {
  std::string_view qid;  // view into the block buffer (valid until the block is merged)
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct ChunkResult {
  std::vector<RunEntry> entries;
  std::vector<Segment> segments;
  std::vector<LocalDiag> diags;
  std::uint64_t lines = 0;  // newlines consumed (== lines, the chunk always ends on a line end)
  std::uint64_t skipped = 0;
  std::uint64_t records = 0;
  bool stopped = false;
  std::string_view firstTag;

  void clear() {
    entries.clear();
    segments.clear();
    diags.clear();
    lines = skipped = records = 0;
    stopped = false;
    firstTag = {};
  }
};

struct RunParseContext {
  OnError onError;
  std::size_t maxLineBytes;
  std::size_t maxErrors;  // a chunk stops after this many (LoadOptions::maxErrors; 0: no limit)
};

// Ids are bytes to trec_eval, but JSON and the views show text: an id that is not UTF-8 is named
// (a warning) so that the U+FFFD it becomes in JSON output is no surprise.
constexpr std::size_t kMaxUtf8WarningsPerChunk = 100;

std::string utf8Problem(const std::string& why) {
  return why + "; JSON output shows U+FFFD in its place";
}

// Parses [begin, end): whole lines, the last one ends at `end` (with or without its newline).
void parseRunChunk(const char* begin, const char* end, const RunParseContext& ctx,
                   StringArena& arena, ChunkResult& out) {
  const bool hasNul = std::memchr(begin, '\0', static_cast<std::size_t>(end - begin)) != nullptr;
  const char* p = begin;
  std::uint64_t line = 0;
  std::string_view currentQid;
  std::size_t errors = 0;
  std::size_t utf8Warnings = 0;
  auto fail = [&](const char* field, std::string problem) {
    out.diags.push_back({Severity::Error, line, field, std::move(problem)});
    if (ctx.onError == OnError::Stop || (ctx.maxErrors != 0 && ++errors >= ctx.maxErrors)) {
      out.stopped = true;
      return true;
    }
    ++out.skipped;
    return false;
  };
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* lineEnd = nl ? nl : end;
    const char* next = nl ? nl + 1 : end;
    ++line;
    std::string_view text(p, static_cast<std::size_t>(lineEnd - p));
    p = next;
    if (text.size() > ctx.maxLineBytes) {
      if (fail("line", "longer than " + std::to_string(ctx.maxLineBytes) + " bytes")) break;
      continue;
    }
    if (hasNul && text.find('\0') != std::string_view::npos) {
      if (fail("line", "contains a NUL byte (binary data?)")) break;
      continue;
    }
    // Fields: qid iter docno rank score tag [ignored...]
    std::string_view f[6];
    int n = 0;
    std::size_t extra = 0;
    std::size_t i = 0;
    const std::size_t len = text.size();
    while (i < len) {
      while (i < len && isSpace(text[i])) ++i;
      if (i >= len) break;
      std::size_t j = i;
      while (j < len && !isSpace(text[j])) ++j;
      if (n < 6)
        f[n++] = text.substr(i, j - i);
      else
        ++extra;
      i = j;
    }
    if (n == 0) continue;              // blank line
    if (f[0].front() == '#') continue;  // comment line
    if (n < 6) {
      static const char* const names[] = {"qid", "iter", "docno", "rank", "score", "tag"};
      if (fail(names[n], "missing: line has " + std::to_string(n) +
                             " fields, a TREC run line needs 6 (qid Q0 docno rank score tag)"))
        break;
      continue;
    }
    double score = 0.0;
    auto [ptr, ec] = std::from_chars(f[4].data(), f[4].data() + f[4].size(), score);
    if (ec != std::errc() || ptr != f[4].data() + f[4].size() || std::isnan(score)) {
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
      out.diags.push_back({Severity::Warning, line, "line",
                           std::to_string(extra) + " extra field(s) after the run tag ignored "
                                                   "(as trec_eval does)"});
    if (utf8Warnings < kMaxUtf8WarningsPerChunk && checkText(text)) {
      static const char* const names[] = {"qid", "iter", "docno", "rank", "score", "tag"};
      for (int k : {0, 2, 5})
        if (auto bad = checkText(f[k]); bad && utf8Warnings++ < kMaxUtf8WarningsPerChunk)
          out.diags.push_back({Severity::Warning, line, names[k], utf8Problem(*bad)});
    }
    if (out.firstTag.empty()) out.firstTag = f[5];
    if (f[0] != currentQid) {
      if (!out.segments.empty()) out.segments.back().end = out.entries.size();
      out.segments.push_back({f[0], out.entries.size(), out.entries.size()});
      currentQid = f[0];
    }
    // Ids with blanks (PDF chunk ids) are written percent-encoded: see trecid.h.
    std::string_view doc = f[2].find('%') == std::string_view::npos || !hasTrecEscape(f[2])
                               ? arena.store(f[2])
                               : arena.store(decodeTrecId(f[2]));
    out.entries.push_back(
        RunEntry{doc.data(), static_cast<std::uint32_t>(doc.size()), static_cast<std::uint32_t>(line), score});
    ++out.records;
  }
  if (!out.segments.empty()) out.segments.back().end = out.entries.size();
  out.lines = line;
}

// Appends a parsed chunk to the run (file order), fixing line numbers to absolute ones.
class RunAssembler {
 public:
  RunAssembler(Run& run, LoadReport& report, const LoadOptions& options, std::string file)
      : m_run(run), m_report(report), m_options(options), m_file(std::move(file)) {}

  void append(const ChunkResult& chunk, std::uint64_t lineBase) {
    const bool skip = m_options.onError == OnError::Skip;
    for (const auto& d : chunk.diags) {
      m_report.add({d.severity, m_file, lineBase + d.line, d.field, d.problem},
                   m_options.maxStoredDiagnostics);
      if (!skip || d.severity != Severity::Error) continue;
      ++m_report.skipped;
      if (m_report.tooManyErrors(m_options, m_file, lineBase + d.line)) break;
    }
    m_report.records += chunk.records;
    if (chunk.stopped) m_report.stopped = true;
    if (m_run.tag.empty() && !chunk.firstTag.empty()) m_run.tag = std::string(chunk.firstTag);
    const auto base = static_cast<std::uint32_t>(lineBase);
    for (const auto& seg : chunk.segments) {
      Ranking& ranking = rankingFor(seg.qid);
      const std::size_t old = ranking.entries.size();
      ranking.entries.insert(ranking.entries.end(), chunk.entries.begin() + seg.begin,
                             chunk.entries.begin() + seg.end);
      for (std::size_t k = old; k < ranking.entries.size(); ++k) ranking.entries[k].line += base;
    }
  }

 private:
  Ranking& rankingFor(std::string_view qid) {
    if (m_last && m_last->queryId == qid) return *m_last;
    auto it = m_index.find(std::string(qid));
    if (it == m_index.end()) {
      it = m_index.emplace(std::string(qid), m_run.rankings.size()).first;
      m_run.rankings.push_back(Ranking{std::string(qid), {}});
    }
    m_last = &m_run.rankings[it->second];
    return *m_last;
  }

  Run& m_run;
  LoadReport& m_report;
  const LoadOptions& m_options;
  std::string m_file;
  std::unordered_map<std::string, std::size_t> m_index;
  Ranking* m_last = nullptr;  // rankings only grow at the end; pointer refreshed on every miss
};

}  // namespace

Loaded<Run> readTrecRun(const std::filesystem::path& path, const LoadOptions& options) {
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

  const RunParseContext ctx{options.onError, options.maxLineBytes, options.maxErrors};
  RunAssembler assembler(run, report, options, file);
  StringArena helperArena;  // the second parser thread's docnos; adopted by the run at the end
  ChunkResult first, second;

  // A whole block for big files; a small file gets a buffer its size (it grows for a long line
  // as any block does) instead of 16 MiB zero-filled for a few lines.
  std::vector<char> buf(static_cast<std::size_t>(
      std::clamp<std::uint64_t>(total + 1, std::uint64_t{64} << 10, kBlockBytes)));
  std::size_t have = 0;          // bytes in buf
  std::uint64_t lineBase = 0;    // lines fully consumed before buf[0]
  std::uint64_t consumed = 0;    // bytes consumed (for progress)
  bool eof = false;
  bool firstRead = true;
  bool discarding = false;       // skipping the rest of an over-long line
  bool lineEndsChecked = false;  // the first block was looked at for CR-only line ends

  auto parseAndAppend = [&](const char* b, const char* e) {
    const std::size_t size = static_cast<std::size_t>(e - b);
    first.clear();
    second.clear();
    const char* mid = e;
    if (size >= kSplitThreshold) {
      const char* m = b + size / 2;
      const char* nl = static_cast<const char*>(std::memchr(m, '\n', static_cast<std::size_t>(e - m)));
      if (nl && nl + 1 < e) mid = nl + 1;
    }
    if (mid < e) {
      std::thread helper([&] { parseRunChunk(mid, e, ctx, helperArena, second); });
      parseRunChunk(b, mid, ctx, *run.arena, first);
      helper.join();
    } else {
      parseRunChunk(b, e, ctx, *run.arena, first);
    }
    assembler.append(first, lineBase);
    if (report.stopped) return;
    if (mid < e) {
      assembler.append(second, lineBase + first.lines);
      lineBase += first.lines + second.lines;
    } else {
      lineBase += first.lines;
    }
  };

  while (!report.stopped && !report.cancelled) {
    if (!eof && have < buf.size()) {
      std::size_t n = std::fread(buf.data() + have, 1, buf.size() - have, fp);
      if (n == 0) {
        if (std::ferror(fp)) {
          report.add({Severity::Error, file, lineBase + 1, "", "read error"}, options.maxStoredDiagnostics);
          report.stopped = true;
          break;
        }
        eof = true;
      }
      if (firstRead && n > 0) {
        firstRead = false;
        if (n >= 3 && static_cast<unsigned char>(buf[0]) == 0xEF &&
            static_cast<unsigned char>(buf[1]) == 0xBB && static_cast<unsigned char>(buf[2]) == 0xBF) {
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
        report.add({Severity::Error, file, 0, "", crOnlyProblem(path)}, options.maxStoredDiagnostics);
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
  std::fclose(fp);
  run.arena->absorb(std::move(helperArena));
  if (run.tag.empty()) run.tag = path.filename().string();
  if (report.records == 0 && !report.hasErrors() && report.ok()) {
    // trec_eval refuses such a file; evaluating it would print zeros for every query.
    report.add({Severity::Error, file, 0, "", "no result lines: the file is empty or holds only comments and blank lines"},
               options.maxStoredDiagnostics);
    report.stopped = true;
  }
  return result;
}

Loaded<Qrels> readTrecQrels(const std::filesystem::path& path, const LoadOptions& options) {
  Loaded<Qrels> result;
  Qrels& qrels = result.value;
  LoadReport& report = result.report;
  const std::string file = path.string();
  qrels.source = file;

  // (qid, docno) -> line of its first judgment, to name both lines of a duplicate.
  std::unordered_map<std::string, std::uint64_t> seen;
  std::vector<std::string_view> fields;
  std::string key;
  auto fail = [&](std::uint64_t at, const char* field, std::string problem) {
    return recordLineError(report, options, file, at, field, std::move(problem));
  };
  readLoaderLines(path, options, report, [&](std::uint64_t at,
                                                               std::string_view line) {
    if (line.find('\0') != std::string_view::npos)
      return !fail(at, "line", "contains a NUL byte (binary data?)");
    splitWhitespace(line, fields);
    if (fields.empty()) return true;
    if (fields[0].front() == '#') return true;
    if (fields.size() != 4) {
      static const char* const names[] = {"qid", "iter", "docno", "rel"};
      const char* field = fields.size() < 4 ? names[fields.size()] : "line";
      return !fail(at, field,
                   fields.size() < 4
                       ? "missing: line has " + std::to_string(fields.size()) +
                             " fields, a qrels line needs 4 (qid iter docno rel)"
                       : "line has " + std::to_string(fields.size()) +
                             " fields, a qrels line has exactly 4 (qid iter docno rel)");
    }
    const std::string_view relText = fields[3];
    long rel = 0;
    auto [ptr, ec] = std::from_chars(relText.data(), relText.data() + relText.size(), rel);
    if (ec != std::errc() || ptr != relText.data() + relText.size()) {
      double value = 0.0;
      auto [p2, ec2] = std::from_chars(relText.data(), relText.data() + relText.size(), value);
      if (ec2 != std::errc() || p2 != relText.data() + relText.size() || !std::isfinite(value) ||
          std::fabs(value) > 1e9) {
        return !fail(at, "rel", "not an integer: '" + printable(relText) + "'");
      }
      rel = static_cast<long>(std::trunc(value));
      report.add({Severity::Warning, file, at, "rel",
                  "'" + std::string(relText) + "' is not an integer; truncated to " +
                      std::to_string(rel) + " (as trec_eval does)"},
                 options.maxStoredDiagnostics);
    } else if (rel > 1000000000L || rel < -1000000000L) {
      return !fail(at, "rel", "out of range: '" + printable(relText) + "'");
    }
    if (rel > 0) qrels.positiveLines = qrels.positiveLines.value_or(0) + 1;
    key.assign(fields[0]);
    key.push_back('\0');
    key.append(fields[2]);
    auto [it, inserted] = seen.try_emplace(key, at);
    if (!inserted) {
      return !fail(at, "docno",
                   "'" + printable(fields[2]) + "' judged twice for query '" +
                       printable(fields[0]) + "' (lines " + std::to_string(it->second) + " and " +
                       std::to_string(at) + ")");
    }
    for (int k : {0, 2})
      if (auto bad = checkText(fields[k]))
        report.add({Severity::Warning, file, at, k == 0 ? "qid" : "docno",
                    *bad + "; JSON output shows U+FFFD in its place"},
                   options.maxStoredDiagnostics);
    auto& judgments = qrels.byQuery[std::string(fields[0])];
    judgments.push_back(Judgment{decodeTrecId(fields[2]), static_cast<int>(rel), at});
    ++report.records;
    return true;
  });
  return result;
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

LoadReport loadTrecRun(const std::filesystem::path& path, Dataset& into, const LoadOptions& options) {
  auto loaded = readTrecRun(path, options);
  if (loaded.report.ok()) checkRunDocnos(loaded.value, loaded.report, options);
  if (loaded.report.ok()) into.runs.push_back(std::move(loaded.value));
  return std::move(loaded.report);
}

LoadReport loadTrecQrels(const std::filesystem::path& path, Dataset& into, const LoadOptions& options) {
  auto loaded = readTrecQrels(path, options);
  if (!loaded.report.ok()) return std::move(loaded.report);
  if (into.qrels.byQuery.empty()) {
    into.qrels = std::move(loaded.value);
    return std::move(loaded.report);
  }
  // A second qrels file joins the first; a (qid, docno) judged in both is reported, first wins.
  for (auto& [qid, judgments] : loaded.value.byQuery) {
    auto& target = into.qrels.byQuery[qid];
    std::unordered_map<std::string_view, const Judgment*> existing;
    for (const auto& j : target) existing.emplace(j.docId, &j);
    std::vector<Judgment> add;
    for (auto& j : judgments) {
      auto it = existing.find(j.docId);
      if (it != existing.end()) {
        loaded.report.add({Severity::Error, path.string(), j.line, "docno",
                           "'" + j.docId + "' for query '" + qid + "' already judged in " +
                               into.qrels.source + " line " + std::to_string(it->second->line)},
                          options.maxStoredDiagnostics);
        ++loaded.report.skipped;
        continue;
      }
      add.push_back(std::move(j));
    }
    for (auto& j : add) target.push_back(std::move(j));
  }
  return std::move(loaded.report);
}

}  // namespace ragscope::core
