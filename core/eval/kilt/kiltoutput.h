#pragma once
// KILT predictions made from ragscope's own runs (core/eval/kilt/README.md, "KILT evaluation"): a
// retriever's ranking gives the provenance (the pages of its top k documents, in trec_eval's
// order, each once), a generate run's answers the answer. What `retrieve --kilt-out` and
// `generate --kilt-out` write, so a KILT evaluation of a ragscope run needs no other tool.

#include <string>
#include <unordered_map>
#include <vector>

#include "core/data/dataset.h"
#include "core/export/kiltpredictions.h"

namespace ragscope::core::eval {

// One prediction per query of `dataset`, in its order. `run` may be null (no provenance);
// `answers` (qid -> answer) may be null (no "answer": a retriever's output). With `promptDocs`
// the pages are those of the documents a generate prompt shows (the first k the corpus holds),
// else of the first k ranked documents.
std::vector<exporting::KiltPrediction> kiltPredictionsFor(
    const Dataset& dataset, const Run* run, std::size_t k,
    const std::unordered_map<std::string, std::string>* answers, bool promptDocs = false);

}  // namespace ragscope::core::eval
