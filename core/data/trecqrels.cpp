// The TREC qrels reader (see core/data/README.md), following trec_eval's parser where it defines
// behaviour: `qid iter docno rel`, whitespace-separated; `#` lines and blank lines skipped; `rel`
// read as an integer ("2.7" -> 2 with a warning, as atol does). A (qid, docno) judged twice is a
// warning naming both lines: the first judgment is kept and the repeat recorded (Qrels::repeats),
// for trec_eval stops on it only in a query it evaluates (form_res_rels checks the qrels of each
// evaluated topic), which the evaluators then refuse. A second qrels file joins the first
// (loadTrecQrels).

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/data/linefields.h"
#include "core/data/linereader.h"
#include "core/data/loaders.h"
#include "core/data/runchunkparser.h"
#include "core/data/textcheck.h"
#include "core/data/trecid.h"
#include "core/util/inputfile.h"

namespace ragscope::core {

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
  readLoaderLines(path, options, report, [&](std::uint64_t at, std::string_view line) {
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
        return !fail(at, "rel", "not an integer: '" + runparse::printable(relText) + "'");
      }
      rel = static_cast<long>(std::trunc(value));
      report.add({Severity::Warning, file, at, "rel",
                  "'" + std::string(relText) + "' is not an integer; truncated to " +
                      std::to_string(rel) + " (as trec_eval does)"},
                 options.maxStoredDiagnostics);
    } else if (rel > 1000000000L || rel < -1000000000L) {
      return !fail(at, "rel", "out of range: '" + runparse::printable(relText) + "'");
    }
    if (rel > 0) qrels.positiveLines = qrels.positiveLines.value_or(0) + 1;
    // Ids as runs name them (trecid.h), so a pair written two ways is still one judgment.
    std::string qid = decodeTrecId(fields[0]), docno = decodeTrecId(fields[2]);
    key.assign(qid);
    key.push_back('\0');
    key.append(docno);
    auto [it, inserted] = seen.try_emplace(key, at);
    if (!inserted) {
      report.add({Severity::Warning, file, at, "docno",
                  "'" + runparse::printable(fields[2]) + "' judged twice for query '" +
                      runparse::printable(fields[0]) + "' (lines " + std::to_string(it->second) +
                      " and " + std::to_string(at) + "); the first is kept. trec_eval stops if " +
                      "this query is evaluated (a run retrieves for it, or -c), and so does eval"},
                 options.maxStoredDiagnostics);
      qrels.repeats.push_back({std::move(qid), std::move(docno), it->second, at, file});
      return true;
    }
    for (int k : {0, 2})
      if (auto bad = checkText(fields[k]))
        report.add({Severity::Warning, file, at, k == 0 ? "qid" : "docno",
                    *bad + "; JSON output shows U+FFFD in its place"},
                   options.maxStoredDiagnostics);
    auto& judgments = qrels.byQuery[std::move(qid)];
    judgments.push_back(Judgment{std::move(docno), static_cast<int>(rel), at});
    ++report.records;
    return true;
  });
  return result;
}

LoadReport loadTrecQrels(const std::filesystem::path& path, Dataset& into,
                         const LoadOptions& options) {
  auto loaded = readTrecQrels(path, options);
  if (!loaded.report.ok()) return std::move(loaded.report);
  if (into.qrels.byQuery.empty()) {
    into.qrels = std::move(loaded.value);
    return std::move(loaded.report);
  }
  for (auto& r : loaded.value.repeats) into.qrels.repeats.push_back(std::move(r));
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
