#pragma once
// Memory for the big, long-lived arrays of a loaded run (millions of entries, tens of MB of docno
// bytes), taken from the kernel in large regions backed by transparent huge pages.
//
// Why: in a virtual machine each 4 KiB page fault costs microseconds, and a 300 MB run faults
// ~70,000 pages: more time than parsing it. A 2 MiB page faults once for 512 of those. The
// regions are reserved (not committed), so only the bytes written count towards the RSS.
//
//   auto pool = std::make_shared<BulkPool>();
//   std::vector<RunEntry, PoolAllocator<RunEntry>> v{PoolAllocator<RunEntry>(pool.get())};
//   v.resize(n);   // one allocation from the pool; freed with the pool, not one by one
//
// A PoolAllocator without a pool is the ordinary heap allocator, so containers built elsewhere
// (tests, retrievers) behave as before.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ragscope::core {

// Anonymous memory mapped with MADV_HUGEPAGE; released with munmap.
class HugeRegion {
 public:
  HugeRegion() = default;
  explicit HugeRegion(std::size_t bytes);
  ~HugeRegion();
  HugeRegion(HugeRegion&& other) noexcept;
  HugeRegion& operator=(HugeRegion&& other) noexcept;
  HugeRegion(const HugeRegion&) = delete;
  HugeRegion& operator=(const HugeRegion&) = delete;

  char* data() const { return m_data; }
  std::size_t size() const { return m_size; }

 private:
  char* m_data = nullptr;
  std::size_t m_size = 0;
};

// A bump allocator over huge regions; thread-safe; frees everything at destruction.
class BulkPool {
 public:
  void* allocate(std::size_t bytes, std::size_t align);

 private:
  std::mutex m_mutex;
  std::vector<HugeRegion> m_regions;
  std::size_t m_used = 0;  // in the last region
};

template <class T>
class PoolAllocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  PoolAllocator() noexcept = default;
  explicit PoolAllocator(BulkPool* pool) noexcept : m_pool(pool) {}
  template <class U>
  PoolAllocator(const PoolAllocator<U>& other) noexcept : m_pool(other.pool()) {}

  T* allocate(std::size_t n) {
    if (!m_pool) return std::allocator<T>().allocate(n);
    return static_cast<T*>(m_pool->allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (!m_pool) std::allocator<T>().deallocate(p, n);
    // Pool memory goes back with the pool.
  }
  BulkPool* pool() const noexcept { return m_pool; }

  // resize(n) on pool memory leaves the elements for the caller to write (the run reader fills
  // every one): value-initialising them first would touch, and so fault in, every page on one
  // thread before the parser threads write them. Only for types that may start life that way.
  template <class U>
  void construct(U* p) noexcept {
    static_assert(std::is_trivially_copyable_v<U> && std::is_aggregate_v<U>);
    if (!m_pool) ::new (static_cast<void*>(p)) U();
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  friend bool operator==(const PoolAllocator& a, const PoolAllocator& b) noexcept {
    return a.m_pool == b.m_pool;
  }

 private:
  BulkPool* m_pool = nullptr;
};

// Bytes about to be overwritten by read(): resize() neither zero-fills nor walks the new bytes
// (an 8 MiB chunk per read), and keeps its capacity.
class ByteBuffer {
 public:
  char* data() { return m_data.get(); }
  const char* data() const { return m_data.get(); }
  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  char back() const { return m_data[m_size - 1]; }
  void clear() { m_size = 0; }
  void resize(std::size_t n) {
    if (n > m_capacity) {
      const std::size_t capacity = std::max(n, m_capacity * 2);
      std::unique_ptr<char[]> bigger(new char[capacity]);
      if (m_size) std::memcpy(bigger.get(), m_data.get(), m_size);
      m_data = std::move(bigger);
      m_capacity = capacity;
    }
    m_size = n;
  }

 private:
  std::unique_ptr<char[]> m_data;
  std::size_t m_size = 0;
  std::size_t m_capacity = 0;
};

}  // namespace ragscope::core
