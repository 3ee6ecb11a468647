#include "core/export/evaltable.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/export/csv.h"
#include "core/export/json.h"
#include "core/stats/runsummary.h"

namespace ragscope::core::exporting {

namespace {

// What the table shows of a set of results: the numeric columns (relstring is trec format's
// only), the run labels and each run's summaries.
struct EvalTable {
  std::vector<std::size_t> shown;
  std::vector<std::string> labels;
  std::vector<std::vector<stats::MeasureSummary>> summaries;
};

EvalTable evalTable(const std::vector<EvalResult>& results, const EvalTableOptions& options) {
  EvalTable t;
  const auto& columns = results.front().columns;
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].numeric()) t.shown.push_back(i);
  t.labels = stats::runLabels(results);
  for (const auto& r : results) t.summaries.push_back(stats::summarizeRun(r, options.bootstrap));
  return t;
}

// Integer measures (num_ret, ...) print without a fraction; NaN (undefined) is an empty cell.
void evalCsvValue(CsvWriter& csv, const MeasureColumn& c, double v) {
  if (c.integer && !std::isnan(v))
    csv.number(static_cast<long>(v));
  else
    csv.number(v);
}

}  // namespace

void writeEvalCsv(std::ostream& out, const std::vector<EvalResult>& results,
                  const EvalTableOptions& options) {
  if (results.empty()) return;
  const EvalTable t = evalTable(results, options);
  const auto& columns = results.front().columns;
  CsvWriter csv(out);
  csv.text("run").text("qid").text("n");
  for (auto i : t.shown)
    csv.text(columns[i].name).text(columns[i].name + "_ci_low").text(columns[i].name + "_ci_high");
  csv.endRow();
  for (std::size_t k = 0; k < results.size(); ++k) {
    const EvalResult& r = results[k];
    if (options.perQuery)
      for (const auto& q : r.queries) {
        csv.text(t.labels[k]).text(q.qid).empty();
        for (auto i : t.shown) {
          if (columns[i].perQuery)
            evalCsvValue(csv, columns[i], q.values[i]);
          else
            csv.empty();
          csv.empty().empty();
        }
        csv.endRow();
      }
    csv.text(t.labels[k]).text("all").number(r.numQueries);
    for (auto i : t.shown) {
      const stats::MeasureSummary& m = t.summaries[k][i];
      evalCsvValue(csv, columns[i], m.mean);
      csv.number(m.ci.low).number(m.ci.high);
    }
    csv.endRow();
  }
}

void writeEvalJson(std::ostream& out, const std::vector<EvalResult>& results,
                   const EvalTableOptions& options) {
  if (results.empty()) return;
  const EvalTable t = evalTable(results, options);
  const auto& columns = results.front().columns;
  nlohmann::ordered_json doc;
  nlohmann::ordered_json cols = nlohmann::ordered_json::array({"run", "qid"});
  for (auto i : t.shown) cols.push_back(columns[i].name);
  doc["columns"] = cols;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  auto real = [](double v) -> nlohmann::ordered_json {
    if (std::isnan(v)) return nullptr;
    return v;
  };
  auto value = [&](const MeasureColumn& c, double v) -> nlohmann::ordered_json {
    if (c.integer && !std::isnan(v)) return static_cast<long>(v);
    return real(v);
  };
  for (std::size_t k = 0; k < results.size(); ++k) {
    const EvalResult& r = results[k];
    if (options.perQuery)
      for (const auto& q : r.queries) {
        nlohmann::ordered_json row;
        row["run"] = t.labels[k];
        row["qid"] = q.qid;
        for (auto i : t.shown)
          if (columns[i].perQuery) row[columns[i].name] = value(columns[i], q.values[i]);
        rows.push_back(row);
      }
    nlohmann::ordered_json row;
    row["run"] = t.labels[k];
    row["qid"] = "all";
    for (auto i : t.shown) {
      const stats::MeasureSummary& m = t.summaries[k][i];
      row[columns[i].name] = {{"mean", value(columns[i], m.mean)},
                              {"ci_low", real(m.ci.low)},
                              {"ci_high", real(m.ci.high)},
                              {"n", m.n}};
    }
    rows.push_back(row);
  }
  doc["rows"] = rows;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < results.size(); ++k) {
    const EvalResult& r = results[k];
    runs.push_back({{"run", t.labels[k]},
                    {"tag", r.runId},
                    {"source", r.runSource},
                    {"num_q", r.numQueries},
                    {"skipped_queries", r.skippedQueries},
                    {"zero_filled_queries", r.zeroFilledQueries},
                    {"ignored_run_queries", r.ignoredRunQueries.size()}});
  }
  doc["runs"] = runs;
  doc["bootstrap"] = {{"B", options.bootstrap.resamples},
                      {"seed", options.bootstrap.seed},
                      {"level", options.bootstrap.level},
                      {"ci", "percentile"}};
  doc["conventions"] = options.conventions;
  writeJson(out, doc, 2);
}

}  // namespace ragscope::core::exporting
