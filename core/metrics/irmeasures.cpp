// ir_measures names (Name[(param=value,...)][@cutoff], as ir_measures and its papers write them)
// mapped onto trec_eval's measures, so that "nDCG@10" means exactly trec_eval's ndcg_cut_10.
// A name trec_eval cannot express is refused with the reason, never approximated.

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/measures.h"

namespace ragscope::core {

namespace {

// One ir_measures measure: its name, the trec_eval measure it maps to without a cutoff and with
// one, and whether it accepts rel=.
struct IrName {
  std::string_view name;
  std::string_view trecBare;    // "" when a cutoff is required
  std::string_view trecCutoff;  // "" when a cutoff is not allowed
  bool rel;                     // accepts (rel=N)
  std::string_view note;        // for --help
};

const std::vector<IrName>& irNames() {
  static const std::vector<IrName> names = {
      {"P", "", "P", true, "P@k = P_k (P(rel=N)@k: relevant means grade >= N)"},
      {"R", "", "recall", true, "R@k = recall_k"},
      {"AP", "map", "map_cut", true, "AP = map, AP@k = map_cut_k"},
      {"RR", "recip_rank", "RR@", true,
       "RR = recip_rank; RR@k = recip_rank with the ranking cut at k (-M k)"},
      {"nDCG", "ndcg", "ndcg_cut", false,
       "nDCG = ndcg, nDCG@k = ndcg_cut_k (linear gain: dcg=log2 only)"},
      {"Success", "", "success", true, "Success@k = success_k"},
      {"Judged", "", "Judged@", false,
       "Judged@k = judged docs in the top k / k (= 1 - unj_k when k docs are retrieved)"},
      {"Rprec", "Rprec", "", true, "Rprec = Rprec"},
      {"Bpref", "bpref", "", true, "Bpref = bpref"},
      {"infAP", "infAP", "", false, "infAP = infAP"},
      {"NumQ", "num_q", "", false, "NumQ = num_q"},
      {"NumRet", "num_ret", "", false, "NumRet = num_ret"},
      {"NumRel", "num_rel", "", false, "NumRel = num_rel"},
      {"NumRelRet", "num_rel_ret", "", true, "NumRelRet = num_rel_ret"},
      {"SetP", "set_P", "", true, "SetP = set_P"},
      {"SetR", "set_recall", "", true, "SetR = set_recall"},
      {"SetF", "set_F", "", true, "SetF = set_F"},
      {"SetAP", "set_map", "", true, "SetAP = set_map"},
      {"IPrec", "", "iprec_at_recall", false,
       "IPrec@r = iprec_at_recall_r (r a recall level, 0.5)"},
      {"RBP", "rbp", "", false, "RBP(p=0.8) = rbp.p=0.8"},
  };
  return names;
}

// ir_measures measures with no trec_eval counterpart: refused by name.
const std::vector<std::string_view> kInexpressible = {
    "ERR",    "alpha_nDCG", "NERR8", "NERR9", "NERR10",  "NERR11",    "INST",     "INSQ", "SDCG",
    "Compat", "StRecall",   "AP_IA", "P_IA",  "nERR_IA", "alpha_DCG", "Accuracy", "NRBP"};

std::optional<int> parseInt(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Parsed<MeasureRequest>> parseIrMeasure(std::string_view text) {
  std::string_view name = text;
  std::string_view params;
  std::string_view cutoff;
  bool hasCutoff = false;
  if (auto at = name.find('@'); at != std::string_view::npos) {
    cutoff = name.substr(at + 1);
    name = name.substr(0, at);
    hasCutoff = true;
  }
  bool hasParams = false;
  if (auto open = name.find('('); open != std::string_view::npos) {
    if (name.back() != ')')
      return Parsed<MeasureRequest>{{}, "measure '" + std::string(text) + "': unbalanced '('"};
    params = name.substr(open + 1, name.size() - open - 2);
    name = name.substr(0, open);
    hasParams = true;
  }
  const IrName* def = nullptr;
  for (const auto& n : irNames())
    if (n.name == name) def = &n;
  // Bare names trec_eval also has (Rprec, infAP) are trec_eval's; other bare words are not ours.
  if (!hasCutoff && !hasParams && (!def || isTrecEvalMeasure(name))) {
    if (def ||
        std::find(kInexpressible.begin(), kInexpressible.end(), name) == kInexpressible.end())
      return std::nullopt;
  }
  Parsed<MeasureRequest> out;
  const std::string shown(text);
  if (!def) {
    if (std::find(kInexpressible.begin(), kInexpressible.end(), name) != kInexpressible.end())
      out.error = "ir_measures' " + shown +
                  " has no trec_eval equivalent; ragscope computes trec_eval's measures only";
    else
      out.error =
          "unknown measure '" + shown + "' (neither a trec_eval nor a supported ir_measures name)";
    return out;
  }
  out.value.alias = shown;
  // Parameters: rel=N everywhere it applies; dcg=log2 (trec_eval's own) for nDCG; p= for RBP.
  std::string rbpParams;
  std::size_t start = 0;
  while (hasParams && start <= params.size()) {
    const auto comma = params.find(',', start);
    const std::string_view piece = params.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? params.size() + 1 : comma + 1;
    const auto eq = piece.find('=');
    const std::string_view key = piece.substr(0, eq);
    const std::string_view value =
        eq == std::string_view::npos ? std::string_view{} : piece.substr(eq + 1);
    if (key == "rel" && def->rel) {
      auto level = parseInt(value);
      if (!level) {
        out.error = "measure '" + shown + "': rel must be an integer grade";
        return out;
      }
      out.value.relevanceLevel = *level;
    } else if (def->name == "nDCG" && key == "dcg") {
      if (value != "log2") {
        out.error = "trec_eval cannot express " + shown +
                    ": its ndcg uses the grade itself as the gain with a log2 "
                    "discount (dcg=log2); dcg=" +
                    std::string(value) + " is not a trec_eval measure";
        return out;
      }
    } else if (def->name == "RBP" && key == "p") {
      rbpParams = "p=" + std::string(value);
    } else {
      out.error = "trec_eval cannot express " + shown + ": parameter '" + std::string(key) +
                  "' of " + std::string(def->name) + " has no trec_eval counterpart";
      return out;
    }
  }
  if (hasCutoff) {
    if (def->trecCutoff.empty()) {
      out.error = "measure '" + shown + "': " + std::string(def->name) + " takes no @cutoff";
      return out;
    }
    if (cutoff.empty()) {
      out.error = "measure '" + shown + "': empty cutoff after '@'";
      return out;
    }
    // "RR@" and "Judged@" are ragscope's own columns (trec_eval has none), printed as asked.
    out.value.name = std::string(def->trecCutoff);
    out.value.params = std::string(cutoff);
  } else {
    if (def->trecBare.empty()) {
      out.error = "measure '" + shown + "': " + std::string(def->name) + " needs a cutoff (" +
                  std::string(def->name) + "@10)";
      return out;
    }
    out.value.name = std::string(def->trecBare);
    if (!rbpParams.empty()) out.value.params = rbpParams;
  }
  return out;
}

std::vector<std::string> irMeasuresAliasText() {
  std::vector<std::string> out;
  for (const auto& n : irNames()) out.emplace_back(n.note);
  out.emplace_back(
      "not expressible (refused): nDCG(dcg=exp-log2), ERR, alpha_nDCG, INST, SDCG, Compat, ...");
  return out;
}

}  // namespace ragscope::core
