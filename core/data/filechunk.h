#pragma once

// One chunk of a big text file, as whole lines, for parsers that work on chunks in parallel.
//
// A chunk owns the lines whose first byte lies in [from, to) of the file. Its bytes are mapped,
// not copied: reading 300 MB twice through read() cost a fifth of a run file's evaluation. Only
// the chunk's last line, which runs on past `to`, is copied (with the rest of it read from the
// file) into a buffer of its own, so a line of hundreds of megabytes costs that line's bytes, once.
//
// A mapped file that is cut short while a chunk is being parsed would fault (SIGBUS): the size is
// checked again before each chunk is mapped, so only a change during the milliseconds one chunk
// takes to parse can do that. Where mapping fails (pipes, some network file systems), the bytes
// are read instead.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/data/bulkmemory.h"

namespace ragscope::core {

class FileChunk {
 public:
  FileChunk() = default;
  ~FileChunk();
  FileChunk(const FileChunk&) = delete;
  FileChunk& operator=(const FileChunk&) = delete;

  // Reads the lines of [from, to) of the open file `fd` of `size` bytes; data starts at dataStart
  // (after a byte order mark). The last line is read up to maxLineBytes + 1 bytes past `to` at
  // most (the parser reports a longer one). `tail` is the buffer that holds the last line: the
  // caller keeps it from chunk to chunk. Returns false with `error` set when reading fails.
  bool read(int fd, std::uint64_t dataStart, std::uint64_t from, std::uint64_t to,
            std::uint64_t size, std::size_t maxLineBytes, ByteBuffer& tail, std::string& error);

  // Whole lines, each ending with '\n'; then the last line (without its newline at the end of the
  // file).
  std::string_view body() const { return m_body; }
  std::string_view last() const { return m_last; }

  // Unmaps the chunk now (also done by the destructor and by the next read).
  void release();

 private:
  void* m_map = nullptr;
  std::size_t m_mapBytes = 0;
  ByteBuffer m_copy;  // the chunk's bytes when they could not be mapped
  std::string_view m_body;
  std::string_view m_last;
};

}  // namespace ragscope::core
