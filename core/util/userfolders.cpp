#include "core/util/userfolders.h"

#include <unistd.h>

#include <cstdlib>

namespace ragscope::core {

namespace fs = std::filesystem;

fs::path userCacheFolder() {
  fs::path base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = fs::path(home) / ".cache";
  } else {
    std::error_code ec;
    base = fs::temp_directory_path(ec);
  }
  return base / "ragscope";
}

bool writableFolder(const fs::path& dir) {
  std::error_code ec;
  const auto perms = fs::status(dir, ec).permissions();
  if (ec) return false;
  constexpr auto anyWrite =
      fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
  return (perms & anyWrite) != fs::perms::none && ::access(dir.c_str(), W_OK) == 0;
}

}  // namespace ragscope::core
