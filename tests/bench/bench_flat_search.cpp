// Exact (flat) dense search benchmark (not run by ctest). The figure: 6,980 queries (the
// MS MARCO dev subset) over 1M vectors of 384 dimensions with core::VectorIndex flat (FAISS
// IndexFlatIP), next to a plain BLAS GEMM + top-k selection on the same vectors (what numpy's
// `Q @ D.T` + argpartition does), on this machine's cores.
//
//   bench_flat_search [VECTORS=1000000] [QUERIES=6980] [DIMENSIONS=384] [K=100]
//
// Vectors are seeded, random-but-clustered unit vectors (benchvectors.h). Both searches see the
// same vectors and queries; the figures printed are the wall and CPU seconds of each and how
// many of the GEMM's top-k the index returned (ties may swap places at the k-th score).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "benchvectors.h"
#include "core/retrieval/vectorindex.h"

using namespace ragscope;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when piped to a file
  std::size_t vectors = 1'000'000, queries = 6980, k = 100;
  int d = 384;
  if (argc > 1) vectors = std::strtoull(argv[1], nullptr, 10);
  if (argc > 2) queries = std::strtoull(argv[2], nullptr, 10);
  if (argc > 3) d = std::atoi(argv[3]);
  if (argc > 4) k = std::strtoull(argv[4], nullptr, 10);
  if (vectors == 0 || queries == 0 || d <= 0 || k == 0 || k > vectors) {
    std::fprintf(stderr, "usage: bench_flat_search [VECTORS] [QUERIES] [DIMENSIONS] [K]\n");
    return 2;
  }
  std::printf("flat search: %zu queries x %zu vectors of %d dimensions, top %zu, %u cores\n",
              queries, vectors, d, k, std::thread::hardware_concurrency());

  bench::ClusteredVectors gen(d, 1000, 384);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<float> docs(vectors * std::size_t(d)), qs(queries * std::size_t(d));
  gen.generate(0, vectors, docs.data());
  gen.generate(bench::ClusteredVectors::kQueryBase, queries, qs.data());
  std::printf("generated in %.1f s (%.0f MiB of documents)\n", secondsSince(t0),
              double(docs.size()) * 4.0 / 1048576.0);

  // core::VectorIndex flat: what `--ann flat` builds and searches.
  core::VectorIndexManifest m;
  m.embedder = "bench";
  m.model = "clustered";
  m.dimensions = d;
  m.normalized = true;
  m.documents = vectors;
  m.ann = core::AnnKind::Flat;
  std::string error;
  auto index = core::VectorIndex::create(m, &error);
  if (!index) {
    std::fprintf(stderr, "create: %s\n", error.c_str());
    return 1;
  }
  t0 = std::chrono::steady_clock::now();
  double cpu0 = bench::selfCpuSeconds();
  constexpr std::size_t kChunk = 65536;
  for (std::size_t a = 0; a < vectors; a += kChunk)
    if (!index->add(docs.data() + a * std::size_t(d), std::min(kChunk, vectors - a), &error)) {
      std::fprintf(stderr, "add: %s\n", error.c_str());
      return 1;
    }
  std::printf("VectorIndex flat add: %.2f s wall, %.2f s CPU\n", secondsSince(t0),
              bench::selfCpuSeconds() - cpu0);

  std::vector<float> scores;
  std::vector<std::int64_t> positions;
  t0 = std::chrono::steady_clock::now();
  cpu0 = bench::selfCpuSeconds();
  if (!index->search(qs.data(), queries, k, &scores, &positions, &error)) {
    std::fprintf(stderr, "search: %s\n", error.c_str());
    return 1;
  }
  const double faissWall = secondsSince(t0), faissCpu = bench::selfCpuSeconds() - cpu0;
  std::printf("VectorIndex flat search: %.2f s wall, %.2f s CPU (%.2f ms a query)\n", faissWall,
              faissCpu, faissWall * 1000.0 / double(queries));
  index.reset();  // its copy of the vectors

  // The plain BLAS baseline on the same (already unit) vectors.
  t0 = std::chrono::steady_clock::now();
  cpu0 = bench::selfCpuSeconds();
  bench::GemmTopK gemm(qs.data(), queries, d, k);
  gemm.addDocuments(docs.data(), vectors, 0);
  std::vector<std::vector<std::pair<float, std::int64_t>>> exact(queries);
  for (std::size_t q = 0; q < queries; ++q) exact[q] = gemm.result(q);
  const double gemmWall = secondsSince(t0), gemmCpu = bench::selfCpuSeconds() - cpu0;
  std::printf("BLAS sgemm + top-k: %.2f s wall, %.2f s CPU (%.2f ms a query)\n", gemmWall, gemmCpu,
              gemmWall * 1000.0 / double(queries));
  const double flops = 2.0 * double(queries) * double(vectors) * double(d);
  std::printf("inner products: %.2f TFLOP -> %.0f GFLOP/s (index), %.0f GFLOP/s (GEMM)\n",
              flops / 1e12, flops / faissWall / 1e9, flops / gemmWall / 1e9);

  // Agreement: the same top k (up to ties at the k-th score), and the same scores.
  double recall = 0.0, maxDiff = 0.0;
  for (std::size_t q = 0; q < queries; ++q) {
    recall += bench::recallOf(positions.data() + q * k, k, exact[q]);
    for (std::size_t i = 0; i < k && i < exact[q].size(); ++i)
      maxDiff = std::max(maxDiff, double(std::abs(scores[q * k + i] - exact[q][i].first)));
  }
  std::printf("index vs GEMM: top-%zu overlap %.5f, largest score difference at a rank %.2g\n", k,
              recall / double(queries), maxDiff);
  std::printf("index / GEMM time: %.2f\n", faissWall / gemmWall);
  std::printf("peak RSS %.0f MiB\n", bench::peakRssMiB());
  return 0;
}
