#include "core/claims/agreementreport.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/claims/numpycompat.h"

namespace ragscope::core::claims {

namespace {

using ojson = nlohmann::ordered_json;

ojson number(double v) { return std::isnan(v) ? ojson(nullptr) : ojson(asPrinted(v)); }

ojson interval(const AgreementStat& s) {
  if (std::isnan(s.ci.low) || std::isnan(s.ci.high)) return nullptr;
  return ojson::array({asPrinted(s.ci.low), asPrinted(s.ci.high)});
}

ojson agreementJson(const Agreement& a, bool clustersDiffer) {
  ojson o;
  o["n"] = a.n;
  if (clustersDiffer) o["instances"] = a.clusters;
  o["pearson"] = number(a.pearson.value);
  o["spearman"] = number(a.spearman.value);
  o["kendall_tau_b"] = number(a.kendallTauB.value);
  o["cohen_kappa"] = number(a.cohenKappa.value);
  o["ci95"] = {{"pearson", interval(a.pearson)},
               {"spearman", interval(a.spearman)},
               {"kendall_tau_b", interval(a.kendallTauB)},
               {"cohen_kappa", interval(a.cohenKappa)}};
  return o;
}

std::string key(const AspectAgreement& a) {
  const std::string& m = a.judgeMetric;
  if (m == a.aspect || m == a.aspect + "_label") return a.aspect;
  return m + " vs " + a.aspect;
}

std::string cell(double v) {
  if (std::isnan(v)) return "      -";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7.2f", asPrinted(v));
  return buf;
}

std::string ciCell(const AgreementStat& s) {
  if (std::isnan(s.ci.low)) return "                 -";
  char buf[48];
  std::snprintf(buf, sizeof buf, " [%7.2f, %7.2f]", asPrinted(s.ci.low), asPrinted(s.ci.high));
  return buf;
}

void rows(std::ostringstream& out, const char* who, const Agreement& a) {
  const std::pair<const char*, const AgreementStat*> stats[] = {{"pearson", &a.pearson},
                                                                {"spearman", &a.spearman},
                                                                {"kendall_tau_b", &a.kendallTauB},
                                                                {"cohen_kappa", &a.cohenKappa}};
  for (const auto& [name, s] : stats) {
    char head[64];
    std::snprintf(head, sizeof head, "  %-8s %-14s", who, name);
    out << head << cell(s->value) << ciCell(*s) << "\n";
  }
}

}  // namespace

double asPrinted(double coefficient) {
  return std::isnan(coefficient) ? coefficient : numpyRound(coefficient * 100.0, 2);
}

ojson agreementReportJson(const MetaEvalResult& result, const std::string& judgeName,
                          const AgreementOptions& options) {
  ojson doc;
  doc["layout"] = result.layout;
  doc["judge"] = judgeName;
  doc["resamples"] = options.resamples;
  doc["seed"] = options.seed;
  doc["level"] = options.level;
  doc["kappa_on"] = result.kappaOn;
  ojson aspects = ojson::object();
  for (const auto& a : result.aspects) {
    const ojson o = agreementJson(a.judge, true);
    ojson entry;
    entry["judge_metric"] = a.judgeMetric;
    for (auto it = o.begin(); it != o.end(); ++it)
      if (it.key() != "judge_metric") entry[it.key()] = it.value();
    if (a.nanReplaced > 0) entry["nan_replaced_by_median"] = a.nanReplaced;
    if (a.unpaired > 0) entry["unpaired_human_labels"] = a.unpaired;
    entry["human_ceiling"] = a.hasCeiling ? agreementJson(a.ceiling, false) : ojson(nullptr);
    aspects[key(a)] = std::move(entry);
  }
  doc["aspects"] = std::move(aspects);
  return doc;
}

std::string formatAgreementReport(const MetaEvalResult& result, const std::string& judgeName,
                                  const AgreementOptions& options) {
  std::ostringstream out;
  out << "Agreement of judge '" << judgeName << "' with the human labels (" << result.layout
      << "), coefficients x 100 as RAGChecker's meta_eval.py prints them\n"
      << "CIs: " << options.level * 100
      << "% percentile bootstrap over instances, B = " << options.resamples << ", seed "
      << options.seed << "; kappa on " << result.kappaOn << "\n";
  for (const auto& a : result.aspects) {
    out << "\n"
        << key(a) << ": n = " << a.judge.n << " labels over " << a.judge.clusters << " instances";
    if (a.nanReplaced > 0) out << ", " << a.nanReplaced << " NaN judge score(s) set to the median";
    if (a.unpaired > 0) out << ", " << a.unpaired << " human label(s) without a judge value";
    out << "\n";
    rows(out, "judge", a.judge);
    if (a.hasCeiling) {
      out << "  (ceiling: first vs second annotator, n = " << a.ceiling.n << ")\n";
      rows(out, "ceiling", a.ceiling);
    }
  }
  return out.str();
}

}  // namespace ragscope::core::claims
