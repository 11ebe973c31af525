// Profiles a lab's launch on a worker thread, so the window keeps drawing while CUPTI replays the
// kernel (about 15 passes, 0.4 s on an H200). The Measured tab owns one.
//
//   CounterWorker worker(counter_options);
//   worker.start(job, [&] { return view_lab.fork(); });   // UI thread; the fork is made here
//   ... every frame: worker.progress() for the bar; while worker.busy() the app makes no
//       launches of its own (the profile's passes must be the only work on the GPU)
//   if (auto done = worker.take_finished()) show(done->counters);
//
// The lab copy (lab::Lab::fork, on the caller's thread, where the lab lives) is kept for the
// next profile of the same problem: `Job::key` names the problem, and the copy is made again only
// when it changes. The CounterSession is created on the worker thread at the first profile and
// kept (again when the device changes); a failure to create it (no permission, no CUPTI) is that
// profile's result and is tried again at the next one.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/launch_record.hpp"
#include "counters/counters.hpp"
#include "lab/lab.hpp"
#include "sampling/pc_sampler.hpp"

namespace bs::measured {

class CounterWorker {
 public:
  explicit CounterWorker(counters::CounterOptions options = {});
  ~CounterWorker();  // waits for a profile in flight (about a second at most)
  CounterWorker(const CounterWorker&) = delete;
  CounterWorker& operator=(const CounterWorker&) = delete;

  // What a job measures: the hardware counters (the Measured tab) or the stall samples per
  // source line (the Source tab, through the sampler given with set_sampler).
  enum class What { Counters, Lines };
  struct Job {
    std::string key;  // the problem the lab copy must hold: lab, backend, problem, settings
    std::string kernel;
    KernelConfig config;
    LaunchRecord model;  // the launch the model side describes (the one the window shows)
    What what = What::Counters;
  };
  using Fork = std::function<Result<std::unique_ptr<lab::Lab>>()>;

  // Starts profiling `job` on the worker thread; `fork` is called first, here, when the kept
  // copy holds another problem. Refused while a profile runs, and when the copy cannot be made.
  Status start(Job job, const Fork& fork);
  bool busy() const { return busy_.load(std::memory_order_acquire); }

  struct Progress {
    bool busy = false;
    std::string stage;  // "loading CUPTI", "profiling", ""
    int passes_done = 0;
    int passes_total = 0;  // 0 while unknown
    double elapsed_s = 0;
    std::string kernel;
  };
  Progress progress() const;

  // The PC sampler for What::Lines jobs (made before the process's first launch, so it holds
  // the kernels' cubins), or why there is none.
  void set_sampler(std::shared_ptr<sampling::PcSampler> sampler, Status problem);

  // The finished profile, once: the job's model record with `counters` (What::Counters) or
  // `lines` (What::Lines) attached (measured, or the reason none could be read).
  std::optional<LaunchRecord> take_finished();

  // Lets go of the lab copy (the compute moved to another device or the CPU).
  void drop_lab_copy();
  // Lets go of the counter session (CUPTI's profiler is deinitialized with the last one): PC
  // sampling in this process gathers nothing while a range profiler session exists.
  void release_session();

 private:
  void run(Job job);
  void join_if_done();

  counters::CounterOptions options_;
  std::shared_ptr<sampling::PcSampler> sampler_;
  Status sampler_problem_ = Status::failure("no PC sampler was set up", "restart blockscope on the CUDA backend");
  std::unique_ptr<lab::Lab> copy_;  // touched by the worker only while busy_
  std::string copy_key_;
  std::unique_ptr<counters::CounterSession> session_;  // worker thread only
  int session_device_ = -1;
  std::thread thread_;
  std::atomic<bool> busy_{false};
  std::atomic<int> passes_done_{0};
  std::atomic<int> passes_total_{0};

  mutable std::mutex mutex_;  // guards what follows
  std::string stage_, kernel_;
  std::chrono::steady_clock::time_point started_{};
  std::optional<LaunchRecord> finished_;
};

}  // namespace bs::measured
