#include "core/eval/inputs/ppiinputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "core/eval/inputs/claimlabels.h"
#include "core/eval/inputs/storedscores.h"
#include "core/eval/jobs/claimverdicts.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

namespace {

using labels::TargetKind;

// The current labels of one run store, by (kind, qid, item, claim premise).
using PpiTargetKey =
    std::tuple<TargetKind, std::string, std::string, std::optional<labels::ClaimPremise>>;

class PpiLabelIndex {
 public:
  PpiLabelIndex(const std::vector<labels::Label>& all, const labels::ScopeMatcher& store) {
    for (const labels::Label& l : all)
      if (store(l.target.scope))
        m_byTarget[{l.target.kind, l.target.qid, l.target.item, l.target.claimPremise()}].push_back(
            &l);
  }

  const std::vector<const labels::Label*>* find(
      TargetKind kind, const std::string& qid, const std::string& item,
      std::optional<labels::ClaimPremise> premise = std::nullopt) const {
    const auto it = m_byTarget.find({kind, qid, item, premise});
    return it == m_byTarget.end() ? nullptr : &it->second;
  }

  // The labelled targets of `kind` whose item starts with `prefix` ("" for all) and whose claim
  // premise is `premise`, as (qid, item).
  std::vector<std::pair<std::string, std::string>> targets(
      TargetKind kind, std::string_view prefix,
      std::optional<labels::ClaimPremise> premise = std::nullopt) const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [key, list] : m_byTarget)
      if (std::get<0>(key) == kind && std::get<2>(key).starts_with(prefix) &&
          std::get<3>(key) == premise)
        out.emplace_back(std::get<1>(key), std::get<2>(key));
    return out;
  }

  // The labelled claim targets whose item starts with `prefix` and whose premise is another.
  std::size_t otherPremises(std::string_view prefix, labels::ClaimPremise premise) const {
    std::size_t n = 0;
    for (const auto& [key, list] : m_byTarget)
      if (std::get<0>(key) == TargetKind::Claim && std::get<2>(key).starts_with(prefix) &&
          std::get<3>(key) != premise)
        ++n;
    return n;
  }

 private:
  std::map<PpiTargetKey, std::vector<const labels::Label*>> m_byTarget;
};

// Adds one item with judge value f to `out`, labelled when its labels give a value (their mean
// over annotators). `claimText`: a claim label recorded with another text is stale (not used).
void addPpiItem(PpiItems& out, double f, const std::vector<const labels::Label*>* labelsOfItem,
                const std::string* claimText) {
  double sum = 0.0;
  std::size_t values = 0, annotators = 0;
  if (labelsOfItem) {
    for (const labels::Label* l : *labelsOfItem) {
      if (claimText && !l->context.empty() && l->context != *claimText) {
        ++out.staleLabels;
        continue;
      }
      ++annotators;
      if (const auto v = labels::numericValue(l->target.kind, l->value)) {
        sum += *v;
        ++values;
      }
    }
  }
  if (values == 0) {
    if (annotators > 0) ++out.abstained;
    out.input.unlabelledF.push_back(f);
    return;
  }
  if (values > 1) ++out.severalAnnotators;
  out.input.labelledF.push_back(f);
  out.input.labelledY.push_back(sum / double(values));
}

// The items of one claim metric: the claims of one side against one premise, each labelled by
// the labels of that premise only (a verdict against the chunks is no truth for correctness).
PpiItems claimMetricItems(const JudgeReport& report, const PpiLabelIndex& index, const char* metric,
                          const char* description, bool gold, labels::ClaimPremise premise) {
  PpiItems out;
  out.metric = metric;
  out.description = description;
  out.labelKind = TargetKind::Claim;
  out.premise = premise;
  const std::string side = gold ? "gold:" : "response:";
  std::set<std::pair<std::string, std::string>> used;
  for (const JudgedQuery& q : report.queries) {
    const auto& claims = gold ? q.goldClaims.claims : q.responseClaims.claims;
    for (std::size_t i = 0; i < claims.size(); ++i) {
      const auto verdict = claimVerdict(q, gold, i, premise);
      if (!verdict) continue;  // not judged against this premise
      if (!claims::isResolved(*verdict)) {
        ++out.judgeUnresolved;
        continue;
      }
      const std::string item = side + std::to_string(i);
      const auto* labelsOfItem = index.find(TargetKind::Claim, q.qid, item, premise);
      if (labelsOfItem) used.emplace(q.qid, item);
      addPpiItem(out, claims::isSupported(*verdict) ? 1.0 : 0.0, labelsOfItem, &claims[i]);
    }
  }
  for (const auto& t : index.targets(TargetKind::Claim, side, premise))
    if (!used.contains(t)) ++out.labelsNotUsed;
  out.otherPremise = index.otherPremises(side, premise);
  return out;
}

}  // namespace

std::vector<PpiItems> claimPpiItems(const JudgeReport& report, const labels::ScopeMatcher& store,
                                    const std::vector<labels::Label>& labels) {
  const PpiLabelIndex index(labels, store);
  std::vector<PpiItems> out;
  auto add = [&](PpiItems m) {
    if (m.items() > 0 || m.judgeUnresolved > 0) out.push_back(std::move(m));
  };
  using labels::ClaimPremise;
  add(claimMetricItems(report, index, "faithfulness", "response claims vs the retrieved chunks",
                       false, ClaimPremise::Chunks));
  add(claimMetricItems(report, index, "correctness", "response claims vs the gold answer", false,
                       ClaimPremise::GoldAnswer));
  add(claimMetricItems(report, index, "coverage", "gold-answer claims vs the response", true,
                       ClaimPremise::Response));
  return out;
}

std::optional<PpiItems> eragPpiItems(const EragReport& report, const labels::ScopeMatcher& store,
                                     const std::vector<labels::Label>& labels) {
  const PpiLabelIndex index(labels, store);
  PpiItems out;
  out.metric = "erag";
  out.description = "a retrieved document's eRAG label (query, document)";
  out.labelKind = TargetKind::EragDoc;
  std::set<std::pair<std::string, std::string>> used;
  for (std::size_t q = 0; q < report.queries.size() && q < report.labels.size(); ++q) {
    const PlannedQuery& planned = report.queries[q];
    for (std::size_t r = 0; r < planned.docIds.size() && r < report.labels[q].size(); ++r) {
      const auto& f = report.labels[q][r];
      if (!f) {
        ++out.judgeUnresolved;  // no output yet: no eRAG label
        continue;
      }
      const auto* labelsOfItem = index.find(TargetKind::EragDoc, planned.qid, planned.docIds[r]);
      if (labelsOfItem) used.emplace(planned.qid, planned.docIds[r]);
      addPpiItem(out, *f, labelsOfItem, nullptr);
    }
  }
  for (const auto& t : index.targets(TargetKind::EragDoc, ""))
    if (!used.contains(t)) ++out.labelsNotUsed;
  if (out.items() == 0) return std::nullopt;
  return out;
}

PpiItems answerPpiItems(const std::string& metric, const stats::QueryValues& values,
                        const labels::ScopeMatcher& store,
                        const std::vector<labels::Label>& labels) {
  const PpiLabelIndex index(labels, store);
  PpiItems out;
  out.metric = "answer:" + metric;
  out.description = "answers scored by " + metric;
  out.labelKind = TargetKind::Answer;
  for (const auto& [qid, f] : values)
    addPpiItem(out, f, index.find(TargetKind::Answer, qid, ""), nullptr);
  for (const auto& t : index.targets(TargetKind::Answer, ""))
    if (!values.contains(t.first)) ++out.labelsNotUsed;
  return out;
}

std::vector<std::string> RunPpi::metricNames() const {
  std::vector<std::string> names;
  for (const auto& m : metrics) names.push_back(m.metric);
  return names;
}

const PpiItems* RunPpi::find(std::string_view metric) const {
  for (const auto& m : metrics)
    if (m.metric == metric) return &m;
  return nullptr;
}

RunPpi ppiItemsOfStore(const std::filesystem::path& store,
                       const std::filesystem::path& labelsFolder,
                       const std::vector<labels::Label>& labels) {
  RunPpi out;
  const labels::ScopeMatcher names(labelsFolder, store);
  stats::BootstrapOptions noIntervals;
  noIntervals.resamples = 0;
  store::RunStore runStore;
  if (!runStore.openReadOnly(store, &out.error)) {
    if (out.error.rfind(store.string(), 0) != 0) out.error = store.string() + ": " + out.error;
    return out;
  }
  out.kind = runStore.run().kind;
  auto failed = [&](const std::string& error) {
    out.error = error.rfind(store.string(), 0) == 0 ? error : store.string() + ": " + error;
    return out;
  };
  const bool anyAnswerLabel = std::ranges::any_of(labels, [&](const labels::Label& l) {
    return l.target.kind == TargetKind::Answer && names(l.target.scope);
  });
  if (out.kind == kJudgeJobKind) {
    const JudgeReport report = computeJudgeReport(runStore, noIntervals);
    if (!report.error.empty()) return failed(report.error);
    out.metrics = claimPpiItems(report, names, labels);
    if (anyAnswerLabel)
      for (const auto& [metric, values] : judgeMeasureTable(report))
        out.metrics.push_back(answerPpiItems(metric, values, names, labels));
  } else if (out.kind == kEragJobKind) {
    const EragReport report = computeEragReport(runStore, {}, noIntervals);
    if (!report.error.empty()) return failed(report.error);
    if (auto m = eragPpiItems(report, names, labels)) out.metrics.push_back(std::move(*m));
  } else if (out.kind == kE2eJobKind) {
    const E2eReport report = computeE2eReport(runStore, noIntervals);
    if (!report.error.empty()) return failed(report.error);
    stats::QueryValues values;
    for (std::size_t q = 0; q < report.qids.size(); ++q)
      values.emplace(report.qids[q], report.values[q]);
    if (anyAnswerLabel || !values.empty())
      out.metrics.push_back(answerPpiItems(report.metricKey, values, names, labels));
  } else {
    return failed("a '" + out.kind +
                  "' run store has no judged items (judge, erag and e2e stores have)");
  }
  return out;
}

std::vector<PpiEstimate> estimatePpi(const std::vector<PpiItems>& metrics,
                                     const stats::PpiOptions& options) {
  std::vector<PpiEstimate> out;
  out.reserve(metrics.size());
  for (const auto& m : metrics) out.push_back({m, stats::ppiMean(m.input, options)});
  return out;
}

}  // namespace ragscope::core::eval

namespace ragscope::core::eval {

namespace {

std::string ppiNumber(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string ppiRow(const std::string& name, double mean, const stats::Interval& ci,
                   const std::string& note) {
  std::string row = name;
  row.resize(std::max<std::size_t>(row.size(), 14), ' ');
  std::string value = ppiNumber(mean);
  row += std::string(value.size() < 8 ? 8 - value.size() : 0, ' ') + value;
  row += "  [" + ppiNumber(ci.low) + ", " + ppiNumber(ci.high) + "]";
  if (!note.empty()) row += "  " + note;
  return row + "\n";
}

}  // namespace

nlohmann::ordered_json ppiResultJson(const stats::PpiResult& r) {
  auto mean = [](const stats::MeanWithInterval& m) {
    nlohmann::ordered_json j;
    j["mean"] = m.mean;
    j["ci_low"] = m.ci.low;
    j["ci_high"] = m.ci.high;
    return j;
  };
  nlohmann::ordered_json j;
  j["estimate"] = r.estimate;
  j["ci_low"] = r.ci.low;
  j["ci_high"] = r.ci.high;
  j["lambda"] = r.lambda;
  j["n_labelled"] = r.nLabelled;
  j["n_unlabelled"] = r.nUnlabelled;
  j["judge_only"] = mean(r.judgeOnly);
  j["human_only"] = mean(r.humanOnly);
  return j;
}

std::string formatPpiResult(const stats::PpiResult& r, const stats::PpiOptions& options) {
  const std::string method = options.lambda
                                 ? (*options.lambda == 1.0 ? "classical PPI" : "PPI, lambda given")
                                 : "PPI++ (lambda tuned)";
  char level[32];
  std::snprintf(level, sizeof level, "%g%%", options.level * 100.0);
  std::string out = method + ": " + std::to_string(r.nLabelled + r.nUnlabelled) + " items, " +
                    std::to_string(r.nLabelled) + " labelled, " + std::to_string(r.nUnlabelled) +
                    " unlabelled; " + level + " normal intervals\n";
  out += "                  mean  interval\n";
  out += ppiRow("PPI estimate", r.estimate, r.ci, "lambda " + ppiNumber(r.lambda));
  out += ppiRow("judge only", r.judgeOnly.mean, r.judgeOnly.ci,
                "all " + std::to_string(r.judgeOnly.n) + " items, as the judge says");
  out += ppiRow("human only", r.humanOnly.mean, r.humanOnly.ci,
                "the " + std::to_string(r.humanOnly.n) + " labelled items");
  return out;
}

}  // namespace ragscope::core::eval
