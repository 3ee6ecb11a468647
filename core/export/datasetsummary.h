#pragma once
// What `ragscope-cli dataset info` prints of a loaded dataset: its parts with their formats, the
// counts (queries, queries with gold outputs and with gold documents, documents, judgments per
// grade, qrels queries, runs, examples), the loader's record and diagnostic counts, and every
// diagnostic as "file:line: field: problem" (warnings marked). As text, or as one JSON object
// (diagnostics that quote raw input that is not UTF-8 are repaired by writeJson).

#include <ostream>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"

namespace ragscope::core::exporting {

void writeDatasetSummaryText(std::ostream& out, const Dataset& dataset, const LoadReport& report);
void writeDatasetSummaryJson(std::ostream& out, const Dataset& dataset, const LoadReport& report);

}  // namespace ragscope::core::exporting
