#include "core/retrieval/indexdir.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/retrieval/xapianindex.h"

namespace ragscope::core {

namespace fs = std::filesystem;

namespace {

// access() alone says yes to root for any folder; a folder without a write bit is read-only data
// (a shared or mounted dataset) that nobody should write an index into, root included.
bool writableFolder(const fs::path& dir) {
  std::error_code ec;
  const auto perms = fs::status(dir, ec).permissions();
  if (ec) return false;
  constexpr auto anyWrite = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
  return (perms & anyWrite) != fs::perms::none && ::access(dir.c_str(), W_OK) == 0;
}

}  // namespace

fs::path chooseIndexDir(const fs::path& firstPath, const Corpus& corpus) {
  const fs::path beside = defaultIndexDir(firstPath);
  std::error_code ec;
  if (fs::exists(beside, ec)) return beside;
  const fs::path parent = beside.has_parent_path() ? beside.parent_path() : fs::path(".");
  if (writableFolder(parent)) return beside;
  fs::path cache;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    cache = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    cache = fs::path(h) / ".cache";
  else
    cache = fs::temp_directory_path(ec);
  return cache / "ragscope" / "indexes" /
         (beside.stem().string() + "-" + corpusFingerprint(corpus));
}

}  // namespace ragscope::core
