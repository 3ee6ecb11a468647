#pragma once
// The items of a run's judged metrics for prediction-powered inference (core/eval/inputs/README.md,
// "Human labels and PPI"): for each metric, the judge's value f on each of its N items and the
// human value Y on the n items the project's labels cover, ready for stats::ppiMean.
//
//   faithfulness   a response claim against the retrieved chunks    label: claim "response:<i>",
//                                                                          premise chunks
//   correctness    a response claim against the gold answer         label: claim "response:<i>",
//                                                                          premise gold_answer
//   coverage       a gold-answer claim against the response         label: claim "gold:<i>",
//                                                                          premise response
//   erag           one (query, document) eRAG label                 label: eRAG document
//   answer:<m>     one query's value of the run's metric m          label: answer
//
// A claim label is the human truth of the metric whose question it answered only (its premise,
// core/labels/label.h): a verdict given against the chunks is never correctness' Y. Labels belong
// to a run store when their scope names that file (core/labels/labelscope.h), never by file name.
//
// f of a claim is 1 when the judge's verdict (the majority over repeats) is supported, else 0; a
// claim whose verdict is unparsed or an error is left out and counted. Y is the label's number
// (labels.h numericValue); "cannot_tell" labels no value; several annotators' values on one item
// are averaged. A label whose stored claim text no longer matches the claim is left out (stale).
//
//   RunPpi run = ppiItemsOfStore("runs/claims.db", labels::labelsFolder(store.path()),
//                                store.current());
//   for (const PpiItems& m : run.metrics) stats::ppiMean(m.input, {});

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/eval/jobs/eragjob.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/label.h"
#include "core/labels/labelscope.h"
#include "core/stats/ppi.h"
#include "core/stats/queryvalues.h"

namespace ragscope::core::eval {

struct PpiItems {
  std::string metric;       // "faithfulness", "correctness", "coverage", "erag", "answer:<m>"
  std::string description;  // what one item is, for people
  labels::TargetKind labelKind = labels::TargetKind::Claim;
  stats::PpiInput input;
  std::size_t judgeUnresolved = 0;    // items left out: the judge's verdict unparsed or an error
  std::size_t abstained = 0;          // items whose every label is cannot_tell (so unlabelled)
  std::size_t severalAnnotators = 0;  // labelled items with more than one annotator (Y = mean)
  std::size_t staleLabels = 0;        // claim labels recorded on another text of the claim
  std::size_t labelsNotUsed = 0;      // labelled targets that are not items (unknown, unresolved)
  // Claim metrics: the premise whose labels are Y, and the labelled claim targets of the same
  // side judged against another premise (another metric's truth, not used here).
  std::optional<labels::ClaimPremise> premise;
  std::size_t otherPremise = 0;
  std::size_t items() const { return input.labelledY.size() + input.unlabelledF.size(); }
  std::size_t labelled() const { return input.labelledY.size(); }
};

// A metric's items with its estimate.
struct PpiEstimate {
  PpiItems items;
  stats::PpiResult result;
};

// faithfulness, correctness and coverage of a judging report, each present when one of its
// claims has a resolved verdict. `labels`: the current labels (any scope and kind; those whose
// scope `store` does not name, and those of other kinds, are passed over).
std::vector<PpiItems> claimPpiItems(const JudgeReport& report, const labels::ScopeMatcher& store,
                                    const std::vector<labels::Label>& labels);
// The (query, document) labels of an eRAG report; nullopt when it has no label yet.
std::optional<PpiItems> eragPpiItems(const EragReport& report, const labels::ScopeMatcher& store,
                                     const std::vector<labels::Label>& labels);
// A per-query metric against the answers' labels (end-to-end and judging runs).
PpiItems answerPpiItems(const std::string& metric, const stats::QueryValues& values,
                        const labels::ScopeMatcher& store,
                        const std::vector<labels::Label>& labels);

struct RunPpi {
  std::string error;  // non-empty: the store could not be read
  std::string kind;   // "judge", "erag", "e2e"
  std::vector<PpiItems> metrics;
  std::vector<std::string> metricNames() const;
  const PpiItems* find(std::string_view metric) const;
};

// Every metric of a run store (opened read-only) that PPI applies to: a judging run's claim
// metrics, an eRAG run's labels, and answer:<m> for the per-query metrics of end-to-end and
// judging runs when the labels hold an answer label of the run. Reads the store: call off the
// GUI thread.
// `labelsFolder`: where the labels' relative scopes lead (labels::labelsFolder of the labels
// store: the project's folder).
RunPpi ppiItemsOfStore(const std::filesystem::path& store,
                       const std::filesystem::path& labelsFolder,
                       const std::vector<labels::Label>& labels);

// ppiMean for each (options as given), in order.
std::vector<PpiEstimate> estimatePpi(const std::vector<PpiItems>& metrics,
                                     const stats::PpiOptions& options);

// {"estimate", "ci_low", "ci_high", "lambda", "n_labelled", "n_unlabelled", "judge_only": {"mean",
// "ci_low", "ci_high"}, "human_only": {...}} (NaN as null), as `ragscope-cli ppi --json` prints.
nlohmann::ordered_json ppiResultJson(const stats::PpiResult& result);
// The same for people: the PPI estimate, the judge-only and human-only means, each with its
// interval, and lambda ("PPI++" when tuned, "classical PPI" at 1).
std::string formatPpiResult(const stats::PpiResult& result, const stats::PpiOptions& options);

}  // namespace ragscope::core::eval
