#pragma once
// The side index of a big JSON-lines corpus (core/data/README.md, "Big corpora"): for every
// document its id, title, where its record and text lie in the corpus file, and (KILT pages) where
// each paragraph starts. Written once after a first open, memory-mapped on every later open, so
// reopening 5.9M KILT pages reads a header and checks a checksum instead of 35 GB of JSON.
//
// Nothing in a side index is trusted: open() checks its magic, version, the section table, the
// checksum of everything after the header, the stamp of the corpus file it describes (size,
// modification time, a hash of sampled blocks), and every document's ranges against the sections
// and the corpus size, in file order without overlaps. Any mismatch returns nullptr with the
// reason; the caller rebuilds. Checksums prove integrity, not truth: an index made elsewhere can
// be consistent and still lie about which record is whose, so every read through it reads the
// record again and checks it against its entry (recordcheck.h), and a lie refutes the index
// (refute(): never opened again, removed, rebuilt by the next load).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

// How a corpus file lays out its records (which keys hold id, title and text).
enum class CorpusLayout : std::uint32_t {
  KiltPages = 1,  // {"wikipedia_id", "wikipedia_title", "text": [paragraphs], ...}
  JsonlDocs = 2,  // {"_id" | "id" | "docid", "title", "text" | "contents": "..."} (BEIR, passages)
};

// Identifies one state of a corpus file: a side index describes that state only.
struct SourceStamp {
  std::uint64_t size = 0;
  std::int64_t mtimeSec = 0;
  std::int64_t mtimeNsec = 0;
  std::uint64_t sampleHash = 0;  // of 64 blocks spread over the file, plus its last block
  bool operator==(const SourceStamp&) const = default;
};

// Reads the stamp of an open file descriptor; nullopt when it cannot be read.
std::optional<SourceStamp> stampOf(int fd);

// One document as the side index holds it (on disk in this layout, little-endian).
struct DocIndexEntry {
  std::uint64_t recordOffset = 0;    // the record's first byte in the corpus file
  std::uint64_t line = 0;            // its 1-based line number
  std::uint64_t stringOffset = 0;    // id bytes, then title bytes, in the string pool
  std::uint64_t firstParagraph = 0;  // its first entry in the paragraph table
  std::uint32_t recordLength = 0;
  std::uint32_t textOffset = 0;  // from the record's start: the text value (string or array)
  std::uint32_t textLength = 0;
  std::uint32_t idLength = 0;
  std::uint32_t titleLength = 0;
  std::uint32_t paragraphCount = 0;  // KILT pages: elements of "text"; 0 otherwise
};
static_assert(sizeof(DocIndexEntry) == 56);

// What a first open found, in file order, ready to be written.
struct DocIndexContent {
  CorpusLayout layout = CorpusLayout::KiltPages;
  SourceStamp source;
  std::vector<DocIndexEntry> entries;
  std::vector<std::uint32_t> paragraphs;  // offsets from each text value's start
  std::string strings;
  std::string diagnostics;  // the first open's report (JSON), replayed on every reopen
};

class DocIndex {
 public:
  // Writes `content` (with its id hash table and the id and title orders) to `path` through the
  // safe writer (core/util/atomicfile.h), created 0600 like every file ragscope writes.
  static bool write(const std::filesystem::path& path, const DocIndexContent& content,
                    std::string* error);

  // Maps and checks the side index at `path` for a corpus file in state `expected`; nullptr with
  // `why` set when it is missing, damaged, refuted, or describes another file or state.
  static std::shared_ptr<DocIndex> open(const std::filesystem::path& path, CorpusLayout layout,
                                        const SourceStamp& expected, std::string& why);
  // Gives the side index in `bytes` the stamp `source` and recomputes its checksums (when its
  // section table lies inside it): the fuzz target uses it so that a mutated side index gets
  // past the checksum and tests the checks behind it. Never used on a real open.
  static void reseal(std::string& bytes, const SourceStamp& source);
  ~DocIndex();
  DocIndex(const DocIndex&) = delete;
  DocIndex& operator=(const DocIndex&) = delete;

  // Shows only the first `documents` entries (a reader that stopped at the first bad record sees
  // the documents before it); set once after open, before the index is shared.
  void limitTo(std::size_t documents) { m_count = std::min(m_count, documents); }
  // The nesting bound the records were scanned under (LoadOptions::maxJsonDepth): the read check
  // reads them under the same one.
  void setMaxJsonDepth(int depth) { m_maxJsonDepth = depth; }
  int maxJsonDepth() const { return m_maxJsonDepth; }

  const std::filesystem::path& path() const { return m_path; }
  // Unique per opened index in this process (a key that outlives no index, unlike its address).
  std::uint64_t serial() const { return m_serial; }
  // Called when a record read through the index is not what its entry says: the index is never
  // opened again in this process, and removed from disk when it is still the file that was
  // mapped and this user's, so that the next load rebuilds it. Reads already verified stay true.
  void refute() const;
  bool refuted() const { return m_refuted.load(); }

  std::size_t size() const { return m_count; }
  CorpusLayout layout() const { return m_layout; }
  const DocIndexEntry& entry(std::size_t i) const { return m_entries[i]; }
  std::string_view id(std::size_t i) const;
  std::string_view title(std::size_t i) const;
  // Paragraph starts of document i, from its text value's start (bounds checked at open).
  std::span<const std::uint32_t> paragraphs(std::size_t i) const;
  std::string_view diagnostics() const { return m_diagnostics; }
  // Position of the document with this id; nullopt when there is none.
  std::optional<std::size_t> find(std::string_view id) const;
  // Positions of up to `limit` documents whose id (or, with byTitle, title; ASCII letters
  // compared without case) starts with `prefix`, in that order.
  std::vector<std::size_t> withPrefix(std::string_view prefix, bool byTitle,
                                      std::size_t limit) const;

 private:
  DocIndex() = default;
  bool check(const SourceStamp& expected, std::string& why);

  const char* m_map = nullptr;
  std::size_t m_mapSize = 0;
  std::filesystem::path m_path;
  std::uint64_t m_device = 0, m_inode = 0;  // of the file mapped (refute() removes only it)
  std::uint64_t m_headerHash = 0;           // identifies its bytes (refuted ones are kept)
  std::uint64_t m_serial = 0;
  int m_maxJsonDepth = 256;
  mutable std::atomic<bool> m_refuted{false};
  CorpusLayout m_layout = CorpusLayout::KiltPages;
  std::size_t m_count = 0;  // documents shown (limitTo)
  std::size_t m_total = 0;  // documents in the index
  const DocIndexEntry* m_entries = nullptr;
  const std::uint32_t* m_paragraphs = nullptr;
  std::size_t m_paragraphCount = 0;
  std::string_view m_strings;
  const std::uint32_t* m_slots = nullptr;  // position + 1; 0 = empty
  std::size_t m_slotCount = 0;
  const std::uint32_t* m_idOrder = nullptr;
  const std::uint32_t* m_titleOrder = nullptr;
  std::string_view m_diagnostics;
};

}  // namespace ragscope::core
