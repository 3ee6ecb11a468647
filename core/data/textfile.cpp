#include "core/data/textfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ragscope::core {

std::shared_ptr<const TextFile> TextFile::open(const std::filesystem::path& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path.string() + ": cannot open: " + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path.string() + ": not a regular file";
    ::close(fd);
    return nullptr;
  }
  return std::shared_ptr<const TextFile>(
      new TextFile(fd, path, static_cast<std::uint64_t>(st.st_size), st.st_mtim));
}

TextFile::TextFile(int fd, std::filesystem::path path, std::uint64_t size, std::timespec modified)
    : m_fd(fd),
      m_path(std::move(path)),
      m_size(size),
      m_modified(modified),
      m_identity(m_path.string() + "|" + std::to_string(size) + "|" + std::to_string(modified.tv_sec) + "." +
                 std::to_string(modified.tv_nsec)) {}

TextFile::~TextFile() { ::close(m_fd); }

bool TextFile::unchanged() const {
  struct stat st {};
  return ::fstat(m_fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) == m_size &&
         st.st_mtim.tv_sec == m_modified.tv_sec && st.st_mtim.tv_nsec == m_modified.tv_nsec;
}

std::optional<std::string> TextFile::read(std::uint64_t offset, std::uint32_t length, std::string& error) const {
  if (!unchanged()) {
    error = m_path.string() + " has changed since it was loaded: load the dataset again";
    return std::nullopt;
  }
  if (offset > m_size || length > m_size - offset) {
    error = m_path.string() + ": text at byte " + std::to_string(offset) + " lies past the end of the file";
    return std::nullopt;
  }
  std::string out(length, '\0');
  std::size_t got = 0;
  while (got < length) {
    const ssize_t n = ::pread(m_fd, out.data() + got, length - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = m_path.string() + ": read error: " + (n < 0 ? std::strerror(errno) : "unexpected end of file");
      return std::nullopt;
    }
    got += static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace ragscope::core
