#include "core/eval/jobs/e2ejob.h"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "core/eval/jobs/jobplanning.h"
#include "core/export/json.h"
#include "core/llm/llmjson.h"
#include "core/llm/prompts.h"
#include "core/store/runstore.h"
#include "core/util/sqlitedb.h"

namespace ragscope::core::eval {

using nlohmann::json;

std::string e2eItemKey(std::string_view qid) {
  return std::string(kE2eKeyPrefix) + std::string(qid);
}

E2ePlan planE2e(const Dataset& dataset, const Run& run, std::size_t k,
                std::string_view templateText) {
  E2ePlan plan;
  plan.top = topDocuments(dataset, run, k);
  plan.plan = planJson(plan.top);
  for (std::size_t i = 0; i < plan.top.lists.size(); ++i) {
    const Query& q = *plan.top.queries[i];
    const std::string prompt = llm::renderTemplate(
        templateText,
        {{"question", q.text}, {"documents", llm::formatPassages(plan.top.lists[i].texts)}});
    plan.items.push_back({e2eItemKey(q.id), std::string(kE2eJobKind),
                          exporting::jsonText(llm::toJson(chatRequest(prompt)))});
  }
  return plan;
}

E2eReport computeE2eReport(store::RunStore& store, const stats::BootstrapOptions& bootstrap) {
  E2eReport report;
  report.mean = std::numeric_limits<double>::quiet_NaN();
  auto stored = readStoredPlan(store, kE2eJobKind, "an end-to-end run", &report.error);
  if (!stored) return report;
  report.queries = std::move(stored->queries);
  report.metricKey = stored->metricKey;
  const DownstreamMetric metric = stored->metric;
  const auto byKey = doneResultsByKey(store);
  double sum = 0.0;
  for (const auto& q : report.queries) {
    const auto it = byKey.find(e2eItemKey(q.qid));
    if (it == byKey.end()) {
      report.scores.emplace_back(std::nullopt);
      report.outputs.emplace_back();
      report.incomplete.push_back(q.qid);
      continue;
    }
    if (it->second.heuristic) ++report.heuristicOutputs;
    const double v = score(metric, it->second.text, q.gold);
    report.scores.emplace_back(v);
    report.outputs.push_back(it->second.text);
    report.qids.push_back(q.qid);
    report.values.push_back(v);
    sum += v;
  }
  if (!report.values.empty()) {
    report.mean = sum / static_cast<double>(report.values.size());
    if (bootstrap.resamples > 0) {
      stats::BootstrapOptions o = bootstrap;
      o.keepDistribution = false;
      report.interval = stats::bootstrap(report.values, o);
    }
  }
  return report;
}

json e2eScoresJson(const E2eReport& report) {
  json out;
  out["metric"] = report.metricKey;
  out["queries"] = report.values.size();
  out["mean"] = report.values.empty() ? json() : json(report.mean);
  out["ci95"] = report.interval.ok() && report.interval.resamples > 0
                    ? json::array({report.interval.ci.low, report.interval.ci.high})
                    : json();
  json perQuery = json::object();
  for (std::size_t i = 0; i < report.qids.size(); ++i) perQuery[report.qids[i]] = report.values[i];
  out["per_query"] = perQuery;
  out["incomplete"] = report.incomplete;
  return out;
}

bool storeE2eScores(const std::filesystem::path& storePath, const E2eReport& report,
                    std::string* error) {
  SqliteDb db;
  if (!db.open(storePath, false, error)) return false;
  // Written only into a run store whose tables are ragscope's own (core/store/runstore.h).
  if (auto problem = db.schemaProblem(store::runStoreSchema())) {
    if (error) *error = storePath.string() + ": not a ragscope run store: it " + *problem;
    return false;
  }
  std::string err;
  if (!db.exec(
          std::string(store::kQueryScoresTableSql) + "BEGIN IMMEDIATE; DELETE FROM query_scores;",
          &err)) {
    if (error) *error = err;
    return false;
  }
  auto insert = db.prepare("INSERT INTO query_scores(qid, measure, value) VALUES (?, ?, ?)", error);
  if (!insert.valid()) {
    db.exec("ROLLBACK");
    return false;
  }
  const std::string measure = "e2e " + report.metricKey;
  for (std::size_t i = 0; i < report.qids.size(); ++i) {
    insert.reset();
    insert.bind(1, report.qids[i]).bind(2, measure).bind(3, report.values[i]);
    insert.step();
    if (!insert.ok()) {
      if (error) *error = db.lastError();
      db.exec("ROLLBACK");
      return false;
    }
  }
  if (!db.exec("COMMIT", &err)) {
    if (error) *error = err;
    return false;
  }
  return true;
}

}  // namespace ragscope::core::eval
