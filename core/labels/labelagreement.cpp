#include "core/labels/labelagreement.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "core/claims/agreementreport.h"
#include "core/stats/kappa.h"
#include "core/util/textescape.h"

namespace ragscope::core::labels {

namespace {

// A group of labels: one kind, scope and (claims) question: which claims, against which premise
// ("response:chunks"); labels of different premises answer different questions.
using AgreementGroupKey = std::tuple<TargetKind, std::string, std::string>;

std::string agreementQuestion(const Label& l) {
  const auto premise = l.target.claimPremise();
  if (!premise) return {};
  return (l.target.item.rfind("gold:", 0) == 0 ? "gold:" : "response:") +
         std::string(claimPremiseName(*premise));
}

// What the judge's side of a claim question is, for people.
std::string claimQuestionText(bool gold, ClaimPremise premise) {
  const std::string claimsOf = gold ? "gold-answer claims" : "response claims";
  const char* metric = "";
  switch (premise) {
    case ClaimPremise::Chunks:
      metric = gold ? " (claim recall)" : " (faithfulness)";
      break;
    case ClaimPremise::GoldAnswer:
      metric = " (correctness)";
      break;
    case ClaimPremise::Response:
      metric = " (coverage)";
      break;
  }
  return "judge's verdicts of " + claimsOf + " vs " + std::string(claimPremiseText(premise)) +
         metric;
}

// The judge's verdict as a claim-verdict category; nullopt for a state (unparsed, error).
std::optional<std::string> judgeVerdictName(claims::Label l) {
  switch (l) {
    case claims::Label::Entailment:
    case claims::Label::Supported:
      return "supported";
    case claims::Label::Unsupported:
      return "unsupported";
    case claims::Label::Neutral:
      return "neutral";
    case claims::Label::Contradiction:
      return "contradiction";
    default:
      return std::nullopt;
  }
}

// The fixed order categories are shown in; others (numbers) after them, as they sort.
int categoryRank(const std::string& c) {
  static const char* order[] = {"supported", "unsupported", "neutral", "contradiction"};
  for (int i = 0; i < 4; ++i)
    if (c == order[i]) return i;
  return 4;
}

std::vector<std::string> orderedCategories(const std::set<std::string>& used) {
  std::vector<std::string> out(used.begin(), used.end());
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return categoryRank(a) < categoryRank(b);
  });
  return out;
}

std::string spellCategory(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// One compared pair: categories (for the confusion matrix), numbers on the compared scale.
struct ComparedPair {
  std::string judgeCategory, humanCategory;
  double judge = 0, human = 0;
};

void finishJudgeHuman(JudgeHumanAgreement& a, const std::vector<ComparedPair>& pairs,
                      bool categorical, const LabelAgreementOptions& options) {
  a.n = pairs.size();
  std::vector<double> judge, human;
  for (const auto& p : pairs) {
    judge.push_back(p.judge);
    human.push_back(p.human);
  }
  if (categorical) {
    std::size_t agree = 0;
    std::set<std::string> rows, cols;
    for (const auto& p : pairs) {
      agree += p.judge == p.human;
      rows.insert(p.judgeCategory);
      cols.insert(p.humanCategory);
    }
    if (a.n > 0) a.accuracy = double(agree) / double(a.n);
    a.kappa = stats::cohenKappa(judge, human);
    a.confusion.judge = orderedCategories(rows);
    a.confusion.human = orderedCategories(cols);
    a.confusion.counts.assign(a.confusion.judge.size(),
                              std::vector<std::size_t>(a.confusion.human.size(), 0));
    for (const auto& p : pairs) {
      const auto r =
          std::find(a.confusion.judge.begin(), a.confusion.judge.end(), p.judgeCategory) -
          a.confusion.judge.begin();
      const auto c =
          std::find(a.confusion.human.begin(), a.confusion.human.end(), p.humanCategory) -
          a.confusion.human.begin();
      ++a.confusion.counts[r][c];
    }
  }
  if (a.kind == TargetKind::EragDoc) {
    claims::AgreementInput in;
    in.judge = judge;
    in.human = human;
    if (categorical) {
      in.judgeCategories = judge;
      in.humanCategories = human;
    }
    a.correlation = claims::computeAgreement(in, options.agreement);
  }
}

// The labels of one annotator in one group compared with the judge.
JudgeHumanAgreement judgeVsAnnotator(const std::vector<const Label*>& labels, TargetKind kind,
                                     const std::string& scope, const std::string& annotator,
                                     const LabelSources& sources,
                                     const LabelAgreementOptions& options) {
  JudgeHumanAgreement a;
  a.kind = kind;
  a.scope = scope;
  a.annotator = annotator;
  a.labels = labels.size();
  std::vector<ComparedPair> pairs;
  bool categorical = true;
  if (kind == TargetKind::Claim) {
    // One group holds one question (computeLabelAgreement): its claims' side and premise.
    a.goldClaims = !labels.empty() && labels.front()->target.item.rfind("gold:", 0) == 0;
    a.premise = labels.empty() ? std::nullopt : labels.front()->target.claimPremise();
    a.compared = a.premise ? claimQuestionText(a.goldClaims, *a.premise) : std::string();
    a.scale = "supported vs not supported";
    const RunSource* run = sources.findRun(scope);
    for (const Label* l : labels) {
      const auto human = numericValue(kind, l->value);
      if (!human) {
        ++a.abstained;
        continue;
      }
      const AnswerClaims* answer = nullptr;
      if (run && run->judging)
        if (const auto it = run->claims.find(l->target.qid); it != run->claims.end())
          answer = &it->second;
      std::optional<claims::Label> verdict;
      const std::string& item = l->target.item;
      std::size_t index = 0;
      const char* digits = item.data() + std::min(item.size(), item.find(':') + 1);
      const bool indexed =
          std::from_chars(digits, item.data() + item.size(), index).ec == std::errc();
      if (answer && indexed)
        verdict = answer->verdict(a.goldClaims, index, *l->target.claimPremise());
      const auto judgeName = verdict ? judgeVerdictName(*verdict) : std::nullopt;
      if (!judgeName) {
        ++a.judgeMissing;
        continue;
      }
      pairs.push_back({*judgeName, l->value, claims::isSupported(*verdict) ? 1.0 : 0.0, *human});
    }
  } else if (kind == TargetKind::Relevance) {
    a.compared = "the dataset's qrels grade";
    a.scale = "relevance grade";
    const DatasetSource* ds = sources.findDataset(scope);
    for (const Label* l : labels) {
      const double human = *numericValue(kind, l->value);
      const auto status = ds && ds->dataset
                              ? documentStatus(*ds->dataset, l->target.qid, l->target.item)
                              : DocumentStatus{};
      if (!status.qrelsGrade) {
        ++a.judgeMissing;
        continue;
      }
      const double judge = double(*status.qrelsGrade);
      pairs.push_back({spellCategory(judge), l->value, judge, human});
    }
  } else {  // EragDoc
    a.compared = "the eRAG run's stored label of the document";
    a.scale = "the label's value";
    const RunSource* run = sources.findRun(scope);
    for (const Label* l : labels) {
      const double human = *numericValue(kind, l->value);
      std::optional<double> judge;
      if (run) {
        auto q = run->eragDocs.find(l->target.qid);
        if (q != run->eragDocs.end()) {
          auto d = q->second.find(l->target.item);
          if (d != q->second.end()) judge = d->second;
        }
      }
      if (!judge) {
        ++a.judgeMissing;
        continue;
      }
      pairs.push_back({spellCategory(*judge), l->value, *judge, human});
    }
    for (const auto& p : pairs)
      if (p.judge != std::floor(p.judge) || p.human != std::floor(p.human)) categorical = false;
  }
  finishJudgeHuman(a, pairs, categorical, options);
  return a;
}

// The value an annotator gave on the scale annotators are compared on (see the header).
std::optional<double> annotatorScaleValue(const Label& l) {
  return numericValue(l.target.kind, l.value);
}

InterAnnotatorAgreement betweenAnnotators(const std::vector<const Label*>& labels, TargetKind kind,
                                          const std::string& scope) {
  InterAnnotatorAgreement out;
  out.kind = kind;
  out.scope = scope;
  // target key -> annotator -> value; `labels` are current labels (one per target, annotator).
  std::map<std::string, std::map<std::string, double>> byTarget;
  for (const Label* l : labels)
    if (auto v = annotatorScaleValue(*l)) byTarget[l->target.key()][l->annotator] = *v;
  std::set<std::string> annotators;
  std::vector<std::vector<double>> units;
  for (const auto& [key, values] : byTarget) {
    if (values.size() < 2) continue;
    ++out.items;
    std::vector<double> unit;
    for (const auto& [who, v] : values) {
      annotators.insert(who);
      unit.push_back(v);
    }
    units.push_back(std::move(unit));
  }
  out.annotators.assign(annotators.begin(), annotators.end());
  if (out.items == 0) return out;
  if (out.annotators.size() == 2) {
    std::vector<double> a, b;
    for (const auto& [key, values] : byTarget) {
      if (values.size() < 2) continue;
      a.push_back(values.at(out.annotators[0]));
      b.push_back(values.at(out.annotators[1]));
    }
    out.cohenKappa = stats::cohenKappa(a, b);
  }
  out.alphaNominal = krippendorffAlpha(units, AlphaMetric::Nominal);
  if (kind != TargetKind::Claim)
    out.alphaInterval = krippendorffAlpha(units, AlphaMetric::Interval);
  return out;
}

nlohmann::ordered_json numberOrNull(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json alphaJson(const AlphaResult& a) {
  nlohmann::ordered_json j;
  j["alpha"] = numberOrNull(a.alpha);
  j["observed_disagreement"] = numberOrNull(a.observedDisagreement);
  j["expected_disagreement"] = numberOrNull(a.expectedDisagreement);
  j["pairable_units"] = a.pairableUnits;
  j["pairable_values"] = a.pairableValues;
  return j;
}

std::string fixedNumber(double v, int digits = 3) {
  if (!std::isfinite(v)) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string shown(std::string_view text) { return escapeControlChars(text); }

}  // namespace

claims::PointwiseTable answerLabelTable(const std::vector<Label>& current, std::string_view scope,
                                        std::string_view annotator) {
  claims::PointwiseTable table;
  table.columns = {"label"};
  std::vector<const Label*> rows;
  for (const auto& l : current)
    if (l.target.kind == TargetKind::Answer && l.target.scope == scope &&
        (annotator.empty() || l.annotator == annotator))
      rows.push_back(&l);
  std::stable_sort(rows.begin(), rows.end(), [](const Label* a, const Label* b) {
    return std::tie(a->target.qid, a->annotator) < std::tie(b->target.qid, b->annotator);
  });
  std::uint64_t line = 1;
  for (const Label* l : rows) {
    const auto v = numericValue(TargetKind::Answer, l->value);
    if (!v) continue;
    table.rows.push_back({l->target.qid, {*v}, ++line});
  }
  return table;
}

LabelAgreementReport computeLabelAgreement(const std::vector<Label>& current,
                                           const LabelSources& sources,
                                           const LabelAgreementOptions& options) {
  LabelAgreementReport report;
  report.labels = current.size();
  std::map<AgreementGroupKey, std::map<std::string, std::vector<const Label*>>> groups;
  std::set<std::string> annotators;
  for (const auto& l : current) {
    if (options.responsePremise && l.target.kind == TargetKind::Claim &&
        l.target.item.rfind("response:", 0) == 0 &&
        l.target.claimPremise() != options.responsePremise)
      continue;
    groups[{l.target.kind, l.target.scope, agreementQuestion(l)}][l.annotator].push_back(&l);
    annotators.insert(l.annotator);
  }
  report.annotators.assign(annotators.begin(), annotators.end());
  std::set<std::pair<TargetKind, std::string>> unmatchedNamed;
  for (const auto& [key, byAnnotator] : groups) {
    const auto& [kind, scope, question] = key;
    const bool known = kind == TargetKind::Relevance ? sources.findDataset(scope) != nullptr
                                                     : sources.findRun(scope) != nullptr;
    if (!known) {
      // Named once per kind and scope, however many claim questions its labels answer.
      if (unmatchedNamed.insert({kind, scope}).second)
        report.unmatched.push_back(std::string(targetKindName(kind)) + " labels of \"" +
                                   shown(scope) + "\": no " +
                                   (kind == TargetKind::Relevance ? "dataset" : "run store") +
                                   " of that name to compare them with");
    } else if (kind == TargetKind::Answer) {
      const RunSource* run = sources.findRun(scope);
      if (run->scores.columns.empty()) {
        report.unmatched.push_back("answer labels of \"" + shown(scope) +
                                   "\": the run store has no per-query scores");
      } else {
        for (const auto& [annotator, labels] : byAnnotator)
          report.answers.push_back(
              {scope, annotator,
               claims::comparePointwise(answerLabelTable(current, scope, annotator), run->scores,
                                        options.agreement)});
        if (byAnnotator.size() > 1)
          report.answers.push_back({scope, "",
                                    claims::comparePointwise(answerLabelTable(current, scope),
                                                             run->scores, options.agreement)});
      }
    } else {
      for (const auto& [annotator, labels] : byAnnotator)
        report.judgeVsHuman.push_back(
            judgeVsAnnotator(labels, kind, scope, annotator, sources, options));
    }
    std::vector<const Label*> all;
    for (const auto& [annotator, labels] : byAnnotator)
      all.insert(all.end(), labels.begin(), labels.end());
    auto between = betweenAnnotators(all, kind, scope);
    if (kind == TargetKind::Claim && !all.empty()) {
      between.goldClaims = all.front()->target.item.rfind("gold:", 0) == 0;
      between.premise = all.front()->target.claimPremise();
    }
    if (between.items > 0) report.interAnnotator.push_back(std::move(between));
  }
  return report;
}

nlohmann::ordered_json labelAgreementJson(const LabelAgreementReport& report,
                                          const LabelAgreementOptions& options) {
  using ojson = nlohmann::ordered_json;
  ojson doc;
  doc["labels"] = report.labels;
  doc["annotators"] = report.annotators;
  ojson jvh = ojson::array();
  for (const auto& a : report.judgeVsHuman) {
    ojson j;
    j["kind"] = std::string(targetKindName(a.kind));
    j["scope"] = a.scope;
    if (a.premise) {
      j["claims"] = a.goldClaims ? "gold" : "response";
      j["premise"] = std::string(claimPremiseName(*a.premise));
    }
    j["annotator"] = a.annotator;
    j["compared_with"] = a.compared;
    j["scale"] = a.scale;
    j["labels"] = a.labels;
    j["n"] = a.n;
    j["abstained"] = a.abstained;
    j["no_judge_verdict"] = a.judgeMissing;
    j["accuracy"] = numberOrNull(a.accuracy);
    j["cohen_kappa"] = numberOrNull(a.kappa);
    if (!a.confusion.judge.empty()) {
      j["confusion"] = {{"judge", a.confusion.judge},
                        {"human", a.confusion.human},
                        {"counts", a.confusion.counts}};
    }
    if (a.correlation) {
      j["pearson"] = numberOrNull(a.correlation->pearson.value);
      j["spearman"] = numberOrNull(a.correlation->spearman.value);
      j["kendall_tau_b"] = numberOrNull(a.correlation->kendallTauB.value);
    }
    jvh.push_back(std::move(j));
  }
  doc["judge_vs_human"] = std::move(jvh);
  ojson answers = ojson::array();
  for (const auto& a : report.answers) {
    ojson j;
    j["scope"] = a.scope;
    j["annotator"] = a.annotator.empty() ? ojson(nullptr) : ojson(a.annotator);
    if (a.result.ok())
      j["agreement"] = claims::agreementReportJson(a.result, a.scope, options.agreement);
    else
      j["error"] = a.result.error;
    answers.push_back(std::move(j));
  }
  doc["answers"] = std::move(answers);
  ojson between = ojson::array();
  for (const auto& b : report.interAnnotator) {
    ojson j;
    j["kind"] = std::string(targetKindName(b.kind));
    j["scope"] = b.scope;
    if (b.premise) {
      j["claims"] = b.goldClaims ? "gold" : "response";
      j["premise"] = std::string(claimPremiseName(*b.premise));
    }
    j["annotators"] = b.annotators;
    j["items"] = b.items;
    j["cohen_kappa"] = numberOrNull(b.cohenKappa);
    j["krippendorff_alpha_nominal"] = alphaJson(b.alphaNominal);
    if (b.alphaInterval) j["krippendorff_alpha_interval"] = alphaJson(*b.alphaInterval);
    between.push_back(std::move(j));
  }
  doc["inter_annotator"] = std::move(between);
  doc["unmatched"] = report.unmatched;
  return doc;
}

std::string formatLabelAgreement(const LabelAgreementReport& report,
                                 const LabelAgreementOptions& options) {
  std::ostringstream out;
  out << "Agreement from " << report.labels << " current labels of " << report.annotators.size()
      << " annotator(s)\n";
  if (!report.judgeVsHuman.empty()) {
    out << "\nJudge vs human\n";
    out << std::left << std::setw(10) << "kind" << std::setw(24) << "scope" << std::setw(16)
        << "annotator" << std::right << std::setw(6) << "n" << std::setw(10) << "abstained"
        << std::setw(10) << "no judge" << std::setw(10) << "accuracy" << std::setw(8) << "kappa"
        << "\n";
    for (const auto& a : report.judgeVsHuman) {
      out << std::left << std::setw(10) << targetKindName(a.kind) << std::setw(24) << shown(a.scope)
          << std::setw(16) << shown(a.annotator) << std::right << std::setw(6) << a.n
          << std::setw(10) << a.abstained << std::setw(10) << a.judgeMissing << std::setw(10)
          << fixedNumber(a.accuracy) << std::setw(8) << fixedNumber(a.kappa) << "\n";
      out << "  compared with " << a.compared << "; kappa and accuracy on " << a.scale << "\n";
      if (a.correlation)
        out << "  Pearson " << fixedNumber(a.correlation->pearson.value) << ", Spearman "
            << fixedNumber(a.correlation->spearman.value) << ", Kendall tau-b "
            << fixedNumber(a.correlation->kendallTauB.value) << "\n";
      if (!a.confusion.judge.empty()) {
        out << "  confusion (rows: judge, columns: human)\n  " << std::setw(15) << "";
        for (const auto& c : a.confusion.human) out << std::setw(15) << c;
        out << "\n";
        for (std::size_t r = 0; r < a.confusion.judge.size(); ++r) {
          out << "  " << std::setw(15) << a.confusion.judge[r];
          for (std::size_t c = 0; c < a.confusion.human.size(); ++c)
            out << std::setw(15) << a.confusion.counts[r][c];
          out << "\n";
        }
      }
    }
  }
  for (const auto& a : report.answers) {
    out << "\nAnswer labels of " << shown(a.scope) << ", "
        << (a.annotator.empty() ? std::string("every annotator")
                                : "annotator " + shown(a.annotator))
        << "\n";
    if (a.result.ok())
      out << claims::formatAgreementReport(a.result, a.scope, options.agreement);
    else
      out << "  " << a.result.error << "\n";
  }
  if (!report.interAnnotator.empty()) {
    out << "\nBetween annotators (targets labelled by two or more)\n";
    for (const auto& b : report.interAnnotator) {
      out << "  " << targetKindName(b.kind) << " " << shown(b.scope);
      if (b.premise)
        out << " (" << (b.goldClaims ? "gold-answer claims" : "response claims") << " vs "
            << claimPremiseText(*b.premise) << ")";
      out << ": " << b.items << " items, " << b.annotators.size() << " annotators";
      if (std::isfinite(b.cohenKappa)) out << ", Cohen's kappa " << fixedNumber(b.cohenKappa);
      out << ", Krippendorff's alpha (nominal) " << fixedNumber(b.alphaNominal.alpha);
      if (b.alphaInterval) out << ", (interval) " << fixedNumber(b.alphaInterval->alpha);
      out << "\n";
    }
  }
  for (const auto& u : report.unmatched) out << "\nNot compared: " << u << "\n";
  return out.str();
}

}  // namespace ragscope::core::labels
