#include "core/util/atomicfile.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace ragscope::core {

namespace {

// Unique per process and call, so concurrent writers of the same target never share a temp file.
std::string tempSuffix() {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::uniform_int_distribution<unsigned> dist(0, 0xFFFFFF);
  std::ostringstream s;
  s << ::getpid() << '-' << std::hex << dist(rd) << '-' << counter++;
  return s.str();
}

// fsync through a second descriptor: Linux flushes the file's data whatever descriptor asks.
bool fsyncPath(const std::filesystem::path& file, int flags) {
  const int fd = ::open(file.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  errno = err;
  return ok;
}

}  // namespace

bool writeFileAtomically(const std::filesystem::path& path,
                         const std::function<bool(std::ostream&)>& write, std::string* error,
                         bool fsyncFile) {
  const std::filesystem::path folder =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  const std::filesystem::path temp =
      folder / ("." + path.filename().string() + ".tmp-" + tempSuffix());

  auto fail = [&](const std::string& what, int err) {
    if (error) {
      *error = path.string() + ": " + what;
      if (err != 0) *error += std::string(": ") + std::strerror(err);
    }
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    return false;
  };

  // O_EXCL: never write through a file (or symlink) somebody else placed under the temp name.
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    if (error) *error = path.string() + ": cannot create temporary file " + temp.string() + ": " +
                        std::strerror(err);
    return false;
  }
  ::close(fd);

  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return fail("cannot write temporary file " + temp.string(), errno);
    const bool produced = write(out);
    out.flush();
    if (!produced || !out) return fail("write failed", 0);
    out.close();
    if (!out) return fail("write failed", 0);
  }
  if (fsyncFile && !fsyncPath(temp, O_WRONLY)) return fail("fsync failed", errno);

  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) return fail("rename failed: " + ec.message(), 0);

  // Persist the directory entry too; failure is not worth reporting (some file systems refuse fsync
  // on directories) since the file itself is complete.
  if (fsyncFile) fsyncPath(folder, O_RDONLY | O_DIRECTORY);
  return true;
}

}  // namespace ragscope::core
