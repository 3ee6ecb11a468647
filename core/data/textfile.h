#pragma once

// A text file kept open so that documents can leave their text in it and read it when asked:
// a passage collection of hundreds of MB then costs its ids and offsets in memory, not its text
// (MS MARCO's 8.8M passages are 2.9 GiB).
//
// The file is read with pread, never mapped: a file edited while the workbench is open must give
// an error, not a crash. Its size and modification time are checked before each read, so a
// changed file is named as such instead of yielding someone else's bytes.

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace ragscope::core {

class TextFile {
 public:
  // Opens `path` for reading; nullptr with `error` set when it cannot be opened.
  static std::shared_ptr<const TextFile> open(const std::filesystem::path& path, std::string& error);
  ~TextFile();
  TextFile(const TextFile&) = delete;
  TextFile& operator=(const TextFile&) = delete;

  // The bytes [offset, offset + length) as they were when the file was opened; nullopt with
  // `error` set when they cannot be read or the file has changed since.
  std::optional<std::string> read(std::uint64_t offset, std::uint32_t length, std::string& error) const;

  const std::filesystem::path& path() const { return m_path; }
  // The path, size and modification time, as one string (names the file's state in hashes).
  const std::string& identity() const { return m_identity; }

 private:
  TextFile(int fd, std::filesystem::path path, std::uint64_t size, std::timespec modified);
  bool unchanged() const;

  int m_fd;
  std::filesystem::path m_path;
  std::uint64_t m_size;
  std::timespec m_modified;
  std::string m_identity;
};

// Where a document's text was left: `length` bytes at `offset` of `file`.
struct StoredText {
  std::shared_ptr<const TextFile> file;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};

}  // namespace ragscope::core
