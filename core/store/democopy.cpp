#include "core/store/democopy.h"

#include <algorithm>
#include <vector>

#include "core/store/project.h"
#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"
#include "core/util/sha256.h"

namespace ragscope::core {

namespace fs = std::filesystem;

namespace {

// Records which bundle a copy was made from (its fingerprint), beside the copied files.
constexpr const char* kStampName = ".ragscope-demo-source";
// The bundled demo is under 1 MiB; the bound only keeps a damaged install from being read whole.
constexpr std::uint64_t kMaxDemoFileBytes = std::uint64_t{64} << 20;

void setError(std::string* error, const std::string& message) {
  if (error) *error = message;
}

// The bundle's files, relative to its folder, sorted: what the project lists inside the folder
// (a folder part with every regular file under it), the project file and its README.
std::vector<fs::path> bundledFiles(const fs::path& projectFile) {
  const fs::path dir = projectFile.parent_path();
  std::vector<fs::path> out = {projectFile.filename()};
  std::error_code ec;
  if (fs::is_regular_file(dir / "README.md", ec)) out.emplace_back("README.md");
  auto addListed = [&](const fs::path& resolved) {
    const fs::path relative = resolved.lexically_normal().lexically_relative(dir);
    if (relative.empty() || *relative.begin() == "..") return;  // outside the bundle: not copied
    std::error_code e;
    if (fs::is_regular_file(resolved, e)) {
      out.push_back(relative);
    } else if (fs::is_directory(resolved, e)) {
      for (auto it = fs::recursive_directory_iterator(resolved, e);
           !e && it != fs::recursive_directory_iterator(); it.increment(e))
        if (it->is_regular_file(e) && !it->is_symlink(e))
          out.push_back(it->path().lexically_relative(dir));
    }
  };
  const auto loaded = readProject(projectFile);
  for (const auto& ds : loaded.value.datasets)
    for (const auto& part : ds.parts) addListed(loaded.value.resolve(part));
  for (const auto& store : loaded.value.runStores) addListed(loaded.value.resolve(store));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// A fingerprint of the bundle: every file's name and content.
std::optional<std::string> bundleFingerprint(const fs::path& dir,
                                             const std::vector<fs::path>& files) {
  Sha256 h;
  for (const fs::path& f : files) {
    const auto digest = sha256OfPath(dir / f);
    if (!digest) return std::nullopt;
    h.update(f.generic_string());
    h.update(std::string_view("\0", 1));
    h.update(*digest);
    h.update("\n");
  }
  return h.hexDigest();
}

bool copyFile(const fs::path& from, const fs::path& to, std::string* error) {
  std::string why;
  const auto bytes = readBoundedFile(from, kMaxDemoFileBytes, "a demo file", why);
  if (!bytes) {
    setError(error, from.string() + ": " + why);
    return false;
  }
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  // A store replaced by the bundle's must not meet the old one's journal or WAL.
  for (const char* side : {"-wal", "-shm", "-journal"}) fs::remove(to.string() + side, ec);
  return writeBytesAtomically(to, *bytes, error, FileAccess::Private);
}

}  // namespace

std::optional<fs::path> copyDemoProject(const fs::path& folder, std::string* error) {
  const auto bundled = findDemoProject();
  if (!bundled) {
    setError(error, "the demo project is not installed (resources/demo)");
    return std::nullopt;
  }
  const fs::path source = bundled->parent_path();
  const std::vector<fs::path> files = bundledFiles(*bundled);
  const auto fingerprint = bundleFingerprint(source, files);
  if (!fingerprint) {
    setError(error, source.string() + ": the demo's files cannot be read");
    return std::nullopt;
  }
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    setError(error, folder.string() + ": cannot create folder: " + ec.message());
    return std::nullopt;
  }
  std::string stampError;
  const auto stamp =
      readBoundedFile(folder / kStampName, kMaxSmallJsonBytes, "a demo stamp", stampError);
  const bool sameBundle = stamp && *stamp == *fingerprint + "\n";
  for (const fs::path& f : files) {
    const fs::path target = folder / f;
    if (sameBundle && fs::exists(target, ec)) continue;
    if (!copyFile(source / f, target, error)) return std::nullopt;
  }
  if (!sameBundle &&
      !writeBytesAtomically(folder / kStampName, *fingerprint + "\n", error, FileAccess::Private))
    return std::nullopt;
  return folder / bundled->filename();
}

}  // namespace ragscope::core
