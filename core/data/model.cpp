#include "core/data/model.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

namespace ragscope::core {

std::vector<std::string> Query::goldAnswers() const {
  std::vector<std::string> out;
  for (const auto& g : gold)
    if (g.hasAnswer) out.push_back(g.answer);
  return out;
}

std::vector<std::string> Query::goldDocIds() const {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const auto& g : gold)
    for (const auto& p : g.provenance)
      if (seen.insert(p.docId).second) out.push_back(p.docId);
  return out;
}

std::string Document::fullText() const {
  return stored.file ? textPrefix(std::string::npos) : text;
}

std::string Document::textPrefix(std::size_t n) const {
  if (!stored.file) return text.substr(0, n);
  std::string error;
  if (stored.encoding == TextEncoding::Raw) {
    const auto length = static_cast<std::uint32_t>(std::min<std::size_t>(n, stored.length));
    if (auto bytes = stored.file->read(stored.offset, length, error)) return std::move(*bytes);
  } else if (auto decoded = readStoredText(stored, error)) {
    // A JSON text is decoded whole (one record: kilobytes), then cut.
    if (decoded->size() > n) decoded->resize(n);
    return std::move(*decoded);
  }
  return "[text of " + id + " unavailable: " + error + "]";
}

std::size_t Document::paragraphCount() const {
  return stored.file ? storedParagraphCount(stored) : paragraphCountOf(text, paragraphStarts.get());
}

std::optional<std::string> Document::paragraphRange(std::size_t first, std::size_t last,
                                                    std::string& error) const {
  return stored.file ? readStoredParagraphs(stored, first, last, error)
                     : paragraphsOf(text, first, last, error, paragraphStarts.get());
}

std::size_t Corpus::slotOf(std::string_view id) const {
  const std::size_t mask = m_slots.size() - 1;
  for (std::size_t i = std::hash<std::string_view>{}(id)&mask;; i = (i + 1) & mask) {
    const std::uint32_t at = m_slots[i];
    if (at == 0 || m_docs[at - 1].id == id) return i;
  }
}

void Corpus::grow(std::size_t documents) {
  std::size_t size = 16;
  while (size < documents * 2) size <<= 1;
  if (size <= m_slots.size()) return;
  m_slots.assign(size, 0);
  for (std::size_t d = 0; d < m_docs.size(); ++d) {
    const std::size_t slot = slotOf(m_docs[d].id);
    if (m_slots[slot] == 0) m_slots[slot] = static_cast<std::uint32_t>(d + 1);  // first id wins
  }
}

void Corpus::add(Document doc) {
  // Kept even when its id is taken (the loader reports that); find() gives the first.
  if (m_slots.empty() || (m_docs.size() + 1) * 2 > m_slots.size())
    grow(std::max<std::size_t>(16, (m_docs.size() + 1) * 2));
  const std::size_t slot = slotOf(doc.id);
  m_docs.push_back(std::move(doc));
  if (m_slots[slot] == 0) m_slots[slot] = static_cast<std::uint32_t>(m_docs.size());
}

std::optional<std::size_t> Corpus::tryAdd(Document doc) {
  if (!m_segments.empty())
    if (auto at = indexOf(doc.id)) return at;
  if (m_slots.empty() || (m_docs.size() + 1) * 2 > m_slots.size())
    grow(std::max<std::size_t>(16, (m_docs.size() + 1) * 2));
  const std::size_t slot = slotOf(doc.id);
  if (m_slots[slot] != 0) return m_slots[slot] - 1;
  m_docs.push_back(std::move(doc));
  m_slots[slot] = static_cast<std::uint32_t>(m_docs.size());
  return std::nullopt;
}

void Corpus::reserve(std::size_t n) {
  m_docs.reserve(n);
  grow(n);
}

void Corpus::addStored(std::shared_ptr<const TextFile> file) {
  if (!file || !file->index()) return;
  const DocIndex* index = file->index();
  m_storedCount += index->size();
  m_segments.push_back({std::move(file), index});
}

std::pair<const Corpus::Segment*, std::size_t> Corpus::locate(std::size_t p) const {
  p -= m_docs.size();
  for (const Segment& s : m_segments) {
    if (p < s.index->size()) return {&s, p};
    p -= s.index->size();
  }
  return {nullptr, 0};
}

Document Corpus::storedDocument(const Segment& s, std::size_t i) const {
  const DocIndexEntry& e = s.index->entry(i);
  Document d;
  d.id.assign(s.index->id(i));
  d.title.assign(s.index->title(i));
  d.stored.file = s.file;
  d.stored.offset = e.recordOffset + e.textOffset;
  d.stored.length = e.textLength;
  d.stored.encoding = s.index->layout() == CorpusLayout::KiltPages ? TextEncoding::JsonParagraphs
                                                                   : TextEncoding::JsonString;
  d.stored.item = static_cast<std::uint32_t>(i);
  return d;
}

Document Corpus::at(std::size_t i) const {
  if (i < m_docs.size()) return m_docs[i];
  const auto [segment, within] = locate(i);
  return segment ? storedDocument(*segment, within) : Document{};
}

std::string_view Corpus::idAt(std::size_t i) const {
  if (i < m_docs.size()) return m_docs[i].id;
  const auto [segment, within] = locate(i);
  return segment ? segment->index->id(within) : std::string_view();
}

std::string_view Corpus::titleAt(std::size_t i) const {
  if (i < m_docs.size()) return m_docs[i].title;
  const auto [segment, within] = locate(i);
  return segment ? segment->index->title(within) : std::string_view();
}

std::optional<std::size_t> Corpus::memoryIndexOf(std::string_view id) const {
  if (m_slots.empty()) return std::nullopt;
  const std::uint32_t at = m_slots[slotOf(id)];
  return at == 0 ? std::nullopt : std::optional<std::size_t>(at - 1);
}

std::optional<std::size_t> Corpus::indexOf(std::string_view id) const {
  if (auto at = memoryIndexOf(id)) return at;
  std::size_t base = m_docs.size();
  for (const Segment& s : m_segments) {
    if (auto at = s.index->find(id)) return base + *at;
    base += s.index->size();
  }
  return std::nullopt;
}

std::optional<Document> Corpus::find(std::string_view id) const {
  if (auto at = memoryIndexOf(id)) return m_docs[*at];
  for (const Segment& s : m_segments)
    if (auto at = s.index->find(id)) return storedDocument(s, *at);
  return std::nullopt;
}

std::vector<std::size_t> Corpus::withPrefix(std::string_view prefix, bool byTitle,
                                            std::size_t limit) const {
  std::vector<std::size_t> out;
  auto folded = [](std::string_view s) {
    std::string f(s);
    for (char& c : f)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return f;
  };
  const std::string foldedPrefix = folded(prefix);
  for (std::size_t i = 0; i < m_docs.size() && out.size() < limit; ++i) {
    const std::string_view key = byTitle ? m_docs[i].title : m_docs[i].id;
    if (byTitle ? folded(key.substr(0, prefix.size())) == foldedPrefix
                : key.substr(0, prefix.size()) == prefix)
      out.push_back(i);
  }
  std::size_t base = m_docs.size();
  for (const Segment& s : m_segments) {
    if (out.size() >= limit) break;
    for (std::size_t at : s.index->withPrefix(prefix, byTitle, limit - out.size()))
      out.push_back(base + at);
    base += s.index->size();
  }
  return out;
}

std::size_t Qrels::judgmentCount() const {
  std::size_t n = 0;
  for (const auto& [qid, js] : byQuery) n += js.size();
  return n;
}

std::map<int, std::size_t> Qrels::gradeCounts() const {
  std::map<int, std::size_t> counts;
  for (const auto& [qid, js] : byQuery)
    for (const auto& j : js) ++counts[j.rel];
  return counts;
}

void StringArena::addBlock(std::size_t size) {
  Block b;
  if (size >= (std::size_t{2} << 20))
    b.region = HugeRegion(size);
  else
    b.heap.reset(new char[size]);  // not make_unique: zero-filling would touch every page
  m_blockSize = b.heap ? size : b.region.size();
  m_blocks.push_back(std::move(b));
  m_offset = 0;
}

void StringArena::reserve(std::size_t bytes) {
  if (!m_blocks.empty() && m_blockSize - m_offset >= bytes) return;
  addBlock(std::max<std::size_t>(bytes, 64));
}

void StringArena::recycle() {
  if (m_blocks.size() > 1) m_blocks.erase(m_blocks.begin(), m_blocks.end() - 1);
  m_offset = 0;
  m_used = 0;
}

std::string_view StringArena::store(std::string_view s) {
  if (m_blocks.empty() || m_offset + s.size() > m_blockSize) {
    // Blocks double from 64 KiB to 8 MiB; an oversized string gets a block of its own.
    const std::size_t next =
        m_blocks.empty() ? std::size_t{64} << 10 : std::min(m_blockSize * 2, std::size_t{8} << 20);
    addBlock(std::max(next, s.size()));
  }
  char* dst = m_blocks.back().data() + m_offset;
  if (!s.empty()) std::memcpy(dst, s.data(), s.size());
  m_offset += s.size();
  m_used += s.size();
  return {dst, s.size()};
}

void StringArena::absorb(StringArena&& other) {
  if (other.m_blocks.empty()) return;
  // Our current block stays last so store() keeps filling it; the adopted blocks go before it.
  auto insertAt = m_blocks.empty() ? m_blocks.end() : m_blocks.end() - 1;
  m_blocks.insert(insertAt, std::make_move_iterator(other.m_blocks.begin()),
                  std::make_move_iterator(other.m_blocks.end()));
  if (m_blocks.size() == other.m_blocks.size()) {  // we had none: continue in the adopted last one
    m_blockSize = other.m_blockSize;
    m_offset = other.m_offset;
  }
  m_used += other.m_used;
  other.m_blocks.clear();
  other.m_blockSize = other.m_offset = other.m_used = 0;
}

std::size_t Run::entryCount() const {
  std::size_t n = 0;
  for (const auto& r : rankings) n += r.entries.size();
  return n;
}

const Ranking* Run::find(std::string_view queryId) const {
  for (const auto& r : rankings)
    if (r.queryId == queryId) return &r;
  return nullptr;
}

}  // namespace ragscope::core
