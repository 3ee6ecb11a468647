#include "core/retrieval/indexdir.h"

#include <string>

#include "core/retrieval/xapianindex.h"
#include "core/util/userfolders.h"

namespace ragscope::core {

namespace fs = std::filesystem;

fs::path chooseIndexDir(const fs::path& firstPath, const Corpus& corpus, std::string_view variant) {
  const fs::path bm25 = defaultIndexDir(firstPath);
  fs::path beside = bm25;
  beside += std::string(variant);
  std::error_code ec;
  if (fs::exists(beside, ec)) return beside;
  const fs::path parent = beside.has_parent_path() ? beside.parent_path() : fs::path(".");
  if (writableFolder(parent)) return beside;
  return userCacheFolder() / "indexes" /
         (bm25.stem().string() + "-" + corpusFingerprint(corpus) + std::string(variant));
}

}  // namespace ragscope::core
