#pragma once
// Fusion of several runs into one, with ranx's definitions (AmenRa/ranx, ranx/fusion: rrf,
// comb_sum, comb_mnz, wsum; the scores normalised first as scorenorm.h does). The formulas and
// conventions (queries, missing documents, ties) are in core/retrieval/README.md, "Fusion".
//
//   FusionOptions o;
//   o.method = FusionMethod::Rrf;
//   Loaded<Run> fused = fuseRuns({&bm25, &dense}, o);
//   if (!fused.report.hasErrors()) writeTrecRun(fused.value, path, &error, ScoreText::Shortest);

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/retrieval/scorenorm.h"

namespace ragscope::core {

enum class FusionMethod {
  Rrf,          // sum over runs of 1 / (k + rank)
  CombSum,      // sum over runs of the (normalised) score
  CombMnz,      // CombSUM x the number of runs that hold the document
  WeightedSum,  // sum over runs of weight x (normalised) score
};

// "rrf", "combsum", "combmnz", "wsum".
std::optional<FusionMethod> fusionMethodFromName(std::string_view name);
const char* fusionMethodName(FusionMethod method);

// ranx's default k of RRF (Cormack, Clarke and Buettcher, SIGIR 2009).
inline constexpr double kDefaultRrfK = 60.0;

struct FusionOptions {
  FusionMethod method = FusionMethod::Rrf;
  // Applied to each run's ranking of each query before CombSUM, CombMNZ and wsum. RRF uses ranks
  // only and ignores it (every normalisation keeps a ranking's order, as in ranx). ranx's fuse()
  // default is min-max for every method.
  ScoreNorm norm = ScoreNorm::MinMax;
  std::vector<double> weights;  // wsum: one per run, in run order; other methods: empty
  double rrfK = kDefaultRrfK;   // RRF: k >= 0
  std::size_t depth = 0;        // documents kept per query in the fused run; 0: all
  std::string tag;              // run tag; empty: the method's name
};

// Why `options` cannot fuse `runs` runs ("" when they can): fewer than two runs, weights given
// for a method other than wsum, missing for wsum, of the wrong count or not finite, a negative
// or non-finite RRF k.
std::string fusionOptionsProblem(const FusionOptions& options, std::size_t runs);

// Fuses `runs` (in that order: the order of the weights). The fused run holds the union of the
// runs' queries (in order of first appearance: the first run's, then those only later runs
// hold), each ranking sorted by fused score, ties by docno descending (trec_eval's order, so the
// rank written is the rank trec_eval computes), cut at options.depth. Errors (the run then holds
// nothing): the options' problem (no file), a docno twice in one query's ranking of one run
// (file:line: docno: naming both lines), an infinite score (file:line: score), a normalised or
// fused score that overflows (file:line: score). Warnings: none.
Loaded<Run> fuseRuns(std::span<const Run* const> runs, const FusionOptions& options);

}  // namespace ragscope::core
