#include "core/metrics/measures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace ragscope::core {

namespace {

enum class ParamStyle { None, LongCutoffs, DoubleCutoffs, DoubleParam, GainPairs };

struct MeasureDef {
  std::string_view name;
  MeasureKind kind;
  ParamStyle style;
  std::vector<double> defaults;
  bool integer = false;
  bool perQuery = true;
  Aggregate aggregate = Aggregate::Mean;
};

const std::vector<double> kCutoffs = {5, 10, 15, 20, 30, 100, 200, 500, 1000};
const std::vector<double> kRecallPoints = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};

// trec_eval's measure table (measures.c), restricted to what ragscope implements, same order.
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
      {"recall", MeasureKind::Recall, ParamStyle::LongCutoffs, kCutoffs},
      {"gm_bpref", MeasureKind::GmBpref, ParamStyle::None, {}, false, false, Aggregate::GeometricMean},
      {"Rprec_mult", MeasureKind::RprecMult, ParamStyle::DoubleCutoffs,
       {0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0}},
      {"11pt_avg", MeasureKind::ElevenPtAvg, ParamStyle::DoubleParam, kRecallPoints},
      {"ndcg", MeasureKind::Ndcg, ParamStyle::GainPairs, {}},
      {"ndcg_cut", MeasureKind::NdcgCut, ParamStyle::LongCutoffs, kCutoffs},
      {"map_cut", MeasureKind::MapCut, ParamStyle::LongCutoffs, kCutoffs},
      {"relative_P", MeasureKind::RelativeP, ParamStyle::LongCutoffs, kCutoffs},
      {"success", MeasureKind::Success, ParamStyle::LongCutoffs, {1, 5, 10}},
      {"set_P", MeasureKind::SetP, ParamStyle::None, {}},
      {"set_relative_P", MeasureKind::SetRelativeP, ParamStyle::None, {}},
      {"set_recall", MeasureKind::SetRecall, ParamStyle::None, {}},
      {"set_map", MeasureKind::SetMap, ParamStyle::None, {}},
      {"set_F", MeasureKind::SetF, ParamStyle::DoubleParam, {1.0}},
      {"num_nonrel_judged_ret", MeasureKind::NumNonrelJudgedRet, ParamStyle::None, {}, true, true,
       Aggregate::Sum},
  };
  return defs;
}

// Every measure name trec_eval 9/10 knows for the qrels + trec_results formats.
const std::vector<std::string_view> kTrecEvalNames = {
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
    "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj", "yaap", "ndcg_p", "Runj",
    "num_nonjudged_ret"};

const std::vector<std::string_view> kOfficial = {"runid", "num_q", "num_ret", "num_rel",
                                                  "num_rel_ret", "map", "gm_map", "Rprec",
                                                  "bpref", "recip_rank", "iprec_at_recall", "P"};
const std::vector<std::string_view> kSet = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret",
                                             "set_P", "set_recall", "set_relative_P", "set_map",
                                             "set_F"};

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

}  // namespace

std::vector<std::string_view> implementedMeasureNames() {
  std::vector<std::string_view> out;
  for (const auto& d : table()) out.push_back(d.name);
  return out;
}

bool isTrecEvalMeasure(std::string_view name) {
  return std::find(kTrecEvalNames.begin(), kTrecEvalNames.end(), name) != kTrecEvalNames.end();
}

bool isImplementedMeasure(std::string_view name) { return findDef(name) != nullptr; }

Parsed<std::vector<MeasureRequest>> parseMeasureArgs(const std::vector<std::string>& args) {
  Parsed<std::vector<MeasureRequest>> out;
  for (const auto& a : args) {
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
  auto mark = [&](std::string_view name) -> bool {
    const MeasureDef* d = findDef(name);
    if (!d) {
      out.error = isTrecEvalMeasure(name)
                      ? "measure '" + std::string(name) + "' is a trec_eval measure ragscope does not implement"
                      : "unknown measure '" + std::string(name) + "'";
      return false;
    }
    marked[d->name] = true;
    return true;
  };
  std::vector<MeasureRequest> effective = requests;
  if (effective.empty()) effective.push_back({"official", std::nullopt});
  for (const auto& r : effective) {
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
      // trec_eval's all_trec = everything computed from qrels + a run; here, everything implemented.
      for (const auto& d : table()) marked[d.name] = true;
    } else if (r.name == "set") {
      for (auto n : kSet) mark(n);
    } else if (!mark(r.name)) {
      return out;
    }
  }
  for (const auto& d : table()) {
    if (!marked.count(d.name)) continue;
    MeasureColumn base;
    base.name = std::string(d.name);
    base.kind = d.kind;
    base.integer = d.integer;
    base.perQuery = d.perQuery;
    base.aggregate = d.aggregate;
    if (d.style == ParamStyle::None) {
      out.value.push_back(base);
      continue;
    }
    std::vector<double> values = d.defaults;
    auto pit = params.find(d.name);
    const bool custom = pit != params.end();
    if (d.style == ParamStyle::GainPairs) {
      // ndcg.1=3,2=9: gains per relevance level (trec_eval's rel_level=gain pairs).
      MeasureColumn c = base;
      if (custom) {
        for (const auto& piece : splitCommas(pit->second)) {
          const auto eq = piece.find('=');
          if (eq == std::string::npos || eq == 0 || eq + 1 == piece.size()) {
            out.error = "measure 'ndcg': malformed gain pair '" + piece + "' (want level=gain)";
            return out;
          }
          c.paramList.push_back(static_cast<double>(std::atol(piece.substr(0, eq).c_str())));
          c.paramList.push_back(std::atof(piece.substr(eq + 1).c_str()));
        }
        c.name += "_" + pit->second;
      }
      out.value.push_back(c);
      continue;
    }
    if (custom) {
      values.clear();
      for (const auto& piece : splitCommas(pit->second)) {
        if (d.style == ParamStyle::LongCutoffs)
          values.push_back(static_cast<double>(std::atol(piece.c_str())));  // "23.4" -> 23, as atol
        else
          values.push_back(std::atof(piece.c_str()));
      }
    }
    if (d.style == ParamStyle::DoubleParam) {
      // One value computed from all parameters (11pt_avg, set_F); named after the text given.
      MeasureColumn c = base;
      if (values.empty()) {
        out.error = "measure '" + std::string(d.name) + "': no parameter values";
        return out;
      }
      c.param = values.front();
      c.paramList = values;
      if (custom) c.name += "_" + pit->second;
      out.value.push_back(c);
      continue;
    }
    std::sort(values.begin(), values.end());
    if (d.style == ParamStyle::LongCutoffs && !values.empty() && values.front() <= 0) {
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
  }
  return out;
}

}  // namespace ragscope::core
