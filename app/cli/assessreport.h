#pragma once
// How ragscope-cli shows an assessment's outcome (assess and resume): the pairs graded, the
// replies by state (unparsed ones with their reasons), the grades, the repeats' spread, the
// qrels written (with the merge's conflicts) and the labels added; or the same as JSON.

#include "core/eval/api/job.h"

namespace ragscope::cli {

void printAssessResult(const core::eval::JobResult& result, bool json);

}  // namespace ragscope::cli
