#pragma once
// What `ragscope-cli agreement` shows: per aspect the judge's agreement with the human labels
// and the annotator-vs-annotator ceiling, every coefficient x 100 and rounded to 2 decimals as
// RAGChecker's meta_eval.py prints them (numpy's round: ties to even).
//
//   {"layout": "ragchecker-pairwise", "judge": "ragchecker", "resamples": 1000, "seed": 42,
//    "level": 0.95, "kappa_on": "...",
//    "aspects": {"correctness": {"judge_metric": "correctness_label", "n": 560, "instances": 280,
//        "pearson": 49.66, "spearman": 46.95, "kendall_tau_b": ..., "cohen_kappa": ...,
//        "ci95": {"pearson": [lo, hi], ...},
//        "human_ceiling": {"n": 280, "pearson": ..., ..., "ci95": {...}}}, ...}}

#include <nlohmann/json.hpp>
#include <string>

#include "core/claims/metaeval.h"

namespace ragscope::core::claims {

// round(value * 100, 2), numpy's way; NaN stays NaN.
double asPrinted(double coefficient);

nlohmann::ordered_json agreementReportJson(const MetaEvalResult& result,
                                           const std::string& judgeName,
                                           const AgreementOptions& options);
std::string formatAgreementReport(const MetaEvalResult& result, const std::string& judgeName,
                                  const AgreementOptions& options);

}  // namespace ragscope::core::claims
