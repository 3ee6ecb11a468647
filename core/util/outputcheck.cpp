#include "core/util/outputcheck.h"

#include <sys/stat.h>

#include <array>

namespace ragscope::core {

namespace fs = std::filesystem;

namespace {

// The side files SQLite keeps beside a store (core/util/sqlitedb.h opens every store).
constexpr std::array<const char*, 3> kSideSuffixes = {"-wal", "-shm", "-journal"};

bool skipped(const fs::path& p) { return p.empty() || p == "-"; }

std::string described(const NamedPath& p) {
  return (p.name.empty() ? std::string() : p.name + " ") + "'" + p.path.string() + "'";
}

fs::path canonicalOrNormal(const fs::path& p) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(fs::absolute(p, ec), ec);
  if (ec) out = fs::absolute(p, ec).lexically_normal();
  return out;
}

fs::path withSuffix(fs::path p, const char* suffix) {
  p += suffix;
  return p;
}

// The side files of `p`, by the name given and by the name its folder's links resolve to (SQLite
// appends the suffix to the name it was handed).
std::vector<fs::path> sideFiles(const fs::path& p) {
  std::vector<fs::path> out;
  const fs::path canonical = canonicalOrNormal(p);
  for (const char* suffix : kSideSuffixes) {
    out.push_back(withSuffix(p, suffix));
    if (canonical != p) out.push_back(withSuffix(canonical, suffix));
  }
  return out;
}

bool sideFileOf(const fs::path& candidate, const fs::path& store) {
  for (const fs::path& side : sideFiles(store))
    if (sameFile(candidate, side)) return true;
  return false;
}

bool written(const NamedPath& p) { return p.use != PathUse::Read; }
bool read(const NamedPath& p) { return p.use != PathUse::Written; }

}  // namespace

bool sameFile(const fs::path& a, const fs::path& b) {
  if (a.empty() || b.empty()) return false;
  struct stat sa {
  }, sb{};
  const bool aExists = ::stat(a.c_str(), &sa) == 0;
  const bool bExists = ::stat(b.c_str(), &sb) == 0;
  if (aExists && bExists) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (aExists != bExists) return false;
  return canonicalOrNormal(a) == canonicalOrNormal(b);
}

std::optional<std::string> outputOverInput(const std::vector<NamedPath>& paths) {
  // Inputs first: overwriting what is read loses data, two outputs on one file lose an output.
  for (const bool againstInputs : {true, false}) {
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const NamedPath& out = paths[i];
      if (!written(out) || skipped(out.path)) continue;
      for (std::size_t j = 0; j < paths.size(); ++j) {
        const NamedPath& other = paths[j];
        if (j == i || skipped(other.path) || read(other) != againstInputs) continue;
        const std::string what = againstInputs ? ", one of the inputs" : ", another output";
        if (sameFile(out.path, other.path))
          return described(out) + " would overwrite " + described(other) + what +
                 " (the same file); choose another output";
        if (sideFileOf(out.path, other.path))
          return described(out) + " would overwrite a SQLite side file of " + described(other) +
                 what + "; choose another output";
        if (sideFileOf(other.path, out.path))
          return described(out) + " would write its SQLite side file over " + described(other) +
                 what + "; choose another output";
      }
    }
  }
  return std::nullopt;
}

fs::path folderOf(const fs::path& file) {
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec);
  if (ec) absolute = fs::current_path(ec) / file;
  return absolute.lexically_normal().parent_path();
}

}  // namespace ragscope::core
