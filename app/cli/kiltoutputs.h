#pragma once
// --kilt-out of `generate` and `retrieve`: the run just made, written as a KILT predictions file
// (core/eval/kilt/kiltoutput.h) that `kilt-eval` scores.

#include <string>

#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "core/data/dataset.h"

namespace ragscope::cli {

// generate: the answers file `answersPath` just written, with the pages of the documents each
// prompt showed (the --run's top --k the corpus holds). Returns the exit code (0 ok, 2 failed).
int writeGenerateKiltPredictions(const JobInputArgs& inputs, const std::string& answersPath,
                                 const std::string& kiltOut, const CommandLine& cli);

// retrieve: the pages of each query's top k documents, no answer. False after printing why.
bool writeRetrieveKiltPredictions(const core::Dataset& dataset, const core::Run& run, std::size_t k,
                                  const std::string& kiltOut);

}  // namespace ragscope::cli
