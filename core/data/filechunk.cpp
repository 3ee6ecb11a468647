#include "core/data/filechunk.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ragscope::core {

namespace {

// The first read past a chunk's end: most last lines end within a few hundred bytes.
constexpr std::size_t kFirstTailRead = std::size_t{4} << 10;
constexpr std::size_t kMaxTailRead = std::size_t{1} << 20;

bool readAt(int fd, std::uint64_t at, char* dst, std::size_t n, std::size_t& got,
            std::string& error) {
  got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, dst + got, n - got, static_cast<off_t>(at + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      error = std::string("read error: ") + std::strerror(errno);
      return false;
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace

FileChunk::~FileChunk() { release(); }

void FileChunk::release() {
  if (m_map) ::munmap(m_map, m_mapBytes);
  m_map = nullptr;
  m_mapBytes = 0;
  m_body = {};
  m_last = {};
}

bool FileChunk::read(int fd, std::uint64_t dataStart, std::uint64_t from, std::uint64_t to,
                     std::uint64_t size, std::size_t maxLineBytes, ByteBuffer& tail,
                     std::string& error) {
  release();
  tail.clear();
  if (from >= to) return true;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) < to) {
    error = "the file was cut short while it was being read";
    return false;
  }
  // Bytes [lo, to): the byte before `from` tells whether a line starts at `from`.
  const std::uint64_t lo = from > dataStart ? from - 1 : from;
  std::uint64_t base = lo;  // file offset of bytes[0]
  const char* bytes = nullptr;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t mapFrom = lo / page * page;
  void* map = ::mmap(nullptr, static_cast<std::size_t>(to - mapFrom), PROT_READ,
                     MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(mapFrom));
  if (map != MAP_FAILED) {
    m_map = map;
    m_mapBytes = static_cast<std::size_t>(to - mapFrom);
    bytes = static_cast<const char*>(map);
    base = mapFrom;
  } else {
    const auto n = static_cast<std::size_t>(to - lo);
    m_copy.resize(n);
    std::size_t got = 0;
    if (!readAt(fd, lo, m_copy.data(), n, got, error)) return false;
    if (got != n) {
      error = "read error: short read";
      return false;
    }
    bytes = m_copy.data();
  }
  auto at = [&](std::uint64_t offset) { return bytes + (offset - base); };

  std::uint64_t start = from;
  if (from > dataStart && *at(from - 1) != '\n') {
    // A line that began in the chunk before is that chunk's.
    const auto* nl =
        static_cast<const char*>(std::memchr(at(from), '\n', static_cast<std::size_t>(to - from)));
    if (!nl) return true;  // no line starts in this chunk
    start = from + static_cast<std::uint64_t>(nl - at(from)) + 1;
    if (start >= to) return true;
  }
  const char* b = at(start);
  const auto n = static_cast<std::size_t>(to - start);
  const auto* lastNl = static_cast<const char*>(::memrchr(b, '\n', n));
  const std::size_t bodyBytes = lastNl ? static_cast<std::size_t>(lastNl - b) + 1 : 0;
  m_body = std::string_view(b, bodyBytes);
  if (bodyBytes == n) return true;

  // The last line: its bytes in the chunk, then on to its newline (or the end of the file, or
  // just past the longest line the parser accepts).
  tail.resize(n - bodyBytes);
  std::memcpy(tail.data(), b + bodyBytes, n - bodyBytes);
  std::uint64_t pos = to;
  std::size_t step = kFirstTailRead;
  while (pos < size && tail.back() != '\n' && tail.size() <= maxLineBytes) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(step, size - pos));
    const std::size_t old = tail.size();
    tail.resize(old + want);
    std::size_t got = 0;
    if (!readAt(fd, pos, tail.data() + old, want, got, error)) return false;
    const auto* nl = static_cast<const char*>(std::memchr(tail.data() + old, '\n', got));
    tail.resize(nl ? static_cast<std::size_t>(nl - tail.data()) + 1 : old + got);
    if (got == 0) break;
    pos += got;
    step = std::min(step * 2, kMaxTailRead);
  }
  m_last = std::string_view(tail.data(), tail.size());
  return true;
}

}  // namespace ragscope::core
