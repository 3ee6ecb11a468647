#pragma once
// Inside the judging job: one metric's value for one judged query, from the verdicts the walker
// read (judgewalk.cpp), and the query as a RAGChecker checking example. The report
// (judgereport.cpp) sums these up. See core/eval/jobs/README.md.

#include <cstddef>
#include <string>

#include "core/claims/claimexample.h"
#include "core/eval/jobs/judgejob.h"

namespace ragscope::core::eval {

// `name`'s value for `q` in `mode`; `rep` a repeat's labels, or std::string::npos for the
// majority over the repeats.
MetricValue judgeMetricValue(const std::string& name, const JudgedQuery& q, JudgeMode mode,
                             std::size_t rep);

// The query's claims and verdicts (the majority labels) as a RAGChecker checking example.
claims::ClaimExample judgeClaimExample(const JudgedQuery& q);

}  // namespace ragscope::core::eval
