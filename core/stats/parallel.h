#pragma once
// Splits an index range [0, count) into contiguous chunks, one per worker (std::jthread). Workers
// write to their own slots or return per-chunk partial results, so results depend on the index
// and never on the number of workers or their timing.

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace ragscope::core::stats {

// Requested worker count (0 = the machine's hardware concurrency), reduced so each worker gets
// at least `minPerWorker` units of work (threads cost ~50 us to start; tiny jobs stay inline).
inline unsigned resolveThreads(unsigned requested, std::size_t workUnits,
                               std::size_t minPerWorker = 20000) {
  unsigned t = requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t byWork =
      std::max<std::size_t>(1, workUnits / std::max<std::size_t>(1, minPerWorker));
  return static_cast<unsigned>(std::min<std::size_t>(t, byWork));
}

// Calls fn(chunk, begin, end) for `threads` contiguous chunks of [0, count); chunk 0 runs on the
// calling thread. Returns once all chunks are done.
template <class Fn>
void forChunks(std::size_t count, unsigned threads, Fn&& fn) {
  threads = std::max(
      1u, static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, count))));
  if (threads == 1) {
    fn(0u, std::size_t{0}, count);
    return;
  }
  std::vector<std::jthread> workers;
  workers.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) {
    const std::size_t begin = count * t / threads;
    const std::size_t end = count * (t + 1) / threads;
    workers.emplace_back([&fn, t, begin, end] { fn(t, begin, end); });
  }
  fn(0u, std::size_t{0}, count / threads);
  // jthread joins on destruction.
}

}  // namespace ragscope::core::stats
