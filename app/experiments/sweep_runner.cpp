#include "experiments/sweep_runner.hpp"

#include "device/nvtx_range.hpp"
#include "platform/background_thread.hpp"
#include "measured/bench_counters.hpp"

namespace bs::app {

SweepRunner::~SweepRunner() {
  cancel();
  join();
}

void SweepRunner::join() {
  if (worker_.joinable()) worker_.join();
}

Status SweepRunner::start(const lab::Lab& lab, lab::SweepSpec spec, std::optional<counters::CounterOptions> counters) {
  if (running_) return Status::failure("a sweep is already running", "cancel it first", "sweep");
  join();  // a finished worker whose result was not taken
  {
    std::lock_guard lock(mutex_);
    progress_ = lab::SweepProgress{};
    progress_.total = lab::sweep_points(lab, spec, nullptr).size();
    last_progress_ = progress_;
    fresh_.clear();
    result_.reset();
  }
  lab_id_ = std::string(lab.id());
  cancel_ = false;
  go_ = false;
  running_ = true;
  forking_ = true;
  started_ = std::chrono::steady_clock::now();
  worker_ = std::thread(&SweepRunner::work, this, &lab, std::move(spec), counters);
  return Status::success();
}

void SweepRunner::cancel() { cancel_ = true; }

void SweepRunner::work(const lab::Lab* source, lab::SweepSpec spec, std::optional<counters::CounterOptions> counters) {
  run_below_the_window();  // the simulator's workers, started from here, inherit it
  Result<std::unique_ptr<lab::Lab>> fork = Status::failure("not forked");
  {
    NvtxRange range("sweep: fork the lab");
    fork = source->fork();
  }
  forking_ = false;  // from here on the window's lab is free to change
  for (auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kGoTimeoutS);
       !go_ && !cancel_ && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  lab::SweepResult result;
  if (!fork) {
    result.lab = lab_id_;
    result.complete = false;
    result.fault = fork.status();
    result.note = "the sweep could not copy the lab's problem: " + fork.status().describe();
  } else {
    lab::SweepHooks hooks;
    hooks.cancel = &cancel_;
    hooks.progress = [this](const lab::SweepProgress& p) {
      std::lock_guard lock(mutex_);
      progress_ = p;
    };
    hooks.point_done = [this](const LaunchRecord& r) {
      std::lock_guard lock(mutex_);
      fresh_.push_back(r);
    };
    result = lab::run_sweep(*fork.value(), spec, hooks);
    if (counters && !cancel_) {
      NvtxRange range("sweep: hardware counters");
      measured::BenchCounters profiler(*counters);
      profiler.attach(*fork.value(), result.records);
    }
    fork.value().reset();  // device memory freed here, on the thread that used it
  }
  {
    std::lock_guard lock(mutex_);
    result_ = std::move(result);
  }
  running_ = false;
}

// The window's side never waits for the worker: the worker runs at a lower priority and may be
// preempted while it holds the mutex, so a busy lock means "nothing new this frame".
SweepRunner::Progress SweepRunner::progress() const {
  Progress p;
  {
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (lock.owns_lock()) last_progress_ = progress_;
    p.sweep = last_progress_;
  }
  p.forking = forking_;
  p.started_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return p;
}

std::vector<LaunchRecord> SweepRunner::take_new_records() {
  std::vector<LaunchRecord> out;
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) out.swap(fresh_);
  return out;
}

std::optional<lab::SweepResult> SweepRunner::take_result() {
  std::optional<lab::SweepResult> out;
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || !result_ || !fresh_.empty()) return std::nullopt;  // the last points first
  out = std::move(result_);
  result_.reset();
  // The worker is finishing; it is joined by the next start() or the destructor, not here,
  // where a preempted low-priority worker would hold the frame.
  return out;
}

}  // namespace bs::app
