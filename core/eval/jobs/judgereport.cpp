// The judging job's report (see judgejob.h and core/eval/jobs/README.md): the per-query metric
// values summed up per metric (states, mean, bootstrap interval, repeat variances and label
// flips), its JSON, and its pointwise table for meta-evaluation.

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/claims/judgeparse.h"
#include "core/claims/numpycompat.h"
#include "core/claims/ragchecker.h"
#include "core/eval/jobs/judgejob.h"
#include "core/eval/jobs/judgemetrics.h"
#include "core/util/nan.h"

namespace ragscope::core::eval {

using claims::ScoreState;
using nlohmann::json;

namespace {

// The sample variance (n - 1); 0 below two values.
double judgeVariance(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double mean = 0.0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double s = 0.0;
  for (double x : v) s += (x - mean) * (x - mean);
  return s / static_cast<double>(v.size() - 1);
}

}  // namespace

JudgeReport computeJudgeReport(store::RunStore& store, const stats::BootstrapOptions& bootstrap) {
  return summarizeJudgeWalk(walkJudgeStore(store, false), bootstrap);
}

JudgeReport summarizeJudgeWalk(JudgeWalk walk, const stats::BootstrapOptions& bootstrap) {
  JudgeReport report;
  if (!walk.error.empty()) {
    report.error = walk.error;
    return report;
  }
  report.settings = std::move(walk.settings);
  const JudgeSettings& settings = report.settings;
  report.pendingItems = walk.pendingItems;
  report.heuristic = walk.heuristic;
  const std::size_t repeats = std::max<std::size_t>(1, settings.repeats);
  for (auto& q : walk.queries) {
    for (const JudgedClaims* c : {&q.responseClaims, &q.goldClaims}) {
      if (c->claims.size() > claims::kMaxClaimsPerAnswer) {
        ++report.claimListsOverCap;
        report.claimsNotJudged += c->claims.size() - claims::kMaxClaimsPerAnswer;
      }
      if (c->read) {
        JudgeParsePath& path = c->structured ? report.structuredPath : report.textPath;
        ++path.extractions;
        if (c->failed == ScoreState::Unparsed) ++path.extractionsUnparsed;
      }
    }
    for (const auto& name : settings.metrics) {
      MetricValue v = judgeMetricValue(name, q, settings.mode, std::string::npos);
      if (repeats > 1)
        for (std::size_t r = 0; r < repeats; ++r)
          v.perRepeat.push_back(judgeMetricValue(name, q, settings.mode, r).value);
      q.values.push_back(std::move(v));
    }
    for (const auto& v : q.verdicts) {
      report.repairs += v.repairs;
      JudgeParsePath& path = v.structured ? report.structuredPath : report.textPath;
      path.verdictReplies += v.repliesRead;
      path.verdicts += v.verdictsRead;
      path.verdictsUnparsed += v.verdictsUnparsed;
      if (repeats < 2) continue;
      for (std::size_t i = 0; i < v.labels.size(); ++i) {
        std::unordered_map<int, std::size_t> counts;
        std::size_t resolved = 0;
        for (const auto& row : v.repeats)
          if (claims::isResolved(row[i])) {
            ++counts[static_cast<int>(row[i])];
            ++resolved;
          }
        if (resolved < 2) continue;
        std::size_t best = 0;
        for (const auto& [label, c] : counts) best = std::max(best, c);
        ++report.reliability.cells;
        if (counts.size() > 1) ++report.reliability.flippedCells;
        report.reliability.flipRate +=
            1.0 - static_cast<double>(best) / static_cast<double>(resolved);
      }
    }
    report.queries.push_back(std::move(q));
  }
  report.reliability.repeats = repeats;
  if (report.reliability.cells > 0)
    report.reliability.flipRate /= static_cast<double>(report.reliability.cells);

  for (std::size_t m = 0; m < settings.metrics.size(); ++m) {
    JudgeMetricSummary s;
    s.name = settings.metrics[m];
    std::vector<double> values, repeatMeans;
    std::vector<double> within;
    for (const auto& q : report.queries) {
      const MetricValue& v = q.values[m];
      switch (v.state) {
        case ScoreState::Scored:
          ++s.scored;
          break;
        case ScoreState::Unparsed:
          ++s.unparsed;
          break;
        case ScoreState::Error:
          ++s.errors;
          break;
        case ScoreState::Empty:
          ++s.empty;
          break;
      }
      s.itemsScored += v.scored;
      s.itemsTotal += v.total;
      if (v.value) values.push_back(*v.value);
      std::vector<double> reps;
      for (const auto& r : v.perRepeat)
        if (r) reps.push_back(*r);
      if (reps.size() >= 2) within.push_back(judgeVariance(reps));
      if (!reps.empty()) {
        double sum = 0.0;
        for (double x : reps) sum += x;
        repeatMeans.push_back(sum / static_cast<double>(reps.size()));
      }
    }
    s.queries = values.size();
    s.mean = values.empty() ? kNaN : claims::numpyMean(values);
    if (!values.empty() && bootstrap.resamples > 0) {
      stats::BootstrapOptions o = bootstrap;
      o.keepDistribution = false;
      const auto b = stats::bootstrap(values, o);
      if (b.ok()) s.ci95 = b.ci;
    }
    if (!within.empty()) {
      double sum = 0.0;
      for (double x : within) sum += x;
      s.withinVariance = sum / static_cast<double>(within.size());
    }
    s.acrossVariance = judgeVariance(repeatMeans);
    report.metrics.push_back(std::move(s));
  }
  return report;
}

JudgeReport readJudgeReport(const std::filesystem::path& path,
                            const stats::BootstrapOptions& bootstrap) {
  store::RunStore store;
  std::string err;
  if (!store.openReadOnly(path, &err)) {
    JudgeReport r;
    r.error = err;
    return r;
  }
  return computeJudgeReport(store, bootstrap);
}

json judgeReportJson(const JudgeReport& r) {
  json j;
  j["n"] = r.queries.size();
  j["mode"] = std::string(judgeModeName(r.settings.mode));
  json mean = json::object(), ci = json::object(), states = json::object(),
       nScored = json::object(), nTotal = json::object();
  for (const auto& s : r.metrics) {
    mean[s.name] = std::isnan(s.mean) ? json() : json(s.mean);
    ci[s.name] = s.ci95 ? json::array({s.ci95->low, s.ci95->high}) : json();
    states[s.name] = {
        {"scored", s.scored}, {"unparsed", s.unparsed}, {"error", s.errors}, {"empty", s.empty}};
    nScored[s.name] = s.itemsScored;
    nTotal[s.name] = s.itemsTotal;
  }
  if (r.settings.mode == JudgeMode::RagChecker) {
    // As RAGChecker prints its corpus figures: round(mean * 100, 1), numpy's way.
    json percent = json::object();
    for (const auto& s : r.metrics)
      percent[s.name] = std::isnan(s.mean) ? json() : json(claims::ragcheckerPercent(s.mean));
    j["percent"] = std::move(percent);
  }
  j["mean"] = std::move(mean);
  j["ci95"] = std::move(ci);
  j["states"] = std::move(states);
  j["n_scored"] = std::move(nScored);
  j["n_total"] = std::move(nTotal);
  json perQuery = json::object();
  for (const auto& q : r.queries) {
    json row = json::object();
    for (std::size_t m = 0; m < r.metrics.size(); ++m)
      row[r.metrics[m].name] = q.values[m].value ? json(*q.values[m].value) : json();
    perQuery[q.qid] = std::move(row);
  }
  j["per_query"] = std::move(perQuery);
  j["repairs"] = r.repairs;
  j["claims_over_cap"] = {{"cap", claims::kMaxClaimsPerAnswer},
                          {"lists", r.claimListsOverCap},
                          {"claims_not_judged", r.claimsNotJudged}};
  json paths = json::object();
  for (const auto& [name, p] :
       {std::pair{"text", &r.textPath}, std::pair{"structured", &r.structuredPath}})
    paths[name] = {{"extractions", p->extractions},
                   {"extractions_unparsed", p->extractionsUnparsed},
                   {"verdict_replies", p->verdictReplies},
                   {"verdicts", p->verdicts},
                   {"verdicts_unparsed", p->verdictsUnparsed}};
  j["parse_paths"] = std::move(paths);
  j["pending_calls"] = r.pendingItems;
  j["heuristic"] = r.heuristic;
  if (r.reliability.repeats > 1) {
    json variance = json::object();
    for (const auto& s : r.metrics)
      variance[s.name] = {{"within", s.withinVariance}, {"across", s.acrossVariance}};
    j["reliability"] = {{"repeats", r.reliability.repeats},
                        {"cells", r.reliability.cells},
                        {"flipped_cells", r.reliability.flippedCells},
                        {"flip_rate", r.reliability.flipRate},
                        {"variance", std::move(variance)}};
  }
  return j;
}

claims::PointwiseTable judgePointwiseTable(const JudgeReport& report) {
  claims::PointwiseTable table;
  for (const auto& m : report.metrics) table.columns.push_back(m.name);
  for (const auto& q : report.queries) {
    claims::PointwiseTable::Row row{q.qid, {}, 0};
    for (const auto& v : q.values) row.values.push_back(v.value.value_or(kNaN));
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace ragscope::core::eval
