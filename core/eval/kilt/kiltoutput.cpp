#include "core/eval/kilt/kiltoutput.h"

#include "core/eval/jobs/jobplanning.h"
#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core::eval {

std::vector<exporting::KiltPrediction> kiltPredictionsFor(
    const Dataset& dataset, const Run* run, std::size_t k,
    const std::unordered_map<std::string, std::string>* answers, bool promptDocs) {
  std::vector<exporting::KiltPrediction> out;
  out.reserve(dataset.queries.size());
  for (const auto& q : dataset.queries) {
    exporting::KiltPrediction p;
    p.id = q.id;
    if (answers) {
      if (auto it = answers->find(q.id); it != answers->end()) {
        p.answer = it->second;
        p.hasAnswer = true;
      } else {
        p.hasAnswer = true;  // KILT needs the key; an unanswered query scores as empty
      }
    }
    if (const Ranking* ranking = run ? run->find(q.id) : nullptr) {
      std::vector<std::string> ids;
      if (promptDocs) {
        ids = topPassages(dataset.corpus, *ranking, k).docIds;
      } else {
        for (const RunEntry* e :
             trecOrder(*ranking, k ? std::optional<std::size_t>(k) : std::nullopt))
          ids.emplace_back(e->docId());
      }
      p.pages = exporting::kiltPagesOfRanking(ids, &dataset.corpus);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace ragscope::core::eval
