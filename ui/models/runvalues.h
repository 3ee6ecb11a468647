#pragma once
// Per-query values of runs, ready for the statistics pages: taken from a retrieval evaluation
// (every per-query, mean-aggregated measure of every run) or read from `trec_eval -q` files.

#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/metrics/retrievalevaluator.h"
#include "core/stats/queryvalues.h"

namespace ragscope::ui {

struct EvalOutcome;

struct RunValues {
  QString name;                     // shown in pickers and tables
  QString source;                   // run file, or the per-query file it was read from
  core::stats::MeasureTable table;  // measure -> qid -> value
};

std::vector<RunValues> runValuesFrom(const EvalOutcome& outcome);

// `trec_eval -q` files read as runs named "<folder>/<file>". Every diagnostic goes to `problems`;
// with `reportEmpty` a file without values adds a line too. Files with errors or without values
// are left out (allOk false). Reads files: call off the GUI thread (PerQueryFilesJob).
struct PerQueryRuns {
  std::vector<RunValues> runs;
  QStringList problems;
  bool allOk = true;
};
PerQueryRuns readPerQueryRuns(const QStringList& files, const core::LoadOptions& options,
                              bool reportEmpty);

// Measures present in every given run, in the first run's order.
QStringList commonMeasures(const std::vector<RunValues>& runs);

// "ndcg_cut_10" -> "nDCG@10", "P_5" -> "P@5", "recall_100" -> "R@100", "map" -> "MAP"; other
// names unchanged. For axis titles and chart legends.
QString measureLabel(const QString& measure);

}  // namespace ragscope::ui
