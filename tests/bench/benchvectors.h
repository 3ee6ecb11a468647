#pragma once
// Pieces shared by the dense-retrieval benchmarks (bench_dense_pipeline, bench_ivfpq_scale,
// bench_flat_search): CPU and memory figures of this process and of a child, a plain BLAS GEMM
// with top-k selection (the "numpy" baseline the issue compares FAISS with), and seeded
// random-but-clustered unit vectors regenerated from their number, so a benchmark can stream
// millions of them without holding them.

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

// The Fortran BLAS symbol (OpenBLAS here): C = alpha op(A) op(B) + beta C, column-major.
extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                       const int* k, const float* alpha, const float* a, const int* lda,
                       const float* b, const int* ldb, const float* beta, float* c, const int* ldc);

namespace ragscope::bench {

// User + system CPU seconds of this process (every thread, FAISS's and BLAS's included).
inline double selfCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// User + system CPU seconds of a running process, from /proc/PID/stat (fields 14 and 15, in
// clock ticks); -1 when it cannot be read.
inline double processCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1.0;
  // The command name (field 2) is in parentheses and may hold blanks: count from its end.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return -1.0;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return double(utime + stime) / double(sysconf(_SC_CLK_TCK));
}

// A "VmHWM:" or "VmRSS:" line of /proc/self/status, in MiB.
inline double statusMiB(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0) return std::stod(line.substr(n)) / 1024.0;
  return -1.0;
}
inline double peakRssMiB() { return statusMiB("VmHWM:"); }
inline double rssMiB() { return statusMiB("VmRSS:"); }

// Resets VmHWM to the current RSS (Linux >= 4.0: "5" to clear_refs), so the next peakRssMiB()
// is the peak of what follows alone. False where the kernel refuses.
inline bool resetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

inline std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// About N(0, 1): the sum of four uniforms, centred and scaled (cheap and deterministic).
inline float gaussianish(std::uint64_t& state) {
  const std::uint64_t r = splitmix(state);
  float s = 0.0f;
  for (int i = 0; i < 4; ++i) s += float((r >> (16 * i)) & 0xffff) / 65536.0f;
  return (s - 2.0f) * 1.7320508f;  // variance 4/12 -> 1
}

inline void normalizeRow(float* v, int d) {
  double s = 0.0;
  for (int j = 0; j < d; ++j) s += double(v[j]) * v[j];
  const float inv = s > 0 ? float(1.0 / std::sqrt(s)) : 0.0f;
  for (int j = 0; j < d; ++j) v[j] *= inv;
}

// Unit vectors shaped a little like text embeddings: vector i = one of `clusters` random
// centres (a topic) + a component in a shared 64-dimensional subspace (what passages of all
// topics vary along) + isotropic noise, normalised. Vector i is the same whatever chunk it is
// generated in; queries are numbered from kQueryBase, apart from the documents.
class ClusteredVectors {
 public:
  static constexpr std::uint64_t kQueryBase = 1ull << 40;
  static constexpr int kSubspace = 64;

  ClusteredVectors(int dimensions, int clusters, std::uint64_t seed)
      : m_d(dimensions), m_clusters(clusters), m_seed(seed) {
    std::uint64_t s = seed;
    m_centres.resize(std::size_t(clusters) * std::size_t(m_d));
    for (int c = 0; c < clusters; ++c) {
      float* row = m_centres.data() + std::size_t(c) * std::size_t(m_d);
      for (int j = 0; j < m_d; ++j) row[j] = gaussianish(s);
      normalizeRow(row, m_d);
    }
    // Basis rows (kSubspace x d), each of norm 1/8 * 0.8: a z ~ N(0, I_64) gives about 0.8.
    m_basis.resize(std::size_t(kSubspace) * std::size_t(m_d));
    for (int b = 0; b < kSubspace; ++b) {
      float* row = m_basis.data() + std::size_t(b) * std::size_t(m_d);
      for (int j = 0; j < m_d; ++j) row[j] = gaussianish(s);
      normalizeRow(row, m_d);
      for (int j = 0; j < m_d; ++j) row[j] *= 0.1f;
    }
  }

  int dimensions() const { return m_d; }

  // Rows first..first+n-1 into out (n x d floats), on `threads` threads.
  void generate(std::uint64_t first, std::size_t n, float* out, unsigned threads = 2) const {
    std::vector<std::thread> workers;
    const std::size_t per = (n + threads - 1) / threads;
    for (unsigned t = 0; t < threads; ++t) {
      const std::size_t a = std::min(n, t * per), b = std::min(n, a + per);
      if (a < b)
        workers.emplace_back([=, this] { generateRange(first + a, b - a, out + a * m_d); });
    }
    for (auto& w : workers) w.join();
  }

 private:
  void generateRange(std::uint64_t first, std::size_t n, float* out) const {
    const float noise = 0.3f / std::sqrt(float(m_d));  // noise norm about 0.3
    float z[kSubspace];
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t s = m_seed ^ ((first + i) * 0xd1342543de82ef95ull);
      float* v = out + i * std::size_t(m_d);
      const auto c = std::size_t(splitmix(s) % std::uint64_t(m_clusters));
      std::memcpy(v, m_centres.data() + c * std::size_t(m_d), sizeof(float) * std::size_t(m_d));
      for (int b = 0; b < kSubspace; ++b) z[b] = gaussianish(s);
      for (int b = 0; b < kSubspace; ++b) {
        const float* row = m_basis.data() + std::size_t(b) * std::size_t(m_d);
        for (int j = 0; j < m_d; ++j) v[j] += z[b] * row[j];
      }
      for (int j = 0; j < m_d; ++j) v[j] += noise * gaussianish(s);
      normalizeRow(v, m_d);
    }
  }

  int m_d;
  int m_clusters;
  std::uint64_t m_seed;
  std::vector<float> m_centres;
  std::vector<float> m_basis;
};

// Exact top-k by inner product with a plain GEMM: scores of a block of queries against a block of
// documents (one sgemm_), then each query's k best kept in a min-heap (threads split the
// queries). What numpy's `Q @ D.T` + argpartition does, without numpy. Results best first.
class GemmTopK {
 public:
  GemmTopK(const float* queries, std::size_t nq, int d, std::size_t k, unsigned threads = 2)
      : m_q(queries), m_nq(nq), m_d(d), m_k(k), m_threads(threads), m_heaps(nq) {
    for (auto& h : m_heaps) h.reserve(k);
  }

  // Scores every query against documents first..first+n-1 (n x d floats, row-major).
  void addDocuments(const float* docs, std::size_t n, std::int64_t first) {
    constexpr std::size_t kQueryBlock = 1024, kDocBlock = 16384;
    m_scratch.resize(kQueryBlock * kDocBlock);
    for (std::size_t q0 = 0; q0 < m_nq; q0 += kQueryBlock) {
      const std::size_t qn = std::min(kQueryBlock, m_nq - q0);
      for (std::size_t d0 = 0; d0 < n; d0 += kDocBlock) {
        const std::size_t dn = std::min(kDocBlock, n - d0);
        // Column-major view: docs block is d x dn (lda d), queries d x qn; C = D^T Q is dn x qn,
        // i.e. row-major qn x dn: one row of document scores per query.
        const int m = int(dn), nn = int(qn), kk = m_d, ld = m_d, ldc = int(dn);
        const float one = 1.0f, zero = 0.0f;
        sgemm_("T", "N", &m, &nn, &kk, &one, docs + d0 * std::size_t(m_d), &ld,
               m_q + q0 * std::size_t(m_d), &ld, &zero, m_scratch.data(), &ldc);
        parallel(qn, [&](std::size_t a, std::size_t b) {
          for (std::size_t q = a; q < b; ++q)
            push(m_heaps[q0 + q], m_scratch.data() + q * dn, dn, first + std::int64_t(d0));
        });
      }
    }
  }

  // Query q's (score, position) pairs, best first (ties: lower position first).
  std::vector<std::pair<float, std::int64_t>> result(std::size_t q) const {
    auto r = m_heaps[q];
    std::sort(r.begin(), r.end(), better);
    return r;
  }

 private:
  using Hit = std::pair<float, std::int64_t>;
  static bool better(const Hit& a, const Hit& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }

  void push(std::vector<Hit>& heap, const float* scores, std::size_t n, std::int64_t first) const {
    // heap.front() is the worst kept hit once the heap is full.
    std::size_t i = 0;
    for (; i < n && heap.size() < m_k; ++i) {
      heap.emplace_back(scores[i], first + std::int64_t(i));
      std::push_heap(heap.begin(), heap.end(), better);
    }
    for (; i < n; ++i) {
      if (scores[i] <= heap.front().first) continue;
      std::pop_heap(heap.begin(), heap.end(), better);
      heap.back() = {scores[i], first + std::int64_t(i)};
      std::push_heap(heap.begin(), heap.end(), better);
    }
  }

  void parallel(std::size_t n, const std::function<void(std::size_t, std::size_t)>& f) const {
    std::vector<std::thread> workers;
    const std::size_t per = (n + m_threads - 1) / m_threads;
    for (unsigned t = 1; t < m_threads; ++t) {
      const std::size_t a = std::min(n, t * per), b = std::min(n, a + per);
      if (a < b) workers.emplace_back(f, a, b);
    }
    f(0, std::min(n, per));
    for (auto& w : workers) w.join();
  }

  const float* m_q;
  std::size_t m_nq;
  int m_d;
  std::size_t m_k;
  unsigned m_threads;
  std::vector<std::vector<Hit>> m_heaps;
  std::vector<float> m_scratch;
};

// |approx ∩ exact| / |exact| of one query's top-k positions.
inline double recallOf(const std::int64_t* approx, std::size_t k,
                       const std::vector<std::pair<float, std::int64_t>>& exact) {
  if (exact.empty()) return 1.0;
  std::vector<std::int64_t> truth;
  for (const auto& e : exact) truth.push_back(e.second);
  std::sort(truth.begin(), truth.end());
  std::size_t hits = 0;
  for (std::size_t i = 0; i < k; ++i)
    if (approx[i] >= 0 && std::binary_search(truth.begin(), truth.end(), approx[i])) ++hits;
  return double(hits) / double(truth.size());
}

}  // namespace ragscope::bench
