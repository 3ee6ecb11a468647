#include "core/trecrag/qrelsagreementreport.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace ragscope::core::trecrag {

namespace {

nlohmann::ordered_json numberOrNull(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

// Four decimals, "-" for an undefined value.
std::string fixed(double v, int decimals = 4) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A rank: whole ranks as integers, shared ranks with their half ("2.5").
std::string rankText(double r) {
  if (r == std::floor(r)) return std::to_string(static_cast<long long>(r));
  return fixed(r, 1);
}

}  // namespace

nlohmann::ordered_json qrelsAgreementJson(const GradeAgreement& g, const SystemAgreement* systems,
                                          const QrelsNames& names) {
  nlohmann::ordered_json j;
  j["qrels_a"] = names.a;
  j["qrels_b"] = names.b;
  j["pairs"] = {{"shared", g.shared}, {"only_a", g.onlyA}, {"only_b", g.onlyB}};
  j["queries"] = {
      {"shared", g.queriesShared}, {"only_a", g.queriesOnlyA}, {"only_b", g.queriesOnlyB}};
  nlohmann::ordered_json grades = nlohmann::ordered_json::array();
  for (const auto& row : g.grades) grades.push_back(row);
  j["grades"] = {{"kappa", numberOrNull(g.kappa)},
                 {"accuracy", numberOrNull(g.accuracy)},
                 {"confusion", grades}};
  nlohmann::ordered_json binary = nlohmann::ordered_json::array();
  for (const auto& row : g.binary) binary.push_back(row);
  j["binary"] = {{"level", g.level},
                 {"kappa", numberOrNull(g.binaryKappa)},
                 {"accuracy", numberOrNull(g.binaryAccuracy)},
                 {"confusion", binary}};
  if (systems) {
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (const auto& s : systems->systems)
      runs.push_back({{"name", s.name},
                      {"mean_a", numberOrNull(s.underA)},
                      {"mean_b", numberOrNull(s.underB)},
                      {"rank_a", s.rankA},
                      {"rank_b", s.rankB}});
    nlohmann::ordered_json swaps = nlohmann::ordered_json::array();
    for (const auto& s : largestRankSwaps(*systems))
      swaps.push_back({{"name", s.name}, {"rank_a", s.rankA}, {"rank_b", s.rankB}});
    const auto& c = systems->correlation;
    j["systems"] = {{"measure", systems->measure},
                    {"relevance_level", names.relevanceLevel},
                    {"queries", systems->sharedQueries},
                    {"runs", runs},
                    {"kendall_tau_b", numberOrNull(c.kendall.value)},
                    {"p_kendall", numberOrNull(c.kendall.p)},
                    {"spearman_rho", numberOrNull(c.spearman.value)},
                    {"p_spearman", numberOrNull(c.spearman.p)},
                    {"largest_rank_swaps", swaps}};
  }
  return j;
}

std::string formatQrelsAgreement(const GradeAgreement& g, const SystemAgreement* systems,
                                 const QrelsNames& names) {
  std::ostringstream out;
  out << "qrels A: " << names.a << "\nqrels B: " << names.b << "\n\n";
  out << "pairs judged by both: " << g.shared << " (in " << g.queriesShared
      << " queries); only in A: " << g.onlyA << "; only in B: " << g.onlyB << '\n';
  if (g.queriesOnlyA || g.queriesOnlyB)
    out << "queries judged by one file only: A " << g.queriesOnlyA << ", B " << g.queriesOnlyB
        << '\n';
  out << "\ngrades 0..3: Cohen's kappa " << fixed(g.kappa) << ", accuracy " << fixed(g.accuracy)
      << " (n " << g.shared << ", unweighted)\n";
  out << "  confusion (rows: A, columns: B)\n  " << std::setw(6) << "";
  for (int c = 0; c <= kTopGrade; ++c) out << std::setw(10) << ("B=" + std::to_string(c));
  out << '\n';
  for (int r = 0; r <= kTopGrade; ++r) {
    out << "  " << std::setw(6) << ("A=" + std::to_string(r));
    for (int c = 0; c <= kTopGrade; ++c) out << std::setw(10) << g.grades[r][c];
    out << '\n';
  }
  const std::string lv = std::to_string(g.level);
  out << "\nbinary at level " << lv << " (relevant = grade >= " << lv << "): Cohen's kappa "
      << fixed(g.binaryKappa) << ", accuracy " << fixed(g.binaryAccuracy) << '\n';
  out << "  " << std::setw(6) << "" << std::setw(10) << ("B<" + lv) << std::setw(10) << ("B>=" + lv)
      << '\n';
  for (int r = 0; r < 2; ++r) {
    out << "  " << std::setw(6) << (r ? "A>=" + lv : "A<" + lv);
    for (int c = 0; c < 2; ++c) out << std::setw(10) << g.binary[r][c];
    out << '\n';
  }
  if (!systems) return out.str();
  out << "\nsystems: mean " << systems->measure << " over the " << systems->sharedQueries
      << " queries both judge (-l " << names.relevanceLevel << ")\n";
  std::size_t width = 4;
  for (const auto& s : systems->systems) width = std::max(width, s.name.size());
  out << "  " << std::left << std::setw(int(width)) << "run" << std::right << std::setw(10)
      << "under A" << std::setw(7) << "rank" << std::setw(10) << "under B" << std::setw(7) << "rank"
      << '\n';
  for (const auto& s : systems->systems)
    out << "  " << std::left << std::setw(int(width)) << s.name << std::right << std::setw(10)
        << fixed(s.underA) << std::setw(7) << rankText(s.rankA) << std::setw(10) << fixed(s.underB)
        << std::setw(7) << rankText(s.rankB) << '\n';
  const auto& c = systems->correlation;
  out << "Kendall's tau-b " << fixed(c.kendall.value) << " (p " << fixed(c.kendall.p)
      << "), Spearman's rho " << fixed(c.spearman.value) << " (p " << fixed(c.spearman.p)
      << ") between the orderings under A and under B (n " << systems->systems.size() << ")\n";
  const auto swaps = largestRankSwaps(*systems);
  if (swaps.empty()) {
    out << "no system changed rank\n";
  } else {
    out << "largest rank swaps:";
    for (const auto& s : swaps)
      out << "  " << s.name << " " << rankText(s.rankA) << " -> " << rankText(s.rankB);
    out << '\n';
  }
  return out.str();
}

}  // namespace ragscope::core::trecrag
