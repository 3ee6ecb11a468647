#include "core/stats/perqueryfile.h"

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/linereader.h"

namespace ragscope::core::stats {

namespace {

// Quoted field text for messages, bounded so one hostile token cannot flood the report.
std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  if (s.size() > 80) out += "...";
  return "'" + out + "'";
}

bool parseDouble(std::string_view text, double& out) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;  // from_chars refuses a leading '+'
  auto [ptr, ec] = std::from_chars(begin, end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

Loaded<MeasureTable> loadPerQueryFile(const std::filesystem::path& path, const LoadOptions& options) {
  Loaded<MeasureTable> result;
  LoadReport& report = result.report;
  const std::string file = path.string();
  LineReader reader(path, options.maxLineBytes);
  if (!reader.isOpen()) {
    report.add({Severity::Error, file, 0, "", reader.openError()}, options.maxStoredDiagnostics);
    report.stopped = true;
    return result;
  }
  auto fail = [&](std::uint64_t at, const char* field, std::string problem) {
    report.add({Severity::Error, file, at, field, std::move(problem)}, options.maxStoredDiagnostics);
    if (options.onError == OnError::Stop) {
      report.stopped = true;
      return true;
    }
    ++report.skipped;
    return false;
  };
  std::string_view line;
  std::vector<std::string_view> fields;
  std::uint64_t nextProgress = std::uint64_t{4} << 20;
  for (;;) {
    const auto status = reader.next(line);
    if (status == LineReader::Status::End) break;
    if (status == LineReader::Status::IoError) {
      report.add({Severity::Error, file, reader.lineNumber(), "", "read error"},
                 options.maxStoredDiagnostics);
      report.stopped = true;
      break;
    }
    const std::uint64_t at = reader.lineNumber();
    if (options.progress && reader.bytesRead() >= nextProgress) {
      nextProgress = reader.bytesRead() + (std::uint64_t{4} << 20);
      if (!options.progress(reader.bytesRead(), reader.fileSize())) {
        report.cancelled = true;
        break;
      }
    }
    if (status == LineReader::Status::TooLong) {
      if (fail(at, "line", "longer than " + std::to_string(options.maxLineBytes) + " bytes")) break;
      continue;
    }
    splitWhitespace(line, fields);
    if (fields.empty() || fields[0].front() == '#') continue;
    if (fields.size() != 3) {
      static const char* const names[] = {"measure", "qid", "value"};
      if (fail(at, fields.size() < 3 ? names[fields.size()] : "line",
               "line has " + std::to_string(fields.size()) +
                   " fields, a per-query line has exactly 3 (measure qid value)"))
        break;
      continue;
    }
    const std::string_view measure = fields[0];
    const std::string_view qid = fields[1];
    // Summary rows and text-valued measures carry nothing to test per query.
    if (qid == "all" || measure == "runid" || measure == "relstring") continue;
    double value = 0.0;
    if (!parseDouble(fields[2], value)) {
      if (fail(at, "value", "not a number: " + shown(fields[2]))) break;
      continue;
    }
    if (!std::isfinite(value)) {
      if (fail(at, "value", "not a finite number: " + shown(fields[2]))) break;
      continue;
    }
    auto& perQuery = result.value[std::string(measure)];
    auto [it, inserted] = perQuery.try_emplace(std::string(qid), value);
    if (!inserted) {
      if (fail(at, "qid",
               "query " + shown(qid) + " has a second value for measure " + shown(measure)))
        break;
      continue;
    }
    ++report.records;
  }
  return result;
}

}  // namespace ragscope::core::stats
