#include "core/metrics/kiltretrieval.h"

#include <algorithm>
#include <set>

namespace ragscope::core {

namespace {

std::string trimmed(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Python's str() of a JSON scalar, the way KILT builds ids.
std::string idText(const nlohmann::json& v) {
  if (v.is_string()) return trimmed(v.get<std::string>());
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  return trimmed(v.dump());
}

std::string itemId(const nlohmann::json& item) {
  return item.contains("id") ? idText(item["id"]) : std::string();
}

// KILT's rank of evidence sets: each guess either completes a set (true), advances a partial set
// (a marker that moves to the latest guess of that set) or misses (false).
std::vector<int> evidenceRank(const std::vector<std::string>& guessIds,
                              std::vector<std::set<std::string>> sets) {
  constexpr int kHit = -1, kMiss = -2;  // >= 0: partial evidence set index
  std::vector<int> rank;
  for (const auto& g : guessIds) {
    bool found = false;
    for (std::size_t idx = 0; idx < sets.size(); ++idx) {
      auto& set = sets[idx];
      if (!set.count(g)) continue;
      found = true;
      auto it = std::find(rank.begin(), rank.end(), static_cast<int>(idx));
      if (it != rank.end()) rank.erase(it);
      set.erase(g);
      rank.push_back(set.empty() ? kHit : static_cast<int>(idx));
    }
    if (!found) rank.push_back(kMiss);
  }
  return rank;
}

}  // namespace

std::vector<std::vector<std::string>> kiltProvenanceIds(const nlohmann::json& item,
                                                        const std::vector<std::string>& rankKeys) {
  std::vector<std::vector<std::string>> out;
  if (!item.contains("output") || !item["output"].is_array()) return out;
  for (const auto& output : item["output"]) {
    std::vector<std::string> ids;
    if (output.is_object() && output.contains("provenance") && output["provenance"].is_array()) {
      for (const auto& p : output["provenance"]) {
        if (!p.is_object()) continue;
        bool complete = true;
        std::string id;
        for (std::size_t k = 0; k < rankKeys.size(); ++k) {
          if (!p.contains(rankKeys[k])) {
            complete = false;
            break;
          }
          if (k) id += '+';
          id += idText(p[rankKeys[k]]);
        }
        if (complete && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
      }
    }
    out.push_back(std::move(ids));
  }
  return out;
}

KiltRetrievalScores kiltItemScores(const nlohmann::json& guess, const nlohmann::json& gold,
                                   const std::vector<int>& ks,
                                   const std::vector<std::string>& rankKeys) {
  KiltRetrievalScores s;
  s.count = 1;
  const auto goldLists = kiltProvenanceIds(gold, rankKeys);
  const auto guessLists = kiltProvenanceIds(guess, rankKeys);
  const std::vector<std::string> guessIds =
      guessLists.empty() ? std::vector<std::string>{} : guessLists.front();

  for (const auto& goldIds : goldLists) {
    const std::size_t R = goldIds.size();
    std::size_t hits = 0;
    for (std::size_t i = 0; i < guessIds.size() && i < R; ++i)
      if (std::find(goldIds.begin(), goldIds.end(), guessIds[i]) != goldIds.end()) ++hits;
    const double rprec = R ? static_cast<double>(hits) / static_cast<double>(R) : 0.0;
    s.rprec = std::max(s.rprec, rprec);
  }

  // Distinct evidence sets (outputs with provenance; an identical set counts once).
  std::vector<std::set<std::string>> sets;
  if (gold.contains("output") && gold["output"].is_array()) {
    std::size_t o = 0;
    for (const auto& output : gold["output"]) {
      const bool hasProvenance = output.is_object() && output.contains("provenance");
      if (hasProvenance && o < goldLists.size()) {
        std::set<std::string> set(goldLists[o].begin(), goldLists[o].end());
        if (std::find(sets.begin(), sets.end(), set) == sets.end()) sets.push_back(std::move(set));
      }
      ++o;
    }
  }
  const auto rank = guessIds.empty() ? std::vector<int>{} : evidenceRank(guessIds, sets);
  for (int k : ks) {
    if (k <= 0) continue;
    double p = 0.0, r = 0.0, succ = 0.0;
    if (!guessIds.empty() && !sets.empty()) {
      const auto top = std::min<std::size_t>(static_cast<std::size_t>(k), rank.size());
      const auto hits =
          std::count(rank.begin(), rank.begin() + static_cast<std::ptrdiff_t>(top), -1);
      p = static_cast<double>(hits) / static_cast<double>(k);
      r = static_cast<double>(hits) / static_cast<double>(sets.size());
      succ = hits > 0 ? 1.0 : 0.0;
    }
    s.precision[k] = p;
    s.recall[k] = r;
    s.successRate[k] = succ;
  }
  return s;
}

KiltRetrievalScores kiltRetrievalScores(const std::vector<nlohmann::json>& gold,
                                        const std::vector<nlohmann::json>& guess,
                                        const std::vector<int>& ks,
                                        const std::vector<std::string>& rankKeys,
                                        std::string* error) {
  KiltRetrievalScores total;
  if (gold.size() != guess.size()) {
    if (error)
      *error = "different sizes: gold " + std::to_string(gold.size()) + ", guess " +
               std::to_string(guess.size());
    return total;
  }
  for (std::size_t i = 0; i < gold.size(); ++i)
    if (itemId(gold[i]) != itemId(guess[i])) {
      if (error)
        *error = "item " + std::to_string(i + 1) + ": ids differ ('" + itemId(gold[i]) + "' vs '" +
                 itemId(guess[i]) + "')";
      return total;
    }
  for (int k : ks)
    if (k > 0) total.precision[k] = total.recall[k] = total.successRate[k] = 0.0;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    const auto s = kiltItemScores(guess[i], gold[i], ks, rankKeys);
    total.rprec += s.rprec;
    for (const auto& [k, v] : s.precision) total.precision[k] += v;
    for (const auto& [k, v] : s.recall) total.recall[k] += v;
    for (const auto& [k, v] : s.successRate) total.successRate[k] += v;
  }
  total.count = gold.size();
  if (total.count) {
    const double n = static_cast<double>(total.count);
    total.rprec /= n;
    for (auto& [k, v] : total.precision) v /= n;
    for (auto& [k, v] : total.recall) v /= n;
    for (auto& [k, v] : total.successRate) v /= n;
  }
  return total;
}

}  // namespace ragscope::core
