#pragma once
// Judge vs human agreement from the project's labels, and agreement between annotators
// (core/labels/README.md, "Agreement"), as `ragscope-cli agreement --labels` and the agreement
// view show it. What each kind of label is compared with:
//   claim      the judge's verdict of the same claim against the premise the label names
//              (label.h ClaimPremise): a response claim against the retrieved chunks
//              (faithfulness) or the gold answer (correctness), a gold claim against the
//              response (coverage) or the chunks (claim recall), one group per premise, never a
//              label of one premise against the judge's verdict of another; compared on
//              the scale every claim metric counts, supported vs not supported (kappa, accuracy);
//              the confusion matrix keeps the verdicts (supported, unsupported, neutral,
//              contradiction). cannot_tell abstains; an unparsed or failed verdict is counted
//              as "no judge verdict", never as 0 or 1;
//   relevance  the dataset's qrels grade (an unjudged document: "no judge verdict");
//   erag       the eRAG run's stored label of the document (kappa and the confusion matrix when
//              both sides are whole numbers; Pearson, Spearman, Kendall always);
//   answer     the run's per-query scores, each metric an aspect, exactly as the CSV path
//              (compareAgreementFiles with a qid,label file) compares them: per annotator, and
//              with every annotator's labels together (rows of one qid = several annotators).
// Between annotators (targets labelled by two or more of them, abstentions left out): Cohen's
// kappa when the kind and scope have exactly two annotators, Krippendorff's alpha (nominal; and
// interval for grades and numbers) always.
//
//   LabelAgreementReport r = computeLabelAgreement(store.current(), sources, {});
//   std::cout << formatLabelAgreement(r, {});

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims/agreement.h"
#include "core/claims/metaeval.h"
#include "core/labels/krippendorff.h"
#include "core/labels/label.h"
#include "core/labels/labelcatalog.h"

namespace ragscope::core::labels {

struct VerdictConfusion {
  std::vector<std::string> judge;                // row categories (those that occur, in order)
  std::vector<std::string> human;                // column categories
  std::vector<std::vector<std::size_t>> counts;  // [judge row][human column]
};

struct JudgeHumanAgreement {
  TargetKind kind = TargetKind::Claim;
  std::string scope;
  std::string annotator;
  // Claims: the question, one per group (response claims, or gold claims, against `premise`).
  bool goldClaims = false;
  std::optional<ClaimPremise> premise;
  std::string compared;       // what the judge's side is ("faithfulness verdict (claim vs chunks)")
  std::string scale;          // what kappa and accuracy compare
  std::size_t labels = 0;     // the annotator's current labels of this kind and scope
  std::size_t n = 0;          // pairs compared
  std::size_t abstained = 0;  // cannot_tell
  std::size_t judgeMissing = 0;  // no judge verdict (unparsed, error, unjudged, not in the run)
  double accuracy = std::numeric_limits<double>::quiet_NaN();  // share of pairs that agree
  double kappa = std::numeric_limits<double>::quiet_NaN();     // Cohen's kappa on `scale`
  VerdictConfusion confusion;                                  // empty for continuous values
  std::optional<claims::Agreement> correlation;  // eRAG labels: Pearson, Spearman, Kendall
};

struct AnswerAgreement {
  std::string scope;
  std::string annotator;  // empty: every annotator's labels together
  claims::MetaEvalResult result;
};

struct InterAnnotatorAgreement {
  TargetKind kind = TargetKind::Claim;
  std::string scope;
  bool goldClaims = false;  // claims: the question, as in JudgeHumanAgreement
  std::optional<ClaimPremise> premise;
  std::vector<std::string> annotators;  // of the targets labelled by several
  std::size_t items = 0;                // targets labelled by two or more annotators
  double cohenKappa = std::numeric_limits<double>::quiet_NaN();  // exactly two annotators
  AlphaResult alphaNominal;
  std::optional<AlphaResult> alphaInterval;  // relevance, erag, answers
};

struct LabelAgreementReport {
  std::size_t labels = 0;  // current labels read
  std::vector<std::string> annotators;
  std::vector<JudgeHumanAgreement> judgeVsHuman;  // claims, relevance, erag
  std::vector<AnswerAgreement> answers;
  std::vector<InterAnnotatorAgreement> interAnnotator;
  // Scopes with labels but no source to compare them with ("claim labels of \"x.db\": no such
  // run store"): named, never silently dropped.
  std::vector<std::string> unmatched;
};

struct LabelAgreementOptions {
  claims::AgreementOptions agreement;  // bootstrap of the answers' and eRAG correlations
  // Only the response-claim labels of this premise (`agreement --claims-vs`); unset: every
  // premise, each compared with the judge's verdict against its own.
  std::optional<ClaimPremise> responsePremise;
};

LabelAgreementReport computeLabelAgreement(const std::vector<Label>& current,
                                           const LabelSources& sources,
                                           const LabelAgreementOptions& options);

// Answer labels of `scope` (all annotators, or one) as the human table of the CSV path: a
// `label` column, rows in (qid, annotator) order, the label's number (correct 1, partially 0.5,
// incorrect 0). Abstentions cannot occur (answer labels always have a number).
claims::PointwiseTable answerLabelTable(const std::vector<Label>& current, std::string_view scope,
                                        std::string_view annotator = {});

nlohmann::ordered_json labelAgreementJson(const LabelAgreementReport& report,
                                          const LabelAgreementOptions& options);
std::string formatLabelAgreement(const LabelAgreementReport& report,
                                 const LabelAgreementOptions& options);

}  // namespace ragscope::core::labels
