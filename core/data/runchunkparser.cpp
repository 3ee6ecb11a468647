#include "core/data/runchunkparser.h"

#include <cstdio>

namespace ragscope::core::runparse {

std::string printable(std::string_view s, std::size_t max) {
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

std::string utf8Problem(const std::string& why) {
  return why + "; JSON output shows U+FFFD in its place";
}

// Adds a chunk's diagnostics and counts to the report (file order, absolute lines). Returns false
// when the load ends there (the first error under OnError::Stop, or too many errors).
bool mergeChunkStats(const ChunkStats& chunk, std::uint64_t lineBase, LoadReport& report,
                     const LoadOptions& options, const std::string& file) {
  const bool skip = options.onError == OnError::Skip;
  report.records += chunk.records;  // under Stop, the lines before the first error
  for (const auto& d : chunk.diags) {
    report.add({d.severity, file, lineBase + d.line, d.field, d.problem},
               options.maxStoredDiagnostics);
    if (d.severity != Severity::Error) continue;
    if (!skip) {
      report.stopped = true;
      return false;
    }
    ++report.skipped;
    if (report.tooManyErrors(options, file, lineBase + d.line)) return false;
  }
  report.errors += chunk.unstoredErrors;
  report.warnings += chunk.unstoredWarnings;
  report.unstoredDiagnostics += chunk.unstoredErrors + chunk.unstoredWarnings;
  if (skip) report.skipped += chunk.unstoredErrors;
  if (chunk.stopped || (chunk.unstoredErrors && skip)) {
    // The chunk's parser stopped at the error limit (its last line is where).
    if (report.tooManyErrors(options, file, lineBase + chunk.lines)) return false;
    if (chunk.stopped) {
      report.stopped = true;
      return false;
    }
  }
  return true;
}

}  // namespace ragscope::core::runparse
