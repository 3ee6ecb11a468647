#pragma once
// Seeded synthetic TREC files for the benchmarks (shared by bench_parse_run and bench_eval).

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace ragscope::bench {

// Writes `queries` x `depth` run lines in rank order (scores descending), MS MARCO-like ids.
// Returns bytes written. `relevant` (if given) receives, per query, docnos to judge relevant.
inline std::uint64_t writeRun(const std::string& path, int queries, int depth, std::uint64_t seed,
                              std::vector<std::vector<std::string>>* relevant = nullptr) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::mt19937_64 rng(seed);
  std::vector<char> buf(1 << 20);
  std::size_t used = 0;
  std::uint64_t total = 0;
  char line[160];
  if (relevant) relevant->assign(static_cast<std::size_t>(queries), {});
  for (int q = 0; q < queries; ++q) {
    // Distinct qids; docnos distinct within a query (a repeat would be an input error).
    const unsigned qid =
        1000000u + static_cast<unsigned>(q) * 1291u + static_cast<unsigned>(rng() % 1291u);
    std::unordered_set<unsigned> taken;
    double score = 30.0 + static_cast<double>(rng() % 1000) / 100.0;
    const int relCount = 1 + (rng() % 10 == 0 ? 1 : 0);  // ~1.1 relevant per query
    for (int r = 0; r < relCount && relevant; ++r) {
      const unsigned doc = static_cast<unsigned>(rng() % 8841823u);
      (*relevant)[static_cast<std::size_t>(q)].push_back(std::to_string(qid) + " " +
                                                         std::to_string(doc));
    }
    for (int d = 0; d < depth; ++d) {
      score -= static_cast<double>(rng() % 1000) / 100000.0;
      unsigned doc;
      do doc = static_cast<unsigned>(rng() % 8841823u);
      while (taken.count(doc));
      // Put about 60% of the relevant docs somewhere in the ranking.
      if (relevant && d == static_cast<int>(rng() % static_cast<unsigned>(depth * 5 / 3)) &&
          !(*relevant)[static_cast<std::size_t>(q)].empty()) {
        const auto& j = (*relevant)[static_cast<std::size_t>(q)].front();
        const auto rel = static_cast<unsigned>(std::stoul(j.substr(j.find(' ') + 1)));
        if (!taken.count(rel)) doc = rel;
      }
      taken.insert(doc);
      const int n =
          std::snprintf(line, sizeof line, "%u Q0 %u %d %.6f bench.run\n", qid, doc, d + 1, score);
      if (used + static_cast<std::size_t>(n) > buf.size()) {
        std::fwrite(buf.data(), 1, used, f);
        used = 0;
      }
      std::memcpy(buf.data() + used, line, static_cast<std::size_t>(n));
      used += static_cast<std::size_t>(n);
      total += static_cast<std::uint64_t>(n);
    }
  }
  std::fwrite(buf.data(), 1, used, f);
  std::fclose(f);
  return total;
}

// The retrieval benchmark's files in `dir`: run.txt (6,980 queries x 1,000 documents, as the MS
// MARCO dev subset) and qrels.txt judging its relevant documents. Prints what it wrote.
inline bool writeEvalFiles(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::vector<std::vector<std::string>> relevant;
  const auto bytes = writeRun((dir / "run.txt").string(), 6980, 1000, 7, &relevant);
  std::FILE* q = std::fopen((dir / "qrels.txt").c_str(), "wb");
  if (!q || !bytes) return false;
  std::size_t n = 0;
  for (const auto& rels : relevant)
    for (const auto& r : rels) {
      const auto space = r.find(' ');
      std::fprintf(q, "%s 0 %s 1\n", r.substr(0, space).c_str(), r.substr(space + 1).c_str());
      ++n;
    }
  std::fclose(q);
  std::printf("wrote %s: run %llu bytes, qrels %zu judgments\n", dir.c_str(),
              static_cast<unsigned long long>(bytes), n);
  return true;
}

}  // namespace ragscope::bench
