#include "core/labels/labelqueue.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "core/metrics/retrievalevaluator.h"
#include "core/stats/random.h"

namespace ragscope::core::labels {

namespace {

// Fisher-Yates with the seeded SplitMix64 of core/stats/random.h: the same on every platform.
template <class T>
void queueShuffle(std::vector<T>& items, stats::Rng& rng) {
  for (std::size_t i = items.size(); i > 1; --i) {
    const std::size_t j = rng.below32(std::uint32_t(i));
    std::swap(items[i - 1], items[j]);
  }
}

// Independent streams for the draws of one queue, so a stratum's draw does not depend on the
// sizes of the strata before it.
stats::Rng queueStream(std::uint64_t seed, std::uint64_t stream) {
  return stats::Rng(stats::mix64(seed ^ stats::mix64(stream + 0x51ed270b27a1f3c5ULL)));
}

}  // namespace

std::optional<std::string> judgeVerdict(claims::Label judge) {
  switch (judge) {
    case claims::Label::Entailment:
    case claims::Label::Supported:
      return "supported";
    case claims::Label::Unsupported:
      return "unsupported";
    case claims::Label::Contradiction:
      return "contradiction";
    case claims::Label::Neutral:
      return "neutral";
    case claims::Label::Unparsed:
    case claims::Label::Error:
      return std::nullopt;
  }
  return std::nullopt;
}

bool claimDisagrees(claims::Label judge, std::string_view human) {
  const auto verdict = judgeVerdict(judge);
  if (!verdict || human == "cannot_tell" || human.empty()) return false;
  if (judge == claims::Label::Unsupported) return human == "supported";
  return *verdict != human;
}

std::vector<QueueItem> unjudgedTopK(const Run& run, const Qrels& qrels, std::size_t k,
                                    const std::string& datasetScope) {
  std::vector<QueueItem> out;
  for (const Ranking& ranking : run.rankings) {
    const auto it = qrels.byQuery.find(ranking.queryId);
    const std::vector<Judgment>* judgments = it == qrels.byQuery.end() ? nullptr : &it->second;
    for (const RankedDoc& d : rankedList(ranking, judgments, k)) {
      if (d.rel) continue;  // judged (a negative grade is a judgment too)
      QueueItem item;
      item.target = {TargetKind::Relevance, datasetScope, ranking.queryId, std::string(d.docId)};
      item.rank = d.rank;
      out.push_back(std::move(item));
    }
  }
  return out;
}

std::string_view queueOrderName(QueueOrder order) {
  switch (order) {
    case QueueOrder::Random:
      return "random";
    case QueueOrder::StratifiedByJudge:
      return "stratified";
    case QueueOrder::DisagreementsFirst:
      return "disagreements-first";
    case QueueOrder::TopRanksFirst:
      return "top-ranks-first";
  }
  return "random";
}

std::vector<std::size_t> proportionalAllocation(const std::vector<std::size_t>& strata,
                                                std::size_t size) {
  const std::size_t total = std::accumulate(strata.begin(), strata.end(), std::size_t(0));
  if (size >= total) return strata;
  std::vector<std::size_t> out(strata.size());
  std::vector<std::size_t> remainder(strata.size());
  std::size_t given = 0;
  for (std::size_t i = 0; i < strata.size(); ++i) {
    // size * n_i / total in integers: both below 2^32 in any queue a person walks.
    out[i] = size * strata[i] / total;
    remainder[i] = size * strata[i] % total;
    given += out[i];
  }
  std::vector<std::size_t> order(strata.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t i = 0; given < size && i < order.size(); ++i, ++given) ++out[order[i]];
  return out;
}

std::vector<QueueItem> selectQueue(const std::vector<QueueItem>& candidates,
                                   const QueueOptions& options) {
  std::vector<const QueueItem*> pool;
  for (const QueueItem& item : candidates)
    if (!options.skip.count(item.target.key())) pool.push_back(&item);
  std::vector<const QueueItem*> chosen;
  switch (options.order) {
    case QueueOrder::Random: {
      stats::Rng rng = queueStream(options.seed, 0);
      queueShuffle(pool, rng);
      chosen.assign(pool.begin(), pool.begin() + std::min(options.size, pool.size()));
      break;
    }
    case QueueOrder::StratifiedByJudge: {
      // Strata in the order of their verdict's name ("" = no verdict), for a stable allocation.
      std::map<std::string, std::vector<const QueueItem*>> strata;
      for (const QueueItem* item : pool) strata[item->judge].push_back(item);
      std::vector<std::size_t> sizes;
      for (const auto& [verdict, items] : strata) sizes.push_back(items.size());
      const auto take = proportionalAllocation(sizes, options.size);
      std::size_t s = 0;
      for (auto& [verdict, items] : strata) {
        stats::Rng rng = queueStream(options.seed, 1 + s);
        queueShuffle(items, rng);
        chosen.insert(chosen.end(), items.begin(), items.begin() + take[s]);
        ++s;
      }
      stats::Rng mix = queueStream(options.seed, 0);
      queueShuffle(chosen, mix);
      break;
    }
    case QueueOrder::DisagreementsFirst: {
      std::vector<const QueueItem*> flipped, steady;
      for (const QueueItem* item : pool) (item->flipped ? flipped : steady).push_back(item);
      stats::Rng first = queueStream(options.seed, 1);
      stats::Rng rest = queueStream(options.seed, 2);
      queueShuffle(flipped, first);
      queueShuffle(steady, rest);
      chosen = std::move(flipped);
      chosen.insert(chosen.end(), steady.begin(), steady.end());
      chosen.resize(std::min(options.size, chosen.size()));
      break;
    }
    case QueueOrder::TopRanksFirst: {
      chosen = pool;
      std::stable_sort(chosen.begin(), chosen.end(),
                       [](const QueueItem* a, const QueueItem* b) { return a->rank < b->rank; });
      chosen.resize(std::min(options.size, chosen.size()));
      break;
    }
  }
  std::vector<QueueItem> out;
  out.reserve(chosen.size());
  for (const QueueItem* item : chosen) out.push_back(*item);
  return out;
}

}  // namespace ragscope::core::labels
