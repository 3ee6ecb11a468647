#pragma once
// A report as one JSON document (core/export/README.md, "JSON"): everything of the runs it covers,
// with a schema version, written through json.h (UTF-8 safe, deterministic: the same report gives
// the same bytes; no time of writing is put in, so two exports of the same inputs can be diffed).
//
// {"schema": "ragscope-report", "schema_version": 1, "ragscope_version", "title", "datasets",
//  "problems": [...], "runs": [{"name", "kind", "source", "mode", "settings", "conventions",
//  "method": {key: value}, "notes", "summary": [{"metric", "mean", "ci95": [lo, hi] | null, "n",
//  "total", "states": {"scored", "unparsed", "error", "empty", "incomplete"}}],
//  "per_query": [{"qid", "values": {metric: v | null}, "states": {metric: state}}],
//  "documents": [{"qid", "rank", "doc_id", "label", "output"}],
//  "claims": [{"qid", "side", "index", "claim", "premise", "verdict", "repeats", "flipped",
//  "evidence"}]}], "comparisons": [{"a", "b", "metric", "n", "unaligned", "mean_a", "mean_b",
//  "mean_diff", "ci95", "p_randomization", "p_t", "wins", "ties", "losses"}]}

#include <nlohmann/json.hpp>

#include "core/export/reportmodel.h"

namespace ragscope::core::exporting {

nlohmann::ordered_json reportJson(const Report& report);

}  // namespace ragscope::core::exporting
