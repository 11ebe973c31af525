// The one timing loop every lab times its launches with: warm-up, then timed repeats (each
// after an optional L2 flush) until the policy is satisfied, then the summary. The clock is the
// backend's: CUDA events around each launch on the GPU (device/event_timer.hpp), steady_clock
// around each simulated launch on the CPU; the loop is the same, so every lab reports timings
// the same way (core/timing.hpp). And the run around it (run_planned), written once for the labs.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/machine_load.hpp"
#include "core/status.hpp"
#include "core/timing.hpp"
#include "lab/lab.hpp"

namespace bs::lab {

// timed_once() -> Result<double>: one launch, its time in ms.
// flush() -> Status: overwrites the L2 before a timed repeat (called only when the policy asks).
// Fills `out` (samples, summary, warmup, l2_flushed; the clock name is the caller's). A failed
// launch stops the loop and is returned; a cancel keeps what was measured.
template <class TimedOnce, class Flush>
Status measure(const TimingPolicy& policy, Timing& out, TimedOnce&& timed_once, Flush&& flush,
               const std::atomic<bool>* cancel = nullptr) {
  using Clock = std::chrono::steady_clock;
  auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  out.samples_ms.clear();
  out.warmup = 0;
  out.l2_flushed = policy.flush_l2;
  for (int i = 0; i < policy.warmup && !cancelled(); ++i) {
    Result<double> ms = timed_once();
    if (!ms) return ms.status();
    ++out.warmup;
  }
  const int max_repeats = std::max(policy.max_repeats, std::max(1, policy.min_repeats));
  const auto start = Clock::now();
  // A simulated time stretches with what else the machine runs: say how busy it was.
  std::optional<LoadProbe> load;
  if (out.simulated) load.emplace();
  out.others_load = -1;
  for (int r = 0; r < max_repeats; ++r) {
    if (cancelled() && !out.samples_ms.empty()) break;
    if (policy.flush_l2)
      if (Status s = flush(); !s) return s;
    Result<double> ms = timed_once();
    if (!ms) return ms.status();
    out.samples_ms.push_back(ms.value());
    if (static_cast<int>(out.samples_ms.size()) < policy.min_repeats) continue;
    if (policy.target_ci > 0) {
      summarize(out);
      if (out.relative_ci() <= policy.target_ci) break;
    }
    if (policy.budget_ms > 0 &&
        std::chrono::duration<double, std::milli>(Clock::now() - start).count() >= policy.budget_ms)
      break;
  }
  summarize(out);
  if (load) out.others_load = load->others_cores();
  return Status::success();
}

// What a lab's run() does once plan() has accepted a launch: the timed launches under the run's
// timing policy on the backend's clock, then, where the run asks for them and the lab gives them,
// one traced launch and the check against the reference.
struct RunSteps {
  std::string clock;                       // the timing's clock: "CUDA events", "steady_clock, CPU simulation"
  bool simulated = false;                  // the CPU simulation's clock (and schedule)
  std::function<Result<double>()> launch;  // one timed launch: its time in ms
  std::function<Status()> flush_l2;        // overwrites the L2; empty: nothing to flush
  std::function<Result<std::vector<BlockTrace>>()> traced;  // one traced launch; empty: the kernel has none
  std::function<Check()> verify;                            // the output against the reference
};

// `rec` is plan()'s record: a refused one comes back marked refused; else the record of the run.
inline LaunchRecord run_planned(LaunchRecord rec, const RunOptions& options, const RunSteps& steps) {
  if (!rec.ok()) {
    rec.refused = true;
    return rec;
  }
  rec.timing.clock = steps.clock;
  rec.timing.simulated = steps.simulated;
  auto flush = [&] { return steps.flush_l2 ? steps.flush_l2() : Status::success(); };
  // Each step's host time goes into the record (LaunchRecord::steps: the frame phases itemise it).
  rec.steps.mark = StepTimes::Clock::now();
  const Status timed = measure(options.timing, rec.timing, steps.launch, flush, options.cancel);
  rec.steps.end("timed launches");
  if (!timed) {
    rec.status = timed;
    return rec;
  }
  if (options.trace_schedule && steps.traced) {
    auto schedule = steps.traced();
    if (!schedule) {
      rec.status = schedule.status();
      return rec;
    }
    rec.schedule = std::move(schedule.value());
    rec.schedule_simulated = steps.simulated;
    rec.steps.end("trace");
  }
  if (options.verify) {
    rec.check = steps.verify();
    rec.steps.end("check");
  }
  return rec;
}

}  // namespace bs::lab
