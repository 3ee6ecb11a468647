#pragma once
// Planning pieces shared by the LLM jobs over a retrieval run (generate, erag, e2e): a query's
// top-k documents in trec_eval's order with their corpus texts, the capped warning list, the chat
// request around a rendered prompt, and the finished results of a store keyed by item key.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/data/model.h"
#include "core/llm/provider.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

// What a prompt shows of a document: its title (when it has one) above its text.
std::string passageText(const Document& doc);

// One query's first k documents (in trec_eval's order, so "top-k" means what the retrieval metrics
// mean) that the corpus holds, with their passage texts; ids the corpus lacks are listed in
// `missing` in rank order and do not count towards k.
struct RankedPassages {
  std::vector<std::string> docIds;
  std::vector<std::string> texts;
  std::vector<std::string> missing;
};
RankedPassages topPassages(const Corpus& corpus, const Ranking& ranking, std::size_t k);

// Appends `text` unless `warnings` already holds 20 (the plans report counts beyond that).
void addPlanWarning(std::vector<std::string>& warnings, std::string text);

// A single-message chat request carrying `prompt` as the user turn.
llm::LlmRequest chatRequest(std::string prompt);

// A qid or docid as one part of a work item's key ("erag:QID:RANK:DOCID"): '%' -> "%25" and
// ':' -> "%3A", so that ids holding ':' cannot make two items' keys equal (README, "Item keys").
std::string escapeItemKeyPart(std::string_view part);

// The store's finished (Done) results by item key.
std::unordered_map<std::string, store::ItemResult> doneResultsByKey(store::RunStore& store);

}  // namespace ragscope::core::eval
