#pragma once
// Where the embedded BM25 index of a dataset lives, for every front end (ragscope-cli `retrieve`,
// `erag`, `e2e` and the GUI's eRAG page), so an index built by one is reused by the others:
// beside the dataset when that folder is writable (has a write bit and access() allows it, so
// root does not write into read-only data either) or an index is already there, else in the
// user's cache, keyed by the corpus fingerprint so two datasets never share a folder.

#include <filesystem>

#include "core/data/model.h"

namespace ragscope::core {

std::filesystem::path chooseIndexDir(const std::filesystem::path& firstPath, const Corpus& corpus);

}  // namespace ragscope::core
