#include "core/eval/jobs/correlationanalysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "core/metrics/doclevel.h"
#include "core/metrics/measurename.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/util/nan.h"

namespace ragscope::core::eval {

using nlohmann::json;

namespace {

// A run whose rankings are the given lists (score n - j: the list order is the ranking).
Run runFromLists(const std::vector<std::pair<std::string, std::vector<std::string>>>& lists) {
  Run run;
  run.tag = "lists";
  for (const auto& [qid, docs] : lists) {
    Ranking ranking;
    ranking.queryId = qid;
    for (std::size_t j = 0; j < docs.size(); ++j) {
      const std::string_view stored = run.arena->store(docs[j]);
      RunEntry e;
      e.doc = stored.data();
      e.docLen = static_cast<std::uint32_t>(stored.size());
      e.line = static_cast<std::uint32_t>(j + 1);
      e.score = static_cast<double>(docs.size() - j);
      ranking.entries.push_back(e);
    }
    run.rankings.push_back(std::move(ranking));
  }
  return run;
}

// Per-query values of every column a measure request yields, through the evaluator. Only
// queries with judgments and a ranking appear (trec_eval's rule).
void evaluateInto(const Qrels& qrels, const Run& run, const std::vector<MeasureRequest>& measures,
                  const std::string& method, std::vector<MethodScores>& out) {
  for (const auto& request : measures) {
    EvalSettings settings;
    settings.measures = {request};
    settings.threads = 1;
    const EvalResult result = evaluate(qrels, run, settings);
    for (std::size_t c = 0; c < result.columns.size(); ++c) {
      const auto& col = result.columns[c];
      if (!col.perQuery || !col.numeric() || col.kind == MeasureKind::NumQ) continue;
      MethodScores scores{method, col.name, {}, {}};
      for (const auto& q : result.queries) scores.perQuery[q.qid] = q.values[c];
      if (scores.perQuery.empty()) scores.note = "no judged query was retrieved";
      out.push_back(std::move(scores));
    }
  }
}

void fromAggregate(const std::vector<EragQueryLabels>& labels, const MeasureRequest& request,
                   const std::string& method, std::vector<MethodScores>& out) {
  const EragAggregate a = aggregateErag(labels, std::vector<MeasureRequest>{request});
  if (!a.ok()) {
    // The full rule is in a.error; the table has room for its gist.
    const bool continuousRule = a.error.find("continuous") != std::string::npos;
    MethodScores refused{method,
                         request.name + (request.params ? "_" + *request.params : ""),
                         {},
                         continuousRule ? "not defined for continuous labels (eRAG: only P_k and "
                                          "success_k)"
                                        : a.error};
    out.push_back(std::move(refused));
    return;
  }
  for (std::size_t m = 0; m < a.measures.size(); ++m) {
    MethodScores scores{method, a.measures[m], {}, {}};
    for (std::size_t q = 0; q < a.qids.size(); ++q) scores.perQuery[a.qids[q]] = a.values[m][q];
    out.push_back(std::move(scores));
  }
}

std::string fmt(double v, const char* f = "%.4f") {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

json num(double v) { return std::isnan(v) ? json() : json(v); }

}  // namespace

namespace {

// Why tau and rho are undefined although every pair is there: one side never varies (on
// Docugami no chunk contains a whole long gold answer, so every contains-answer label is 0).
std::string constantSideNote(const std::vector<double>& x, const std::vector<double>& y) {
  auto constant = [](const std::vector<double>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [&](double a) { return a == v.front(); });
  };
  auto value = [](double v) {
    std::ostringstream out;
    out << v;
    return out.str();
  };
  if (constant(x))
    return "the method's values are all " + value(x.front()) + ": no correlation is defined";
  if (constant(y))
    return "the end-to-end scores are all " + value(y.front()) + ": no correlation is defined";
  return {};
}

// The row's two means over its pairs (NaN without pairs).
void setPairMeans(CorrelationRow& row, const std::vector<double>& x, const std::vector<double>& y) {
  double sx = 0, sy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
  }
  row.methodMean = x.empty() ? kNaN : sx / static_cast<double>(x.size());
  row.targetMean = y.empty() ? kNaN : sy / static_cast<double>(y.size());
}

}  // namespace

std::vector<MethodScores> evaluationMethods(const EragReport& erag,
                                            const std::vector<MeasureRequest>& measures,
                                            const Qrels* qrels, bool provenance) {
  std::vector<MethodScores> out;
  // The retrieved lists as the eRAG run saw them (the same top-k as end-to-end).
  std::vector<std::pair<std::string, std::vector<std::string>>> lists;
  for (const auto& q : erag.queries) lists.emplace_back(q.qid, q.docIds);

  if (qrels) {
    evaluateInto(*qrels, runFromLists(lists), measures, "qrels", out);
  }
  if (provenance) {
    Qrels gold;
    std::vector<std::pair<std::string, std::vector<std::string>>> docLists;
    for (const auto& q : erag.queries) {
      if (q.goldDocs.empty()) continue;
      auto& judgments = gold.byQuery[q.qid];
      for (const auto& d : q.goldDocs) judgments.push_back({d, 1, 0});
      // A chunk counts as its document, and only the document's first chunk counts.
      std::vector<std::string> docs;
      std::unordered_set<std::string> seen;
      for (const auto& id : q.docIds) {
        std::string doc = chunkDocumentId(id);
        if (seen.insert(doc).second) docs.push_back(std::move(doc));
      }
      docLists.emplace_back(q.qid, std::move(docs));
    }
    if (!gold.byQuery.empty())
      evaluateInto(gold, runFromLists(docLists), measures, "provenance (document)", out);
  }
  // Contains-answer labels of the complete queries (the same queries as eRAG's scores).
  std::unordered_set<std::string> complete(erag.aggregate.qids.begin(), erag.aggregate.qids.end());
  std::vector<EragQueryLabels> containsLabels;
  std::vector<EragQueryLabels> eragLabels;
  for (std::size_t i = 0; i < erag.queries.size(); ++i) {
    const auto& q = erag.queries[i];
    if (!complete.count(q.qid)) continue;
    containsLabels.push_back({q.qid, q.contains});
    EragQueryLabels l{q.qid, {}};
    for (const auto& v : erag.labels[i]) l.labels.push_back(v.value_or(0.0));
    eragLabels.push_back(std::move(l));
  }
  for (const auto& m : measures) fromAggregate(containsLabels, m, "contains-answer", out);
  for (const auto& m : measures) fromAggregate(eragLabels, m, "eRAG (" + erag.metricKey + ")", out);
  return out;
}

CorrelationAnalysis analyseCorrelation(const std::vector<SystemInput>& systems,
                                       const CorrelationAnalysisOptions& options) {
  CorrelationAnalysis analysis;
  if (systems.empty()) {
    analysis.error = "no systems to correlate";
    return analysis;
  }
  // Per system: method scores and the per-query correlation with its end-to-end scores.
  std::vector<std::vector<MethodScores>> methodsBySystem;
  std::vector<std::map<std::string, double>> targets;
  for (const auto& s : systems) {
    if (!s.erag || !s.e2e || !s.erag->error.empty() || !s.e2e->error.empty()) {
      analysis.error = "system '" + s.name + "': an eRAG and an end-to-end report are needed";
      return analysis;
    }
    if (s.erag->metricKey != s.e2e->metricKey) {
      analysis.error = "system '" + s.name + "': eRAG labels use '" + s.erag->metricKey +
                       "' but the end-to-end run uses '" + s.e2e->metricKey +
                       "'; the paper compares both under the same downstream metric";
      return analysis;
    }
    const auto& measures = options.measures.empty() ? [&] {
      std::vector<MeasureRequest> fromReport;
      for (const auto& name : s.erag->aggregate.measures) {
        auto parsed = parseMeasureName(name);
        if (parsed.ok()) fromReport.push_back(parsed.value.request);
      }
      return fromReport;
    }() : options.measures;
    methodsBySystem.push_back(
        evaluationMethods(*s.erag, measures, options.qrels, options.provenance));
    std::map<std::string, double> target;
    for (std::size_t i = 0; i < s.e2e->qids.size(); ++i) target[s.e2e->qids[i]] = s.e2e->values[i];
    targets.push_back(std::move(target));

    CorrelationTable table;
    table.title = "system " + s.name + ", per query";
    table.target = "end-to-end " + s.e2e->metricKey;
    table.queries = s.e2e->qids.size();
    table.targetMean = s.e2e->mean;
    for (const auto& m : methodsBySystem.back()) {
      CorrelationRow row;
      row.method = m.method;
      row.measure = m.measure;
      row.note = m.note;
      std::vector<double> x, y;
      for (const auto& [qid, v] : m.perQuery) {
        const auto it = targets.back().find(qid);
        if (it == targets.back().end()) continue;
        x.push_back(v);
        y.push_back(it->second);
      }
      row.n = x.size();
      setPairMeans(row, x, y);
      if (row.note.empty()) {
        row.result = stats::correlate(x, y, options.stats);
        row.note = row.result.error.empty() ? constantSideNote(x, y) : row.result.error;
      }
      table.rows.push_back(std::move(row));
    }
    analysis.tables.push_back(std::move(table));
  }
  // Over systems: each system's mean of a method's values vs its mean end-to-end score.
  if (systems.size() >= 2) {
    CorrelationTable table;
    table.title = "over " + std::to_string(systems.size()) + " systems' means";
    table.target = "end-to-end " + systems.front().e2e->metricKey;
    table.queries = 0;
    double meanOfMeans = 0.0;
    for (const auto& s : systems) meanOfMeans += s.e2e->mean;
    table.targetMean = meanOfMeans / static_cast<double>(systems.size());
    for (const auto& m : methodsBySystem.front()) {
      CorrelationRow row;
      row.method = m.method;
      row.measure = m.measure;
      std::vector<double> x, y;
      for (std::size_t s = 0; s < systems.size(); ++s) {
        const MethodScores* found = nullptr;
        for (const auto& other : methodsBySystem[s]) {
          if (other.method == m.method && other.measure == m.measure) found = &other;
        }
        if (!found || found->perQuery.empty() || targets[s].empty()) continue;
        double sum = 0;
        for (const auto& [qid, v] : found->perQuery) sum += v;
        x.push_back(sum / static_cast<double>(found->perQuery.size()));
        double tsum = 0;
        for (const auto& [qid, v] : targets[s]) tsum += v;
        y.push_back(tsum / static_cast<double>(targets[s].size()));
      }
      row.n = x.size();
      row.note = m.note;
      setPairMeans(row, x, y);
      if (row.note.empty()) {
        stats::CorrelationOptions o = options.stats;
        o.resamples = 0;  // a handful of systems: a bootstrap over them says nothing
        row.result = stats::correlate(x, y, o);
        row.note = row.result.error.empty() ? constantSideNote(x, y) : row.result.error;
      }
      table.rows.push_back(std::move(row));
    }
    analysis.tables.push_back(std::move(table));
  }
  return analysis;
}

std::string formatCorrelationAnalysis(const CorrelationAnalysis& analysis) {
  std::ostringstream out;
  if (!analysis.ok()) {
    out << "error: " << analysis.error << "\n";
    return out.str();
  }
  for (const auto& t : analysis.tables) {
    out << "Correlation with " << t.target << " (" << t.title;
    if (t.queries) out << ", " << t.queries << " queries";
    out << ")\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-24s %-12s %5s %8s %8s %8s %8s  %-17s %s\n", "method",
                  "measure", "n", "mean", "tau", "rho", "p(tau)", "tau 95% CI", "");
    out << line;
    for (const auto& r : t.rows) {
      if (!r.note.empty()) {
        std::snprintf(line, sizeof line, "  %-24s %-12s %5zu %8s  ", r.method.c_str(),
                      r.measure.c_str(), r.n, fmt(r.methodMean).c_str());
        out << line << "n/a: " << r.note << "\n";
        continue;
      }
      const auto& k = r.result.kendall;
      const std::string ci =
          std::isnan(k.ci.low) || std::isnan(k.ci.high) ||
                  (k.ci.low == 0.0 && k.ci.high == 0.0 && std::isnan(k.value))
              ? std::string("-")
              : "[" + fmt(k.ci.low, "%.3f") + ", " + fmt(k.ci.high, "%.3f") + "]";
      std::snprintf(line, sizeof line, "  %-24s %-12s %5zu %8s %8s %8s %8s  %-17s\n",
                    r.method.c_str(), r.measure.c_str(), r.n, fmt(r.methodMean).c_str(),
                    fmt(k.value).c_str(), fmt(r.result.spearman.value).c_str(),
                    fmt(k.p, "%.2g").c_str(), ci.c_str());
      out << line;
    }
    out << "  end-to-end mean: " << fmt(t.targetMean) << "\n";
    out << "\n";
  }
  out << "tau = Kendall's tau-b, rho = Spearman's rho; '-' = undefined (a side is constant).\n";
  return out.str();
}

json correlationAnalysisJson(const CorrelationAnalysis& analysis) {
  json out;
  if (!analysis.ok()) {
    out["error"] = analysis.error;
    return out;
  }
  json tables = json::array();
  for (const auto& t : analysis.tables) {
    json rows = json::array();
    for (const auto& r : t.rows) {
      json row{{"method", r.method},
               {"measure", r.measure},
               {"n", r.n},
               {"method_mean", num(r.methodMean)},
               {"e2e_mean", num(r.targetMean)}};
      if (!r.note.empty()) {
        row["note"] = r.note;
      } else {
        row["kendall_tau"] = num(r.result.kendall.value);
        row["kendall_p"] = num(r.result.kendall.p);
        row["kendall_ci95"] = {num(r.result.kendall.ci.low), num(r.result.kendall.ci.high)};
        row["spearman_rho"] = num(r.result.spearman.value);
        row["spearman_p"] = num(r.result.spearman.p);
        row["spearman_ci95"] = {num(r.result.spearman.ci.low), num(r.result.spearman.ci.high)};
      }
      rows.push_back(std::move(row));
    }
    tables.push_back({{"title", t.title},
                      {"target", t.target},
                      {"queries", t.queries},
                      {"e2e_mean", num(t.targetMean)},
                      {"rows", rows}});
  }
  out["tables"] = tables;
  return out;
}

}  // namespace ragscope::core::eval
