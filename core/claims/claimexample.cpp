#include "core/claims/claimexample.h"

namespace ragscope::core::claims {

void ClaimExample::resize(std::size_t r, std::size_t g, std::size_t k) {
  answer2response.assign(r, Label::Unparsed);
  response2answer.assign(g, Label::Unparsed);
  retrieved2response = LabelMatrix(r, k);
  retrieved2answer = LabelMatrix(g, k);
}

std::optional<std::string> shapeProblem(const ClaimExample& ex) {
  const auto n = [](std::size_t v) { return std::to_string(v); };
  const std::size_t r = ex.answer2response.size();
  const std::size_t g = ex.response2answer.size();
  if (ex.retrieved2response.rows() != r)
    return "retrieved2response has " + n(ex.retrieved2response.rows()) + " rows, answer2response " +
           n(r) + " labels";
  if (ex.retrieved2answer.rows() != g)
    return "retrieved2answer has " + n(ex.retrieved2answer.rows()) + " rows, response2answer " +
           n(g) + " labels";
  // A matrix without rows has no columns to compare.
  const std::size_t k = ex.chunkCount();
  if (r > 0 && ex.retrieved2response.cols() != k)
    return "retrieved2response has " + n(ex.retrieved2response.cols()) +
           " columns, retrieved2answer " + n(k);
  if (g > 0 && ex.retrieved2answer.cols() != k)
    return "retrieved2answer has " + n(ex.retrieved2answer.cols()) +
           " columns, retrieved2response " + n(k);
  if (!ex.responseClaims.empty() && ex.responseClaims.size() != r)
    return "response_claims has " + n(ex.responseClaims.size()) + " claims, answer2response " +
           n(r) + " labels";
  if (!ex.answerClaims.empty() && ex.answerClaims.size() != g)
    return "gt_answer_claims has " + n(ex.answerClaims.size()) + " claims, response2answer " +
           n(g) + " labels";
  if (!ex.retrieved.empty() && (r > 0 || g > 0) && ex.retrieved.size() != k)
    return "retrieved_context has " + n(ex.retrieved.size()) + " chunks, the matrices " + n(k) +
           " columns";
  return std::nullopt;
}

}  // namespace ragscope::core::claims
