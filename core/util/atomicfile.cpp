#include "core/util/atomicfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <sstream>
#include <streambuf>
#include <vector>

#include "core/util/inputfile.h"

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
  const int fd = ::open(file.c_str(), flags | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  errno = err;
  return ok;
}

// An ostream's buffer onto a descriptor we opened ourselves: the temporary file is written
// through the descriptor that created it, never reopened by name (which a link swapped in
// between could redirect).
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : m_fd(fd), m_buffer(std::size_t{1} << 16) {
    setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
  }
  bool failed() const { return m_failed; }

 protected:
  int_type overflow(int_type c) override {
    if (!flushBuffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return flushBuffer() ? 0 : -1; }

 private:
  bool flushBuffer() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    if (n > 0 && !writeAll(m_fd, std::string_view(pbase(), n))) m_failed = true;
    setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    return !m_failed;
  }
  int m_fd;
  std::vector<char> m_buffer;
  bool m_failed = false;
};

// The mode a new file gets: the one of the file it replaces, else what `access` asks.
mode_t modeFor(const std::filesystem::path& path, FileAccess access) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777;
  return access == FileAccess::Private ? 0600 : 0666;
}

}  // namespace

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<std::string> unsafeWriteTarget(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return std::nullopt;
  return "is " + std::string(fileKind(st.st_mode)) + "; ragscope writes only regular files";
}

bool writeFileAtomically(const std::filesystem::path& path,
                         const std::function<bool(std::ostream&)>& write, std::string* error,
                         bool fsyncFile, FileAccess access) {
  const std::filesystem::path folder =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  // Built in steps: GCC 12's -Wstringop-overflow misreads "." + std::string once inlined here.
  std::string tempName = ".";
  tempName += path.filename().string();
  tempName += ".tmp-";
  tempName += tempSuffix();
  const std::filesystem::path temp = folder / tempName;

  auto fail = [&](const std::string& what, int err) {
    if (error) {
      *error = path.string() + ": " + what;
      if (err != 0) *error += std::string(": ") + std::strerror(err);
    }
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    return false;
  };

  // A folder, FIFO, device or socket at the name is refused: rename() would replace it (a FIFO a
  // reader waits on, a device node), which is never what writing an output means. A symlink is
  // replaced, never written through (see the header).
  struct stat target {};
  if (::lstat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode) && !S_ISLNK(target.st_mode)) {
    if (error)
      *error = path.string() + ": is " + std::string(fileKind(target.st_mode)) +
               "; ragscope writes only regular files";
    return false;
  }
  const mode_t mode = modeFor(path, access);
  // O_EXCL | O_NOFOLLOW: never write through a file (or symlink) somebody else placed under the
  // temp name.
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    const int err = errno;
    if (error)
      *error = path.string() + ": cannot create temporary file " + temp.string() + ": " +
               std::strerror(err);
    return false;
  }
  // A replaced file keeps its mode exactly (open() applied the umask to it).
  if (target.st_mode != 0 && S_ISREG(target.st_mode)) ::fchmod(fd, mode);

  bool produced = false;
  bool failed = false;
  {
    FdStreamBuf buffer(fd);
    std::ostream out(&buffer);
    produced = write(out);
    out.flush();
    failed = !out || buffer.failed();
  }
  const int writeErr = failed ? errno : 0;
  if (!produced || failed) {
    ::close(fd);
    return fail("write failed", writeErr);
  }
  if (fsyncFile && ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return fail("fsync failed", err);
  }
  if (::close(fd) != 0) return fail("write failed", errno);

  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) return fail("rename failed: " + ec.message(), 0);

  // Persist the directory entry too; failure is not worth reporting (some file systems refuse fsync
  // on directories) since the file itself is complete.
  if (fsyncFile) fsyncPath(folder, O_RDONLY | O_DIRECTORY);
  return true;
}

bool writeBytesAtomically(const std::filesystem::path& path, std::string_view bytes,
                          std::string* error, FileAccess access) {
  return writeFileAtomically(
      path,
      [&](std::ostream& out) {
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return static_cast<bool>(out);
      },
      error, /*fsyncFile=*/true, access);
}

int openForAppend(const std::filesystem::path& path, bool create, FileAccess access,
                  std::string* error) {
  // O_NONBLOCK: a FIFO planted at the name fails the check below instead of blocking the open.
  int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  if (create) flags |= O_CREAT;
  const int fd = ::open(path.c_str(), flags, access == FileAccess::Private ? 0600 : 0666);
  if (fd < 0) {
    const int err = errno;
    if (error) {
      struct stat st {};
      *error =
          path.string() + ": " +
          (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)
               ? "is " + std::string(fileKind(st.st_mode)) + "; ragscope writes only regular files"
               : std::string("cannot open for writing: ") + std::strerror(err));
    }
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (error)
      *error = path.string() + ": is " + std::string(fileKind(st.st_mode)) +
               "; ragscope writes only regular files";
    ::close(fd);
    return -1;
  }
  // Back to blocking writes for a regular file.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace ragscope::core
