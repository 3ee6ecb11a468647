#pragma once
// Where ragscope keeps what it can rebuild (response cache, BM25 indexes, side indexes of corpora
// whose folder is read-only), and whether a dataset's own folder may take such files.

#include <filesystem>

namespace ragscope::core {

// $XDG_CACHE_HOME/ragscope, else ~/.cache/ragscope, else <temp>/ragscope (not created here).
std::filesystem::path userCacheFolder();

// True when `dir` is a folder this user may write and that is not read-only data. access() alone
// says yes to root for any folder; a folder without a write bit is read-only data (a shared or
// mounted dataset) that nobody should write into, root included.
bool writableFolder(const std::filesystem::path& dir);

}  // namespace ragscope::core
