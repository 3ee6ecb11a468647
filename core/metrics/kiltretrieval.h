#pragma once
// KILT's page-level retrieval metrics over provenance (KILT kilt/eval_retrieval.py): each gold
// output's provenance is one evidence set; a guess's ranking is its first output's provenance.
// Ids are the rank keys' values joined by "+" (wikipedia_id, or wikipedia_id+section, ...);
// JSON ints and strings give the same id ("1" == 1), as KILT's str() does.
//
//   R-precision: max over evidence sets of |top-R guesses in the set| / R (R = set size).
//   precision@k / recall@k / success@k: over KILT's evidence-set rank, where a set counts as one
//   hit at the position of the guess that completes it (partial sets are not hits).
// KILT itself reports recall@k and success_rate@k only for k > 1; they are computed for every k.
// KILT's Python is quadratic in the provenance entries of an item (list searches and erases);
// the same numbers are computed here in linear time plus a sort of each evidence set, so a
// guess or a gold of a million entries costs seconds (tests/bench/bench_kilteval).

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ragscope::core {

struct KiltRetrievalScores {
  double rprec = 0.0;
  std::map<int, double> precision;    // k -> precision@k
  std::map<int, double> recall;       // k -> recall@k
  std::map<int, double> successRate;  // k -> success_rate@k
  std::size_t count = 0;              // items averaged
};

// "1", "2+Section" ...: one id list per output (order kept, duplicates removed).
std::vector<std::vector<std::string>> kiltProvenanceIds(const nlohmann::json& item,
                                                        const std::vector<std::string>& rankKeys);

// One item: gold evidence sets vs the guess ranking.
KiltRetrievalScores kiltItemScores(const nlohmann::json& guess, const nlohmann::json& gold,
                                   const std::vector<int>& ks,
                                   const std::vector<std::string>& rankKeys);

// Mean over aligned gold/guess items (same order, same ids: returns an error message otherwise).
KiltRetrievalScores kiltRetrievalScores(const std::vector<nlohmann::json>& gold,
                                        const std::vector<nlohmann::json>& guess,
                                        const std::vector<int>& ks,
                                        const std::vector<std::string>& rankKeys,
                                        std::string* error = nullptr);

}  // namespace ragscope::core
