#pragma once
// Big JSON-lines corpora with their text left in the file (core/data/README.md, "Big corpora"):
// the KILT knowledge source and BEIR corpus.jsonl files at least LoadOptions::textInFileFrom
// bytes big. Memory holds nothing per document: ids, titles and offsets are in a memory-mapped
// side index, written after the first open (beside the file, or in the user cache folder when
// that folder is read-only) and reused while the file stays as it was.

#include <filesystem>
#include <string>

#include "core/data/diagnostic.h"
#include "core/data/docindex.h"
#include "core/data/model.h"

namespace ragscope::core {

struct StoredCorpusInfo {
  bool reused = false;              // a valid side index was found: the file was not read
  std::filesystem::path indexPath;  // where the side index is (empty when none was written)
  std::string rebuildReason;        // why an existing side index was not used
  std::string writeProblem;         // why no side index could be written (the load still works)
};

// True when `path` is a regular file of at least options.textInFileFrom bytes (standard input
// never is): its documents then stay in the file.
bool leavesTextInFile(const std::filesystem::path& path, const LoadOptions& options);

// The side index's name beside the corpus file, and in the cache folder.
std::filesystem::path sideIndexBeside(const std::filesystem::path& corpusFile);
std::filesystem::path sideIndexInCache(const std::filesystem::path& corpusFile);

// Adds the documents of `path` to `corpus` through a side index (found or built). The report holds
// what the first open found (replayed on reopens), with the same Skip/Stop, progress and cancel
// rules as the in-memory loaders: under OnError::Stop the report ends at the first bad record and
// only the documents before it are added. One side index serves both policies (the scan skips
// every bad record and keeps where the first was). Nothing is added when the load was cancelled.
LoadReport loadStoredCorpus(const std::filesystem::path& path, CorpusLayout layout, Corpus& corpus,
                            const LoadOptions& options, StoredCorpusInfo* info = nullptr);

}  // namespace ragscope::core
