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
//  - Continuous runs in the window are paced (Options::paced; headless runs relaunch every frame):
//    on the CPU simulation a repeat runs once every `sim_period_s()` (2 s unless the user picks
//    another; a change still launches at once), on the GPU every frame while the window has the
//    focus; on both they pause while the window is in the background (GPU) or nobody has touched
//    it for kIdlePauseS, and resume at the next input. `continuous_plan` says which, for the
//    frame pacer and the status bar: an untouched window with the defaults costs next to nothing.
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
#include <map>
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
  // Continuous runs in the window: a simulated repeat this often by default (a launch of tens of
  // ms and its frame every 2 s is ~2% of a core, where one after another kept both cores busy)...
  static constexpr double kSimPeriodS = 2.0;
  // Automatic (the default): at least kSimPeriodS apart, and further apart when a repeat and the
  // frame that shows it cost more than this share of one core (a software-rendered frame of a
  // large window costs a tenth of a second of CPU: every 2 s would be 5-10% of a core).
  static constexpr double kRepeatShare = 0.02;
  static constexpr double kAutoPeriod = -1;  // sim_period_s(): automatic
  // ...and none at all once nobody has touched the window for this long (both backends).
  static constexpr double kIdlePauseS = 30.0;

  // What continuous runs of a slot do now, and the status bar's words for it.
  struct ContinuousPlan {
    enum class Mode {
      Off,         // not continuous (or its last attempt did not run): launches when asked
      EveryFrame,  // a repeat every frame (the GPU, headless runs, or the user's choice)
      Every,       // a repeat every `period_s` (the CPU simulation in the window)
      Paused,      // the window is idle or in the background: repeats wait for input
      PausedSlow,  // one launch took too long for continuous runs
    };
    Mode mode = Mode::Off;
    double period_s = 0;  // Every: the period
    double wait_s = 0;    // Every: seconds until the next repeat is due (0: due now)
    std::string says;     // e.g. "relaunching every 2 s (simulation)"
  };

  struct Options {
    bool async_on_cpu = false;                    // the window: the CPU simulation runs on the worker
    std::function<void()> finish;                 // waits for the frame's GPU work (glFinish); may be empty
    std::function<Clock::time_point()> now;       // the clock (tests pass their own); empty: steady_clock
    std::function<void(const Status&)> on_fault;  // a sticky device fault seen in a record
    std::function<void()> wake;                   // from the worker thread: a launch finished (the window draws it)
    bool paced = false;                           // the window: continuous runs paced and paused (see above)
  };

  explicit LaunchScheduler(Options options);

  // Once a frame, for the open lab with its problem as it is now: launches if the policy says so
  // (see above), or records why nothing can run.
  void step(LabSlot& s, const lab::ProblemInfo& problem, bool trace_schedule, ViewContext& ctx);
  // What continuous runs of `s` do now (see ContinuousPlan), on `backend`.
  ContinuousPlan continuous_plan(const LabSlot& s, BackendKind backend) const;
  // The window, once a frame: whether it had input (a key, the mouse moving...) and whether it
  // has the focus. Input resumes paused continuous runs.
  void attention(bool had_input, bool focused);
  // How often the CPU simulation's continuous runs repeat in the window: kAutoPeriod (automatic,
  // the default), 0 (one after another) or seconds.
  double sim_period_s() const { return sim_period_s_; }
  void set_sim_period_s(double s) { sim_period_s_ = s < 0 ? kAutoPeriod : s; }
  // What one paced repeat cost the process, in CPU seconds (the launch and the frame showing it;
  // the window measures it): the automatic period keeps repeats under kRepeatShare of a core.
  void repeat_cost(double cpu_s);

  // How long a launch of `s`'s selection on the CPU simulation should take, in seconds, from the
  // best there is to go on: the time its kernel took per byte (or FLOP) counted on the last launch
  // of it that ran, times what this one counts; else the slowest kernel of its lab so far, the
  // same way; else the time per simulated thread of the last launch of any kernel, times this
  // one's threads; else a first guess per thread (kFirstGuessThreadS). 0 when not the CPU
  // simulation. Launches expected to take kLongLaunchS or more are said in the status bar as
  // they start, a 16384^2 image's first launch too.
  struct Estimate {
    double s = 0;
    std::string basis;  // what it is made from, for the status bar's tooltip
  };
  Estimate estimate(const LabSlot& s) const;
  double expected_s(const LabSlot& s) const { return estimate(s).s; }
  static constexpr double kLongLaunchS = 2.0;
  // The lecture's 1D kernel simulated on 2 cores: 12-28 ns a thread (8192^2 and 16384^2 images).
  static constexpr double kFirstGuessThreadS = 20e-9;

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
  // Those of them that are news (not a continuous repeat that ran): a repeat needs one frame to
  // show it, news the settling frames after it (shell/frame_pacer.hpp).
  std::size_t news_kept() const { return news_kept_; }

 private:
  Clock::time_point now() const;
  void keep_record(LabSlot& s, LaunchRecord rec, double pipeline_ms, bool changed, bool verified,
                   const std::string& key, ViewContext& ctx);
  bool launch_async(LabSlot& s, bool changed, bool trace_schedule, ViewContext& ctx);

  Options options_;
  TimingBook timings_;
  std::size_t records_kept_ = 0;
  std::size_t news_kept_ = 0;
  double sim_period_s_ = kAutoPeriod;
  double repeat_cost_s_ = 0;  // smoothed
  bool focused_ = true;
  Clock::time_point last_input_{};
  AsyncLaunch async_;  // the CPU simulation's launches in the window
  // The CPU simulation's seconds per counted byte or FLOP, by lab and kernel, from the last launch
  // of it that ran (the whole launch: timed repeats, check and trace, what the user waits for).
  std::map<std::string, double> sim_s_per_unit_;
  double sim_s_per_thread_ = 0;  // the same per thread launched, of the last launch of any kernel
};

// What a fork of the lab is keyed by: the lab, its problem and settings, a counter bumped wherever
// the problem may have changed, and the version of its kernels (user kernels).
std::string problem_key(const LabSlot& s);

}  // namespace bs::app
