#pragma once
// Human labels and judge scores to compare (core/claims/README.md, "Judge vs human"), and the
// comparison itself.
//
// Pairwise: RAGChecker's meta-evaluation layout. The human file is a JSON array of records
// {instance_id, ..., "<aspect>_label": integer in -2..2 (positive: model2 better)}, one record per
// annotator (two per instance in RAGChecker's file); the judge file an array of
// {instance_id, model1: {<name>: {<metric>: score}}, model2: {...}}. As RAGChecker's
// meta_eval.py: per instance delta = m(model2) - m(model1); NaN deltas take the median of the
// others; delta is min-max rescaled to [-2, 2] with ((delta - min) / (max - min) - 0.5) * 4 (an
// affine map, but in floating point it can merge near-equal deltas into ties, which Spearman
// sees: 46.95 on the correctness aspect, 46.94 without it); each human record is paired with
// its instance's delta; judge metric m pairs with the human aspect of the same name (RAGChecker
// names its metrics after the aspects), or, when the names differ, every metric with every
// aspect. Instances are matched by instance_id (the script pairs by position; the files agree).
// The ceiling pairs each instance's first annotator with its second. Kappa is computed on the
// preference direction (sign: -1, 0, +1) of both sides, judge and ceiling alike.
//
// Pointwise: CSV files with a header: a `qid` (or `query_id`) column and value columns. The
// human file's label column is `label` (or its only value column); rows with the same qid are
// several annotators. The judge is a CSV (each value column an aspect) or a RAGChecker checking
// output (each ragchecker.* metric an aspect, RAGChecker's conventions). Kappa only when both
// sides are whole numbers.
//
//   auto human = readPairwiseHuman(path);  auto judge = readPairwiseJudge(path2, "ragchecker");
//   MetaEvalResult r = comparePairwise(human.value, judge.value, {});
//   r.aspects[0].judge.pearson.value * 100;    // 49.66 for correctness (as the script prints)

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/claims/agreement.h"
#include "core/data/diagnostic.h"

namespace ragscope::core::claims {

struct PairwiseHuman {
  std::vector<std::string> aspects;  // "correctness", "completeness", "overall", ... (no _label)
  struct Record {
    std::string instanceId;
    std::vector<double> labels;  // per aspect
    std::uint64_t line = 0;
  };
  std::vector<Record> records;  // file order
};

struct PairwiseJudge {
  std::string name;                  // "ragchecker"
  std::vector<std::string> metrics;  // as in the file ("correctness_label", ...)
  struct Instance {
    std::string instanceId;
    std::vector<double> model1, model2;  // per metric; NaN for null
    std::uint64_t line = 0;
  };
  std::vector<Instance> instances;
};

Loaded<PairwiseHuman> readPairwiseHuman(const std::filesystem::path& path,
                                        const LoadOptions& options = {});
Loaded<PairwiseJudge> readPairwiseJudge(const std::filesystem::path& path, const std::string& name,
                                        const LoadOptions& options = {});

struct PointwiseTable {
  std::vector<std::string> columns;  // value columns (not the qid)
  struct Row {
    std::string qid;
    std::vector<double> values;  // per column; NaN for an empty cell
    std::uint64_t line = 0;
  };
  std::vector<Row> rows;
};

Loaded<PointwiseTable> readPointwiseCsv(const std::filesystem::path& path,
                                        const LoadOptions& options = {});

struct AspectAgreement {
  std::string aspect;       // the human aspect
  std::string judgeMetric;  // the judge's metric compared with it
  std::size_t instances = 0;
  std::size_t nanReplaced = 0;  // pairwise: NaN deltas set to the median
  std::size_t unpaired = 0;     // pointwise: human rows without a judge value
  Agreement judge;
  bool hasCeiling = false;
  Agreement ceiling;  // first vs second annotator (n = instances with two)
  // The pairs compared (judge score, human label), one per human label, for a scatter.
  std::vector<double> judgeValues, humanValues;
};

struct MetaEvalResult {
  std::string layout;   // "ragchecker-pairwise" or "pointwise"
  std::string kappaOn;  // what kappa compares
  std::vector<AspectAgreement> aspects;
  std::string error;  // non-empty: nothing computed (names what is missing)

  bool ok() const { return error.empty(); }
};

MetaEvalResult comparePairwise(const PairwiseHuman& human, const PairwiseJudge& judge,
                               const AgreementOptions& options);
MetaEvalResult comparePointwise(const PointwiseTable& human, const PointwiseTable& judge,
                                const AgreementOptions& options);

}  // namespace ragscope::core::claims
