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
#include <string_view>
#include <vector>

#include "core/data/docindex.h"

namespace ragscope::core {

class DocIndex;

class TextFile {
 public:
  // Opens `path` for reading; nullptr with `error` set when it cannot be opened.
  static std::shared_ptr<TextFile> open(const std::filesystem::path& path, std::string& error);
  ~TextFile();
  TextFile(const TextFile&) = delete;
  TextFile& operator=(const TextFile&) = delete;

  // The bytes [offset, offset + length) as they were when the file was opened; nullopt with
  // `error` set when they cannot be read or the file has changed since.
  std::optional<std::string> read(std::uint64_t offset, std::uint32_t length,
                                  std::string& error) const;

  const std::filesystem::path& path() const { return m_path; }
  // Its size when opened.
  std::uint64_t size() const { return m_size; }
  // True while the file has the size and modification time it was opened with.
  bool unchanged() const;
  // The path, size and modification time, as one string (names the file's state in hashes).
  const std::string& identity() const { return m_identity; }
  // The file's stamp (size, time, sampled blocks) for its side index; nullopt when unreadable.
  std::optional<SourceStamp> stamp() const { return stampOf(m_fd); }
  // The side index describing this file (big JSON corpora), attached once before the file is
  // shared: it locates each document's record and paragraphs.
  void attachIndex(std::shared_ptr<const DocIndex> index) { m_index = std::move(index); }
  const DocIndex* index() const { return m_index.get(); }

 private:
  TextFile(int fd, std::filesystem::path path, std::uint64_t size, std::timespec modified);

  int m_fd;
  std::filesystem::path m_path;
  std::uint64_t m_size;
  std::timespec m_modified;
  std::string m_identity;
  std::shared_ptr<const DocIndex> m_index;
};

// How the bytes of a stored text give the text.
enum class TextEncoding : std::uint8_t {
  Raw,             // the bytes are the text (a TSV passage)
  JsonString,      // a JSON string literal (a BEIR document's "text")
  JsonParagraphs,  // a JSON array of strings (a KILT page's "text"): joined by "\n", each
                   // paragraph's own final "\n" dropped
};

// Where a document's text was left: `length` bytes at `offset` of `file`. `item` is the
// document's position in the file's side index (JsonParagraphs: where its paragraphs start).
struct StoredText {
  std::shared_ptr<const TextFile> file;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  TextEncoding encoding = TextEncoding::Raw;
  std::uint32_t item = 0;
};

// The text of `stored`, decoded; nullopt with `error` set when it cannot be read or decoded.
std::optional<std::string> readStoredText(const StoredText& stored, std::string& error);
// Paragraphs first..last (inclusive) of a stored text, joined by "\n" (JsonParagraphs reads only
// those paragraphs' bytes); nullopt with `error` set when the range is not in the text.
std::optional<std::string> readStoredParagraphs(const StoredText& stored, std::size_t first,
                                                std::size_t last, std::string& error);
std::size_t storedParagraphCount(const StoredText& stored);
// The same over a text in memory, whose paragraphs are its lines or, given `starts` (where each
// paragraph starts in `text`: Document::paragraphStarts), the spans from one start to the "\n"
// before the next.
std::optional<std::string> paragraphsOf(std::string_view text, std::size_t first, std::size_t last,
                                        std::string& error,
                                        const std::vector<std::size_t>* starts = nullptr);
std::size_t paragraphCountOf(std::string_view text,
                             const std::vector<std::size_t>* starts = nullptr);

// Appends one KILT paragraph to a page's text: paragraphs end in "\n", which is dropped, and are
// joined by "\n", so the text holds one paragraph per line.
inline void appendParagraph(std::string& text, std::string_view paragraph, bool first) {
  if (!paragraph.empty() && paragraph.back() == '\n') paragraph.remove_suffix(1);
  if (!first) text.push_back('\n');
  text.append(paragraph);
}

}  // namespace ragscope::core
