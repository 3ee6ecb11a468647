#include "core/data/recordcheck.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/data/corpusrecord.h"

namespace ragscope::core {

namespace {

// The blanks the scan trims around a record (linereader.h's trim; '\n' ends the line).
inline bool lineBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

constexpr std::size_t kBoundaryStep = 256;

// True when only blanks lie between the start of its line and `offset` (the scan's trim), the
// line being the file's first when it starts at 0 or after a UTF-8 BOM there. nullopt on a read
// error (`error` set).
std::optional<bool> startsItsLine(const TextFile& file, std::uint64_t offset, std::string& error) {
  std::uint64_t q = offset;  // [q, offset) holds blanks only
  while (true) {
    if (q == 0) return true;
    if (q == 3) {
      const auto bom = file.read(0, 3, error);
      if (!bom) return std::nullopt;
      if (*bom == "\xEF\xBB\xBF") return true;
    }
    // Down to byte 3 first, so that the BOM question is asked there.
    const std::uint64_t floor = q > 3 ? 3 : 0;
    const std::uint64_t from = std::max(floor, q - std::min<std::uint64_t>(q, kBoundaryStep));
    const auto bytes = file.read(from, static_cast<std::uint32_t>(q - from), error);
    if (!bytes) return std::nullopt;
    for (std::size_t k = bytes->size(); k-- > 0; --q) {
      const char c = (*bytes)[k];
      if (c == '\n') return true;
      if (!lineBlank(c)) return false;
    }
  }
}

// True when only blanks lie between `end` and the end of its line (or of the file).
std::optional<bool> endsItsLine(const TextFile& file, std::uint64_t end, std::uint64_t size,
                                std::string& error) {
  for (std::uint64_t q = end; q < size;) {
    const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(size - q, kBoundaryStep));
    const auto bytes = file.read(q, n, error);
    if (!bytes) return std::nullopt;
    for (const char c : *bytes) {
      if (c == '\n') return true;
      if (!lineBlank(c)) return false;
    }
    q += n;
  }
  return true;
}

std::string quotedForIndex(std::string_view s) {
  constexpr std::size_t kShown = 80;
  return "\"" + std::string(s.substr(0, kShown)) + (s.size() > kShown ? "...\"" : "\"");
}

// What the record `record` (the bytes of entry `item`) says that its entry does not; empty when
// they agree.
std::string disagreement(const DocIndex& index, std::size_t item, std::string_view record,
                         const std::string& file) {
  const DocIndexEntry& e = index.entry(item);
  if (record.empty() || lineBlank(record.front()) || lineBlank(record.back()) ||
      std::memchr(record.data(), '\n', record.size()) != nullptr)
    return "the bytes there are not one whole line of the file";
  std::vector<DocIndexEntry> entries;
  std::vector<std::uint32_t> paragraphs;
  std::string strings;
  std::vector<Diagnostic> problems;
  CorpusRecordReader reader(index.layout(), index.maxJsonDepth(), file);
  reader.read(record, e.recordOffset, e.line, {entries, paragraphs, strings, problems});
  if (entries.size() != 1) {
    for (const Diagnostic& d : problems)
      if (d.severity == Severity::Error)
        return "the record there does not read as a document (" +
               (d.field.empty() ? d.problem : d.field + ": " + d.problem) + ")";
    return "the record there does not read as a document";
  }
  const DocIndexEntry& got = entries.front();
  const std::string_view id = std::string_view(strings).substr(0, got.idLength);
  const std::string_view title = std::string_view(strings).substr(got.idLength, got.titleLength);
  if (id != index.id(item)) return "the record there holds id " + quotedForIndex(id);
  if (title != index.title(item)) return "the record there holds title " + quotedForIndex(title);
  const auto starts = index.paragraphs(item);
  if (got.textOffset != e.textOffset || got.textLength != e.textLength ||
      got.paragraphCount != e.paragraphCount ||
      !std::equal(starts.begin(), starts.end(), paragraphs.begin(), paragraphs.end()))
    return "its text is not where the side index says";
  return {};
}

// The last record checked on this thread, by the index's serial and the document's position.
struct CheckedRecord {
  std::uint64_t serial = 0;
  std::size_t item = 0;
  std::string bytes;
};
thread_local CheckedRecord t_lastChecked;

}  // namespace

std::optional<std::string> readCheckedRecord(const TextFile& file, std::size_t item,
                                             std::string& error) {
  const DocIndex* index = file.index();
  if (!index || item >= index->size()) {
    error = file.path().string() + ": no side index entry for this document";
    return std::nullopt;
  }
  if (t_lastChecked.serial == index->serial() && t_lastChecked.item == item) {
    if (!file.unchanged()) {
      error = file.path().string() + " has changed since it was loaded: load the dataset again";
      return std::nullopt;
    }
    return t_lastChecked.bytes;
  }
  const DocIndexEntry& e = index->entry(item);
  auto bytes = file.read(e.recordOffset, e.recordLength, error);
  if (!bytes) return std::nullopt;

  auto refuse = [&](const std::string& what) {
    index->refute();
    error = "the side index " + index->path().string() + " is wrong about document " +
            quotedForIndex(index->id(item)) + ": " + what + " (byte " +
            std::to_string(e.recordOffset) + " of " + file.path().string() +
            "); it is refused, and the next load of the dataset rebuilds it";
    return std::nullopt;
  };
  std::string what = disagreement(*index, item, *bytes, file.path().string());
  if (what.empty()) {
    const auto starts = startsItsLine(file, e.recordOffset, error);
    if (!starts) return std::nullopt;
    const auto ends = endsItsLine(file, e.recordOffset + e.recordLength, file.size(), error);
    if (!ends) return std::nullopt;
    if (!*starts || !*ends) what = "the bytes there are not one whole line of the file";
  }
  if (!what.empty()) return refuse(what);
  t_lastChecked = {index->serial(), item, *bytes};
  return bytes;
}

}  // namespace ragscope::core
