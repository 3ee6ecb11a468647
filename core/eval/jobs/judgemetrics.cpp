// The judging job's metrics for one query (see judgemetrics.h and core/eval/jobs/README.md): the
// notebook's support shares, RAGAS's faithfulness, context recall and context precision, and
// RAGChecker's metrics from the claim matrices, each in the mode asked (ragscope, ragchecker,
// ragas).

#include "core/eval/jobs/judgemetrics.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "core/claims/notebook.h"
#include "core/claims/ragas.h"
#include "core/claims/ragchecker.h"

namespace ragscope::core::eval {

using claims::Label;
using claims::ScoreState;
using nlohmann::json;

namespace {

// Supported share in a mode (notebook metrics, ragas.faithfulness, ragas.context_recall).
MetricValue supportValue(const JudgedClaims& c, const PremiseVerdicts* v,
                         std::span<const Label> labels, JudgeMode mode) {
  MetricValue m;
  if (c.failed) {
    m.state = *c.failed;
    if (mode == JudgeMode::RagChecker) m.value = 0.0;  // RAGChecker: no claims, 0.0
    return m;
  }
  if (c.claims.empty() || !v) {
    m.state = ScoreState::Empty;
    if (mode == JudgeMode::RagChecker) m.value = 0.0;
    return m;
  }
  const claims::ClaimScore s = claims::supportScore(labels);
  m.total = s.total;
  m.scored = s.scored();
  switch (mode) {
    case JudgeMode::RagScope:
      m.state = s.state;
      if (s.hasValue()) m.value = s.value;
      break;
    case JudgeMode::RagChecker:  // unresolved labels are not entailed
      m.state = s.hasValue() ? ScoreState::Scored : s.state;
      m.value = static_cast<double>(s.supported) / static_cast<double>(s.total);
      break;
    case JudgeMode::Ragas:  // a failed call is a NaN row; otherwise over the verdicts returned
      m.state = s.state;
      if (s.errors == 0 && s.scored() > 0) m.value = s.value;
      break;
  }
  return m;
}

MetricValue fromMetricScore(const claims::MetricScore& s, bool ragcheckerMode) {
  MetricValue m;
  m.state = s.state;
  m.total = s.total;
  m.scored = s.scored;
  if (s.hasValue() || ragcheckerMode) m.value = std::isnan(s.value) ? 0.0 : s.value;
  return m;
}

}  // namespace

claims::ClaimExample judgeClaimExample(const JudgedQuery& q) {
  claims::ClaimExample ex;
  ex.queryId = q.qid;
  ex.query = q.question;
  ex.response = q.response;
  ex.goldAnswer = q.gold;
  ex.retrieved = q.chunks;
  for (const auto& c : q.responseClaims.claims) ex.responseClaims.push_back({c});
  for (const auto& c : q.goldClaims.claims) ex.answerClaims.push_back({c});
  const std::size_t r = ex.responseClaims.size(), g = ex.answerClaims.size(), k = q.chunks.size();
  ex.resize(r, g, k);
  auto copy = [](const PremiseVerdicts* v, std::vector<Label>& into) {
    if (v && v->labels.size() == into.size()) into = v->labels;
  };
  copy(q.find("correct"), ex.answer2response);
  copy(q.find("cover"), ex.response2answer);
  for (std::size_t c = 0; c < k; ++c) {
    if (const auto* v = q.find("respchunk." + std::to_string(c)); v && v->labels.size() == r)
      for (std::size_t i = 0; i < r; ++i) ex.retrieved2response.at(i, c) = v->labels[i];
    if (const auto* v = q.find("goldchunk." + std::to_string(c)); v && v->labels.size() == g)
      for (std::size_t j = 0; j < g; ++j) ex.retrieved2answer.at(j, c) = v->labels[j];
  }
  return ex;
}

namespace {

// The labels of `premise` in repeat `rep` (or the majority when rep is npos).
std::span<const Label> labelsOf(const PremiseVerdicts* v, std::size_t rep) {
  if (!v) return {};
  if (rep == std::string::npos) return v->labels;
  return v->repeats[rep];
}

}  // namespace

MetricValue judgeMetricValue(const std::string& name, const JudgedQuery& q, JudgeMode mode,
                             std::size_t rep) {
  auto support = [&](const JudgedClaims& c, const char* premise, JudgeMode m) {
    const PremiseVerdicts* v = q.find(premise);
    return supportValue(c, v, labelsOf(v, rep), m);
  };
  if (name == "faithfulness") return support(q.responseClaims, "faith", mode);
  if (name == "correctness") return support(q.responseClaims, "correct", mode);
  if (name == "coverage") {
    JudgedClaims gold = q.goldClaims;
    if (q.responseFailed && !gold.failed && !gold.claims.empty()) gold.failed = q.responseFailed;
    return support(gold, "cover", mode);
  }
  if (name == "ragas.faithfulness") return support(q.responseClaims, "faith", JudgeMode::Ragas);
  if (name == "ragas.context_recall") return support(q.goldClaims, "recall", JudgeMode::Ragas);
  if (name == "ragas.answer_relevancy") return q.answerRelevancy;
  if (name == "vera.consolidated") return q.consolidated;
  if (name == "ragas.context_relevance_paper") return q.contextRelevance;
  if (name == "ragas.context_precision") {
    MetricValue m;
    if (q.gold.find_first_not_of(" \t\r\n") == std::string::npos) {
      m.state = ScoreState::Empty;  // no reference to be useful for
      return m;
    }
    std::vector<Label> verdicts;  // rank order
    for (std::size_t k = 0; k < q.chunks.size(); ++k) {
      const PremiseVerdicts* v = q.find("useful." + std::to_string(k));
      const auto labels = labelsOf(v, rep);
      verdicts.push_back(labels.size() == 1 ? labels[0] : Label::Error);
    }
    m.total = verdicts.size();
    for (Label l : verdicts) m.scored += claims::isResolved(l) ? 1 : 0;
    if (const auto ap = claims::ragasContextPrecision(std::span<const Label>(verdicts))) {
      m.state = ScoreState::Scored;  // no chunk: 0.0, as RAGAS
      m.value = *ap;
    } else {
      const bool anyUnparsed = std::any_of(verdicts.begin(), verdicts.end(),
                                           [](Label l) { return l == Label::Unparsed; });
      m.state = anyUnparsed ? ScoreState::Unparsed : ScoreState::Error;
      if (mode == JudgeMode::RagChecker) {  // unresolved verdicts read as not useful
        std::vector<int> asInts;
        for (Label l : verdicts) asInts.push_back(claims::isSupported(l) ? 1 : 0);
        m.value = claims::ragasContextPrecision(std::span<const int>(asInts));
      }
    }
    return m;
  }
  if (isRagCheckerMetric(name)) {
    const bool rc = mode == JudgeMode::RagChecker;
    const auto metric = claims::metricFromName(name);
    if (!rc) {
      for (const JudgedClaims* c : {&q.responseClaims, &q.goldClaims})
        if (c->failed) {
          MetricValue m;
          m.state = *c->failed;
          return m;
        }
    }
    claims::ClaimExample ex = judgeClaimExample(q);
    if (rep != std::string::npos) {
      // One repeat's labels instead of the majority.
      JudgedQuery one = q;
      for (auto& v : one.verdicts) v.labels = v.repeats[rep];
      ex = judgeClaimExample(one);
    }
    const auto scores =
        claims::scoreExample(ex, rc ? claims::Mode::RagChecker : claims::Mode::RagScope);
    return fromMetricScore(scores[*metric], rc);
  }
  return {};
}

std::vector<claims::ClaimExample> judgeClaimExamples(const JudgeReport& report) {
  std::vector<claims::ClaimExample> out;
  out.reserve(report.queries.size());
  for (const auto& q : report.queries) out.push_back(judgeClaimExample(q));
  return out;
}

}  // namespace ragscope::core::eval
