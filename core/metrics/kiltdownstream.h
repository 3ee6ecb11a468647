#pragma once
// KILT's downstream evaluation (kilt/eval_downstream.py, _calculate_metrics) over a gold file and
// a guess file, reproducing KILT's numbers:
//   - guesses are matched to golds by id (str(id).strip(), so 1 == "1"); duplicate ids, a guess
//     id missing from gold or a gold id without a guess is an error, as in KILT's validate_input;
//   - the guess answer is str(output[0].answer).strip(); an empty one scores 0 everywhere;
//   - the gold candidates are the distinct stripped non-empty answers of the gold outputs;
//   - accuracy = the stripped guess equals one candidate exactly (KILT's strict accuracy; the
//     normalised "Accuracy" of downstream.h differs on case/punctuation), em/f1 = SQuAD
//     normalised, rougel = "ROUGE-L (KILT)" (the `rouge` package); each max over candidates;
//   - KILT-x = x counted only for items whose page-level R-precision (wikipedia_id provenance,
//     kiltretrieval.h) is exactly 1;
//   - means are over all gold items.
// Extra: rougeLStemmed (the eRAG default, not a KILT number) is reported alongside.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/data/diagnostic.h"

namespace ragscope::core {

struct KiltDownstreamItem {
  std::string id;
  std::string guessAnswer;
  double accuracy = 0.0, em = 0.0, f1 = 0.0, rougel = 0.0, rougeLStemmed = 0.0;
  double rprec = 0.0;
  bool kiltGate = false;  // rprec == 1: the item counts for the KILT-x scores
};

struct KiltDownstreamScores {
  double accuracy = 0.0, em = 0.0, f1 = 0.0, rougel = 0.0, rougeLStemmed = 0.0;
  double kiltAccuracy = 0.0, kiltEm = 0.0, kiltF1 = 0.0, kiltRougel = 0.0;
  std::size_t count = 0;
  std::vector<KiltDownstreamItem> items;  // gold order
};

// Gold candidate answers of one KILT record (distinct, stripped, non-empty, first-seen order).
std::vector<std::string> kiltGoldAnswers(const nlohmann::json& gold);

// One aligned pair.
KiltDownstreamItem kiltDownstreamItem(const nlohmann::json& gold, const nlohmann::json& guess);

// Aligns guesses to golds by id and averages; on an alignment problem returns false with *error.
bool kiltDownstreamScores(const std::vector<nlohmann::json>& gold,
                          const std::vector<nlohmann::json>& guess, KiltDownstreamScores& out,
                          std::string* error = nullptr);

// Reads the two files (JSON lines, or KILT's pretty-printed concatenated objects such as
// guess3_1.json) and scores them. Read problems follow options (Skip/Stop, progress); an alignment
// problem is an error diagnostic naming the guess file and stops the evaluation.
Loaded<KiltDownstreamScores> evaluateKiltDownstream(const std::filesystem::path& goldPath,
                                                    const std::filesystem::path& guessPath,
                                                    const LoadOptions& options = {});

}  // namespace ragscope::core
