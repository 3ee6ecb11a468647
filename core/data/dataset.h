#pragma once
// A dataset is a bundle: queries, gold outputs, judgments, a corpus, runs and examples, loaded
// from one or more files of one or more formats (core/data/README.md, "Data model and loading").

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"

namespace ragscope::core {

enum class Format {
  TrecRun,
  TrecQrels,
  TopicsTsv,
  TopicsJsonl,
  MsmarcoCollection,
  RankLlmJson,
  Kilt,
  KiltKnowledgeSource,
  Docugami,
  LlamaRagDataset,
  Beir,
  RagJsonl,
  RagChecker,
  KiltPredictions,  // a KILT predictions file, scored by core/eval/kilt/kilteval.h (never detected)
};

// CLI / project names: "trec-run", "trec-qrels", "topics-tsv", ... (the top-level README's format
// table).
std::string_view formatName(Format f);
std::optional<Format> formatFromName(std::string_view name);
std::vector<Format> allFormats();

// One file or folder to load. `format` empty = detect it (detectFormat); a folder that is neither
// BEIR nor Docugami is a bundle whose recognised files are each loaded. After loading,
// Dataset::parts lists the concrete files/folders that were loaded, each with its format set.
struct DatasetPart {
  std::filesystem::path path;
  std::optional<Format> format;
};

struct Dataset {
  std::string name;
  std::vector<DatasetPart> parts;
  std::vector<Query> queries;
  Qrels qrels;
  Corpus corpus;
  std::vector<Run> runs;
  std::vector<Example> examples;

  // nullptr when unknown. Linear: datasets hold at most tens of thousands of queries, and an
  // index here would go stale whenever a caller edits `queries`.
  const Query* findQuery(std::string_view id) const;
};

// Guess a file's (or folder's) format from its name and first bytes. nullopt when ambiguous or
// unknown: the caller then asks the user.
std::optional<Format> detectFormat(const std::filesystem::path& path);

// True for a folder that is not itself one format (BEIR, Docugami) but holds files of
// recognised formats, e.g. an MS MARCO / TREC DL folder of topics/, qrels/, runs/.
bool isBundleFolder(const std::filesystem::path& path);

// Load one part into `into` (appending). Folders are bundles: a BEIR folder, a Docugami folder
// (qna_data.csv + docs/), an MS MARCO / TREC DL folder of topics, qrels, runs, collection.
LoadReport loadInto(Dataset& into, const DatasetPart& part, const LoadOptions& options);

// Load several parts as one bundle; formats are detected where not given.
Loaded<Dataset> loadDataset(const std::vector<DatasetPart>& parts, const LoadOptions& options);

}  // namespace ragscope::core
