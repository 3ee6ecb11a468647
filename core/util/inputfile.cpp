#include "core/util/inputfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace ragscope::core {

namespace fs = std::filesystem;

namespace {

// Pseudo file systems whose files are not data: their sizes are 0 or made up, and reads may block
// (/proc/kmsg) or never end. (devtmpfs shares tmpfs's magic number, so /dev is caught by path.)
bool isPseudoFileSystem(long type) {
  switch (static_cast<unsigned long>(type)) {
    case 0x9fa0UL:      // procfs
    case 0x62656572UL:  // sysfs
    case 0x64626720UL:  // debugfs
    case 0x74726163UL:  // tracefs
    case 0x73636673UL:  // securityfs
    case 0x27e0ebUL:    // cgroup
    case 0x63677270UL:  // cgroup2
    case 0x1cd1UL:      // devpts
    case 0xcafe4a11UL:  // bpf
    case 0x6165676cUL:  // pstore
    case 0xde5e81e4UL:  // efivarfs
    case 0x62656570UL:  // configfs
    case 0x65735543UL:  // fusectl
      return true;
    default:
      return false;
  }
}

}  // namespace

const char* fileKind(unsigned mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

namespace {

std::string notRegular(mode_t mode) {
  if (S_ISDIR(mode)) return "is a folder, not a file";
  return std::string("is not a regular file (") + fileKind(mode) +
         "); ragscope reads regular files, or '-' for standard input";
}

// The absolute path with symlinks resolved as far as they exist.
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) return path.lexically_normal();
  fs::path canonical = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : canonical;
}

std::string systemProblem(const fs::path& path) {
  const fs::path where = resolved(path);
  std::string text = "is a system file";
  if (where != path) text += " (" + where.string() + ")";
  return text + "; ragscope never reads under /proc, /sys or /dev";
}

}  // namespace

bool isStdinPath(const fs::path& path) { return path.native() == "-"; }

bool isSystemPath(const fs::path& path) {
  const fs::path where = resolved(path);
  auto it = where.begin();
  if (it != where.end() && *it == "/") ++it;
  if (it != where.end() && (*it == "proc" || *it == "sys" || *it == "dev")) return true;
  struct statfs fsInfo {};
  return ::statfs(where.c_str(), &fsInfo) == 0 && isPseudoFileSystem(fsInfo.f_type);
}

std::optional<std::string> specialFileProblem(const fs::path& path) {
  if (isStdinPath(path)) return std::nullopt;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // opening it says why
  if (!S_ISREG(st.st_mode)) return notRegular(st.st_mode);
  if (isSystemPath(path)) return systemProblem(path);
  return std::nullopt;
}

std::FILE* openForReading(const fs::path& path, std::string& error, std::uint64_t& size) {
  size = 0;
  if (isStdinPath(path)) {
    const int fd = ::dup(STDIN_FILENO);
    std::FILE* in = fd >= 0 ? ::fdopen(fd, "rb") : nullptr;
    if (!in) {
      error = std::string("cannot read standard input: ") + std::strerror(errno);
      if (fd >= 0) ::close(fd);
    }
    return in;
  }
  // Checked before opening (opening a device can have effects of its own), and again on the
  // descriptor: O_NONBLOCK keeps the open of a FIFO that appeared in between from blocking.
  if (auto why = specialFileProblem(path)) {
    error = *why;
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    error = std::string("cannot open: ") + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  struct statfs fsInfo {};
  if (::fstat(fd, &st) != 0) {
    error = std::string("cannot open: ") + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  if (!S_ISREG(st.st_mode)) {
    error = notRegular(st.st_mode);
    ::close(fd);
    return nullptr;
  }
  if (::fstatfs(fd, &fsInfo) == 0 && isPseudoFileSystem(fsInfo.f_type)) {
    error = systemProblem(path);
    ::close(fd);
    return nullptr;
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::FILE* file = ::fdopen(fd, "rb");
  if (!file) {
    error = std::string("cannot open: ") + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  size = static_cast<std::uint64_t>(st.st_size);
  return file;
}

std::optional<std::string> readBoundedFile(const std::filesystem::path& path,
                                           std::uint64_t maxBytes, std::string_view what,
                                           std::string& error) {
  if (isStdinPath(path)) {
    error = "standard input cannot be read as " + std::string(what);
    return std::nullopt;
  }
  std::uint64_t size = 0;
  std::FILE* in = openForReading(path, error, size);
  if (!in) return std::nullopt;
  auto tooLarge = [&] {
    error =
        "is larger than " + std::to_string(maxBytes) + " bytes, the limit for " + std::string(what);
    std::fclose(in);
    return std::nullopt;
  };
  if (size > maxBytes) return tooLarge();
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(buffer, 1, sizeof buffer, in);
    if (got == 0) break;
    // The size can lie or grow: the bound holds on the bytes actually read.
    if (text.size() + got > maxBytes) return tooLarge();
    text.append(buffer, got);
  }
  const bool readError = std::ferror(in) != 0;
  std::fclose(in);
  if (readError) {
    error = "cannot be read as " + std::string(what);
    return std::nullopt;
  }
  return text;
}

}  // namespace ragscope::core
