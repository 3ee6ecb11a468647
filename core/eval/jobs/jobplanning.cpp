#include "core/eval/jobs/jobplanning.h"

#include <algorithm>

#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core::eval {

std::string passageText(const Document& doc) {
  return doc.title.empty() ? doc.fullText() : doc.title + "\n" + doc.fullText();
}

RankedPassages topPassages(const Corpus& corpus, const Ranking& ranking, std::size_t k) {
  const std::vector<const RunEntry*> order = trecOrder(ranking);
  RankedPassages out;
  for (const RunEntry* e : order) {
    if (out.docIds.size() >= k) break;
    const auto doc = corpus.find(e->docId());
    if (!doc) {
      out.missing.emplace_back(e->docId());
      continue;
    }
    out.docIds.emplace_back(e->docId());
    out.texts.push_back(passageText(*doc));
  }
  return out;
}

void addPlanWarning(std::vector<std::string>& warnings, std::string text) {
  if (warnings.size() < 20) warnings.push_back(std::move(text));
}

llm::LlmRequest chatRequest(std::string prompt) {
  llm::LlmRequest request;
  request.kind = llm::EndpointKind::Chat;
  request.messages.push_back({"user", std::move(prompt)});
  return request;
}

std::unordered_map<std::string, store::ItemResult> doneResultsByKey(store::RunStore& store) {
  std::unordered_map<std::string, store::ItemResult> byKey;
  for (auto& r : store.results()) {
    if (r.result.status == store::ItemStatus::Done) byKey.emplace(r.key, std::move(r.result));
  }
  return byKey;
}

std::string escapeItemKeyPart(std::string_view part) {
  std::string out;
  out.reserve(part.size());
  for (char c : part) {
    if (c == '%')
      out += "%25";
    else if (c == ':')
      out += "%3A";
    else
      out.push_back(c);
  }
  return out;
}

}  // namespace ragscope::core::eval
