// The one host-side parallel loop: body(task) for every task in [0, tasks) on `workers` threads,
// the caller being one of them, tasks handed out one at a time. For the labs' host work that
// scales with the problem (references, random data, layout conversions), so making an 8192^2
// problem takes the host's cores, not one of them.
#pragma once
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace bs {

// `requested` threads (0: one per hardware thread), never more than there are tasks.
inline unsigned worker_count(unsigned requested, unsigned long long tasks) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned want = requested ? requested : hw;
  return static_cast<unsigned>(std::max<unsigned long long>(1, std::min<unsigned long long>(want, tasks)));
}

template <class Body>
void parallel_tasks(unsigned workers, unsigned long long tasks, Body&& body) {
  std::atomic<unsigned long long> next{0};
  auto loop = [&] {
    for (unsigned long long t; (t = next.fetch_add(1, std::memory_order_relaxed)) < tasks;) body(t);
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w) threads.emplace_back(loop);
  loop();
  for (auto& t : threads) t.join();
}

// body(begin, end) over [0, n) in chunks of `chunk` items, on every core when n is large.
template <class Body>
void parallel_chunks(unsigned long long n, unsigned long long chunk, Body&& body) {
  const unsigned long long tasks = (n + chunk - 1) / chunk;
  parallel_tasks(worker_count(0, tasks), tasks,
                 [&](unsigned long long t) { body(t * chunk, std::min(n, (t + 1) * chunk)); });
}

}  // namespace bs
