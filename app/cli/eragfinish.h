#pragma once
// What `ragscope-cli erag` / `e2e` do once a run's calls are through, shared with `resume`
// (jobcommands.cpp): compute labels and scores from the store, store them in it, print the
// summary (or JSON) and write the labels file.

#include <string>

#include "core/store/runstore.h"

namespace ragscope::cli {

struct EvalFinishOptions {
  std::string labelsOut;  // erag: {qid: [labels]} JSON; empty: none
  bool json = false;      // print per-query and mean values as JSON instead of the text summary
};

// 0 ok, 2 when the scores cannot be computed or written.
int finishEvaluationRun(core::store::RunStore& store, const EvalFinishOptions& options);

}  // namespace ragscope::cli
