#pragma once
// KILT predictions files (core/export/README.md, "KILT predictions"): what `ragscope-cli generate`
// and `retrieve` write with --kilt-out, one JSON line per query in the format KILT's evaluation
// scripts and `ragscope-cli kilt-eval` read:
//   {"id": QID, "output": [{"answer": TEXT, "provenance": [{"wikipedia_id": ID, "title": T}]}]}
// The provenance is the ranked list's pages, each once, in rank order (a chunk or paragraph
// counts as its page); "answer" is left out when there is none (a retriever's run), which KILT's
// eval_retrieval accepts and kilt-eval scores as an empty answer.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/model.h"

namespace ragscope::core::exporting {

struct KiltPredictionPage {
  std::string wikipediaId;
  std::string title;
};

struct KiltPrediction {
  std::string id;
  std::string answer;
  bool hasAnswer = false;
  std::vector<KiltPredictionPage> pages;  // rank order; duplicates are dropped when written
};

// The KILT page of a retrieved document: a chunk's parent, an id "PAGE#p#n" of the chunker
// stripped to PAGE, else the id itself; the title from the corpus when it holds the document.
KiltPredictionPage kiltPageOf(std::string_view docId, const Corpus* corpus);

// The pages of the first `k` documents of a ranking (0 = all), each page once.
std::vector<KiltPredictionPage> kiltPagesOfRanking(const std::vector<std::string>& docIds,
                                                   const Corpus* corpus, std::size_t k = 0);

// One prediction as its JSON line (no newline).
std::string kiltPredictionLine(const KiltPrediction& prediction);

// Writes the predictions, one line each, atomically (core/util/atomicfile.h). On failure returns
// false with *error "<path>: <what failed>".
bool writeKiltPredictions(const std::filesystem::path& path,
                          const std::vector<KiltPrediction>& predictions, std::string* error);

}  // namespace ragscope::core::exporting
