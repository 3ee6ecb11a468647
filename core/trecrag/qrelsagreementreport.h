#pragma once
// `ragscope-cli qrels-agreement`'s output (core/trecrag/README.md, "Qrels agreement"): the text
// a person reads and the JSON document a script reads, from one GradeAgreement and, when runs
// were given, one SystemAgreement.
//
//   std::cout << formatQrelsAgreement(grades, &systems, names);
//   exporting::writeJson(std::cout, qrelsAgreementJson(grades, &systems, names), 2);
//
// JSON (numbers at full precision, an undefined coefficient as null):
//   {"qrels_a", "qrels_b",
//    "pairs": {"shared", "only_a", "only_b"}, "queries": {"shared", "only_a", "only_b"},
//    "grades": {"kappa", "accuracy", "confusion": [[n, ...] x 4]},        rows: A's grade 0..3,
//    "binary": {"level", "kappa", "accuracy", "confusion": [[n, n], [n, n]]},  columns: B's
//    "systems": {"measure", "relevance_level", "queries",                 (only with runs)
//                "runs": [{"name", "mean_a", "mean_b", "rank_a", "rank_b"}],
//                "kendall_tau_b", "p_kendall", "spearman_rho", "p_spearman",
//                "largest_rank_swaps": [{"name", "rank_a", "rank_b"}]}}

#include <nlohmann/json.hpp>
#include <string>

#include "core/trecrag/qrelsagreement.h"

namespace ragscope::core::trecrag {

struct QrelsNames {
  std::string a;  // the files as the user named them
  std::string b;
  int relevanceLevel = kDefaultBinaryLevel;  // -l of the evaluation (the binary level)
};

nlohmann::ordered_json qrelsAgreementJson(const GradeAgreement& grades,
                                          const SystemAgreement* systems, const QrelsNames& names);

std::string formatQrelsAgreement(const GradeAgreement& grades, const SystemAgreement* systems,
                                 const QrelsNames& names);

}  // namespace ragscope::core::trecrag
