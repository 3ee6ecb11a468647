#pragma once
// Planning the judging job (see core/eval/jobs/judgejob.h and core/eval/api/README.md): the judge
// options checked, its templates read, the answers it judges gathered (given, from an answers file,
// generated from a run, or a dataset's own responses), and its stage — record, inputs and first
// items — added to the plan. planJob (job.cpp) calls it as it calls planErag and planGenerate.

#include "core/eval/api/job.h"

namespace ragscope::core::eval {

// Adds the judging stage to `plan`, or sets plan.error.
void planJudge(const JobSpec& spec, const Dataset& dataset, const JobCallbacks& callbacks,
               JobPlan& plan);

}  // namespace ragscope::core::eval
