// What the CPU simulator finds about a GPU launch of a user kernel, made off the UI thread.
//
// The GPU records nobody's stores and does not fault on a small overrun, so on the CUDA backend
// the lab replays each new launch shape of a user kernel on the CPU simulator: the owners give
// the mapping (flat, grid-stride, 2D, 2D transposed) the overlay and inspector draw, and the
// replay's bounds checks catch an off-by-one guard the GPU missed. That needs the same source
// built for the CPU (g++: ~260 ms, more than the whole GPU edit-to-result) and one simulated
// launch. Neither may stand between an edit and its GPU result (issue 32), so:
//
//   CpuFindingsWorker worker;                 // one thread, started at the first job
//   worker.submit(key, [=] { return find_on_cpu(book, kernel, problem, launched, ...); });
//   ... the GPU record is shown at once, saying the mapping is being recorded ...
//   for (auto& [key, f] : worker.take()) ...  // each frame: findings that arrived
//
// Jobs run one at a time in the order given (two g++ at once on a 2-core machine would slow the
// window's own work); a newer job for a key already waiting replaces nothing (the key is the
// launch shape of one source, so the same key is the same work). The destructor drops the jobs
// still waiting and finishes the one in hand (bounded by the compiler's and the launch's limits).
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "labs/custom/user_kernels.hpp"

namespace bs::custom {

struct CpuFindings {
  std::optional<IndexScheme> scheme;               // nullopt: no closed form, or could not be derived
  std::string note;                                // how the owners were found, or why there are none
  std::optional<OutOfBoundsReport> out_of_bounds;  // the replay hit a stray access
  double build_ms = 0;                             // the CPU build (0.1 ms when the compile cache or the book had it)
  double replay_ms = 0;                            // the simulated launch
};

// Builds exactly `k.source` for the CPU (the book's stored build when it is of that source; else
// compiled, and handed to the book, which keeps it only if the kernel's source is still that) and
// replays the launch `launched` (its grid and block, whatever the rule) once, untimed, recording
// owners. Thread-safe: reads only its arguments and the thread-safe book and engine.
CpuFindings find_on_cpu(UserKernelBook& book, const UserKernel& k, const Problem& problem, const LaunchConfig& launched,
                        unsigned workers, double time_limit_s);

class CpuFindingsWorker {
 public:
  using Job = std::function<CpuFindings()>;
  CpuFindingsWorker() = default;
  ~CpuFindingsWorker();
  CpuFindingsWorker(const CpuFindingsWorker&) = delete;
  CpuFindingsWorker& operator=(const CpuFindingsWorker&) = delete;

  // Queues `job` unless one for `key` is waiting or running.
  void submit(std::string key, Job job);
  // A job waiting or running for `key` (or for any key when empty).
  bool pending(const std::string& key = {}) const;
  // A job waiting or running, or findings finished and not yet taken.
  bool busy() const;
  // The findings finished since the last call, in the order they finished.
  std::vector<std::pair<std::string, CpuFindings>> take();
  // Blocks until no job is waiting or running (tools and tests; never the UI thread).
  void wait_idle();

 private:
  void loop();
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::pair<std::string, Job>> queue_;
  std::string running_;  // the key in hand; empty: none
  std::vector<std::pair<std::string, CpuFindings>> done_;
  bool stop_ = false;
  std::thread thread_;  // started at the first submit
};

}  // namespace bs::custom
