#pragma once
// A report as CSV, one table per grain, through the one CsvWriter (csv.h: RFC 4180 quoting,
// UTF-8, formula-injection-safe text cells, numbers as numbers). Rows end with CRLF, as RFC 4180
// has it: these files are meant for spreadsheets. The columns, in this order
// (core/export/README.md, "CSV"):
//   summary   run, kind, mode, metric, mean, ci_low, ci_high, n, total, scored, unparsed, error,
//             empty, incomplete
//   query     run, kind, qid, metric, value, state
//   document  run, qid, rank, doc_id, label, output
//   claim     run, qid, side, claim_index, claim, premise, verdict, repeats, flipped
//   labels    run, metric, items, labelled, judge_mean, judge_ci_low, judge_ci_high, human_mean,
//             human_ci_low, human_ci_high, ppi_estimate, ppi_ci_low, ppi_ci_high, lambda, problem
//             (the human-labels section: prediction-powered estimates, core/eval/inputs/README.md)
// A missing value is an empty cell; `state` (query) and `verdict` (claim) say why.
//
//   writeFileAtomically(path, [&](std::ostream& out) {
//     return writeReportCsv(out, report, CsvGrain::Query); }, &error);

#include <optional>
#include <ostream>
#include <string_view>

#include "core/export/reportmodel.h"

namespace ragscope::core::exporting {

enum class CsvGrain { Summary, Query, Document, Claim, Labels };

std::string_view csvGrainName(CsvGrain grain);
std::optional<CsvGrain> csvGrainFromName(std::string_view name);

// False when the stream failed.
bool writeReportCsv(std::ostream& out, const Report& report, CsvGrain grain);

}  // namespace ragscope::core::exporting
