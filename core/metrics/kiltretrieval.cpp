#include "core/metrics/kiltretrieval.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

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

constexpr int kHit = -1, kMiss = -2;  // rank markers; >= 0: a partial evidence set's index

// KILT's rank of evidence sets (eval_retrieval.py's _get_ranking): each guess, for every set
// holding it in set order, either completes the set (a hit), or advances it (the set's partial
// marker moves to the latest guess of that set); a guess in no set is a miss. KILT walks every
// set for every guess and searches and erases the marker in the rank list (quadratic); here each
// guess visits only the sets holding it (an id -> sets index), a moved marker leaves a hole that
// the final pass drops, and a set's remaining size is a count (guess ids are distinct, so each
// guess takes one member at most from a set). Same rank list, linear time.
std::vector<int> evidenceRank(const std::vector<std::string>& guessIds,
                              const std::vector<std::vector<std::string>>& sets) {
  // id -> the sets holding it, ascending: a chain through `entries` (no allocation per id).
  struct Entry {
    int set;
    int next;  // -1: the last
  };
  std::vector<Entry> entries;
  std::unordered_map<std::string_view, std::pair<int, int>> setsOf;  // first and last entry
  std::vector<std::size_t> remaining(sets.size());
  std::size_t members = 0;
  for (const auto& set : sets) members += set.size();
  entries.reserve(members);
  setsOf.reserve(members);
  for (std::size_t idx = 0; idx < sets.size(); ++idx) {
    remaining[idx] = sets[idx].size();
    for (const auto& id : sets[idx]) {
      const int e = static_cast<int>(entries.size());
      entries.push_back({static_cast<int>(idx), -1});
      auto [it, inserted] = setsOf.try_emplace(id, e, e);
      if (!inserted) {
        entries[static_cast<std::size_t>(it->second.second)].next = e;
        it->second.second = e;
      }
    }
  }
  constexpr int kHole = -3;
  std::vector<int> slots;
  slots.reserve(guessIds.size());
  std::vector<std::size_t> marker(sets.size(), SIZE_MAX);  // slot of each set's partial marker
  for (const auto& g : guessIds) {
    const auto it = setsOf.find(g);
    if (it == setsOf.end()) {
      slots.push_back(kMiss);
      continue;
    }
    for (int e = it->second.first; e >= 0; e = entries[static_cast<std::size_t>(e)].next) {
      const int idx = entries[static_cast<std::size_t>(e)].set;
      const auto i = static_cast<std::size_t>(idx);
      if (marker[i] != SIZE_MAX) slots[marker[i]] = kHole;
      const bool complete = --remaining[i] == 0;
      marker[i] = complete ? SIZE_MAX : slots.size();
      slots.push_back(complete ? kHit : idx);
    }
  }
  slots.erase(std::remove(slots.begin(), slots.end(), kHole), slots.end());
  return slots;
}

}  // namespace

std::vector<std::vector<std::string>> kiltProvenanceIds(const nlohmann::json& item,
                                                        const std::vector<std::string>& rankKeys) {
  std::vector<std::vector<std::string>> out;
  if (!item.contains("output") || !item["output"].is_array()) return out;
  for (const auto& output : item["output"]) {
    std::vector<std::string> ids;
    std::unordered_set<std::string> seen;  // duplicates removed in one pass, order kept
    const auto provenance = output.is_object() ? output.find("provenance") : output.end();
    if (provenance != output.end() && provenance->is_array()) {
      seen.reserve(provenance->size());
      for (const auto& p : *provenance) {
        if (!p.is_object()) continue;
        bool complete = true;
        std::string id;
        for (std::size_t k = 0; k < rankKeys.size(); ++k) {
          const auto v = p.find(rankKeys[k]);
          if (v == p.end()) {
            complete = false;
            break;
          }
          if (k) id += '+';
          id += idText(*v);
        }
        if (complete && seen.insert(id).second) ids.push_back(std::move(id));
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

  // R-precision of each evidence set: its members among the first R guesses (R = its size).
  for (const auto& goldIds : goldLists) {
    const std::size_t R = goldIds.size();
    if (R == 0) continue;
    const std::unordered_set<std::string_view> members(goldIds.begin(), goldIds.end());
    std::size_t hits = 0;
    for (std::size_t i = 0; i < guessIds.size() && i < R; ++i) hits += members.count(guessIds[i]);
    s.rprec = std::max(s.rprec, static_cast<double>(hits) / static_cast<double>(R));
  }

  // Distinct evidence sets (outputs with provenance; an identical set counts once, at its first
  // place), each as its sorted members.
  std::vector<std::vector<std::string>> sets;
  if (gold.contains("output") && gold["output"].is_array()) {
    std::set<std::vector<std::string>> seen;
    std::size_t o = 0;
    for (const auto& output : gold["output"]) {
      const bool hasProvenance = output.is_object() && output.contains("provenance");
      if (hasProvenance && o < goldLists.size()) {
        std::vector<std::string> set = goldLists[o];
        std::sort(set.begin(), set.end());
        if (seen.insert(set).second) sets.push_back(std::move(set));
      }
      ++o;
    }
  }
  const auto rank = guessIds.empty() ? std::vector<int>{} : evidenceRank(guessIds, sets);
  // hitsUpTo[i]: hits among the first i rank entries.
  std::vector<std::size_t> hitsUpTo(rank.size() + 1, 0);
  for (std::size_t i = 0; i < rank.size(); ++i) hitsUpTo[i + 1] = hitsUpTo[i] + (rank[i] == kHit);
  for (int k : ks) {
    if (k <= 0) continue;
    double p = 0.0, r = 0.0, succ = 0.0;
    if (!guessIds.empty() && !sets.empty()) {
      const auto hits = hitsUpTo[std::min<std::size_t>(static_cast<std::size_t>(k), rank.size())];
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
