// parseMeasureName: the three spellings of one measure (see measurename.h and
// core/metrics/README.md), checked by the same code as `-m` (measures.cpp, irmeasures.cpp).

#include "core/metrics/measurename.h"

#include <cstdlib>

namespace ragscope::core {

namespace {

// A printed form's parameter text: numbers ("10", "0.50", "2,-1,0,0") or level=gain pairs
// ("1=3,2=9", "p=0.9"). Keeps "precision_5x" or "P_abc" from reading as a cutoff.
bool printedParamsLookValid(const std::string& params) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = params.find(',', start);
    std::string piece = params.substr(start, comma == std::string::npos ? comma : comma - start);
    if (const auto eq = piece.find('='); eq != std::string::npos) piece = piece.substr(eq + 1);
    if (piece.empty()) return false;
    char* end = nullptr;
    std::strtod(piece.c_str(), &end);
    if (*end != '\0') return false;
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

Parsed<MeasureName> parseMeasureName(std::string_view text) {
  Parsed<MeasureName> out;
  const std::string t(text);
  if (t.empty()) {
    out.error = "empty measure name";
    return out;
  }
  MeasureRequest& request = out.value.request;
  // ir_measures names ("P@5", "nDCG@10") first, then trec_eval's requested form ("ndcg_cut.10"),
  // a bare trec_eval name ("map"), and its printed form ("ndcg_cut_10"): the base is everything
  // before the last '_' (no parameter text holds one).
  if (auto ir = parseIrMeasure(t)) {
    if (!ir->ok()) {
      out.error = ir->error;
      return out;
    }
    request = std::move(ir->value);
  } else if (const auto dot = t.find('.');
             dot != std::string::npos && isTrecEvalMeasure(t.substr(0, dot))) {
    if (dot + 1 == t.size()) {
      out.error = "measure '" + t + "': empty parameter list after '.'";
      return out;
    }
    request = MeasureRequest{t.substr(0, dot), t.substr(dot + 1), {}, {}};
  } else if (isTrecEvalMeasure(t)) {
    request = MeasureRequest{t, std::nullopt, {}, {}};
  } else if (const auto us = t.rfind('_'); us != std::string::npos && us + 1 < t.size() &&
                                           isTrecEvalMeasure(t.substr(0, us)) &&
                                           printedParamsLookValid(t.substr(us + 1))) {
    request = MeasureRequest{t.substr(0, us), t.substr(us + 1), {}, {}};
  } else {
    out.error = "unknown measure '" + t +
                "' (expected a trec_eval measure such as P_5, success_1, recall_10, map, "
                "recip_rank, ndcg_cut_10, or an ir_measures name such as P@5)";
    return out;
  }
  if (request.alias.empty() && !isImplementedMeasure(request.name)) {
    out.error = "measure '" + t + "' is a trec_eval measure ragscope does not implement";
    return out;
  }
  auto columns = resolveMeasures({request});
  if (!columns.ok()) {
    out.error = columns.error;
    return out;
  }
  for (const auto& c : columns.value) out.value.printed.push_back(c.name);
  out.value.requested = !request.alias.empty() ? request.alias
                        : request.params       ? request.name + "." + *request.params
                                               : request.name;
  return out;
}

}  // namespace ragscope::core
