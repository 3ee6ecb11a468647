#include "core/retrieval/indexdir.h"

#include <string>

#include "core/retrieval/xapianindex.h"
#include "core/util/userfolders.h"

namespace ragscope::core {

namespace fs = std::filesystem;

fs::path chooseIndexDir(const fs::path& firstPath, const Corpus& corpus) {
  const fs::path beside = defaultIndexDir(firstPath);
  std::error_code ec;
  if (fs::exists(beside, ec)) return beside;
  const fs::path parent = beside.has_parent_path() ? beside.parent_path() : fs::path(".");
  if (writableFolder(parent)) return beside;
  return userCacheFolder() / "indexes" / (beside.stem().string() + "-" + corpusFingerprint(corpus));
}

}  // namespace ragscope::core
