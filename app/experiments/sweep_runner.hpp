// A sweep on a worker thread, so the window keeps drawing while it measures. The worker forks
// the lab (the same problem on the same backend in a second object: Lab::fork), runs the sweep
// on the fork (kernels/lab/sweep.hpp) at a lower CPU priority than the window's thread, and
// hands each finished point and the progress to the window through a mutex; the window polls
// them once a frame and never waits for the worker.
//
//   SweepRunner runner;
//   runner.start(lab, spec);              // returns at once
//   each frame: runner.forking()          // true while the fork copies the lab: leave the lab be
//               auto p = runner.progress();   auto fresh = runner.take_new_records();
//               if (auto done = runner.take_result()) ...
//   runner.cancel();                      // keeps the points measured so far
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "counters/counters.hpp"
#include "lab/lab.hpp"
#include "lab/sweep.hpp"

namespace bs::app {

class SweepRunner {
 public:
  SweepRunner() = default;
  ~SweepRunner();  // cancels a running sweep and waits for its worker
  SweepRunner(const SweepRunner&) = delete;
  SweepRunner& operator=(const SweepRunner&) = delete;

  // Starts sweeping a fork of `lab`. `lab` must not change until forking() is false (the fork
  // reads it on the worker). Refused while a sweep runs.
  // `counters`: once every point is timed, each one that ran is profiled once (hardware
  // counters, measured/bench_counters.hpp, with these options: the app's --cupti) on the same
  // fork; the result's records carry them.
  Status start(const lab::Lab& lab, lab::SweepSpec spec,
               std::optional<counters::CounterOptions> counters = std::nullopt);
  void cancel();
  // The worker forks at once but times its first point only after go(): the window calls it once
  // the GL work of the frame that started the sweep is done (a software renderer draws a frame
  // on every core for about 0.1 s after its calls returned). Without go() it measures after
  // kGoTimeoutS anyway.
  void go() { go_ = true; }
  bool waiting_for_go() const { return running_.load() && !go_.load(); }
  static constexpr double kGoTimeoutS = 2.0;

  bool running() const { return running_.load(); }
  bool forking() const { return forking_.load(); }
  bool cancelling() const { return cancel_.load(); }
  std::string lab_id() const { return lab_id_; }

  struct Progress {
    lab::SweepProgress sweep;
    bool forking = false;
    double started_s = 0;  // seconds since start()
  };
  Progress progress() const;
  // The points finished since the last call (refused ones too), in order.
  std::vector<LaunchRecord> take_new_records();
  // The whole result, once, when the sweep has finished (complete, cancelled, faulted or failed
  // to fork: then `fault` or `note` says why).
  std::optional<lab::SweepResult> take_result();

 private:
  void work(const lab::Lab* lab, lab::SweepSpec spec, std::optional<counters::CounterOptions> counters);
  void join();

  std::thread worker_;
  std::atomic<bool> running_{false}, forking_{false}, cancel_{false}, go_{false};
  std::string lab_id_;
  std::chrono::steady_clock::time_point started_{};
  mutable std::mutex mutex_;  // guards everything below
  lab::SweepProgress progress_;
  mutable lab::SweepProgress last_progress_;  // the window's copy, when the lock was busy
  std::vector<LaunchRecord> fresh_;
  std::optional<lab::SweepResult> result_;
};

}  // namespace bs::app
