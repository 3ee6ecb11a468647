#include "core/eval/jobs/eragjob.h"

#include <cmath>
#include <unordered_map>

#include "core/eval/api/jobspec.h"
#include "core/eval/jobs/jobplanning.h"
#include "core/export/json.h"
#include "core/llm/llmjson.h"
#include "core/llm/prompts.h"
#include "core/store/runstore.h"
#include "core/util/atomicfile.h"
#include "core/util/sqlitedb.h"

namespace ragscope::core::eval {

using nlohmann::json;

TopDocuments topDocuments(const Dataset& dataset, const Run& run, std::size_t k) {
  TopDocuments top;
  auto warn = [&](std::string text) { addPlanWarning(top.warnings, std::move(text)); };
  for (const auto& q : dataset.queries) {
    if (q.goldAnswers().empty()) {
      ++top.queriesWithoutGold;
      warn("query " + q.id + ": no gold answer (left out: an output cannot be scored)");
      continue;
    }
    RetrievedList list;
    list.qid = q.id;
    if (const Ranking* ranking = run.find(q.id)) {
      auto passages = topPassages(dataset.corpus, *ranking, k);
      for (const auto& id : passages.missing) {
        ++top.missingDocuments;
        warn("query " + q.id + ": document " + id + " is not in the corpus (skipped)");
      }
      list.docIds = std::move(passages.docIds);
      list.texts = std::move(passages.texts);
    } else {
      ++top.queriesWithoutRanking;
      warn("query " + q.id + ": no ranking in the run (its list is empty)");
    }
    top.lists.push_back(std::move(list));
    top.queries.push_back(&q);
  }
  return top;
}

json planJson(const TopDocuments& top) {
  json plan = json::array();
  for (std::size_t i = 0; i < top.lists.size(); ++i) {
    const Query& q = *top.queries[i];
    const auto golds = q.goldAnswers();
    json docs = json::array();
    for (std::size_t j = 0; j < top.lists[i].docIds.size(); ++j) {
      docs.push_back(
          {{"id", top.lists[i].docIds[j]},
           {"contains", score(DownstreamMetric::ContainsAnswer, top.lists[i].texts[j], golds)}});
    }
    plan.push_back({{"qid", q.id}, {"gold", golds}, {"gold_docs", q.goldDocIds()}, {"docs", docs}});
  }
  return plan;
}

std::string eragItemKey(std::string_view qid, std::size_t rank, std::string_view docId) {
  return std::string(kEragKeyPrefix) + escapeItemKeyPart(qid) + ":" + std::to_string(rank) + ":" +
         escapeItemKeyPart(docId);
}

EragPlan planErag(const Dataset& dataset, const Run& run, std::size_t k,
                  std::string_view templateText) {
  EragPlan plan;
  plan.top = topDocuments(dataset, run, k);
  plan.plan = planJson(plan.top);
  for (std::size_t i = 0; i < plan.top.lists.size(); ++i) {
    const auto& list = plan.top.lists[i];
    const Query& q = *plan.top.queries[i];
    for (std::size_t j = 0; j < list.docIds.size(); ++j) {
      const std::string prompt = llm::renderTemplate(
          templateText,
          {{"question", q.text}, {"documents", llm::formatPassages({list.texts[j]})}});
      plan.items.push_back({eragItemKey(q.id, j + 1, list.docIds[j]), std::string(kEragJobKind),
                            exporting::jsonText(llm::toJson(chatRequest(prompt)))});
    }
  }
  return plan;
}

std::optional<std::vector<PlannedQuery>> plannedQueries(const json& settings, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<std::vector<PlannedQuery>> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (!settings.is_object() || !settings.contains("plan") || !settings["plan"].is_array()) {
    return fail("the run's settings hold no eRAG/end-to-end plan (not an erag or e2e run?)");
  }
  std::vector<PlannedQuery> out;
  try {
    for (const auto& p : settings["plan"]) {
      PlannedQuery q;
      q.qid = p.at("qid").get<std::string>();
      q.gold = p.value("gold", std::vector<std::string>{});
      q.goldDocs = p.value("gold_docs", std::vector<std::string>{});
      for (const auto& d : p.at("docs")) {
        q.docIds.push_back(d.at("id").get<std::string>());
        q.contains.push_back(d.value("contains", 0.0));
      }
      out.push_back(std::move(q));
    }
  } catch (const json::exception& e) {
    return fail(std::string("the run's plan is malformed: ") + e.what());
  }
  return out;
}

std::optional<StoredPlan> readStoredPlan(store::RunStore& store, std::string_view kind,
                                         std::string_view kindLabel, std::string* error) {
  StoredPlan out;
  out.record = store.run();
  if (out.record.kind != kind) {
    if (error)
      *error = store.path().string() + ": a '" + out.record.kind + "' run, not " +
               std::string(kindLabel);
    return std::nullopt;
  }
  // A record without its metric (or with fields of the wrong type) is refused: a default would
  // score the outputs with another metric than the run was planned with, silently.
  if (const std::string problem = runRecordProblem(out.record); !problem.empty()) {
    if (error) *error = store.path().string() + ": " + problem;
    return std::nullopt;
  }
  auto planned = plannedQueries(out.record.settings, error);
  if (!planned) return std::nullopt;
  out.queries = std::move(*planned);
  out.metricKey = out.record.settings["metric"].get<std::string>();
  const auto metric = parseDownstreamMetric(out.metricKey);
  if (!metric) {
    if (error) *error = "unknown downstream metric '" + out.metricKey + "' in the run's settings";
    return std::nullopt;
  }
  out.metric = *metric;
  return out;
}

EragReport computeEragReport(store::RunStore& store, const std::vector<MeasureRequest>& measures,
                             const stats::BootstrapOptions& bootstrap) {
  EragReport report;
  auto stored = readStoredPlan(store, kEragJobKind, "an eRAG run", &report.error);
  if (!stored) return report;
  const store::RunRecord& record = stored->record;
  report.queries = std::move(stored->queries);
  report.metricKey = stored->metricKey;
  const DownstreamMetric metric = stored->metric;
  std::vector<MeasureRequest> requests = measures;
  if (requests.empty()) {
    auto parsed = parseEragMeasures(record.settings["measures"].get<std::string>());  // checked
    if (!parsed.ok()) {
      report.error = parsed.error;
      return report;
    }
    requests = std::move(parsed.value);
  }

  const auto byKey = doneResultsByKey(store);
  std::vector<EragQueryLabels> complete;
  for (const auto& q : report.queries) {
    std::vector<std::optional<double>> labels;
    std::vector<std::string> outputs;
    bool all = true;
    for (std::size_t j = 0; j < q.docIds.size(); ++j) {
      const auto it = byKey.find(eragItemKey(q.qid, j + 1, q.docIds[j]));
      if (it == byKey.end()) {
        labels.emplace_back(std::nullopt);
        outputs.emplace_back();
        all = false;
        continue;
      }
      if (it->second.heuristic) ++report.heuristicOutputs;
      labels.emplace_back(score(metric, it->second.text, q.gold));
      outputs.push_back(it->second.text);
    }
    if (all) {
      EragQueryLabels l{q.qid, {}};
      for (const auto& v : labels) l.labels.push_back(*v);
      complete.push_back(std::move(l));
    } else {
      report.incomplete.push_back(q.qid);
    }
    report.labels.push_back(std::move(labels));
    report.outputs.push_back(std::move(outputs));
  }
  report.aggregate = aggregateErag(complete, requests);
  if (!report.aggregate.ok()) {
    report.error = report.aggregate.error;
    return report;
  }
  if (bootstrap.resamples > 0 && !complete.empty()) {
    for (const auto& column : report.aggregate.values) {
      stats::BootstrapOptions o = bootstrap;
      o.keepDistribution = false;
      report.intervals.push_back(stats::bootstrap(column, o));
    }
  }
  return report;
}

json labelsJson(const EragReport& report) {
  json out = json::object();
  for (std::size_t i = 0; i < report.queries.size(); ++i) {
    json row = json::array();
    for (const auto& v : report.labels[i]) row.push_back(v ? json(*v) : json());
    out[report.queries[i].qid] = row;
  }
  return out;
}

json eragScoresJson(const EragReport& report) {
  const auto& a = report.aggregate;
  json out;
  out["metric"] = report.metricKey;
  out["binary_labels"] = a.binary;
  out["measures"] = a.measures;
  out["queries"] = a.qids.size();
  out["incomplete"] = report.incomplete;
  json mean = json::object();
  json ci = json::object();
  json n = json::object();
  for (std::size_t m = 0; m < a.measures.size(); ++m) {
    mean[a.measures[m]] = a.means[m];
    n[a.measures[m]] = a.values[m].size();
    if (m < report.intervals.size() && report.intervals[m].ok()) {
      ci[a.measures[m]] = {report.intervals[m].ci.low, report.intervals[m].ci.high};
    }
  }
  out["mean"] = mean;
  out["ci95"] = ci;
  out["n"] = n;
  json perQuery = json::object();
  for (std::size_t q = 0; q < a.qids.size(); ++q) {
    json row = json::object();
    for (std::size_t m = 0; m < a.measures.size(); ++m) row[a.measures[m]] = a.values[m][q];
    perQuery[a.qids[q]] = row;
  }
  out["per_query"] = perQuery;
  return out;
}

namespace {

bool execOrFail(SqliteDb& db, std::string_view sql, std::string* error) {
  std::string err;
  if (db.exec(sql, &err)) return true;
  if (error) *error = err;
  return false;
}

}  // namespace

bool storeEragScores(const std::filesystem::path& storePath, const EragReport& report,
                     std::string* error) {
  SqliteDb db;
  if (!db.open(storePath, false, error)) return false;
  // Written only into a run store whose tables are ragscope's own (core/store/runstore.h).
  if (auto problem = db.schemaProblem(store::runStoreSchema())) {
    if (error) *error = storePath.string() + ": not a ragscope run store: it " + *problem;
    return false;
  }
  if (!execOrFail(db,
                  std::string(store::kEragLabelsTableSql) + store::kQueryScoresTableSql +
                      "BEGIN IMMEDIATE; DELETE FROM erag_labels; DELETE FROM query_scores;",
                  error)) {
    return false;
  }
  auto insertLabel = db.prepare(
      "INSERT INTO erag_labels(qid, rank, doc_id, item_key, label) VALUES (?, ?, ?, ?, ?)", error);
  auto insertScore =
      db.prepare("INSERT INTO query_scores(qid, measure, value) VALUES (?, ?, ?)", error);
  if (!insertLabel.valid() || !insertScore.valid()) {
    db.exec("ROLLBACK");
    return false;
  }
  for (std::size_t i = 0; i < report.queries.size(); ++i) {
    const auto& q = report.queries[i];
    for (std::size_t j = 0; j < q.docIds.size(); ++j) {
      insertLabel.reset();
      insertLabel.bind(1, q.qid)
          .bind(2, static_cast<std::int64_t>(j + 1))
          .bind(3, q.docIds[j])
          .bind(4, eragItemKey(q.qid, j + 1, q.docIds[j]));
      if (report.labels[i][j]) {
        insertLabel.bind(5, *report.labels[i][j]);
      } else {
        insertLabel.bindNull(5);
      }
      insertLabel.step();
      if (!insertLabel.ok()) {
        if (error) *error = db.lastError();
        db.exec("ROLLBACK");
        return false;
      }
    }
  }
  const auto& a = report.aggregate;
  for (std::size_t q = 0; q < a.qids.size(); ++q) {
    for (std::size_t m = 0; m < a.measures.size(); ++m) {
      insertScore.reset();
      insertScore.bind(1, a.qids[q]).bind(2, "erag " + a.measures[m]).bind(3, a.values[m][q]);
      insertScore.step();
      if (!insertScore.ok()) {
        if (error) *error = db.lastError();
        db.exec("ROLLBACK");
        return false;
      }
    }
  }
  return execOrFail(db, "COMMIT", error);
}

}  // namespace ragscope::core::eval
