#include "core/eval/generatejob.h"
#include "core/export/json.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/eval/jobplanning.h"
#include "core/llm/llmjson.h"
#include "core/llm/prompts.h"
#include "core/util/atomicfile.h"

namespace ragscope::core::eval {

GeneratePlan planGenerate(const Dataset& dataset, const Run* run, std::size_t k,
                          std::string_view templateText) {
  GeneratePlan plan;
  auto warn = [&](std::string text) { addPlanWarning(plan.warnings, std::move(text)); };
  plan.items.reserve(dataset.queries.size());
  for (const auto& q : dataset.queries) {
    std::vector<std::string> passages;
    if (run) {
      const Ranking* ranking = run->find(q.id);
      if (!ranking) {
        ++plan.queriesWithoutRanking;
        warn("query " + q.id + ": no ranking in the run (answered without documents)");
      } else {
        auto top = topPassages(dataset.corpus, *ranking, k);
        for (const auto& id : top.missing) {
          ++plan.missingDocuments;
          warn("query " + q.id + ": document " + id + " is not in the corpus (left out)");
        }
        passages = std::move(top.texts);
      }
    }
    const std::string prompt = llm::renderTemplate(
        templateText, {{"question", q.text}, {"documents", llm::formatPassages(passages)}});
    plan.items.push_back({std::string(kGenerateKeyPrefix) + q.id, "generate",
                          exporting::jsonText(llm::toJson(chatRequest(prompt)))});
  }
  return plan;
}

bool writeAnswersJsonl(store::RunStore& store, const std::filesystem::path& path, std::string* error) {
  std::unordered_map<std::int64_t, store::ItemResult> byItem;
  for (auto& r : store.results()) byItem.emplace(r.result.itemId, std::move(r.result));
  auto write = [&](std::ostream& out) {
    for (const auto& item : store.items()) {
      std::string qid = item.key;
      if (qid.rfind(kGenerateKeyPrefix, 0) == 0) qid.erase(0, kGenerateKeyPrefix.size());
      nlohmann::json line;
      line["qid"] = qid;
      const auto it = byItem.find(item.id);
      if (it != byItem.end() && item.status != store::ItemStatus::Pending &&
          item.status != store::ItemStatus::Cancelled) {
        line["answer"] = it->second.status == store::ItemStatus::Done ? it->second.text : "";
        line["heuristic"] = it->second.heuristic;
        line["error"] = it->second.error.empty() ? nlohmann::json() : nlohmann::json(it->second.error);
      } else {
        line["answer"] = "";
        line["heuristic"] = false;
        line["error"] = "not run (" + std::string(store::itemStatusName(item.status)) + ")";
      }
      out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    return true;
  };
  return writeFileAtomically(path, write, error, /*fsyncFile=*/false);
}

}  // namespace ragscope::core::eval
