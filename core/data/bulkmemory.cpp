#include "core/data/bulkmemory.h"

#include <sys/mman.h>

#include <algorithm>
#include <utility>

namespace ragscope::core {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kRegionBytes = std::size_t{64} << 20;

std::size_t roundUp(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

HugeRegion::HugeRegion(std::size_t bytes) {
  const std::size_t size = roundUp(std::max<std::size_t>(bytes, 1), kHugePage);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Advice only: where huge pages are off or unavailable the region works with small pages.
  madvise(p, size, MADV_HUGEPAGE);
  m_data = static_cast<char*>(p);
  m_size = size;
}

HugeRegion::~HugeRegion() {
  if (m_data) munmap(m_data, m_size);
}

HugeRegion::HugeRegion(HugeRegion&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}

HugeRegion& HugeRegion::operator=(HugeRegion&& other) noexcept {
  if (this != &other) {
    if (m_data) munmap(m_data, m_size);
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
  }
  return *this;
}

void* BulkPool::allocate(std::size_t bytes, std::size_t align) {
  std::lock_guard lock(m_mutex);
  if (!m_regions.empty()) {
    const std::size_t at = roundUp(m_used, align);
    if (at + bytes <= m_regions.back().size()) {
      m_used = at + bytes;
      return m_regions.back().data() + at;
    }
  }
  // A new region; a request bigger than the usual region gets one of its own size.
  m_regions.emplace_back(std::max(kRegionBytes, bytes));
  m_used = bytes;
  return m_regions.back().data();
}

}  // namespace ragscope::core
