#pragma once
// Where the embedded BM25 index of a dataset lives, for every front end (ragscope-cli `retrieve`,
// `erag`, `e2e` and the GUI's eRAG page), so an index built by one is reused by the others:
// beside the dataset when that folder is writable (has a write bit and access() allows it, so
// root does not write into read-only data either) or an index is already there, else in the
// user's cache, keyed by the corpus fingerprint so two datasets never share a folder.

#include <filesystem>
#include <string_view>

#include "core/data/model.h"

namespace ragscope::core {

// `variant` is appended to the folder's name ("-nostem", "-dense-<hash>"): each kind of index
// its own folder, placed by the same rule (the variant's folder already there, or a writable
// folder beside the dataset, else the cache).
std::filesystem::path chooseIndexDir(const std::filesystem::path& firstPath, const Corpus& corpus,
                                     std::string_view variant = {});

}  // namespace ragscope::core
