#pragma once
// Where ragscope-cli keeps the embedded BM25 index of a dataset (shared by `retrieve`, `erag`
// and `e2e`): beside the dataset when that folder is writable (or an index is already there),
// else in the user's cache, keyed by the corpus fingerprint so two datasets never share a folder.

#include <filesystem>

#include "core/data/model.h"

namespace ragscope::cli {

std::filesystem::path chooseIndexDir(const std::filesystem::path& firstPath,
                                     const core::Corpus& corpus);

}  // namespace ragscope::cli
