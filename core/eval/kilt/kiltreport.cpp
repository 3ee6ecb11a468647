#include "core/eval/kilt/kiltreport.h"

namespace ragscope::core::eval {

std::string kiltReportMetricName(const KiltMetricSummary& m) { return m.group + "/" + m.name; }

exporting::ReportRun reportOfKilt(const KiltEvaluation& e, const stats::BootstrapOptions& bootstrap,
                                  bool keepDistributions) {
  exporting::ReportRun run;
  run.name = std::filesystem::path(e.guessPath).stem().string();
  run.kind = "kilt";
  run.source = e.guessPath;
  run.settings = {
      {"gold", e.goldPath}, {"predictions", e.guessPath}, {"ks", e.ks}, {"rank_keys", e.rankKeys}};
  run.conventions = {
      "KILT's evaluation (kilt/eval_downstream.py, kilt/eval_retrieval.py): predictions matched "
      "to gold by str(id).strip(); means over all gold items",
      "downstream: accuracy (stripped texts equal), em and f1 (SQuAD-normalised), rougel (the "
      "rouge package), each the best over the gold answers; an empty answer scores 0",
      "retrieval: R-precision and precision/recall/success_rate@k over evidence sets (a set "
      "counts once, at the rank that completes it)",
      "kilt: a downstream score counted only where the wikipedia_id R-precision is 1"};
  if (!e.missingIds.empty())
    run.notes.push_back(std::to_string(e.missingIds.size()) +
                        " gold id(s) without a prediction, scored 0 (KILT itself stops)");
  if (!e.extraIds.empty())
    run.notes.push_back(std::to_string(e.extraIds.size()) +
                        " prediction id(s) not in the gold file, ignored as KILT does");
  const std::size_t n = e.items.size();
  std::vector<double> column(n);
  for (std::size_t m = 0; m < e.metrics.size(); ++m) {
    exporting::ReportMetric metric;
    metric.name = kiltReportMetricName(e.metrics[m]);
    metric.mean = e.metrics[m].mean;
    metric.n = metric.total = metric.scored = n;
    for (std::size_t i = 0; i < n; ++i) column[i] = e.items[i].values[m];
    if (bootstrap.resamples > 0 && n >= 2) {
      stats::BootstrapOptions b = bootstrap;
      b.keepDistribution = keepDistributions;
      auto r = stats::bootstrap(column, b);
      if (r.ok()) {
        metric.ciLow = r.ci.low;
        metric.ciHigh = r.ci.high;
        metric.distribution = std::move(r.distribution);
      }
    }
    run.metrics.push_back(std::move(metric));
  }
  for (const auto& item : e.items)
    for (std::size_t m = 0; m < e.metrics.size(); ++m)
      run.values.push_back({item.id, kiltReportMetricName(e.metrics[m]), item.values[m], "scored"});
  run.method.emplace_back("KILT ks", [&] {
    std::string s;
    for (int k : e.ks) s += (s.empty() ? "" : ",") + std::to_string(k);
    return s;
  }());
  run.method.emplace_back("KILT rank keys", [&] {
    std::string s;
    for (const auto& k : e.rankKeys) s += (s.empty() ? "" : ",") + k;
    return s;
  }());
  return run;
}

std::optional<exporting::ReportRun> reportOfKiltFiles(const std::filesystem::path& gold,
                                                      const std::filesystem::path& guess,
                                                      const stats::BootstrapOptions& bootstrap,
                                                      std::string* error, bool keepDistributions) {
  KiltEvalOptions options;
  options.cancel = bootstrap.cancel;
  auto loaded = evaluateKiltFiles(gold, guess, options);
  if (!loaded.report.ok() || loaded.report.hasErrors()) {
    if (error) {
      *error = guess.string() + ": cannot be scored against " + gold.string();
      for (const auto& d : loaded.report.diagnostics)
        if (d.severity == Severity::Error) {
          *error += " (" + d.toString() + ")";
          break;
        }
    }
    return std::nullopt;
  }
  return reportOfKilt(loaded.value, bootstrap, keepDistributions);
}

}  // namespace ragscope::core::eval
