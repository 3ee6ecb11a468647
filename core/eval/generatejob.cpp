#include "core/eval/generatejob.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/llm/llmjson.h"
#include "core/llm/prompts.h"
#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core::eval {

GeneratePlan planGenerate(const Dataset& dataset, const Run* run, std::size_t k,
                          std::string_view templateText) {
  GeneratePlan plan;
  auto warn = [&](std::string text) {
    if (plan.warnings.size() < 20) plan.warnings.push_back(std::move(text));
  };
  plan.items.reserve(dataset.queries.size());
  for (const auto& q : dataset.queries) {
    std::vector<std::string> passages;
    if (run) {
      const Ranking* ranking = run->find(q.id);
      if (!ranking) {
        ++plan.queriesWithoutRanking;
        warn("query " + q.id + ": no ranking in the run (answered without documents)");
      } else {
        // The documents in trec_eval's order, so "top-k" means what the metrics mean.
        std::vector<const RunEntry*> order;
        order.reserve(ranking->entries.size());
        for (const auto& e : ranking->entries) order.push_back(&e);
        std::stable_sort(order.begin(), order.end(),
                         [](const RunEntry* a, const RunEntry* b) { return trecRanksBefore(*a, *b); });
        for (const RunEntry* e : order) {
          if (passages.size() >= k) break;
          const Document* doc = dataset.corpus.find(e->docId());
          if (!doc) {
            ++plan.missingDocuments;
            warn("query " + q.id + ": document " + std::string(e->docId()) +
                 " is not in the corpus (left out)");
            continue;
          }
          passages.push_back(doc->title.empty() ? doc->text : doc->title + "\n" + doc->text);
        }
      }
    }
    const std::string prompt = llm::renderTemplate(
        templateText, {{"question", q.text}, {"documents", llm::formatPassages(passages)}});
    llm::LlmRequest request;
    request.kind = llm::EndpointKind::Chat;
    request.messages.push_back({"user", prompt});
    plan.items.push_back({std::string(kGenerateKeyPrefix) + q.id, "generate",
                          llm::toJson(request).dump()});
  }
  return plan;
}

bool writeAnswersJsonl(store::RunStore& store, const std::filesystem::path& path, std::string* error) {
  std::unordered_map<std::int64_t, store::ItemResult> byItem;
  for (auto& r : store.results()) byItem.emplace(r.result.itemId, std::move(r.result));
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      if (error) *error = tmp.string() + ": cannot write";
      return false;
    }
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
    out.flush();
    if (!out) {
      if (error) *error = tmp.string() + ": write failed";
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    if (error) *error = path.string() + ": " + ec.message();
    return false;
  }
  return true;
}

}  // namespace ragscope::core::eval
