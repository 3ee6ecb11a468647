#include "core/eval/reports/humanlabelsreport.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "core/eval/inputs/labelsources.h"
#include "core/labels/labelagreement.h"
#include "core/labels/labelcatalog.h"

namespace ragscope::core::eval {

namespace {

std::optional<double> humanLabelsFinite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string humanLabelsFixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Judge-vs-human and inter-annotator agreement of this run's labels, one sentence each.
std::vector<std::string> agreementSentences(const labels::ScopeMatcher& runStore,
                                            const std::vector<labels::Label>& current,
                                            std::vector<std::string>& notes) {
  std::vector<std::string> out;
  labels::LabelSources sources;
  sources.folder = runStore.folder();
  labels::RunSource source;
  std::string err;
  if (!readLabelRunSource(runStore.store(),
                          labels::scopeOfStore(runStore.folder(), runStore.store()), source,
                          &err)) {
    notes.push_back("agreement not computed: " + err);
    return out;
  }
  sources.runs.push_back(std::move(source));
  std::vector<labels::Label> ofRun;
  for (const auto& l : current)
    if (l.target.kind != labels::TargetKind::Relevance && runStore(l.target.scope))
      ofRun.push_back(l);
  labels::LabelAgreementOptions options;
  options.agreement.resamples = 0;
  const auto report = labels::computeLabelAgreement(ofRun, sources, options);
  for (const auto& a : report.judgeVsHuman) {
    std::string s = std::string(labels::targetKindName(a.kind)) + " labels of " + a.annotator +
                    " vs the " + a.compared + ": " + std::to_string(a.n) + " compared";
    if (a.n > 0)
      s += ", accuracy " + humanLabelsFixed(a.accuracy, 3) + ", Cohen's kappa " +
           humanLabelsFixed(a.kappa, 3) + " (" + a.scale + ")";
    if (a.abstained) s += "; " + std::to_string(a.abstained) + " cannot tell";
    if (a.judgeMissing) s += "; " + std::to_string(a.judgeMissing) + " without a judge verdict";
    out.push_back(s);
  }
  for (const auto& a : report.answers) {
    std::string who = a.annotator.empty() ? std::string("every annotator") : a.annotator;
    out.push_back("answer labels of " + who +
                  " vs the run's per-query scores: " + std::to_string(a.result.aspects.size()) +
                  " metric(s) compared (ragscope-cli agreement --labels for the figures)");
  }
  for (const auto& ia : report.interAnnotator) {
    std::string names;
    for (const auto& n : ia.annotators) names += (names.empty() ? "" : ", ") + n;
    std::string s = std::string(labels::targetKindName(ia.kind)) + " labels";
    if (ia.premise)  // one claim question per line
      s += std::string(" (") + (ia.goldClaims ? "gold-answer claims" : "response claims") + " vs " +
           std::string(labels::claimPremiseText(*ia.premise)) + ")";
    s += " between " + names + ": " + std::to_string(ia.items) + " item(s) labelled by several";
    if (std::isfinite(ia.cohenKappa)) s += ", Cohen's kappa " + humanLabelsFixed(ia.cohenKappa, 3);
    if (std::isfinite(ia.alphaNominal.alpha))
      s += ", Krippendorff's alpha (nominal) " + humanLabelsFixed(ia.alphaNominal.alpha, 3);
    out.push_back(s);
  }
  return out;
}

}  // namespace

exporting::ReportPpi reportPpiOf(const PpiEstimate& e) {
  exporting::ReportPpi p;
  const stats::PpiResult& r = e.result;
  p.metric = e.items.metric;
  p.description = e.items.description;
  p.items = e.items.items();
  p.labelled = e.items.labelled();
  p.judgeMean = humanLabelsFinite(r.judgeOnly.mean);
  p.judgeLow = humanLabelsFinite(r.judgeOnly.ci.low);
  p.judgeHigh = humanLabelsFinite(r.judgeOnly.ci.high);
  p.humanMean = humanLabelsFinite(r.humanOnly.mean);
  p.humanLow = humanLabelsFinite(r.humanOnly.ci.low);
  p.humanHigh = humanLabelsFinite(r.humanOnly.ci.high);
  if (r.ok()) {
    p.estimate = humanLabelsFinite(r.estimate);
    p.ciLow = humanLabelsFinite(r.ci.low);
    p.ciHigh = humanLabelsFinite(r.ci.high);
    p.lambda = r.lambda;
  } else {
    p.problem = r.error;
  }
  p.judgeUnresolved = e.items.judgeUnresolved;
  p.staleLabels = e.items.staleLabels;
  p.labelsNotUsed = e.items.labelsNotUsed;
  return p;
}

void addHumanLabels(exporting::ReportRun& run, const std::filesystem::path& runStore,
                    const std::vector<labels::Label>& current, const std::string& labelsStore) {
  exporting::ReportHumanLabels h;
  h.store = labelsStore;
  // The run's labels: those whose scope names this store, read against the labels store's
  // folder (the project's), never by file name (core/labels/labelscope.h).
  const labels::ScopeMatcher names(labels::labelsFolder(labelsStore), runStore);
  std::map<std::pair<std::string, std::string>, std::size_t> counts;
  for (const auto& l : current)
    if (names(l.target.scope))
      ++counts[{std::string(labels::targetKindName(l.target.kind)), l.annotator}];
  for (const auto& [key, n] : counts) h.counts.push_back({key.first, key.second, n});
  if (counts.empty()) {
    h.notes.push_back("no human label of this run yet");
    run.humanLabels = std::move(h);
    return;
  }
  h.agreement = agreementSentences(names, current, h.notes);
  const RunPpi items = ppiItemsOfStore(runStore, names.folder(), current);
  if (!items.error.empty()) h.notes.push_back("no estimates: " + items.error);
  for (const auto& e : estimatePpi(items.metrics, {})) {
    h.ppi.push_back(reportPpiOf(e));
    if (e.items.otherPremise > 0 && e.items.premise)
      h.notes.push_back(e.items.metric + ": " + std::to_string(e.items.otherPremise) +
                        " labelled claim(s) judged against another premise than " +
                        std::string(labels::claimPremiseText(*e.items.premise)) +
                        ", not used (each premise is its own metric's truth)");
  }
  h.notes.push_back(
      "PPI++ (Angelopoulos et al. 2023; lambda tuned, clipped to [0, 1]) with normal 95% "
      "intervals; claim metrics over claims (f = 1 when the judge found the claim supported), "
      "each with the labels judged against its own premise (chunks: faithfulness, gold answer: "
      "correctness, response: coverage), several annotators' values averaged, cannot_tell not "
      "counted (core/eval/inputs/README.md)");
  run.humanLabels = std::move(h);
}

void addQuestions(exporting::ReportRun& run, const std::map<std::string, std::string>& questions) {
  for (const auto& v : run.values) {
    if (run.questions.contains(v.qid)) continue;
    if (const auto it = questions.find(v.qid); it != questions.end() && !it->second.empty())
      run.questions.emplace(v.qid, it->second);
  }
}

}  // namespace ragscope::core::eval
