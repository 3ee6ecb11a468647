#pragma once
// Offline heuristic providers (core/llm/README.md): no network, always available, labelled
// "heuristic" everywhere (LlmResponse::heuristic). Baselines that let the demo and tests run
// without a server, not LLMs:
//  - reader: answers with the passage sentence that best overlaps the question;
//  - claim splitter: sentences and clauses of a text as "- claim" bullets;
//  - judge: a claim is supported when all its numbers and most of its content words occur in
//    the documents ("- claim SUPPORTED=1/0" lines);
//  - embeddings (any role, for an EndpointKind::Embeddings request): one offlineEmbedding() per
//    input, model kOfflineEmbeddingModel, so the demo's dense retriever needs no server.
// They read their inputs from the prompt's labelled sections (prompts.h): "Question:",
// "Documents:"/"Context:" with "Passage N:" entries, "Claims:" bullets, "Text:"/"Response:".
//
//   auto reader = makeOfflineProvider(OfflineRole::Reader);
//   reader->submit(request, [](LlmResponse r) { /* r.heuristic == true */ });

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

enum class OfflineRole { Reader, ClaimSplitter, Judge, Auto };

std::string_view offlineRoleName(OfflineRole role);  // "reader", "claims", "judge", "auto"

struct PromptSections {
  std::string question;
  std::vector<std::string> passages;
  std::vector<std::string> claims;
  std::string text;  // "Text:" or "Response:" section
  bool hasText = false;
};

PromptSections parsePromptSections(std::string_view prompt);

// Lower-cased word tokens with light suffix stripping; numbers normalised ("1,234.0" -> "1234").
std::vector<std::string> lexicalTokens(std::string_view text);
bool isStopword(std::string_view word);
std::vector<std::string> splitSentences(std::string_view text);

// The best-overlapping sentence, or "I do not know." when nothing overlaps.
std::string lexicalRead(std::string_view question, const std::vector<std::string>& passages);
std::vector<std::string> lexicalSplitClaims(std::string_view text);
bool lexicalSupports(std::string_view claim, std::string_view context);
// "- claim SUPPORTED=1" lines, one per claim, in order.
std::string lexicalJudge(const std::vector<std::string>& claims,
                         const std::vector<std::string>& passages);

// The offline assessor (core/llm/README.md, "Offline heuristic providers"): the grade 0..3 of a
// passage for a query from term overlap: the share f of the query's distinct content words
// (lexicalTokens, stopwords out) found among the passage's: f = 0 gives 0, f < 1/2 gives 1,
// f < 3/4 gives 2, else 3 (a query without content words: 0).
int lexicalGrade(std::string_view query, std::string_view passage);
// An assessment prompt (core/trecrag/assessprompt.h): it asks for a "##final score" line and
// has a line starting "Query:" followed later by one starting "Passage:" (the passage runs to the
// end of the prompt). Fills `query` and `passage` when true.
bool readAssessmentPrompt(std::string_view prompt, std::string* query, std::string* passage);

// What the offline provider answers to a prompt in `role` (Auto: judge when the prompt has
// claims, splitter when it has a text section, reader otherwise). An assessment prompt gets
// "##final score: N" from lexicalGrade in every role.
std::string offlineAnswer(OfflineRole role, std::string_view prompt);

// The offline embedding (core/llm/README.md, "Offline heuristic providers"): a hashed bag of
// words. Tokens are the maximal runs of ASCII letters and digits and of bytes >= 0x80 (so UTF-8
// words stay whole), ASCII upper case lowered; each token's FNV-1a 64-bit hash h picks bucket
// h % dims and sign + (top bit of h clear) or - (set); the signed counts are scaled to unit L2
// length. No token (or dims <= 0): all zeros (an empty vector for dims <= 0). Deterministic on
// every platform: texts sharing words get a positive cosine, apart from hash collisions.
inline constexpr int kOfflineEmbeddingDims = 256;
inline constexpr const char* kOfflineEmbeddingModel = "offline-hashed-bow-256";
std::vector<float> offlineEmbedding(std::string_view text, int dims = kOfflineEmbeddingDims);

// A Provider running the heuristics on one worker thread. `config.baseUrl` is set to "offline".
std::unique_ptr<Provider> makeOfflineProvider(OfflineRole role, EndpointConfig config = {});

}  // namespace ragscope::core::llm
