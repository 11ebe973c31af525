// The launch scheduler: when the open lab launches, with which options, on which thread, and what
// is kept of each record. GL-free and ImGui-free: it drives a lab through its LabView and reads
// time through a clock it is given, so its policy is unit-tested without a window
// (tests/app/test_launch_scheduler.cpp).
//
// The policy:
//  - A slot launches when it is dirty (its selection, its data or its settings changed, or the
//    user asked) or when it runs continuously and its last attempt ran. Without data it launches
//    nothing: its record says why (the problem's own reason), as a refusal.
//  - Each interactive launch is timed once; it is traced (the block schedule) when the selection
//    is new and tracing is on; verified when new, when its problem or configuration changed since
//    the last check, and otherwise once every kVerifyPeriodS. Between checks a record carries the
//    verdict of its configuration's last check on the same data.
//  - A simulated launch slower than kSlowLaunchMs pauses continuous runs (the window would
//    stutter), and says so.
//  - In the window, the CPU simulation launches on a worker thread (shell/async_launch.hpp) on a
//    fork of the lab, so frames keep coming; its result is shown only if it is still what the slot
//    asks for. GPU launches and headless runs launch on the frame loop.
//  - A refused or failed launch is said once per configuration, not once per frame; a sticky CUDA
//    error is handed to `on_fault` (the lab host moves every lab to the CPU).
//  - Records kept: each slot's latest attempt and the last launch that ran (with its schedule
//    while the configuration stays the same), and the timings of every configuration that ran.
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lab/lab.hpp"
#include "shell/async_launch.hpp"
#include "shell/lab_slot.hpp"
#include "state/timing_book.hpp"

namespace bs::app {

class LaunchScheduler {
 public:
  using Clock = std::chrono::steady_clock;

  // A simulated launch slower than this stops continuous runs; a launch on the worker thread that
  // has run this long is shown as running in the status bar.
  static constexpr double kSlowLaunchMs = 150;
  // After a configuration's first (verified) run, its repeats are re-verified this often.
  static constexpr double kVerifyPeriodS = 1.0;

  struct Options {
    bool async_on_cpu = false;               // the window: the CPU simulation runs on the worker
    std::function<void()> finish;            // waits for the frame's GPU work (glFinish); may be empty
    std::function<Clock::time_point()> now;  // the clock (tests pass their own); empty: steady_clock
    std::function<void(const Status&)> on_fault;  // a sticky device fault seen in a record
    std::function<void()> wake;  // from the worker thread: a launch finished (the window draws it)
  };

  explicit LaunchScheduler(Options options);

  // Once a frame, for the open lab with its problem as it is now: launches if the policy says so
  // (see above), or records why nothing can run.
  void step(LabSlot& s, const lab::ProblemInfo& problem, bool trace_schedule, ViewContext& ctx);
  // Launches `s`'s selection now (on the worker in the window's CPU simulation).
  void relaunch(LabSlot& s, bool trace_schedule, ViewContext& ctx);
  // A launch the worker finished: kept and shown if it is still what its slot asks for.
  void take_async_result(std::vector<LabSlot>& slots, ViewContext& ctx);

  // The user stopped the launch of `s` running on the worker: it is cancelled, the views keep the
  // last launch that ran, the latest attempt says it was cancelled (and continuous runs wait
  // for the user to run it again). `keep_continuous` (Escape, which may be pressed with nothing
  // else to close): continuous runs go on as they were, unless the launch stopped was a slow one.
  void cancel(LabSlot& s, ViewContext& ctx, bool keep_continuous = false);
  // A sweep starts: the worker's launch, if any, stops (the sweep must not share the CPU with it).
  void stop_worker() { async_.cancel(); }

  // The lab's data changed (an image installed, a setting, the matrices rebuilt): everything
  // measured and shown was on the old data, so its timings and records go, and it relaunches.
  void problem_changed(LabSlot& s);
  // Every slot moves to another compute session: nothing measured stands, the worker's fork goes.
  void compute_changed(std::vector<LabSlot>& slots);

  // The options of an interactive launch of `s` (public for the tests).
  lab::RunOptions run_options(const LabSlot& s, bool changed, bool trace_schedule) const;

  const TimingBook& timings() const { return timings_; }
  TimingBook& timings() { return timings_; }
  // The worker: whether a launch runs there, which, and for how long.
  bool in_flight() const { return async_.busy(); }
  std::string running_kernel() const { return async_.running_kernel(); }
  double running_ms() const { return async_.running_ms(); }
  // Records kept so far (attempts that ran or were refused): a change counter for the window.
  std::size_t records_kept() const { return records_kept_; }

 private:
  Clock::time_point now() const;
  void keep_record(LabSlot& s, LaunchRecord rec, double pipeline_ms, bool changed, bool verified,
                   const std::string& key, ViewContext& ctx);
  bool launch_async(LabSlot& s, bool changed, bool trace_schedule, ViewContext& ctx);

  Options options_;
  TimingBook timings_;
  std::size_t records_kept_ = 0;
  AsyncLaunch async_;  // the CPU simulation's launches in the window
};

// What a fork of the lab is keyed by: the lab, its problem and settings, a counter bumped wherever
// the problem may have changed, and the version of its kernels (user kernels).
std::string problem_key(const LabSlot& s);

}  // namespace bs::app
