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

std::string Document::fullText() const { return stored.file ? textPrefix(stored.length) : text; }

std::string Document::textPrefix(std::size_t n) const {
  if (!stored.file) return text.substr(0, n);
  std::string error;
  const auto length = static_cast<std::uint32_t>(std::min<std::size_t>(n, stored.length));
  if (auto bytes = stored.file->read(stored.offset, length, error)) return std::move(*bytes);
  return "[text of " + id + " unavailable: " + error + "]";
}

std::size_t Corpus::slotOf(std::string_view id) const {
  const std::size_t mask = m_slots.size() - 1;
  for (std::size_t i = std::hash<std::string_view>{}(id) & mask;; i = (i + 1) & mask) {
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
  if (m_slots.empty() || (m_docs.size() + 1) * 2 > m_slots.size()) grow(std::max<std::size_t>(16, (m_docs.size() + 1) * 2));
  const std::size_t slot = slotOf(doc.id);
  m_docs.push_back(std::move(doc));
  if (m_slots[slot] == 0) m_slots[slot] = static_cast<std::uint32_t>(m_docs.size());
}

const Document* Corpus::tryAdd(Document doc) {
  if (m_slots.empty() || (m_docs.size() + 1) * 2 > m_slots.size()) grow(std::max<std::size_t>(16, (m_docs.size() + 1) * 2));
  const std::size_t slot = slotOf(doc.id);
  if (m_slots[slot] != 0) return &m_docs[m_slots[slot] - 1];
  m_docs.push_back(std::move(doc));
  m_slots[slot] = static_cast<std::uint32_t>(m_docs.size());
  return nullptr;
}

void Corpus::reserve(std::size_t n) {
  m_docs.reserve(n);
  grow(n);
}

const Document* Corpus::find(std::string_view id) const {
  if (m_slots.empty()) return nullptr;
  const std::uint32_t at = m_slots[slotOf(id)];
  return at == 0 ? nullptr : &m_docs[at - 1];
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
    const std::size_t next = m_blocks.empty() ? std::size_t{64} << 10 : std::min(m_blockSize * 2, std::size_t{8} << 20);
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
