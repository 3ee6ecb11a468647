// Claim metrics benchmark (not run by ctest). Target from issue 13: RAGChecker's eleven metrics
// over 100,000 examples x 20 claims x 10 chunks in under 0.5 s (Release build).
//
//   bench_claims [examples]      (default 100000)
//
// Each example has 20 response claims and 20 gold-answer claims against 10 chunks, so 400 cells
// in each of the two claim x chunk matrices plus 40 claim labels; labels are drawn at random
// (Entailment 30%, Neutral 60%, Contradiction 10%; with 1% unparsed for ragscope's mode).

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "core/claims/ragchecker.h"
#include "core/stats/random.h"

using namespace ragscope::core;
using namespace ragscope::core::claims;

namespace {

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

void timeIt(const char* label, int reps, const std::function<double()>& fn) {
  std::vector<double> ms;
  double check = 0.0;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    check += fn();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%-52s best %8.1f ms  median %8.1f ms  (checksum %.6g)\n", label, ms.front(),
              ms[ms.size() / 2], check);
}

Label draw(stats::Rng& rng, double unparsed) {
  const double u = rng.uniform();
  if (u < unparsed) return Label::Unparsed;
  if (u < unparsed + 0.3) return Label::Entailment;
  if (u < unparsed + 0.9) return Label::Neutral;
  return Label::Contradiction;
}

std::vector<ClaimExample> makeCorpus(std::size_t n, double unparsed) {
  constexpr std::size_t R = 20, G = 20, K = 10;
  std::vector<ClaimExample> corpus(n);
  stats::Rng rng(13);
  for (std::size_t e = 0; e < n; ++e) {
    ClaimExample& ex = corpus[e];
    ex.queryId = std::to_string(e);
    ex.resize(R, G, K);
    for (auto& l : ex.answer2response) l = draw(rng, unparsed);
    for (auto& l : ex.response2answer) l = draw(rng, unparsed);
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t k = 0; k < K; ++k) ex.retrieved2response.at(i, k) = draw(rng, unparsed);
    for (std::size_t j = 0; j < G; ++j)
      for (std::size_t k = 0; k < K; ++k) ex.retrieved2answer.at(j, k) = draw(rng, unparsed);
  }
  return corpus;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::size_t(std::atol(argv[1])) : 100000;
  std::printf("examples: %zu, 20 response + 20 gold claims x 10 chunks each\n", n);
  const auto clean = makeCorpus(n, 0.0);
  const auto holes = makeCorpus(n, 0.01);
  std::printf("peak RSS after building both corpora: %.1f MB\n", peakRssMb());

  timeIt("scoreCorpus, ragchecker mode (11 metrics + corpus)", 7,
         [&] { return scoreCorpus(clean, Mode::RagChecker)[Metric::F1].mean; });
  timeIt("scoreCorpus, ragscope mode (11 metrics + states)", 7,
         [&] { return scoreCorpus(clean, Mode::RagScope)[Metric::F1].mean; });
  timeIt("scoreCorpus, ragscope mode, 1% unparsed labels", 7,
         [&] { return scoreCorpus(holes, Mode::RagScope)[Metric::Faithfulness].mean; });
  std::printf("peak RSS: %.1f MB\n", peakRssMb());
  return 0;
}
