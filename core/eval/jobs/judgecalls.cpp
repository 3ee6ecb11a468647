#include "core/eval/jobs/judgecalls.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/llm/llmjson.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

namespace {

bool keyIsOf(const std::string& key, const std::string& qid) {
  return key.size() > qid.size() && key.compare(key.size() - qid.size(), qid.size(), qid) == 0 &&
         key[key.size() - qid.size() - 1] == ':';
}

std::string promptText(const std::string& requestJson) {
  const auto j = nlohmann::json::parse(requestJson, nullptr, false);
  if (j.is_discarded()) return requestJson;
  const auto request = llm::requestFromJson(j);
  if (!request) return requestJson;
  std::string out;
  switch (request->kind) {
    case llm::EndpointKind::Chat:
      for (const auto& m : request->messages)
        out += (out.empty() ? "" : "\n\n") + m.role + ":\n" + m.content;
      if (request->seed) out += "\n\n(seed " + std::to_string(*request->seed) + ")";
      break;
    case llm::EndpointKind::Embeddings:
      for (const auto& in : request->inputs) out += (out.empty() ? "embed: " : "\nembed: ") + in;
      break;
    case llm::EndpointKind::Rerank:
      out = "rerank query: " + request->query;
      for (const auto& d : request->documents) out += "\ndocument: " + d;
      break;
  }
  return out;
}

}  // namespace

std::vector<JudgeCall> judgeCallsOf(const std::filesystem::path& path, const std::string& qid,
                                    std::string* error) {
  store::RunStore store;
  if (!store.openReadOnly(path, error)) return {};
  std::unordered_map<std::string, store::ItemResult> results;
  for (auto& r : store.results())
    if (keyIsOf(r.key, qid)) results.emplace(r.key, std::move(r.result));
  std::vector<JudgeCall> calls;
  for (const auto& item : store.items()) {
    if (!keyIsOf(item.key, qid)) continue;
    JudgeCall c;
    c.key = item.key;
    c.prompt = promptText(item.requestJson);
    c.status = std::string(store::itemStatusName(item.status));
    c.attempts = item.attempts;
    if (const auto it = results.find(item.key); it != results.end()) {
      c.reply = it->second.text;
      c.error = it->second.error;
      c.fromCache = it->second.fromCache;
      c.heuristic = it->second.heuristic;
    }
    calls.push_back(std::move(c));
  }
  return calls;
}

}  // namespace ragscope::core::eval
