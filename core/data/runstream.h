#pragma once

// The one-pass streaming reader of a regular TREC run file (streamTrecRun's first try).

#include <cstdint>
#include <string>

#include "core/data/loaders.h"

namespace ragscope::core::runparse {

// Reads [dataStart, size) of the open file `fd` in chunks parsed on all cores, and hands each
// query's ranking to `visit` as soon as its lines are known to have ended: chunks are put back in
// file order as they finish (a ranking crossing a chunk's end is carried over to the next). Sets
// the run's tag and the report. Returns false, having stopped early, when a query's lines are in
// two places of the file: the caller then voids what was visited and reads in two passes.
bool streamRunFileOnePass(int fd, std::uint64_t dataStart, std::uint64_t size,
                          const std::string& file, const LoadOptions& options, Run& run,
                          LoadReport& report, const RankingVisitor& visit);

}  // namespace ragscope::core::runparse
