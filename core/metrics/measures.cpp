#include "core/metrics/measures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace ragscope::core {

namespace {

// Pairs: "level=gain" pairs (ndcg, G, ndcg_rel, Rndcg, and rbp, which also takes p=).
enum class ParamStyle { None, LongCutoffs, DoubleCutoffs, DoubleParam, Pairs };

struct MeasureDef {
  std::string_view name;
  MeasureKind kind;
  ParamStyle style;
  std::vector<double> defaults;
  bool integer = false;
  bool perQuery = true;
  Aggregate aggregate = Aggregate::Mean;
  bool inAllTrec = true;
  std::size_t exactParams = 0;  // DoubleParam measures that need exactly this many (utility: 4)
};

const std::vector<double> kCutoffs = {5, 10, 15, 20, 30, 100, 200, 500, 1000};
const std::vector<double> kRecallPoints = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};

// trec_eval 10's measure table (measures.c) for qrels + trec_results, same order, then ragscope's
// own columns for ir_measures names trec_eval has no measure for.
const std::vector<MeasureDef>& table() {
  static const std::vector<MeasureDef> defs = {
      {"runid", MeasureKind::Runid, ParamStyle::None, {}, false, false, Aggregate::Text},
      {"num_q", MeasureKind::NumQ, ParamStyle::None, {}, true, false, Aggregate::Count},
      {"num_ret", MeasureKind::NumRet, ParamStyle::None, {}, true, true, Aggregate::Sum},
      {"num_rel", MeasureKind::NumRel, ParamStyle::None, {}, true, true, Aggregate::Sum},
      {"num_rel_ret", MeasureKind::NumRelRet, ParamStyle::None, {}, true, true, Aggregate::Sum},
      {"map", MeasureKind::Map, ParamStyle::None, {}},
      {"gm_map", MeasureKind::GmMap, ParamStyle::None, {}, false, false, Aggregate::GeometricMean},
      {"Rprec", MeasureKind::Rprec, ParamStyle::None, {}},
      {"bpref", MeasureKind::Bpref, ParamStyle::None, {}},
      {"recip_rank", MeasureKind::RecipRank, ParamStyle::None, {}},
      {"iprec_at_recall", MeasureKind::IprecAtRecall, ParamStyle::DoubleCutoffs, kRecallPoints},
      {"P", MeasureKind::P, ParamStyle::LongCutoffs, kCutoffs},
      {"relstring",
       MeasureKind::Relstring,
       ParamStyle::DoubleParam,
       {10},
       false,
       true,
       Aggregate::None},
      {"recall", MeasureKind::Recall, ParamStyle::LongCutoffs, kCutoffs},
      {"infAP", MeasureKind::InfAP, ParamStyle::None, {}},
      {"gm_bpref",
       MeasureKind::GmBpref,
       ParamStyle::None,
       {},
       false,
       false,
       Aggregate::GeometricMean},
      {"Rprec_mult",
       MeasureKind::RprecMult,
       ParamStyle::DoubleCutoffs,
       {0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0}},
      {"utility",
       MeasureKind::Utility,
       ParamStyle::DoubleParam,
       {1.0, -1.0, 0.0, 0.0},
       false,
       true,
       Aggregate::Mean,
       true,
       4},
      {"11pt_avg", MeasureKind::ElevenPtAvg, ParamStyle::DoubleParam, kRecallPoints},
      {"binG", MeasureKind::BinG, ParamStyle::None, {}},
      {"G", MeasureKind::G, ParamStyle::Pairs, {}},
      {"ndcg", MeasureKind::Ndcg, ParamStyle::Pairs, {}},
      {"ndcg_rel", MeasureKind::NdcgRel, ParamStyle::Pairs, {}},
      {"Rndcg", MeasureKind::Rndcg, ParamStyle::Pairs, {}},
      {"ndcg_cut", MeasureKind::NdcgCut, ParamStyle::LongCutoffs, kCutoffs},
      {"map_cut", MeasureKind::MapCut, ParamStyle::LongCutoffs, kCutoffs},
      {"relative_P", MeasureKind::RelativeP, ParamStyle::LongCutoffs, kCutoffs},
      {"success", MeasureKind::Success, ParamStyle::LongCutoffs, {1, 5, 10}},
      {"set_P", MeasureKind::SetP, ParamStyle::None, {}},
      {"set_relative_P", MeasureKind::SetRelativeP, ParamStyle::None, {}},
      {"set_recall", MeasureKind::SetRecall, ParamStyle::None, {}},
      {"set_map", MeasureKind::SetMap, ParamStyle::None, {}},
      {"set_F", MeasureKind::SetF, ParamStyle::DoubleParam, {1.0}},
      {"num_nonrel_judged_ret",
       MeasureKind::NumNonrelJudgedRet,
       ParamStyle::None,
       {},
       true,
       true,
       Aggregate::Sum},
      {"rbp", MeasureKind::Rbp, ParamStyle::Pairs, {}},
      {"rbp_resid", MeasureKind::RbpResid, ParamStyle::None, {}},
      {"unj", MeasureKind::Unj, ParamStyle::LongCutoffs, {5, 10, 20}},
      {"RR@",
       MeasureKind::RecipRankCut,
       ParamStyle::LongCutoffs,
       {},
       false,
       true,
       Aggregate::Mean,
       false},
      {"Judged@",
       MeasureKind::Judged,
       ParamStyle::LongCutoffs,
       {},
       false,
       true,
       Aggregate::Mean,
       false},
  };
  return defs;
}

// Every measure name trec_eval 9/10 knows for the qrels + trec_results formats.
const std::vector<std::string_view> kTrecEvalNames = {"runid",
                                                      "num_q",
                                                      "num_ret",
                                                      "num_rel",
                                                      "num_rel_ret",
                                                      "map",
                                                      "gm_map",
                                                      "Rprec",
                                                      "bpref",
                                                      "recip_rank",
                                                      "iprec_at_recall",
                                                      "P",
                                                      "relstring",
                                                      "recall",
                                                      "infAP",
                                                      "gm_bpref",
                                                      "Rprec_mult",
                                                      "utility",
                                                      "11pt_avg",
                                                      "binG",
                                                      "G",
                                                      "dcg",
                                                      "ideal_dcg",
                                                      "ndcg",
                                                      "ndcg_rel",
                                                      "Rndcg",
                                                      "ndcg_cut",
                                                      "map_cut",
                                                      "relative_P",
                                                      "success",
                                                      "set_P",
                                                      "set_relative_P",
                                                      "set_recall",
                                                      "set_map",
                                                      "set_F",
                                                      "num_nonrel_judged_ret",
                                                      "rbp",
                                                      "rbp_resid",
                                                      "unj",
                                                      "yaap",
                                                      "ndcg_p",
                                                      "Runj",
                                                      "num_nonjudged_ret"};

const std::vector<std::string_view> kOfficial = {
    "runid",  "num_q", "num_ret", "num_rel",    "num_rel_ret",     "map",
    "gm_map", "Rprec", "bpref",   "recip_rank", "iprec_at_recall", "P"};
const std::vector<std::string_view> kSet = {"runid",          "num_q",   "num_ret", "num_rel",
                                            "num_rel_ret",    "utility", "set_P",   "set_recall",
                                            "set_relative_P", "set_map", "set_F"};

const MeasureDef* findDef(std::string_view name) {
  for (const auto& d : table())
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool isCutoffStyle(ParamStyle s) {
  return s == ParamStyle::LongCutoffs || s == ParamStyle::DoubleCutoffs;
}

// The columns of one measure with its parameter text (nullptr: the defaults), named as trec_eval
// names them: "P_5", "iprec_at_recall_0.50", "ndcg_1=3,2=9", "utility_2,-1,0,0", "rbp_p=0.9".
Parsed<std::vector<MeasureColumn>> columnsFor(const MeasureDef& d, const std::string* paramText) {
  Parsed<std::vector<MeasureColumn>> out;
  MeasureColumn base;
  base.name = std::string(d.name);
  base.kind = d.kind;
  base.integer = d.integer;
  base.perQuery = d.perQuery;
  base.aggregate = d.aggregate;
  if (d.style == ParamStyle::None) {
    out.value.push_back(base);
    return out;
  }
  if (d.style == ParamStyle::Pairs) {
    // level=gain pairs (trec_eval's rel_level=gain); rbp also takes p=persistence.
    MeasureColumn c = base;
    if (d.kind == MeasureKind::Rbp) c.param = kDefaultRbpPersistence;
    if (paramText) {
      for (const auto& piece : splitCommas(*paramText)) {
        const auto eq = piece.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == piece.size()) {
          out.error = "measure '" + std::string(d.name) + "': malformed pair '" + piece +
                      "' (want level=gain)";
          return out;
        }
        const std::string key = piece.substr(0, eq);
        char* end = nullptr;
        const double value = std::strtod(piece.c_str() + eq + 1, &end);
        if (*end != '\0') {
          out.error = "measure '" + std::string(d.name) + "': '" + piece.substr(eq + 1) +
                      "' is not a number";
          return out;
        }
        if (d.kind == MeasureKind::Rbp && key == "p") {
          if (!(value > 0.0 && value < 1.0)) {
            out.error = "measure 'rbp': p must be between 0 and 1 (exclusive)";
            return out;
          }
          c.param = value;
          continue;
        }
        char* lend = nullptr;
        const long level = std::strtol(key.c_str(), &lend, 10);
        if (*lend != '\0') {
          out.error =
              "measure '" + std::string(d.name) + "': '" + key + "' is not a relevance level";
          return out;
        }
        c.paramList.push_back(static_cast<double>(level));
        c.paramList.push_back(value);
      }
      c.name += "_" + *paramText;
    }
    out.value.push_back(c);
    return out;
  }
  std::vector<double> values = d.defaults;
  if (paramText) {
    values.clear();
    for (const auto& piece : splitCommas(*paramText)) {
      if (d.style == ParamStyle::LongCutoffs)
        values.push_back(static_cast<double>(std::atol(piece.c_str())));  // "23.4" -> 23, as atol
      else
        values.push_back(std::atof(piece.c_str()));
    }
  }
  if (d.style == ParamStyle::DoubleParam) {
    // One value computed from all parameters (11pt_avg, set_F, utility, relstring); named after
    // the text given.
    MeasureColumn c = base;
    if (values.empty()) {
      out.error = "measure '" + std::string(d.name) + "': no parameter values";
      return out;
    }
    if (d.exactParams && values.size() != d.exactParams) {
      out.error = "measure '" + std::string(d.name) + "' needs exactly " +
                  std::to_string(d.exactParams) + " coefficients (utility.1,-1,0,0)";
      return out;
    }
    c.param = values.front();
    c.paramList = values;
    if (paramText) c.name += "_" + *paramText;
    out.value.push_back(c);
    return out;
  }
  std::sort(values.begin(), values.end());
  if (d.style == ParamStyle::LongCutoffs && (values.empty() || values.front() <= 0)) {
    out.error = "measure '" + std::string(d.name) + "': cutoffs must be positive";
    return out;
  }
  for (std::size_t i = 1; i < values.size(); ++i)
    if (values[i] == values[i - 1]) {
      out.error = "measure '" + std::string(d.name) + "': duplicate cutoffs";
      return out;
    }
  for (double v : values) {
    MeasureColumn c = base;
    c.param = v;
    char buf[64];
    if (d.style == ParamStyle::LongCutoffs)
      std::snprintf(buf, sizeof buf, "_%ld", static_cast<long>(v));
    else
      std::snprintf(buf, sizeof buf, "_%.2f", v);
    c.name += buf;
    out.value.push_back(c);
  }
  return out;
}

}  // namespace

bool isTrecEvalMeasure(std::string_view name) {
  return std::find(kTrecEvalNames.begin(), kTrecEvalNames.end(), name) != kTrecEvalNames.end();
}

bool isImplementedMeasure(std::string_view name) {
  const MeasureDef* d = findDef(name);
  return d && d->inAllTrec;
}

Parsed<std::vector<MeasureRequest>> parseMeasureArgs(const std::vector<std::string>& args) {
  Parsed<std::vector<MeasureRequest>> out;
  for (const auto& a : args) {
    if (auto ir = parseIrMeasure(a)) {
      if (!ir->ok()) {
        out.error = ir->error;
        return out;
      }
      out.value.push_back(std::move(ir->value));
      continue;
    }
    auto dot = a.find('.');
    MeasureRequest r;
    r.name = a.substr(0, dot);
    if (dot != std::string::npos) {
      r.params = a.substr(dot + 1);
      if (r.params->empty()) {
        out.error = "measure '" + a + "': empty parameter list after '.'";
        return out;
      }
    }
    if (r.name.empty()) {
      out.error = "empty measure name";
      return out;
    }
    out.value.push_back(std::move(r));
  }
  return out;
}

Parsed<std::vector<MeasureColumn>> resolveMeasures(const std::vector<MeasureRequest>& requests) {
  Parsed<std::vector<MeasureColumn>> out;
  std::map<std::string_view, bool> marked;
  std::map<std::string_view, std::string> params;  // first parameters given win (trec_eval)
  std::vector<MeasureColumn> aliased;              // from ir_measures names, merged below
  auto mark = [&](std::string_view name) -> bool {
    const MeasureDef* d = findDef(name);
    if (!d || !d->inAllTrec) {
      out.error = isTrecEvalMeasure(name)
                      ? "measure '" + std::string(name) +
                            "' is a trec_eval measure ragscope does not implement"
                      : "unknown measure '" + std::string(name) + "'";
      return false;
    }
    marked[d->name] = true;
    return true;
  };
  std::vector<MeasureRequest> effective = requests;
  if (effective.empty()) effective.push_back({"official", std::nullopt, {}, std::nullopt});
  for (const auto& r : effective) {
    if (!r.alias.empty()) {
      const MeasureDef* d = findDef(r.name);
      if (!d) {
        out.error = "measure '" + r.alias + "': no trec_eval measure '" + r.name + "'";
        return out;
      }
      auto cols = columnsFor(*d, r.params ? &*r.params : nullptr);
      if (!cols.ok()) {
        out.error = "measure '" + r.alias + "': " + cols.error;
        return out;
      }
      for (auto& c : cols.value) {
        // A trec_eval column keeps trec_eval's name; one trec_eval has not (RR@10, Judged@10, or
        // a relevance level of its own) is named as asked.
        if (r.relevanceLevel || !d->inAllTrec) c.name = r.alias;
        c.relevanceLevel = r.relevanceLevel;
        c.alias = r.alias;
        aliased.push_back(std::move(c));
      }
      continue;
    }
    if (r.params) {
      const MeasureDef* d = findDef(r.name);
      if (d && d->style == ParamStyle::None) {
        out.error = "measure '" + r.name + "' takes no parameters";
        return out;
      }
      if (d) params.try_emplace(d->name, *r.params);
    }
    if (r.name == "official") {
      for (auto n : kOfficial) mark(n);
    } else if (r.name == "all_trec") {
      // trec_eval 10's all_trec: every measure of its table computed from qrels + a run.
      for (const auto& d : table())
        if (d.inAllTrec) marked[d.name] = true;
    } else if (r.name == "set") {
      for (auto n : kSet) mark(n);
    } else if (!mark(r.name)) {
      return out;
    }
  }
  for (const auto& d : table()) {
    if (!marked.count(d.name)) continue;
    auto pit = params.find(d.name);
    auto cols = columnsFor(d, pit != params.end() ? &pit->second : nullptr);
    if (!cols.ok()) {
      out.error = cols.error;
      return out;
    }
    for (auto& c : cols.value) out.value.push_back(std::move(c));
  }
  // ir_measures columns join in trec_eval's order; one already there (P@5 beside P.5) is dropped.
  for (auto& c : aliased) {
    bool present = false;
    for (const auto& have : out.value) present = present || have.name == c.name;
    if (!present) out.value.push_back(std::move(c));
  }
  // rbp_resid is the residual of the rbp asked for: the same persistence.
  double persistence = kDefaultRbpPersistence;
  for (const auto& c : out.value)
    if (c.kind == MeasureKind::Rbp) persistence = c.param;
  for (auto& c : out.value)
    if (c.kind == MeasureKind::RbpResid) c.param = persistence;
  auto styleOf = [](MeasureKind k) {
    for (const auto& d : table())
      if (d.kind == k) return d.style;
    return ParamStyle::None;
  };
  std::stable_sort(out.value.begin(), out.value.end(),
                   [&](const MeasureColumn& a, const MeasureColumn& b) {
                     if (a.kind != b.kind) return a.kind < b.kind;
                     if (a.relevanceLevel.has_value() != b.relevanceLevel.has_value())
                       return !a.relevanceLevel.has_value();
                     return isCutoffStyle(styleOf(a.kind)) && a.param < b.param;
                   });
  return out;
}

}  // namespace ragscope::core
