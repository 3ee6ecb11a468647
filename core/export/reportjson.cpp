#include "core/export/reportjson.h"

#include <map>

namespace ragscope::core::exporting {

namespace {

using ojson = nlohmann::ordered_json;

ojson optionalNumber(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }

ojson metricJson(const ReportMetric& m) {
  ojson j;
  j["metric"] = m.name;
  j["mean"] = optionalNumber(m.mean);
  j["ci95"] = m.ciLow && m.ciHigh ? ojson::array({*m.ciLow, *m.ciHigh}) : ojson(nullptr);
  j["n"] = m.n;
  j["total"] = m.total;
  j["states"] = {{"scored", m.scored},
                 {"unparsed", m.unparsed},
                 {"error", m.errors},
                 {"empty", m.empty},
                 {"incomplete", m.incomplete}};
  return j;
}

// Per-query values grouped by query, in the order the queries first appear.
ojson perQueryJson(const std::vector<ReportValue>& values) {
  ojson out = ojson::array();
  std::map<std::string, std::size_t> at;
  for (const auto& v : values) {
    auto [it, fresh] = at.emplace(v.qid, out.size());
    if (fresh)
      out.push_back({{"qid", v.qid}, {"values", ojson::object()}, {"states", ojson::object()}});
    ojson& q = out[it->second];
    q["values"][v.metric] = optionalNumber(v.value);
    q["states"][v.metric] = v.state;
  }
  return out;
}

// {"store", "counts": [{"kind", "annotator", "labels"}], "agreement": [...], "ppi": [{"metric",
// "description", "items", "labelled", "judge_only": {"mean", "ci_low", "ci_high"}, "human_only":
// {...}, "estimate", "ci_low", "ci_high", "lambda", "problem", ...}], "notes"}
ojson humanLabelsJson(const ReportHumanLabels& h) {
  ojson j;
  j["store"] = h.store;
  ojson counts = ojson::array();
  for (const auto& c : h.counts)
    counts.push_back({{"kind", c.kind}, {"annotator", c.annotator}, {"labels", c.labels}});
  j["counts"] = std::move(counts);
  j["agreement"] = h.agreement;
  auto mean = [](const std::optional<double>& m, const std::optional<double>& lo,
                 const std::optional<double>& hi) {
    return ojson{{"mean", optionalNumber(m)},
                 {"ci_low", optionalNumber(lo)},
                 {"ci_high", optionalNumber(hi)}};
  };
  ojson ppi = ojson::array();
  for (const auto& p : h.ppi)
    ppi.push_back({{"metric", p.metric},
                   {"description", p.description},
                   {"items", p.items},
                   {"labelled", p.labelled},
                   {"judge_only", mean(p.judgeMean, p.judgeLow, p.judgeHigh)},
                   {"human_only", mean(p.humanMean, p.humanLow, p.humanHigh)},
                   {"estimate", optionalNumber(p.estimate)},
                   {"ci_low", optionalNumber(p.ciLow)},
                   {"ci_high", optionalNumber(p.ciHigh)},
                   {"lambda", optionalNumber(p.lambda)},
                   {"problem", p.problem},
                   {"judge_unresolved", p.judgeUnresolved},
                   {"stale_labels", p.staleLabels},
                   {"labels_not_used", p.labelsNotUsed}});
  j["ppi"] = std::move(ppi);
  j["notes"] = h.notes;
  return j;
}

ojson runJson(const ReportRun& run) {
  ojson j;
  j["name"] = run.name;
  j["kind"] = run.kind;
  j["source"] = run.source;
  j["mode"] = run.mode;
  j["settings"] = ojson(run.settings);
  j["conventions"] = run.conventions;
  ojson method = ojson::object();
  for (const auto& [k, v] : run.method) method[k] = v;
  j["method"] = std::move(method);
  j["notes"] = run.notes;
  ojson summary = ojson::array();
  for (const auto& m : run.metrics) summary.push_back(metricJson(m));
  j["summary"] = std::move(summary);
  j["per_query"] = perQueryJson(run.values);
  ojson documents = ojson::array();
  for (const auto& d : run.documents)
    documents.push_back({{"qid", d.qid},
                         {"rank", d.rank},
                         {"doc_id", d.docId},
                         {"label", optionalNumber(d.label)},
                         {"output", d.output}});
  j["documents"] = std::move(documents);
  ojson claims = ojson::array();
  for (const auto& c : run.claims)
    claims.push_back({{"qid", c.qid},
                      {"side", c.side},
                      {"index", c.index},
                      {"claim", c.claim},
                      {"premise", c.premise},
                      {"verdict", c.verdict},
                      {"repeats", c.repeats},
                      {"flipped", c.flipped},
                      {"evidence", c.evidence}});
  j["claims"] = std::move(claims);
  ojson questions = ojson::object();
  for (const auto& [qid, text] : run.questions) questions[qid] = text;
  j["questions"] = std::move(questions);
  if (run.humanLabels) j["human_labels"] = humanLabelsJson(*run.humanLabels);
  return j;
}

}  // namespace

nlohmann::ordered_json reportJson(const Report& report) {
  ojson j;
  j["schema"] = "ragscope-report";
  j["schema_version"] = kReportSchemaVersion;
  j["ragscope_version"] = report.version;
  j["title"] = report.title;
  j["datasets"] = report.datasets;
  j["problems"] = report.problems;
  ojson runs = ojson::array();
  for (const auto& run : report.runs) runs.push_back(runJson(run));
  j["runs"] = std::move(runs);
  ojson comparisons = ojson::array();
  for (const auto& c : report.comparisons)
    comparisons.push_back(
        {{"a", c.runA},
         {"b", c.runB},
         {"metric", c.metric},
         {"n", c.n},
         {"unaligned", c.unaligned},
         {"mean_a", c.meanA},
         {"mean_b", c.meanB},
         {"mean_diff", c.meanDiff},
         {"ci95", c.ciLow && c.ciHigh ? ojson::array({*c.ciLow, *c.ciHigh}) : ojson(nullptr)},
         {"p_randomization", c.pRandomization},
         {"p_t", c.pT},
         {"wins", c.wins},
         {"ties", c.ties},
         {"losses", c.losses}});
  j["comparisons"] = std::move(comparisons);
  return j;
}

}  // namespace ragscope::core::exporting
