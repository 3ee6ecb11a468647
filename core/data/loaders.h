#pragma once
// One loader per format (core/data/README.md, "Data model and loading"). Each appends what it reads
// to a Dataset and returns a report of what it loaded, skipped and why. Loaders stream: none reads
// a whole large file into memory. dataset.h's loadInto()/loadDataset() dispatch to these by Format.

#include <filesystem>
#include <functional>

#include "core/data/dataset.h"

namespace ragscope::core {

// TREC (trecformat.cpp): qid Q0 docno rank score tag / qid iter docno rel.
Loaded<Run> readTrecRun(const std::filesystem::path& path, const LoadOptions& options);
// The same reading, but each ranking is handed to `visit` instead of being kept, so memory stays a
// few chunks whatever the file's size (what `eval` of a run file uses). A regular file is read in
// one pass: a query's ranking is handed over once its lines have ended (several threads call
// `visit` at once; the view is valid during the call only). Should a query's lines turn out to be
// in more than one place of the file, `restart` is called (what was visited is void) and the file
// is read again in two passes, each ranking then whole. Standard input is read whole, then
// visited. The run returned holds the tag and source, no rankings.
using RankingVisitor = std::function<void(const RankingView&)>;
Loaded<Run> streamTrecRun(const std::filesystem::path& path, const LoadOptions& options,
                          const RankingVisitor& visit, const std::function<void()>& restart);
Loaded<Qrels> readTrecQrels(const std::filesystem::path& path, const LoadOptions& options);
LoadReport loadTrecRun(const std::filesystem::path& path, Dataset& into,
                       const LoadOptions& options);
LoadReport loadTrecQrels(const std::filesystem::path& path, Dataset& into,
                         const LoadOptions& options);

// Topics, collections and rank_llm (msmarcoformats.cpp).
LoadReport loadTopicsTsv(const std::filesystem::path& path, Dataset& into,
                         const LoadOptions& options);
LoadReport loadTopicsJsonl(const std::filesystem::path& path, Dataset& into,
                           const LoadOptions& options);
LoadReport loadMsmarcoCollection(const std::filesystem::path& path, Dataset& into,
                                 const LoadOptions& options);
LoadReport loadRankLlmJson(const std::filesystem::path& path, Dataset& into,
                           const LoadOptions& options);

// KILT, BEIR, llama-index, generic JSONL and RAGChecker (jsonformats.cpp and friends).
LoadReport loadKilt(const std::filesystem::path& path, Dataset& into, const LoadOptions& options);
// A KILT predictions file: checked (objects with an id and an output list), nothing added to the
// model; the part stays in Dataset::parts for the KILT evaluation (core/eval/kilt/kilteval.h).
LoadReport loadKiltPredictions(const std::filesystem::path& path, Dataset& into,
                               const LoadOptions& options);
LoadReport loadKiltKnowledgeSource(const std::filesystem::path& path, Dataset& into,
                                   const LoadOptions& options);
LoadReport loadBeir(const std::filesystem::path& folder, Dataset& into, const LoadOptions& options);
LoadReport loadLlamaRagDataset(const std::filesystem::path& path, Dataset& into,
                               const LoadOptions& options);
LoadReport loadRagJsonl(const std::filesystem::path& path, Dataset& into,
                        const LoadOptions& options);
LoadReport loadRagChecker(const std::filesystem::path& path, Dataset& into,
                          const LoadOptions& options);

// Docugami KG-RAG (docugami.cpp): qna_data.csv, with the PDFs of docs/ beside it (or a folder
// holding both) as the chunked corpus.
LoadReport loadDocugami(const std::filesystem::path& path, Dataset& into,
                        const LoadOptions& options);

}  // namespace ragscope::core
