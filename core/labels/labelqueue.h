#pragma once
// What to label next (core/labels/README.md, "Labelling queue"): the candidates of a judging run
// (its answers' claims against one premise, each with the judge's verdict and whether repeated
// asks flipped: core/eval/inputs/claimlabels.h claimCandidates, which reads the run) or of a
// retrieval run (the documents in its top k that the qrels do not judge), and the queue chosen from
// them for one annotator:
//   Random               N items drawn without replacement with a seeded generator;
//   StratifiedByJudge    N items split over the judge's verdicts in proportion to how often
//                        each verdict occurs (largest remainders), drawn at random within each;
//                        the queue is then shuffled, so verdicts do not come in blocks;
//   DisagreementsFirst   the items whose repeats flipped first (in random order), then the
//                        others (in random order);
//   TopRanksFirst        rank 1 of every query, then rank 2, ... (ties in candidate order):
//                        the holes nearest the top of a ranking matter most to its metrics.
// The same candidates, options and seed give the same queue on every platform (the generator is
// core/stats/random.h's SplitMix64, the shuffle Fisher-Yates, never std::shuffle).
//
//   auto items = eval::claimCandidates(report, "runs/claims.db", ClaimPremise::Chunks);
//   QueueOptions o; o.order = QueueOrder::StratifiedByJudge; o.size = 50; o.seed = 7;
//   o.skip = {keys of targets this annotator labelled already};
//   std::vector<QueueItem> queue = selectQueue(items, o);

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/claims/labels.h"
#include "core/data/model.h"
#include "core/labels/label.h"

namespace ragscope::core::labels {

struct QueueItem {
  Target target;
  std::string context;   // what the annotator judges: the claim's text (a document: empty)
                         // (a claim's premise is its target's)
  std::string judge;     // the judge's value, canonical for the target kind; empty: none
  bool flipped = false;  // the judge's repeated asks disagreed on this item
  std::size_t rank = 0;  // a document's 1-based rank in the run (trec_eval order); 0 otherwise
};

// The canonical claim verdict a judge's label stands for (Entailment and Supported are
// "supported"); nullopt for Unparsed and Error, which are no verdict.
std::optional<std::string> judgeVerdict(claims::Label judge);
// A human claim verdict disagrees with the judge's: "cannot_tell" (an abstention) and an
// unresolved judge label never disagree. A binary judge (Supported / Unsupported) cannot tell
// unsupported, neutral and contradiction apart, so its Unsupported agrees with all three.
bool claimDisagrees(claims::Label judge, std::string_view humanVerdict);

// The documents in the top k of each ranking of `run` (trec_eval order) that `qrels` does not
// judge, as Relevance targets of `datasetScope`, in run order.
std::vector<QueueItem> unjudgedTopK(const Run& run, const Qrels& qrels, std::size_t k,
                                    const std::string& datasetScope);

enum class QueueOrder { Random, StratifiedByJudge, DisagreementsFirst, TopRanksFirst };
std::string_view queueOrderName(QueueOrder order);  // "random", "stratified", ...

struct QueueOptions {
  QueueOrder order = QueueOrder::Random;
  std::size_t size = 50;  // at most this many items (fewer when there are fewer candidates)
  std::uint64_t seed = 42;
  std::unordered_set<std::string> skip;  // target keys left out (labelled already)
};

std::vector<QueueItem> selectQueue(const std::vector<QueueItem>& candidates,
                                   const QueueOptions& options);

// How StratifiedByJudge splits `size` over strata of these sizes: proportional, the remainders
// going to the largest fractional parts (ties: the earlier stratum); never more than a stratum has.
std::vector<std::size_t> proportionalAllocation(const std::vector<std::size_t>& strata,
                                                std::size_t size);

}  // namespace ragscope::core::labels
