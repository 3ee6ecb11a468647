#include "core/eval/jobs/generatejob.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/data/jsonlines.h"
#include "core/eval/jobs/jobplanning.h"
#include "core/export/json.h"
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

bool writeAnswersJsonl(store::RunStore& store, const std::filesystem::path& path,
                       std::string* error) {
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
        line["error"] =
            it->second.error.empty() ? nlohmann::json() : nlohmann::json(it->second.error);
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

Loaded<std::vector<StoredAnswer>> readAnswersJsonl(const std::filesystem::path& path) {
  Loaded<std::vector<StoredAnswer>> out;
  LoadOptions options;
  options.onError = OnError::Stop;
  std::unordered_map<std::string, std::uint64_t> seen;
  out.report = readJsonRecords(
      path, options,
      [&](nlohmann::json& record, const JsonRecordPlace& place, RecordProblems& problems) {
        if (!record.is_object()) {
          problems.error("record", "is not a JSON object");
          return;
        }
        StoredAnswer a;
        a.line = place.line;
        auto qid = jsonId(record, "qid", problems, true);
        auto answer = jsonString(record, "answer", problems, true);
        if (const auto it = record.find("error"); it != record.end() && !it->is_null()) {
          if (it->is_string())
            a.error = it->get<std::string>();
          else
            problems.error("error", "is not a string or null");
        }
        if (qid) {
          if (const auto [it, added] = seen.emplace(*qid, place.line); !added)
            problems.error("qid", "'" + *qid + "' is answered again (first on line " +
                                      std::to_string(it->second) + ")");
        }
        if (problems.hasErrors() || !qid || !answer) return;
        a.qid = std::move(*qid);
        a.answer = std::move(*answer);
        out.value.push_back(std::move(a));
      },
      JsonLayout::Lines);
  return out;
}

}  // namespace ragscope::core::eval
