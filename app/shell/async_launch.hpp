// Launches on a worker thread, so the window keeps drawing while the CPU simulator works: a
// matmul rung with __syncthreads runs every thread of a block as a fiber and switches at each
// barrier, and one launch at 128^3 takes ~100 ms on two cores (the window fell to 7 frames a
// second when it ran on the frame loop).
//
// The worker runs a fork of the lab (lab::Lab::fork: the same problem in a second object, made on
// the frame loop's thread while nothing else touches the lab) into a host buffer. The frame loop
// polls take() once a frame and hands the record and the output to the view
// (LabView::show_result), which uploads it. One launch at a time: asking for another while one
// runs cancels it (RunOptions::cancel) and starts the new one when the worker is free. The fork
// is kept while the problem is the same (`problem_key`), so continuous runs do not copy the data
// every frame.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/launch_record.hpp"
#include "lab/lab.hpp"

namespace bs::app {

class AsyncLaunch {
 public:
  struct Request {
    std::string slot;         // whose launch (a lab id): the answer goes back to it
    std::string problem_key;  // the problem it ran on; a fork is reused while this is the same
    std::string kernel;
    KernelConfig config;
    lab::RunOptions options;  // output and cancel are set here
    bool changed = false;     // a new selection (the shell's bookkeeping, carried through)
  };
  struct Finished {
    Request request;
    LaunchRecord record;
    std::vector<std::uint8_t> output;  // the lab's output_bytes(), in host memory
    double wall_ms = 0;                // the worker's time for the run (launch, trace, verify)
    bool cancelled = false;
  };

  // `on_finished` is called on the worker thread after each launch ends (the window wakes up to
  // show it); it may be empty.
  explicit AsyncLaunch(std::function<void()> on_finished = {}) : on_finished_(std::move(on_finished)) {}
  ~AsyncLaunch();
  AsyncLaunch(const AsyncLaunch&) = delete;
  AsyncLaunch& operator=(const AsyncLaunch&) = delete;

  // Starts `r` on a fork of `lab` (forked now if the key changed). A launch in flight is
  // cancelled and `r` waits for the worker. A fork that fails is returned as a record of the
  // failure, at once.
  std::optional<LaunchRecord> start(const lab::Lab& lab, Request r);
  // The finished launch, once; nothing while it runs.
  std::optional<Finished> take();
  bool busy() const;
  // What is in flight (for the status bar): its kernel and how long it has run.
  std::string running_kernel() const;
  double running_ms() const;
  // Cancels whatever is in flight or waiting; its answer comes back marked cancelled.
  void cancel();
  // Forgets the fork (the problem changed, the compute session moved).
  void drop_fork();

 private:
  void worker_loop();

  std::function<void()> on_finished_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::thread worker_;
  bool stop_ = false;
  std::unique_ptr<lab::Lab> fork_;  // touched by the worker only while a request runs
  std::string fork_key_;
  std::optional<Request> waiting_;          // to start when the worker is free
  std::unique_ptr<lab::Lab> waiting_fork_;  // a fork for waiting_'s problem, made by start()
  std::optional<Request> running_;
  std::chrono::steady_clock::time_point started_{};
  std::optional<Finished> finished_;
  std::atomic<bool> cancel_{false};
};

}  // namespace bs::app
