#include "core/data/docindex.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "core/util/atomicfile.h"
#include "core/util/fasthash.h"
#include "core/util/inputfile.h"

namespace ragscope::core {

namespace {

constexpr char kMagic[8] = {'R', 'S', 'D', 'O', 'C', 'I', 'X', '\x01'};
constexpr std::uint32_t kVersion = 1;
// Sections are hashed in pieces of this size, so a reader can drop the pages it has checked.
constexpr std::size_t kHashPiece = std::size_t{16} << 20;

enum Section {
  Entries,
  Paragraphs,
  Strings,
  Slots,
  IdOrder,
  TitleOrder,
  Diagnostics,
  SectionCount
};

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t layout;
  SourceStamp source;
  std::uint64_t count;
  std::uint64_t paragraphCount;
  std::uint64_t stringBytes;
  std::uint64_t slotCount;
  std::uint64_t diagnosticsBytes;
  std::uint64_t offsets[SectionCount + 1];  // section starts, then the end of the file
  std::uint64_t bodyHash;
  std::uint64_t headerHash;  // of the bytes above
};

std::uint64_t headerHashOf(const Header& h) {
  return fastHash64(&h, offsetof(Header, headerHash), 0x5eed);
}

// The byte size of each section as the header's counts give it (what reseal() hashes and check()
// holds against the section table).
std::array<std::uint64_t, SectionCount> sectionSizes(const Header& h) {
  return {h.count * sizeof(DocIndexEntry),
          h.paragraphCount * 4,
          h.stringBytes,
          h.slotCount * 4,
          h.count * 4,
          h.count * 4,
          h.diagnosticsBytes};
}

std::uint64_t hashPieces(const char* data, std::size_t size, std::uint64_t seed) {
  for (std::size_t at = 0; at < size; at += kHashPiece)
    seed = fastHash64(data + at, std::min(kHashPiece, size - at), seed);
  return seed;
}

std::uint64_t align8(std::uint64_t n) { return (n + 7) & ~std::uint64_t{7}; }

// Letters without case, so "barack" finds "Barack Obama" (ASCII only: titles in other scripts
// compare as written).
inline unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

int compareFolded(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = fold(static_cast<unsigned char>(a[i]));
    const unsigned char y = fold(static_cast<unsigned char>(b[i]));
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

bool hasFoldedPrefix(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && compareFolded(s.substr(0, prefix.size()), prefix) == 0;
}

std::size_t slotCountFor(std::size_t count) {
  std::size_t slots = 16;
  while (slots < count * 2) slots *= 2;
  return slots;
}

std::string_view idIn(const DocIndexContent& c, const DocIndexEntry& e) {
  return std::string_view(c.strings).substr(e.stringOffset, e.idLength);
}

std::string_view titleIn(const DocIndexContent& c, const DocIndexEntry& e) {
  return std::string_view(c.strings).substr(e.stringOffset + e.idLength, e.titleLength);
}

struct Tables {
  std::vector<std::uint32_t> slots, idOrder, titleOrder;
};

// The id hash table and the two sort orders, the orders sorted on two threads at once.
Tables buildTables(const DocIndexContent& c) {
  Tables t;
  const std::size_t n = c.entries.size();
  t.slots.assign(slotCountFor(n), 0);
  const std::size_t mask = t.slots.size() - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view id = idIn(c, c.entries[i]);
    for (std::size_t s = fastHash64(id) & mask;; s = (s + 1) & mask) {
      if (t.slots[s] == 0) {
        t.slots[s] = static_cast<std::uint32_t>(i + 1);
        break;
      }
      if (idIn(c, c.entries[t.slots[s] - 1]) == id) break;  // the first of an id wins
    }
  }
  // Sorted on (first 8 bytes as a big-endian number, position) pairs: most comparisons end on
  // the number, without touching the strings (2M titles sorted in a fraction of the time).
  auto sortBy = [&](std::vector<std::uint32_t>& order, bool byTitle) {
    struct Keyed {
      std::uint64_t key;
      std::uint32_t pos;
    };
    std::vector<Keyed> keyed(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string_view k = byTitle ? titleIn(c, c.entries[i]) : idIn(c, c.entries[i]);
      std::uint64_t key = 0;
      for (std::size_t b = 0; b < 8; ++b) {
        const unsigned char ch = b < k.size() ? static_cast<unsigned char>(k[b]) : 0;
        key = key << 8 | (byTitle ? fold(ch) : ch);
      }
      keyed[i] = {key, static_cast<std::uint32_t>(i)};
    }
    std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
      if (a.key != b.key) return a.key < b.key;
      const int cmp =
          byTitle ? compareFolded(titleIn(c, c.entries[a.pos]), titleIn(c, c.entries[b.pos]))
                  : idIn(c, c.entries[a.pos]).compare(idIn(c, c.entries[b.pos]));
      return cmp != 0 ? cmp < 0 : a.pos < b.pos;
    });
    order.resize(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = keyed[i].pos;
  };
  std::thread byTitle([&] { sortBy(t.titleOrder, true); });
  sortBy(t.idOrder, false);
  byTitle.join();
  return t;
}

template <class T>
std::string_view bytesOf(const std::vector<T>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}

// Side indexes refuted in this process (a record read through one was not what its entry said),
// by their header's checksum, which covers the corpus stamp and the body's checksum: the same
// bytes are never opened again, even where the file could not be removed (a read-only folder,
// another user's file). A file's name, inode or time would not do: an honest rebuild can get the
// inode of the removed file back within the same clock tick.
std::mutex g_refutedMutex;
std::set<std::uint64_t> g_refuted;
std::atomic<std::uint64_t> g_nextSerial{1};

bool wasRefuted(std::uint64_t headerHash) {
  std::lock_guard lock(g_refutedMutex);
  return g_refuted.count(headerHash) > 0;
}

}  // namespace

std::optional<SourceStamp> stampOf(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  SourceStamp s;
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtimeSec = st.st_mtim.tv_sec;
  s.mtimeNsec = st.st_mtim.tv_nsec;
  // 64 blocks spread over the file and its last block: an edit that keeps size and time (a
  // restored backup, a copy with preserved times) still changes one of them in most cases.
  constexpr std::size_t kBlock = 4096;
  constexpr int kBlocks = 64;
  std::string buf(kBlock, '\0');
  std::uint64_t h = s.size;
  auto sample = [&](std::uint64_t at) {
    const ssize_t n = ::pread(fd, buf.data(), kBlock, static_cast<off_t>(at));
    if (n < 0) return false;
    h = fastHash64(buf.data(), static_cast<std::size_t>(n), h);
    return true;
  };
  for (int b = 0; b < kBlocks; ++b)
    if (!sample(s.size / kBlocks * static_cast<std::uint64_t>(b))) return std::nullopt;
  if (!sample(s.size > kBlock ? s.size - kBlock : 0)) return std::nullopt;
  s.sampleHash = h;
  return s;
}

bool DocIndex::write(const std::filesystem::path& path, const DocIndexContent& c,
                     std::string* error) {
  const Tables t = buildTables(c);
  const std::string_view sections[SectionCount] = {
      bytesOf(c.entries), bytesOf(c.paragraphs), c.strings,    bytesOf(t.slots),
      bytesOf(t.idOrder), bytesOf(t.titleOrder), c.diagnostics};
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.layout = static_cast<std::uint32_t>(c.layout);
  h.source = c.source;
  h.count = c.entries.size();
  h.paragraphCount = c.paragraphs.size();
  h.stringBytes = c.strings.size();
  h.slotCount = t.slots.size();
  h.diagnosticsBytes = c.diagnostics.size();
  std::uint64_t at = align8(sizeof(Header));
  std::uint64_t hash = 0;
  for (int s = 0; s < SectionCount; ++s) {
    h.offsets[s] = at;
    at = align8(at + sections[s].size());
    hash = hashPieces(sections[s].data(), sections[s].size(), hash);
  }
  h.offsets[SectionCount] = at;
  h.bodyHash = hash;
  h.headerHash = headerHashOf(h);
  return writeFileAtomically(
      path,
      [&](std::ostream& out) {
        static const char zeros[8] = {};
        out.write(reinterpret_cast<const char*>(&h), sizeof h);
        std::uint64_t written = sizeof h;
        for (int s = 0; s < SectionCount; ++s) {
          out.write(zeros, static_cast<std::streamsize>(h.offsets[s] - written));
          out.write(sections[s].data(), static_cast<std::streamsize>(sections[s].size()));
          written = h.offsets[s] + sections[s].size();
        }
        out.write(zeros, static_cast<std::streamsize>(h.offsets[SectionCount] - written));
        return static_cast<bool>(out);
      },
      error, /*fsyncFile=*/false, FileAccess::Private);
}

std::shared_ptr<DocIndex> DocIndex::open(const std::filesystem::path& path, CorpusLayout layout,
                                         const SourceStamp& expected, std::string& why) {
  if (auto problem = specialFileProblem(path)) {
    why = *problem;
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    why = errno == ENOENT ? "none yet" : std::string("cannot open: ") + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size < static_cast<off_t>(sizeof(Header))) {
    ::close(fd);
    why = "not a side index (too short or not a regular file)";
    return nullptr;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    why = std::string("cannot map: ") + std::strerror(errno);
    return nullptr;
  }
  std::shared_ptr<DocIndex> index(new DocIndex());
  index->m_map = static_cast<const char*>(map);
  index->m_mapSize = size;
  index->m_path = path;
  index->m_device = static_cast<std::uint64_t>(st.st_dev);
  index->m_inode = static_cast<std::uint64_t>(st.st_ino);
  index->m_serial = g_nextSerial.fetch_add(1);
  index->m_layout = layout;
  if (!index->check(expected, why)) return nullptr;
  return index;
}

void DocIndex::reseal(std::string& bytes, const SourceStamp& source) {
  if (bytes.size() < sizeof(Header)) return;
  Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  h.source = source;
  const auto sizes = sectionSizes(h);
  std::uint64_t hash = 0;
  for (int s = 0; s < SectionCount; ++s) {
    if (h.offsets[s] > bytes.size() || sizes[s] > bytes.size() - h.offsets[s]) break;
    hash = hashPieces(bytes.data() + h.offsets[s], sizes[s], hash);
  }
  h.bodyHash = hash;
  h.headerHash = headerHashOf(h);
  std::memcpy(bytes.data(), &h, sizeof h);
}

DocIndex::~DocIndex() {
  if (m_map) ::munmap(const_cast<char*>(m_map), m_mapSize);
}

bool DocIndex::check(const SourceStamp& expected, std::string& why) {
  Header h;
  std::memcpy(&h, m_map, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    why = "not a ragscope side index";
    return false;
  }
  if (h.version != kVersion || h.layout != static_cast<std::uint32_t>(m_layout)) {
    why = "written by another version or for another layout";
    return false;
  }
  if (h.headerHash != headerHashOf(h)) {
    why = "damaged header";
    return false;
  }
  if (wasRefuted(h.headerHash)) {
    why = "refused: a record read through it earlier was not what it said";
    return false;
  }
  m_headerHash = h.headerHash;
  if (!(h.source == expected)) {
    why = "describes another file, or this file before it changed";
    return false;
  }
  // Section table: in order, aligned, sized for the counts, inside the file.
  const auto sizes = sectionSizes(h);
  if (h.count >= UINT32_MAX || h.paragraphCount > m_mapSize ||
      h.slotCount != slotCountFor(h.count) || h.offsets[SectionCount] != m_mapSize) {
    why = "truncated or damaged (section table)";
    return false;
  }
  std::uint64_t at = align8(sizeof(Header));
  for (int s = 0; s < SectionCount; ++s) {
    if (h.offsets[s] != at || sizes[s] > m_mapSize || h.offsets[s] + sizes[s] > m_mapSize) {
      why = "truncated or damaged (section table)";
      return false;
    }
    at = align8(at + sizes[s]);
  }
  // The checksum, piece by piece; checked pages are given back so a reopen costs no memory.
  std::uint64_t hash = 0;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (int s = 0; s < SectionCount; ++s) {
    hash = hashPieces(m_map + h.offsets[s], sizes[s], hash);
    const std::size_t done = (h.offsets[s] + sizes[s]) / page * page;
    ::madvise(const_cast<char*>(m_map), done, MADV_DONTNEED);
  }
  if (hash != h.bodyHash) {
    why = "damaged (checksum mismatch)";
    return false;
  }
  m_count = m_total = h.count;
  m_entries = reinterpret_cast<const DocIndexEntry*>(m_map + h.offsets[Entries]);
  m_paragraphs = reinterpret_cast<const std::uint32_t*>(m_map + h.offsets[Paragraphs]);
  m_paragraphCount = h.paragraphCount;
  m_strings = std::string_view(m_map + h.offsets[Strings], h.stringBytes);
  m_slots = reinterpret_cast<const std::uint32_t*>(m_map + h.offsets[Slots]);
  m_slotCount = h.slotCount;
  m_idOrder = reinterpret_cast<const std::uint32_t*>(m_map + h.offsets[IdOrder]);
  m_titleOrder = reinterpret_cast<const std::uint32_t*>(m_map + h.offsets[TitleOrder]);
  m_diagnostics = std::string_view(m_map + h.offsets[Diagnostics], h.diagnosticsBytes);
  // Every document's ranges inside the sections and the corpus file: accessors then never leave
  // the map, whatever the file holds. Records in file order, each after the line of the one
  // before (two entries never share or overlap a record).
  std::uint64_t nextFree = 0, lastLine = 0;
  for (std::size_t i = 0; i < m_total; ++i) {
    const DocIndexEntry& e = m_entries[i];
    if (e.recordOffset < nextFree || e.line <= lastLine) {
      why = "damaged (document " + std::to_string(i) +
            " overlaps the record before it or is out of file order)";
      return false;
    }
    const bool ok = e.stringOffset <= h.stringBytes &&
                    std::uint64_t{e.idLength} + e.titleLength <= h.stringBytes - e.stringOffset &&
                    e.firstParagraph <= h.paragraphCount &&
                    e.paragraphCount <= h.paragraphCount - e.firstParagraph &&
                    e.recordOffset <= expected.size &&
                    e.recordLength <= expected.size - e.recordOffset &&
                    std::uint64_t{e.textOffset} + e.textLength <= e.recordLength && e.idLength > 0;
    if (!ok) {
      why = "damaged (document " + std::to_string(i) + " points outside its sections)";
      return false;
    }
    nextFree = e.recordOffset + e.recordLength + 1;  // past its line's newline
    lastLine = e.line;
  }
  ::madvise(const_cast<char*>(m_map), m_mapSize, MADV_DONTNEED);
  return true;
}

void DocIndex::refute() const {
  if (m_refuted.exchange(true)) return;
  {
    std::lock_guard lock(g_refutedMutex);
    g_refuted.insert(m_headerHash);
  }
  // Removed only while the name still holds the file that was mapped, and only a file of this
  // user's: the next load then rebuilds it (another user's stays, refused in this process).
  struct stat st {};
  if (::lstat(m_path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<std::uint64_t>(st.st_dev) == m_device &&
      static_cast<std::uint64_t>(st.st_ino) == m_inode && st.st_uid == ::geteuid())
    ::unlink(m_path.c_str());
}

std::string_view DocIndex::id(std::size_t i) const {
  return m_strings.substr(m_entries[i].stringOffset, m_entries[i].idLength);
}

std::string_view DocIndex::title(std::size_t i) const {
  return m_strings.substr(m_entries[i].stringOffset + m_entries[i].idLength,
                          m_entries[i].titleLength);
}

std::span<const std::uint32_t> DocIndex::paragraphs(std::size_t i) const {
  return {m_paragraphs + m_entries[i].firstParagraph, m_entries[i].paragraphCount};
}

std::optional<std::size_t> DocIndex::find(std::string_view id) const {
  const std::size_t mask = m_slotCount - 1;
  // At most every slot once: a damaged table without an empty slot cannot loop forever.
  std::size_t s = fastHash64(id) & mask;
  for (std::size_t probes = 0; probes < m_slotCount; ++probes, s = (s + 1) & mask) {
    const std::uint32_t at = m_slots[s];
    if (at == 0 || at > m_total) return std::nullopt;
    // Ids are unique in the index: one past the documents shown (limitTo) is not found.
    if (this->id(at - 1) == id)
      return at <= m_count ? std::optional<std::size_t>(at - 1) : std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::size_t> DocIndex::withPrefix(std::string_view prefix, bool byTitle,
                                              std::size_t limit) const {
  const std::uint32_t* order = byTitle ? m_titleOrder : m_idOrder;
  auto key = [&](std::uint32_t pos) { return byTitle ? title(pos) : id(pos); };
  auto before = [&](std::uint32_t pos) {
    const std::string_view k = key(pos).substr(0, prefix.size());
    return byTitle ? compareFolded(k, prefix) < 0 : k < prefix;
  };
  // The orders hold every document of the index; those past the ones shown are passed over.
  std::size_t lo = 0, hi = m_total;
  while (lo < hi) {  // the first position whose key is not before the prefix
    const std::size_t mid = lo + (hi - lo) / 2;
    if (order[mid] < m_total && before(order[mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = lo; i < m_total && out.size() < limit; ++i) {
    const std::uint32_t pos = order[i];
    if (pos >= m_total) break;
    const std::string_view k = key(pos);
    if (byTitle ? !hasFoldedPrefix(k, prefix) : k.substr(0, prefix.size()) != prefix) break;
    if (pos < m_count) out.push_back(pos);
  }
  return out;
}

}  // namespace ragscope::core
