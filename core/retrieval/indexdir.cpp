#include "core/retrieval/indexdir.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/retrieval/xapianindex.h"

namespace ragscope::core {

namespace fs = std::filesystem;

fs::path chooseIndexDir(const fs::path& firstPath, const Corpus& corpus) {
  const fs::path beside = defaultIndexDir(firstPath);
  std::error_code ec;
  if (fs::exists(beside, ec)) return beside;
  const fs::path parent = beside.has_parent_path() ? beside.parent_path() : fs::path(".");
  if (::access(parent.c_str(), W_OK) == 0) return beside;
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
