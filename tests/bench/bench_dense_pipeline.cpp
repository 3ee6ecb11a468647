// Dense retrieval end to end (not run by ctest). The figure: 200,000 passages embedded
// against a local test server, indexed and searched for 200 topics (top 100) well inside 10
// minutes on 2 cores, with peak RSS <= 400 MiB, and the time split between the server, the
// client and FAISS.
//
//   bench_dense_pipeline [PASSAGES=200000] [--dim D=384] [--batch B=64] [--concurrency C=8]
//                        [--topics T=200] [--k K=100] [--ann flat|hnsw|ivfpq] [--compressed]
//                        [--keep]
//
// Writes a seeded synthetic MS MARCO-like collection (`pid<TAB>passage`, ~380 bytes a line)
// into a temp folder and loads it with the project's loader (at this size the texts stay in the
// file, as for the real collection). Starts ragscope-testserver as a separate process whose
// /v1/embeddings returns D-dimensional vectors, uncompressed as vLLM and TEI send them
// (--compressed: as the client accepts, which cpp-httplib answers with brotli at quality 11, a
// test-server cost of about 0.5 CPU seconds a batch that no real server pays), then runs the real
// code path: buildDenseIndex (corpusembedding.h: the run engine embeds the corpus in batches into
// its store, then the FAISS index is built from the stored vectors and saved) and retrieveAll over
// a DenseRetriever (denseretriever.h: each topic embedded by the QueryEmbedder, then searched in
// the index).
//
// Prints, for each phase, the wall time, this process's CPU time (the client, FAISS included),
// the server process's CPU time (from /proc/PID/stat) and this process's peak RSS in that phase
// (VmHWM, reset between phases through /proc/self/clear_refs); FAISS's own share is measured
// apart: an index of the same kind filled with as many vectors and saved, and the searches of the
// topics' vectors. The trust registry and cache go to the temp folder (XDG_CONFIG_HOME,
// XDG_CACHE_HOME), never to the user's.

#include <malloc.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchvectors.h"
#include "core/data/dataset.h"
#include "core/data/loaders.h"
#include "core/retrieval/corpusembedding.h"
#include "core/retrieval/denseretriever.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/vectorindex.h"
#include "serverprocess.h"

extern char** environ;

using namespace ragscope;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// ragscope-testserver as a child process (serverprocess.h), with its CPU time for the split.
struct ServerProcess : bench::ServerProcess {
  bool start(int dimensions, bool compressed) {
    std::vector<std::string> args = {"--embedding-dim", std::to_string(dimensions), "--threads",
                                     "32"};
    if (!compressed) args.push_back("--no-compression");
    return bench::ServerProcess::start(RAGSCOPE_TESTSERVER_PATH, args);
  }
  double cpuSeconds() const { return pid > 0 ? bench::processCpuSeconds(pid) : 0.0; }
};

// English-like words: Zipf-distributed over a vocabulary of random letter strings.
struct Words {
  std::vector<std::string> words;
  std::vector<double> cumulative;

  explicit Words(std::mt19937_64& rng, std::size_t size = 20000) {
    static const char* kCommon[] = {"the", "of",   "and", "to",   "a",  "in",   "is",
                                    "for", "that", "are", "with", "by", "from", "this"};
    for (const char* w : kCommon) words.emplace_back(w);
    const std::string letters = "etaoinshrdlcumwfgypbvkjxqz";
    while (words.size() < size) {
      std::string w;
      const std::size_t length = 3 + rng() % 8;
      for (std::size_t i = 0; i < length; ++i) w += letters[std::min(rng() % 26, rng() % 26)];
      words.push_back(std::move(w));
    }
    double sum = 0.0;
    for (std::size_t r = 1; r <= words.size(); ++r) cumulative.push_back(sum += 1.0 / double(r));
    for (double& c : cumulative) c /= sum;
  }

  const std::string& draw(std::mt19937_64& rng) const {
    const double u = double(rng() >> 11) / double(1ull << 53);
    const auto at =
        std::size_t(std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
    return words[std::min(at, words.size() - 1)];
  }
};

std::uint64_t writeCollection(const fs::path& path, std::size_t passages, const Words& words,
                              std::mt19937_64& rng) {
  std::ofstream out(path, std::ios::binary);
  std::normal_distribution<double> length(378.0, 120.0);
  std::string line;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < passages; ++i) {
    line = std::to_string(i) + '\t';
    const auto target = line.size() + std::size_t(std::clamp(length(rng), 40.0, 1500.0));
    while (line.size() < target) {
      line += words.draw(rng);
      line += ' ';
    }
    line.back() = '\n';
    out.write(line.data(), std::streamsize(line.size()));
    bytes += line.size();
  }
  return bytes;
}

std::uint64_t folderBytes(const fs::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

// One phase's figures: wall, client CPU, server CPU, this process's RSS when it began and its
// peak RSS in the phase, and the heap bytes malloc had handed out (and not taken back) at its end.
struct Phase {
  const char* name;
  double wall = 0, client = 0, server = 0, startMiB = 0, peakMiB = 0, heapMiB = 0;
};

double heapInUseMiB() {
  const struct mallinfo2 m = mallinfo2();
  return double(m.uordblks + m.hblkhd) / 1048576.0;
}

struct Meter {
  const ServerProcess* server;
  Clock::time_point t;
  double client = 0, serverCpu = 0, rss = 0;

  void start() {
    bench::resetPeakRss();
    rss = bench::rssMiB();
    t = Clock::now();
    client = bench::selfCpuSeconds();
    serverCpu = server->cpuSeconds();
  }
  Phase stop(const char* name) const {
    return {name,
            secondsSince(t),
            bench::selfCpuSeconds() - client,
            server->cpuSeconds() - serverCpu,
            rss,
            bench::peakRssMiB(),
            heapInUseMiB()};
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when piped to a file
  std::size_t passages = 200'000, topics = 200, k = 100, batch = core::kDefaultEmbedBatch;
  int dim = 384, concurrency = 8;
  core::AnnKind ann = core::AnnKind::Flat;
  bool keep = false, compressed = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : "0"; };
    if (a == "--dim")
      dim = std::stoi(next());
    else if (a == "--batch")
      batch = std::stoul(next());
    else if (a == "--concurrency")
      concurrency = std::stoi(next());
    else if (a == "--topics")
      topics = std::stoul(next());
    else if (a == "--k")
      k = std::stoul(next());
    else if (a == "--ann") {
      const auto kind = core::annKindFromName(next());
      if (!kind) {
        std::fprintf(stderr, "--ann: flat, hnsw or ivfpq\n");
        return 2;
      }
      ann = *kind;
    } else if (a == "--keep")
      keep = true;
    else if (a == "--compressed")
      compressed = true;
    else
      passages = std::stoul(a);
  }
  if (passages == 0 || topics == 0 || k == 0 || batch == 0 || dim <= 0) {
    std::fprintf(stderr,
                 "usage: bench_dense_pipeline [PASSAGES] [--dim D] [--batch B] [--concurrency C] "
                 "[--topics T] [--k K] [--ann flat|hnsw|ivfpq] [--compressed] [--keep]\n");
    return 2;
  }

  const fs::path dir =
      fs::temp_directory_path() / ("ragscope-bench-dense-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // buildDenseIndex records the endpoint as trusted: in this folder, not the user's registry.
  setenv("XDG_CONFIG_HOME", (dir / "config").c_str(), 1);
  setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);

  std::printf(
      "dense pipeline: %zu passages, %d dimensions, batch %zu, concurrency %d, %zu topics "
      "(top %zu), --ann %s, %u cores\n",
      passages, dim, batch, concurrency, topics, k, core::annKindName(ann),
      std::thread::hardware_concurrency());

  std::mt19937_64 rng(20240736);
  const Words words(rng);
  auto t0 = Clock::now();
  const fs::path collection = dir / "collection.tsv";
  const auto bytes = writeCollection(collection, passages, words, rng);
  std::vector<core::Query> queries(topics);
  for (std::size_t q = 0; q < topics; ++q) {
    queries[q].id = std::to_string(1000 + q);
    for (int w = 0, n = 3 + int(rng() % 6); w < n; ++w)
      queries[q].text += (w ? " " : "") + words.draw(rng);
  }
  std::printf("wrote %s: %.1f MiB in %.1f s\n", collection.c_str(), double(bytes) / 1048576.0,
              secondsSince(t0));

  ServerProcess server;
  if (!server.start(dim, compressed)) {
    std::fprintf(stderr, "cannot start %s\n", RAGSCOPE_TESTSERVER_PATH);
    return 1;
  }
  Meter meter{&server, {}, 0, 0, 0};
  std::vector<Phase> phases;

  meter.start();
  core::Dataset dataset;
  const core::LoadReport loaded = core::loadMsmarcoCollection(collection, dataset, {});
  if (dataset.corpus.size() != passages) {
    std::fprintf(stderr, "loaded %zu of %zu passages\n", dataset.corpus.size(), passages);
    return 1;
  }
  phases.push_back(meter.stop("load corpus"));
  (void)loaded;

  core::EmbedderSettings settings;
  settings.endpoint.name = "bench";
  settings.endpoint.kind = core::llm::EndpointKind::Embeddings;
  settings.endpoint.baseUrl = "http://127.0.0.1:" + std::to_string(server.port) + "/v1";
  settings.endpoint.model = "test-model";
  settings.endpoint.concurrency = concurrency;
  settings.docPrefix = "passage: ";
  settings.queryPrefix = "query: ";
  settings.batch = batch;

  core::DenseIndexOptions options;
  options.indexDir = dir / "index";
  options.ann = ann;
  std::atomic<bool> indexing{false};
  options.indexProgress = [&](std::uint64_t, std::uint64_t) {
    // The first vectors reach the index: embedding is over.
    if (!indexing.exchange(true)) {
      // (IVF-PQ trains between the two: its training lands in this phase.)
      phases.push_back(meter.stop(ann == core::AnnKind::IvfPq
                                      ? "embed corpus (engine) + IVF-PQ training"
                                      : "embed corpus (engine)"));
      meter.start();
    }
    return true;
  };
  meter.start();
  const auto built = core::buildDenseIndex(dataset.corpus, settings, options);
  if (!built.ok) {
    std::fprintf(stderr, "buildDenseIndex: %s\n", built.error.c_str());
    return 1;
  }
  phases.push_back(meter.stop("build index (read store + FAISS add + save)"));
  std::printf(
      "buildDenseIndex: %zu calls, embed %.1f s, index %.1f s; on disk %.0f MiB (store "
      "%.0f MiB)\n",
      built.calls, built.embedSeconds, built.indexSeconds,
      double(folderBytes(options.indexDir)) / 1048576.0,
      double(fs::file_size(built.store)) / 1048576.0);

  meter.start();
  core::DenseRetriever retriever(
      built.index,
      std::make_unique<core::QueryEmbedder>(settings, core::llm::TransportOptions{}, nullptr),
      dataset.corpus);
  core::RetrieveOptions ro;
  ro.k = k;
  ro.threads = 2;
  const auto run = core::retrieveAll(retriever, queries, ro);
  phases.push_back(meter.stop("search topics (embed query + FAISS)"));
  std::size_t rankings = run.value.rankings.size(), hits = 0;
  for (const auto& r : run.value.rankings) hits += r.entries.size();
  if (rankings != topics || hits != topics * k) {
    std::fprintf(stderr, "retrieveAll: %zu rankings, %zu hits (want %zu, %zu)\n", rankings, hits,
                 topics, topics * k);
    return 1;
  }

  // FAISS's own share: the topics' vectors searched alone (one at a time, as the retriever does),
  // and an index of the same kind over as many vectors filled and saved (what the index phase adds
  // to reading the store).
  core::QueryEmbedder embedder(settings, {}, nullptr);
  std::vector<float> qv(topics * std::size_t(dim));
  for (std::size_t q = 0; q < topics; ++q) {
    std::vector<float> v;
    std::string err;
    if (!embedder.embed(queries[q].text, dim, &v, &err)) {
      std::fprintf(stderr, "embed: %s\n", err.c_str());
      return 1;
    }
    std::copy(v.begin(), v.end(), qv.begin() + std::ptrdiff_t(q * std::size_t(dim)));
  }
  t0 = Clock::now();
  double cpu0 = bench::selfCpuSeconds();
  std::vector<float> scores;
  std::vector<std::int64_t> positions;
  std::string err;
  for (std::size_t q = 0; q < topics; ++q)
    built.index->search(qv.data() + q * std::size_t(dim), 1, k, &scores, &positions, &err);
  const double searchWall = secondsSince(t0), searchCpu = bench::selfCpuSeconds() - cpu0;

  // (Its vectors are a fresh copy, after the phases whose peaks are reported.)
  double addWall = 0, addCpu = 0, addPeak = 0;
  {
    bench::ClusteredVectors gen(dim, 200, 1);
    std::vector<float> v(passages * std::size_t(dim));
    gen.generate(0, passages, v.data());
    core::VectorIndexManifest m = built.index->manifest();
    m.corpusStamp = "bench";
    bench::resetPeakRss();
    const double before = bench::rssMiB();
    t0 = Clock::now();
    cpu0 = bench::selfCpuSeconds();
    auto fresh = core::VectorIndex::create(m, &err);
    if (fresh && fresh->needsTraining())  // IVF-PQ: on a sample, as buildDenseIndex does
      fresh->train(v.data(), std::min<std::size_t>(passages, 100'000), &err);
    for (std::size_t a = 0; fresh && a < passages; a += batch)
      fresh->add(v.data() + a * std::size_t(dim), std::min(batch, passages - a), &err);
    if (!fresh || !fresh->save(dir / "faiss-only", &err)) {
      std::fprintf(stderr, "faiss-only index: %s\n", err.c_str());
      return 1;
    }
    addWall = secondsSince(t0);
    addCpu = bench::selfCpuSeconds() - cpu0;
    addPeak = bench::peakRssMiB() - before;
  }

  double wall = 0, client = 0, serverCpu = 0, peak = 0;
  std::printf("\n%-46s %7s %10s %10s %9s %8s %8s\n", "phase", "wall s", "client CPU", "server CPU",
              "RSS from", "peak", "heap end");
  for (const auto& p : phases) {
    std::printf("%-46s %7.1f %10.1f %10.1f %9.0f %8.0f %8.0f\n", p.name, p.wall, p.client, p.server,
                p.startMiB, p.peakMiB, p.heapMiB);
    wall += p.wall;
    client += p.client;
    serverCpu += p.server;
    peak = std::max(peak, p.peakMiB);
  }
  std::printf("%-46s %7.1f %10.1f %10.1f %9s %8.0f\n", "total", wall, client, serverCpu, "", peak);
  std::printf("(MiB; RSS from: when the phase began; heap end: malloc's bytes in use after it)\n");
  std::printf(
      "FAISS alone: %s index, add of %zu vectors in batches of %zu + save %.2f s wall "
      "(%.2f s CPU), peak RSS %.0f MiB above the RSS before; %zu single-topic searches "
      "%.3f s wall (%.3f s CPU)\n",
      core::annKindName(built.index->manifest().ann), passages, batch, addWall, addCpu, addPeak,
      topics, searchWall, searchCpu);
  std::printf("vectors in the index: %.0f MiB (%zu x %d float32)\n",
              double(passages) * dim * 4.0 / 1048576.0, passages, dim);
  const bool pass = wall < 600.0 && peak <= 400.0;
  std::printf("target: under 10 minutes (%.1f s) and peak RSS <= 400 MiB (%.0f): %s\n", wall, peak,
              pass ? "PASS" : "FAIL");
  if (!keep) fs::remove_all(dir);
  return pass ? 0 : 1;
}
