// IVF-PQ at MS MARCO scale (not run by ctest). The figure: 8.8M passages x 768
// dimensions with IVF-PQ "in a few GB", the memory stated, and recall@100 against exact search
// on a sample of queries.
//
//   bench_ivfpq_scale [VECTORS=1000000] [DIMENSIONS=768] [--lists L] [--m M] [--probe P]
//                     [--train T] [--queries Q=100] [--keep]
//
// First prints, on paper, the memory of the full collection (8,841,823 vectors) as float32 flat
// and as IVF-PQ codes with the parameters core::VectorIndex chooses (or those given). Then builds
// a core::VectorIndex IVF-PQ over VECTORS seeded random-but-clustered unit vectors
// (benchvectors.h: regenerated from their number, streamed in chunks of 65,536, never all held),
// trains it on the first T of them (default: as many as buildDenseIndex samples,
// core::ivfTrainingVectorsFor: 128 MiB of them), adds them all, saves it, opens it again as a dense
// retriever would, and searches Q queries for their top 100. Exact search runs on the same chunks
// as they stream by (a BLAS GEMM + top-k), so recall@100 = |IVF-PQ top 100 ∩ exact top 100| / 100
// over the Q queries. Prints build time, index size on disk, peak RSS (the whole run, and opening +
// searching alone) and the recall. VECTORS 8841823 runs the full scale (hours on 2 cores: the
// coarse assignment alone is 2 n L d flops).

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "benchvectors.h"
#include "core/retrieval/vectorindex.h"

using namespace ragscope;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMsMarco = 8'841'823;  // MS MARCO v1 passages
constexpr std::size_t kChunk = 65536;

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The IVF-PQ shape VectorIndex gives `n` vectors of `d` dimensions by default (vectorindex.h).
core::VectorIndexManifest shapeOf(std::size_t n, int d) {
  core::VectorIndexManifest m;
  m.dimensions = d;
  m.documents = n;
  m.ann = core::AnnKind::IvfPq;
  return m;
}
int defaultLists(std::size_t n, int d) { return core::ivfListsFor(shapeOf(n, d)); }
int defaultSubquantizers(int d) { return core::pqSubquantizersFor(shapeOf(1, d)); }

double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }
double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// Memory of an IVF-PQ index over n vectors, as FAISS holds it: per vector its code (m x bits)
// and its 8-byte id in an inverted list; the coarse centroids (lists x d floats); the PQ
// codebooks (m x 2^bits x d/m floats).
double ivfpqBytes(std::size_t n, int d, int lists, int m, int bits) {
  return double(n) * (double(m * bits) / 8.0 + 8.0) + double(lists) * d * 4.0 +
         double(m) * double(1 << bits) * double(d / m) * 4.0;
}

std::uint64_t folderBytes(const fs::path& dir) {
  std::uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when piped to a file
  std::size_t n = 1'000'000, queries = 100, train = 0;
  int d = 768, lists = 0, m = 0, probe = 0;
  bool keep = false;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : "0"; };
    if (a == "--lists")
      lists = std::atoi(next());
    else if (a == "--m")
      m = std::atoi(next());
    else if (a == "--probe")
      probe = std::atoi(next());
    else if (a == "--train")
      train = std::strtoull(next(), nullptr, 10);
    else if (a == "--queries")
      queries = std::strtoull(next(), nullptr, 10);
    else if (a == "--keep")
      keep = true;
    else if (positional++ == 0)
      n = std::strtoull(a.c_str(), nullptr, 10);
    else
      d = std::atoi(a.c_str());
  }
  constexpr std::size_t k = 100;
  if (n < k || d <= 0 || queries == 0) {
    std::fprintf(stderr,
                 "usage: bench_ivfpq_scale [VECTORS] [DIMENSIONS] [--lists L] [--m M] [--probe P] "
                 "[--train T] [--queries Q] [--keep]\n");
    return 2;
  }
  core::AnnParams params;
  const int bits = params.pqBits;

  // On paper: the full collection.
  {
    const int L = lists ? lists : defaultLists(kMsMarco, d);
    const int M = m ? m : defaultSubquantizers(d);
    const double flat = double(kMsMarco) * d * 4.0;
    const double ivfpq = ivfpqBytes(kMsMarco, d, L, M, bits);
    std::printf("MS MARCO on paper: %zu x %d\n", kMsMarco, d);
    std::printf("  float32 flat: %.1f GiB (%zu bytes a vector)\n", gib(flat), std::size_t(d) * 4);
    std::printf(
        "  IVF-PQ, %d lists, %d x %d-bit codes: %.2f GiB (%d-byte code + 8-byte id a vector = "
        "%.1f GiB; centroids %.1f MiB; codebooks %.1f MiB): %.0fx smaller\n",
        L, M, bits, gib(ivfpq), M * bits / 8, gib(double(kMsMarco) * (M * bits / 8 + 8)),
        mib(double(L) * d * 4), mib(double(M) * (1 << bits) * (d / M) * 4), flat / ivfpq);
  }

  const int L = lists ? lists : defaultLists(n, d);
  const int M = m ? m : defaultSubquantizers(d);
  // buildDenseIndex's sample (corpusembedding.cpp): as many vectors as kIvfTrainingBytes holds.
  if (train == 0) train = core::ivfTrainingVectorsFor(shapeOf(n, d));
  train = std::min(train, n);
  std::printf(
      "benchmark: %zu x %d, %d lists, %d codes, probe %s, trained on %zu, %zu queries, "
      "%u cores\n",
      n, d, L, M, probe ? std::to_string(probe).c_str() : "default", train, queries,
      std::thread::hardware_concurrency());
  std::printf("  on paper: flat %.2f GiB, IVF-PQ %.2f GiB\n", gib(double(n) * d * 4.0),
              gib(ivfpqBytes(n, d, L, M, bits)));

  bench::ClusteredVectors gen(d, int(std::max<std::size_t>(100, n / 1000)), 768);
  std::vector<float> qs(queries * std::size_t(d));
  gen.generate(bench::ClusteredVectors::kQueryBase, queries, qs.data());

  core::VectorIndexManifest manifest;
  manifest.embedder = "bench";
  manifest.model = "clustered";
  manifest.dimensions = d;
  manifest.normalized = true;
  manifest.documents = n;
  manifest.ann = core::AnnKind::IvfPq;
  manifest.params.ivfLists = lists;
  manifest.params.pqSubquantizers = m;
  if (probe) manifest.params.ivfProbe = probe;
  std::string error;
  auto index = core::VectorIndex::create(manifest, &error);
  if (!index) {
    std::fprintf(stderr, "create: %s\n", error.c_str());
    return 1;
  }
  manifest = index->manifest();  // with whatever create() settled

  const auto start = std::chrono::steady_clock::now();
  double generateSeconds = 0.0, exactSeconds = 0.0, addSeconds = 0.0;
  {
    std::vector<float> sample(train * std::size_t(d));
    auto t = std::chrono::steady_clock::now();
    gen.generate(0, train, sample.data());
    generateSeconds += secondsSince(t);
    t = std::chrono::steady_clock::now();
    const double cpu0 = bench::selfCpuSeconds();
    if (!index->train(sample.data(), train, &error)) {
      std::fprintf(stderr, "train: %s\n", error.c_str());
      return 1;
    }
    std::printf("train: %.1f s wall, %.1f s CPU\n", secondsSince(t),
                bench::selfCpuSeconds() - cpu0);
  }

  bench::GemmTopK exact(qs.data(), queries, d, k);
  std::vector<float> chunk(kChunk * std::size_t(d));
  for (std::size_t first = 0; first < n; first += kChunk) {
    const std::size_t count = std::min(kChunk, n - first);
    auto t = std::chrono::steady_clock::now();
    gen.generate(first, count, chunk.data());
    generateSeconds += secondsSince(t);
    t = std::chrono::steady_clock::now();
    if (!index->add(chunk.data(), count, &error)) {
      std::fprintf(stderr, "add: %s\n", error.c_str());
      return 1;
    }
    addSeconds += secondsSince(t);
    t = std::chrono::steady_clock::now();
    exact.addDocuments(chunk.data(), count, std::int64_t(first));
    exactSeconds += secondsSince(t);
    if ((first / kChunk) % 16 == 15)
      std::printf("  %zu added (%.0f s)\n", first + count, secondsSince(start));
  }
  std::printf("add: %.1f s wall (%.0f vectors/s)\n", addSeconds, double(n) / addSeconds);
  chunk = {};

  const auto dir =
      fs::temp_directory_path() / ("ragscope-bench-ivfpq-" + std::to_string(::getpid())) / "index";
  fs::create_directories(dir.parent_path());
  auto t = std::chrono::steady_clock::now();
  if (!index->save(dir, &error)) {
    std::fprintf(stderr, "save: %s\n", error.c_str());
    return 1;
  }
  const double saveSeconds = secondsSince(t);
  const double buildSeconds = secondsSince(start) - generateSeconds - exactSeconds;
  index.reset();
  const std::uint64_t onDisk = folderBytes(dir);
  const double buildPeak = bench::peakRssMiB();
  std::printf(
      "build (train + add + save, without generating %.0f s and exact search %.0f s): "
      "%.1f s; save %.1f s\n",
      generateSeconds, exactSeconds, buildSeconds, saveSeconds);
  std::printf("index on disk: %.1f MiB (%.1f bytes a vector); flat would be %.1f MiB\n",
              mib(double(onDisk)), double(onDisk) / double(n), mib(double(n) * d * 4.0));
  std::printf(
      "peak RSS while building (generator chunk %.0f MiB, training sample %.0f MiB "
      "included): %.0f MiB\n",
      mib(double(kChunk) * d * 4), mib(double(train) * d * 4), buildPeak);

  // Serving: open as a dense retriever does, search, compare with the exact top 100.
  const double rss0 = bench::rssMiB();
  const bool reset = bench::resetPeakRss();
  t = std::chrono::steady_clock::now();
  std::string why;
  auto opened = core::VectorIndex::open(dir, manifest, &why);
  if (!opened) {
    std::fprintf(stderr, "open: %s\n", why.c_str());
    return 1;
  }
  const double openSeconds = secondsSince(t);
  const double rssOpen = bench::rssMiB();
  std::vector<float> scores;
  std::vector<std::int64_t> positions;
  t = std::chrono::steady_clock::now();
  if (!opened->search(qs.data(), queries, k, &scores, &positions, &error)) {
    std::fprintf(stderr, "search: %s\n", error.c_str());
    return 1;
  }
  const double searchSeconds = secondsSince(t);
  double recall100 = 0.0, recall10 = 0.0;
  for (std::size_t q = 0; q < queries; ++q) {
    const auto truth = exact.result(q);
    recall100 += bench::recallOf(positions.data() + q * k, k, truth);
    const std::vector<std::pair<float, std::int64_t>> top10(truth.begin(), truth.begin() + 10);
    recall10 += bench::recallOf(positions.data() + q * k, 10, top10);
  }
  std::printf("open: %.2f s, RSS +%.0f MiB; search %zu queries: %.3f s (%.2f ms a query)\n",
              openSeconds, rssOpen - rss0, queries, searchSeconds,
              searchSeconds * 1000.0 / double(queries));
  if (reset)
    std::printf("peak RSS while opening and searching: %.0f MiB (of it before opening: %.0f)\n",
                bench::peakRssMiB(), rss0);
  std::printf("recall@100 against exact search: %.3f (recall@10 of the exact top 10: %.3f)\n",
              recall100 / double(queries), recall10 / double(queries));
  if (!keep) fs::remove_all(dir.parent_path());
  return 0;
}
