#include "core/eval/jobs/eragaggregate.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <unordered_set>

#include "core/data/model.h"
#include "core/metrics/measurename.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/util/nan.h"

namespace ragscope::core::eval {

namespace {

bool eragAllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A cutoff list "5,10" -> {5, 10}; nullopt when a part is not a positive integer.
std::optional<std::vector<std::size_t>> eragCutoffs(std::string_view params) {
  std::vector<std::size_t> out;
  std::size_t start = 0;
  while (start <= params.size()) {
    const std::size_t comma = std::min(params.find(',', start), params.size());
    const std::string part(params.substr(start, comma - start));
    if (!eragAllDigits(part)) return std::nullopt;
    errno = 0;
    const unsigned long long v = std::strtoull(part.c_str(), nullptr, 10);
    if (errno || v == 0 || v > 1000000) return std::nullopt;
    out.push_back(static_cast<std::size_t>(v));
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::string_view continuousLabelRule() {
  return "with continuous (non-binary) labels eRAG defines only P_k (the mean of the first k "
         "labels) and success_k (the max of the first k labels) (the eRAG reference "
         "code's rule); use a binary downstream metric (em, accuracy, contains) for other measures";
}

bool labelsAreBinary(const std::vector<EragQueryLabels>& queries) {
  for (const auto& q : queries) {
    for (double v : q.labels) {
      if (v != 0.0 && v != 1.0) return false;
    }
  }
  return true;
}

Parsed<std::vector<MeasureRequest>> parseEragMeasures(std::string_view list) {
  Parsed<std::vector<MeasureRequest>> out;
  std::string token;
  auto flush = [&]() {
    if (token.empty()) return true;
    auto one = parseMeasureName(token);
    token.clear();
    if (!one.ok()) {
      out.error = one.error;
      return false;
    }
    out.value.push_back(std::move(one.value.request));
    return true;
  };
  for (char c : list) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!flush()) return out;
    } else {
      token.push_back(c);
    }
  }
  if (!flush()) return out;
  if (out.value.empty()) out.error = "no measures given";
  return out;
}

std::optional<std::size_t> EragAggregate::measureIndex(std::string_view name) const {
  for (std::size_t i = 0; i < measures.size(); ++i) {
    if (measures[i] == name) return i;
  }
  return std::nullopt;
}

double EragAggregate::value(std::string_view measure, std::size_t query) const {
  const auto m = measureIndex(measure);
  if (!m || query >= values[*m].size()) return kNaN;
  return values[*m][query];
}

double EragAggregate::mean(std::string_view measure) const {
  const auto m = measureIndex(measure);
  return m ? means[*m] : kNaN;
}

double continuousPrecision(const std::vector<double>& labels, std::optional<std::size_t> k) {
  const std::size_t cut = k.value_or(labels.size());
  if (cut == 0) return 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < cut && i < labels.size(); ++i) sum += labels[i];  // padding adds 0
  return sum / static_cast<double>(cut);
}

double continuousSuccess(const std::vector<double>& labels, std::optional<std::size_t> k) {
  const std::size_t cut = k.value_or(labels.size());
  double best = 0.0;  // padding with 0 never raises the max
  for (std::size_t i = 0; i < cut && i < labels.size(); ++i) best = std::max(best, labels[i]);
  return best;
}

EragAggregate aggregateErag(const std::vector<EragQueryLabels>& queries,
                            const std::vector<std::string>& measures) {
  std::vector<MeasureRequest> requests;
  for (const auto& m : measures) {
    auto one = parseMeasureName(m);
    if (!one.ok()) {
      EragAggregate bad;
      bad.error = one.error;
      return bad;
    }
    requests.push_back(std::move(one.value.request));
  }
  return aggregateErag(queries, requests);
}

EragAggregate aggregateErag(const std::vector<EragQueryLabels>& queries,
                            const std::vector<MeasureRequest>& measures) {
  EragAggregate out;
  if (measures.empty()) {
    out.error = "no measures given";
    return out;
  }
  std::unordered_set<std::string> seen;
  for (const auto& q : queries) {
    if (!seen.insert(q.qid).second) {
      out.error = "query '" + q.qid + "' appears twice; eRAG keys queries by id";
      return out;
    }
    for (std::size_t j = 0; j < q.labels.size(); ++j) {
      const double v = q.labels[j];
      if (!(v >= 0.0 && v <= 1.0)) {
        out.error = "query '" + q.qid + "', rank " + std::to_string(j + 1) + ": label " +
                    std::to_string(v) +
                    " is outside [0, 1] (the downstream metric must return "
                    "values in [0, 1])";
        return out;
      }
    }
    out.qids.push_back(q.qid);
  }
  out.binary = labelsAreBinary(queries);

  auto addColumn = [&](const std::string& name) -> std::vector<double>* {
    if (out.measureIndex(name)) return nullptr;  // asked twice: keep the first
    out.measures.push_back(name);
    out.values.emplace_back(queries.size(), 0.0);
    return &out.values.back();
  };

  if (!out.binary) {
    for (const auto& r : measures) {
      const bool isP = r.name == "P";
      const bool isSuccess = r.name == "success";
      if (!isP && !isSuccess) {
        out = EragAggregate{};
        out.binary = false;
        out.error = "measure '" + r.name + (r.params ? "_" + *r.params : std::string()) +
                    "' is not defined: " + std::string(continuousLabelRule());
        return out;
      }
      std::vector<std::optional<std::size_t>> ks;
      if (r.params) {
        const auto list = eragCutoffs(*r.params);
        if (!list) {
          out = EragAggregate{};
          out.binary = false;
          out.error = "measure '" + r.name + "': bad cutoff '" + *r.params + "'";
          return out;
        }
        for (auto k : *list) ks.emplace_back(k);
      } else {
        ks.emplace_back(std::nullopt);
      }
      for (const auto& k : ks) {
        const std::string name = k ? r.name + "_" + std::to_string(*k) : r.name;
        std::vector<double>* column = addColumn(name);
        if (!column) continue;
        for (std::size_t qi = 0; qi < queries.size(); ++qi) {
          (*column)[qi] = isP ? continuousPrecision(queries[qi].labels, k)
                              : continuousSuccess(queries[qi].labels, k);
        }
      }
    }
  } else {
    // G_q as qrels (documents named by their position, relevance level 1) and the list order as
    // the ranking (score n - j): the reference's construction.
    Qrels qrels;
    Run run;
    run.tag = "erag";
    for (const auto& q : queries) {
      if (q.labels.empty()) continue;
      auto& judgments = qrels.byQuery[q.qid];
      Ranking ranking;
      ranking.queryId = q.qid;
      const std::size_t n = q.labels.size();
      for (std::size_t j = 0; j < n; ++j) {
        const std::string docId = std::to_string(j);
        judgments.push_back({docId, static_cast<int>(q.labels[j]), 0});
        const std::string_view stored = run.arena->store(docId);
        RunEntry e;
        e.doc = stored.data();
        e.docLen = static_cast<std::uint32_t>(stored.size());
        e.line = static_cast<std::uint32_t>(j + 1);
        e.score = static_cast<double>(n - j);
        ranking.entries.push_back(e);
      }
      run.rankings.push_back(std::move(ranking));
    }
    for (const auto& r : measures) {
      // One request at a time: trec_eval keeps only the first parameters given for a measure,
      // so "P_5" and "P_10" must not be merged into one request.
      EvalSettings settings;
      settings.relevanceLevel = 1;
      settings.measures = {r};
      settings.threads = queries.size() > 2000 ? 2 : 1;
      const EvalResult result = evaluate(qrels, run, settings);
      if (!result.ok() && !qrels.byQuery.empty()) {
        out = EragAggregate{};
        out.error = "measure '" + r.name + "': " +
                    (result.diagnostics.empty() ? std::string("evaluation failed")
                                                : result.diagnostics.front().toString());
        return out;
      }
      for (std::size_t c = 0; c < result.columns.size(); ++c) {
        const auto& col = result.columns[c];
        if (!col.perQuery || !col.numeric() || col.kind == MeasureKind::NumQ) continue;
        std::vector<double>* column = addColumn(col.name);
        if (!column) continue;
        for (std::size_t qi = 0; qi < queries.size(); ++qi) {
          const QueryEval* qe = result.query(queries[qi].qid);
          (*column)[qi] = qe ? qe->values[c] : 0.0;  // empty list: 0
        }
      }
    }
  }
  out.means.reserve(out.values.size());
  for (const auto& column : out.values) {
    double sum = 0.0;
    for (double v : column) sum += v;
    out.means.push_back(column.empty() ? kNaN : sum / static_cast<double>(column.size()));
  }
  return out;
}

}  // namespace ragscope::core::eval
