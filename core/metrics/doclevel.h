#pragma once
// Document-level evaluation of chunked corpora (Docugami; core/metrics/README.md, "Document
// level"): a retrieved chunk counts as its document, and only the first occurrence of each
// document in the ranking counts.
//
//   auto r = evaluateDocLevel({"2022 Q3 AAPL.pdf#3#0", "2023 Q1 MSFT.pdf#1#2", "2023 Q1
//   AAPL.pdf#9#1"},
//                             {"2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf", "2023 Q2 AAPL.pdf", "2023 Q3
//                             AAPL.pdf"});
//   // r.precision 2/3, r.recall 0.5, r.apTrecEval 0.4167, r.apRetrievedRelevant 0.8333

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core {

using ChunkToDoc = std::function<std::string(std::string_view chunkId)>;

// "file#page#n" -> "file": strips a trailing "#<digits>#<digits>" (the chunker's id layout);
// any other id is its own document.
std::string chunkDocumentId(std::string_view chunkId);

struct DocLevelResult {
  std::vector<std::string> rankedDocs;  // distinct documents in first-occurrence order
  std::vector<bool> relevant;           // per rankedDocs entry
  std::size_t relevantRetrieved = 0;
  std::size_t goldCount = 0;         // distinct gold documents
  double precision = 0.0;            // relevant retrieved / distinct retrieved
  double recall = 0.0;               // relevant retrieved / gold
  double apTrecEval = 0.0;           // "AP (trec_eval)": sum of precisions at relevant ranks / gold
  double apRetrievedRelevant = 0.0;  // "AP over retrieved relevant": same sum / relevant retrieved
};

DocLevelResult evaluateDocLevel(const std::vector<std::string>& retrievedChunkIds,
                                const std::vector<std::string>& goldDocIds,
                                const ChunkToDoc& toDoc = chunkDocumentId);

// Means over queries (each query weighs the same), for a summary row.
DocLevelResult meanDocLevel(const std::vector<DocLevelResult>& perQuery);

// Printed names of the two AP variants (core/metrics/README.md, "Document level").
inline constexpr const char* kDocApTrecEval = "AP (trec_eval)";
inline constexpr const char* kDocApRetrievedRelevant = "AP over retrieved relevant";

// A whole run at document level against document-level qrels (gold = grade >= the level; a
// judged chunk id counts for its document). Each ranking is put in trec_eval's order and cut at
// -M as evaluate() does, then its chunks collapse to documents (first occurrence). The queries
// averaged follow evaluate()'s rules (qrels queries in qid order; skipped or zero-filled when
// absent from the run). Columns: num_ret, num_rel, num_rel_ret (documents), "AP (trec_eval)",
// "AP over retrieved relevant" (side by side: they differ by their divisor), "P", "recall";
// `settings.measures` is not consulted.
//
//   EvalResult r = evaluateRunDocLevel(qrels, chunkRun, settings);
//   double ap = r.mean(kDocApTrecEval);
// `progress(done, total)` per query; returning false cancels (the result is then marked cancelled).
EvalResult evaluateRunDocLevel(const Qrels& qrels, const Run& run, const EvalSettings& settings,
                               const ProgressFn& progress = {});

// Document-level qrels from the queries' gold documents (Docugami's SOURCE(S) line, KILT
// provenance): grade 1 per gold document; queries without gold documents are left out.
Qrels goldDocumentQrels(const std::vector<Query>& queries);

// Document-level qrels from a file: TREC qrels as they are, or any dataset whose queries name
// gold documents (Docugami qna_data.csv or its folder, KILT) through goldDocumentQrels(), so
// `ragscope-cli eval --doc-level qna_data.csv run.trec` needs no hand-made qrels file.
Loaded<Qrels> readDocumentQrels(const std::filesystem::path& path, const LoadOptions& options);

// The document-level conventions, to show beside conventionsText().
std::vector<std::string> docLevelConventionsText();

}  // namespace ragscope::core
