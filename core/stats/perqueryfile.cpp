#include "core/stats/perqueryfile.h"

#include <charconv>
#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/linereader.h"
#include "core/data/textcheck.h"

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

Loaded<MeasureTable> loadPerQueryFile(const std::filesystem::path& path,
                                      const LoadOptions& options) {
  Loaded<MeasureTable> result;
  LoadReport& report = result.report;
  const std::string file = path.string();
  auto fail = [&](std::uint64_t at, const char* field, std::string problem) {
    return recordLineError(report, options, file, at, field, std::move(problem));
  };
  std::vector<std::string_view> fields;
  std::set<std::pair<std::string, std::string>> notUtf8;  // (field, text) already warned about
  readLoaderLines(path, options, report, [&](std::uint64_t at, std::string_view line) {
    splitWhitespace(line, fields);
    if (fields.empty() || fields[0].front() == '#') return true;
    if (fields.size() != 3) {
      static const char* const names[] = {"measure", "qid", "value"};
      return !fail(at, fields.size() < 3 ? names[fields.size()] : "line",
                   "line has " + std::to_string(fields.size()) +
                       " fields, a per-query line has exactly 3 (measure qid value)");
    }
    const std::string_view measure = fields[0];
    const std::string_view qid = fields[1];
    // Summary rows and text-valued measures carry nothing to test per query.
    if (qid == "all" || measure == "runid" || measure == "relstring") return true;
    double value = 0.0;
    if (!parseDouble(fields[2], value))
      return !fail(at, "value", "not a number: " + shown(fields[2]));
    if (!std::isfinite(value))
      return !fail(at, "value", "not a finite number: " + shown(fields[2]));
    // Named (once per distinct id) so the U+FFFD these bytes become in JSON is no surprise.
    for (const auto& [field, text] : {std::pair{"measure", measure}, std::pair{"qid", qid}})
      if (auto bad = checkText(text); bad && notUtf8.emplace(field, text).second)
        report.add(
            {Severity::Warning, file, at, field, *bad + "; JSON output shows U+FFFD in its place"},
            options.maxStoredDiagnostics);
    auto& perQuery = result.value[std::string(measure)];
    auto [it, inserted] = perQuery.try_emplace(std::string(qid), value);
    if (!inserted) {
      return !fail(at, "qid",
                   "query " + shown(qid) + " has a second value for measure " + shown(measure));
    }
    ++report.records;
    return true;
  });
  return result;
}

}  // namespace ragscope::core::stats
