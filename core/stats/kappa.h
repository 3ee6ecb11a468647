#pragma once
// Cohen's kappa between two raters' categories (core/stats/README.md, "Agreement"): one
// definition for every agreement the engine reports: judge vs human (core/claims/agreement.h,
// core/labels/labelagreement.h) and one qrels against another (core/trecrag/qrelsagreement.h).
//
//   double k = cohenKappa(gradesA, gradesB);   // a[i], b[i]: the two raters' categories of item i
//
// Unweighted: p_o = share of items with the same category, p_e = sum over the categories c that
// occur of (a's share of c) x (b's share of c), kappa = (p_o - p_e) / (1 - p_e). A category
// neither rater used adds 0 to p_e, so listing it or not changes nothing. Categories are compared
// as doubles (whole numbers in practice: grades, verdict codes).

#include <span>

namespace ragscope::core::stats {

// NaN when undefined: no items, or p_e = 1 (both raters always used one same category).
double cohenKappa(std::span<const double> a, std::span<const double> b);

}  // namespace ragscope::core::stats
