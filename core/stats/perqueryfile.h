#pragma once
// Reader for `trec_eval -q` style per-query files: `measure qid value` per line, whitespace
// separated (trec_eval prints "%-22s\t%s\t%6.4f"). The `all` rows (summaries) are skipped, as are
// the text-valued measures runid and relstring, blank lines and `#` comments. Everything else that
// does not parse is a diagnostic `file:line: field: problem` under LoadOptions.onError.
//
//   auto loaded = loadPerQueryFile("bm25.q.txt", LoadOptions{});
//   const QueryValues& ndcg = loaded.value.at("ndcg_cut_10");   // qid -> value

#include <filesystem>

#include "core/data/diagnostic.h"
#include "core/stats/queryvalues.h"

namespace ragscope::core::stats {

Loaded<MeasureTable> loadPerQueryFile(const std::filesystem::path& path,
                                      const LoadOptions& options);

}  // namespace ragscope::core::stats
