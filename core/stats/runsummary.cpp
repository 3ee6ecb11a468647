#include "core/stats/runsummary.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

namespace ragscope::core::stats {

namespace {

std::size_t countOf(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<std::size_t>(std::count(v.begin(), v.end(), s));
}

// "<folder>/<file>" of a path: short enough for a table, enough to tell rank_llm's runs apart.
std::string folderAndFile(const std::string& source) {
  const std::filesystem::path p(source);
  const std::filesystem::path folder = p.parent_path().filename();
  return folder.empty() ? p.filename().string() : (folder / p.filename()).string();
}

}  // namespace

std::vector<std::string> runLabels(const std::vector<RunName>& runs) {
  std::vector<std::string> tags;
  for (const auto& r : runs) tags.push_back(r.tag.empty() ? r.source : r.tag);
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < runs.size(); ++i)
    labels.push_back(countOf(tags, tags[i]) == 1
                         ? tags[i]
                         : tags[i] + " (" + folderAndFile(runs[i].source) + ")");
  // Same tag and same folder/file name under different parents: only the full path is unique.
  const std::vector<std::string> shortLabels = labels;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (countOf(shortLabels, shortLabels[i]) > 1) labels[i] = tags[i] + " (" + runs[i].source + ")";
  // The same file opened twice: a number tells the copies apart, so every label stays unique
  // (tables, pickers and per-run maps are keyed by it).
  const std::vector<std::string> fullLabels = labels;
  std::map<std::string, int> copies;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (countOf(fullLabels, fullLabels[i]) > 1)
      if (const int n = ++copies[fullLabels[i]]; n > 1) labels[i] += " #" + std::to_string(n);
  return labels;
}

std::vector<std::string> runLabels(const std::vector<EvalResult>& results) {
  std::vector<RunName> runs;
  for (const auto& r : results) runs.push_back({r.runId, r.runSource});
  return runLabels(runs);
}

bool supportsStatistics(const MeasureColumn& column) {
  return column.perQuery && column.aggregate == Aggregate::Mean && !column.integer &&
         column.kind != MeasureKind::Runid;
}

std::vector<double> perQueryValues(const EvalResult& result, std::size_t column,
                                   std::vector<std::string>* qids) {
  std::vector<double> values;
  values.reserve(result.queries.size());
  if (qids) qids->clear();
  for (const auto& q : result.queries) {
    if (column >= q.values.size()) continue;
    values.push_back(q.values[column]);
    if (qids) qids->push_back(q.qid);
  }
  return values;
}

std::vector<MeasureSummary> summarizeRun(const EvalResult& result,
                                         const BootstrapOptions& options) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<MeasureSummary> out;
  BootstrapOptions o = options;
  o.keepDistribution = false;
  for (std::size_t c = 0; c < result.columns.size(); ++c) {
    MeasureSummary s;
    s.mean = c < result.all.size() ? result.all[c] : kNaN;
    s.n = result.numQueries;
    s.ci = {kNaN, kNaN};
    if (options.resamples > 0 && supportsStatistics(result.columns[c])) {
      const BootstrapResult b = bootstrap(perQueryValues(result, c), o);
      if (b.ok()) s.ci = b.ci;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace ragscope::core::stats
