#include "shell/launch_scheduler.hpp"

#include <algorithm>
#include <cstdio>

#include "device/cuda_device.hpp"

namespace bs::app {
namespace {

// The selection and the data a verdict belongs to.
std::string check_key(const std::string& kernel, const KernelConfig& c, const std::string& problem) {
  return kernel + "|" + block_text(c.block) + "|" + std::to_string(c.compiled) + "|" + problem;
}

}  // namespace

std::string problem_key(const LabSlot& s) {
  const lab::Lab& lab = s.view->lab();
  std::string key = s.id() + "|" + std::to_string(s.launch.problem_gen) + "|" + lab.problem().summary;
  for (const auto& [k, v] : lab.setting_values()) key += "|" + k + "=" + v;
  // A user kernel installed or rebuilt since the fork was made: the fork lacks it.
  key += "|kernels " + std::to_string(lab.kernels_version());
  return key;
}

LaunchScheduler::LaunchScheduler(Options options) : options_(std::move(options)), async_(options_.wake) {
  last_input_ = now();  // a window that opens counts as touched
}

LaunchScheduler::Clock::time_point LaunchScheduler::now() const { return options_.now ? options_.now() : Clock::now(); }

void LaunchScheduler::step(LabSlot& s, const lab::ProblemInfo& problem, bool trace_schedule, ViewContext& ctx) {
  LaunchState& st = s.launch;
  const ContinuousPlan plan = continuous_plan(s, ctx.backend.kind);
  const bool repeat =
      plan.mode == ContinuousPlan::Mode::EveryFrame || (plan.mode == ContinuousPlan::Mode::Every && plan.wait_s <= 0);
  if (problem.ready && (st.dirty || repeat)) {
    relaunch(s, trace_schedule, ctx);
  } else if (!problem.ready && st.dirty) {
    // Nothing to run on: the selection's record says why (the problem's own reason).
    st.last = s.view->lab().plan(s.kernel, s.config);
    if (st.last.ok()) st.last.status = problem.status;
    st.last.refused = true;
    st.dirty = false;
    ++records_kept_;
    ++news_kept_;
  }
}

void LaunchScheduler::attention(bool had_input, bool focused) {
  if (had_input) last_input_ = now();
  focused_ = focused;
}

LaunchScheduler::ContinuousPlan LaunchScheduler::continuous_plan(const LabSlot& s, BackendKind backend) const {
  using Mode = ContinuousPlan::Mode;
  const LaunchState& st = s.launch;
  ContinuousPlan p;
  char buf[112];
  if (!st.continuous) {
    p.says = "continuous runs off: launches when something changes";
    return p;
  }
  if (st.paused_slow) {
    p.mode = Mode::PausedSlow;
    std::snprintf(buf, sizeof buf, "continuous runs paused: one launch took %.0f ms", st.slow_ms);
    p.says = buf;
    return p;
  }
  if (!st.last.ok()) {
    p.says = "continuous runs wait: the last launch did not run";
    return p;
  }
  const bool sim = backend == BackendKind::CpuSimulation;
  if (!options_.paced) {
    p.mode = Mode::EveryFrame;
    p.says = "relaunching every frame";
    return p;
  }
  if (!sim && !focused_) {
    p.mode = Mode::Paused;
    p.says = "idle: continuous runs paused while the window is in the background";
    return p;
  }
  if (std::chrono::duration<double>(now() - last_input_).count() >= kIdlePauseS) {
    p.mode = Mode::Paused;
    std::snprintf(buf, sizeof buf,
                  "idle: continuous runs paused, nothing touched for %.0f s (move the mouse to resume)", kIdlePauseS);
    p.says = buf;
    return p;
  }
  if (!sim || sim_period_s_ == 0) {
    p.mode = Mode::EveryFrame;
    p.says = sim ? "relaunching one after another (simulation)" : "relaunching every frame";
    return p;
  }
  p.mode = Mode::Every;
  const bool automatic = sim_period_s_ < 0;
  p.period_s = automatic ? std::max(kSimPeriodS, repeat_cost_s_ / kRepeatShare) : sim_period_s_;
  const double since = std::chrono::duration<double>(now() - st.launched_at).count();
  p.wait_s = std::max(0.0, p.period_s - since);
  if (automatic && repeat_cost_s_ > 0)
    std::snprintf(buf, sizeof buf, "relaunching every %.2g s (simulation: a repeat and its frame cost %.2g s of CPU)",
                  p.period_s, repeat_cost_s_);
  else std::snprintf(buf, sizeof buf, "relaunching every %g s (simulation)", p.period_s);
  p.says = buf;
  return p;
}

void LaunchScheduler::repeat_cost(double cpu_s) {
  if (!(cpu_s >= 0)) return;
  repeat_cost_s_ = repeat_cost_s_ > 0 ? 0.5 * repeat_cost_s_ + 0.5 * cpu_s : cpu_s;
}

// The options of an interactive launch: once, traced when the selection is new, verified when
// new and then once a period.
lab::RunOptions LaunchScheduler::run_options(const LabSlot& s, bool changed, bool trace_schedule) const {
  lab::RunOptions options;
  options.timing = TimingPolicy::once();
  options.trace_schedule = changed && trace_schedule;
  const std::string key = check_key(s.kernel, s.config, s.view->lab().problem().summary);
  const double since = std::chrono::duration<double>(now() - s.launch.verified_at).count();
  options.verify = changed || key != s.launch.check_for || since >= kVerifyPeriodS;
  return options;
}

void LaunchScheduler::relaunch(LabSlot& s, bool trace_schedule, ViewContext& ctx) {
  LaunchState& st = s.launch;
  const bool changed = st.dirty;
  if (st.in_flight && !changed) return;  // continuous runs wait for the launch in flight
  st.dirty = false;
  st.launched_at = now();
  Estimate e = estimate(s);
  st.expected_s = e.s;
  st.expected_basis = std::move(e.basis);
  if (launch_async(s, changed, trace_schedule, ctx)) return;
  const lab::RunOptions options = run_options(s, changed, trace_schedule);
  const std::string key = check_key(s.kernel, s.config, s.view->lab().problem().summary);
  const auto t0 = now();
  LaunchRecord rec = s.view->launch(s.kernel, s.config, options, ctx);
  // The pipeline time includes getting the result on screen, not just its submission. Leaving
  // GPU repeats unfinished did not make frames faster on an H200: the next frame's interop map
  // waited for the same buffer-to-texture copy, inside its timed launch.
  if (options_.finish) {
    const auto f0 = now();
    options_.finish();
    rec.steps.add("GL finish", std::chrono::duration<double>(now() - f0).count());
  }
  const double pipeline_ms = std::chrono::duration<double, std::milli>(now() - t0).count();
  keep_record(s, std::move(rec), pipeline_ms, changed, options.verify, key, ctx);
}

LaunchScheduler::Estimate LaunchScheduler::estimate(const LabSlot& s) const {
  if (!s.view || s.view->lab().backend().kind != BackendKind::CpuSimulation) return {};
  lab::Lab& l = s.view->lab();
  const LaunchRecord plan = l.plan(s.kernel, s.config);
  const double counted = plan.counted(l.problem().throughput_unit);
  if (const auto rate = sim_s_per_unit_.find(s.id() + "|" + s.kernel); rate != sim_s_per_unit_.end())
    return {rate->second * counted,
            "its kernel's speed on the last launch of it that ran, per byte or FLOP, times "
            "what this one counts"};
  double slowest = 0;
  const std::string lab = s.id() + "|";
  for (const auto& [key, rate] : sim_s_per_unit_)
    if (key.compare(0, lab.size(), lab) == 0) slowest = std::max(slowest, rate);
  if (slowest > 0 && counted > 0)
    return {slowest * counted,
            "the speed of the slowest kernel of this lab that ran, per byte or FLOP, times what "
            "this one counts (this kernel has not run yet)"};
  const double threads = static_cast<double>(plan.config.grid.volume() * plan.config.block.volume());
  if (sim_s_per_thread_ > 0)
    return {sim_s_per_thread_ * threads,
            "the simulator's time per thread on the last launch that ran, times this "
            "launch's threads"};
  return {kFirstGuessThreadS * threads,
          "a first guess until a launch has run: 20 ns a simulated thread (the "
          "lecture's kernel on 2 cores), times this launch's threads"};
}

// What the views, the timings and the status bar keep of a launch, run here or on the worker.
void LaunchScheduler::keep_record(LabSlot& s, LaunchRecord rec, double pipeline_ms, bool changed, bool verified,
                                  const std::string& key, ViewContext& ctx) {
  LaunchState& st = s.launch;
  ++records_kept_;
  if (changed || !rec.ok()) ++news_kept_;
  if (!rec.ok()) {
    // Said once per configuration, not once per frame.
    if (changed || st.last.ok()) {
      if (rec.refused) ctx.messages.warn("Launch refused: " + rec.status.message, rec.status.hint);
      else ctx.messages.error(rec.status);
    }
    st.last = std::move(rec);
    if (ctx.backend.kind == BackendKind::Cuda && st.last.status.sticky_app_fault() && options_.on_fault)
      options_.on_fault(st.last.status);
    return;
  }
  if (verified) {
    st.check = rec.check;
    st.check_for = key;
    st.verified_at = now();
    if (rec.check.failed() && changed) ctx.messages.warn(rec.kernel + " gave a WRONG result", rec.check.summary());
  } else {
    rec.check = st.check;  // the verdict of this configuration's last check, on the same data
  }
  timings_.add(rec, pipeline_ms);
  if (const double counted = rec.counted(s.view->lab().problem().throughput_unit); rec.timing.simulated && counted > 0)
    sim_s_per_unit_[s.id() + "|" + rec.kernel] = pipeline_ms / 1000 / counted;
  if (const double threads = static_cast<double>(rec.config.grid.volume() * rec.config.block.volume());
      rec.timing.simulated && threads > 0)
    sim_s_per_thread_ = pipeline_ms / 1000 / threads;
  // A slow simulated launch relaunched every frame would keep both cores busy for nothing the
  // user reads: continuous runs pause and say why (the window itself stays live: the launch
  // runs on the worker thread).
  if (st.continuous && rec.timing.simulated && pipeline_ms > kSlowLaunchMs) {
    st.paused_slow = true;
    st.slow_ms = pipeline_ms;
  }
  // The schedule stays where it is, moved and never copied: relaunching an 8192^2 image every
  // frame (262144 blocks, 21 MB of BlockTrace) copied it into `shown` and freed the copy each
  // time; without that the H200's headless frame went from 10.5 to 6.2 ms (frame phases: launch).
  std::vector<BlockTrace> schedule = std::move(rec.schedule);
  bool schedule_simulated = rec.schedule_simulated;
  if (schedule.empty() && !changed && st.shown.kernel == rec.kernel && st.shown.config_label == rec.config_label &&
      st.shown.problem == rec.problem) {
    schedule = std::move(st.shown.schedule);  // keep the trace of this configuration
    schedule_simulated = st.shown.schedule_simulated;
  }
  // A new selection or new data ran: the messages before it (a refusal, a failed load) are no
  // longer the news. Repeats of the same launch are not news.
  if (changed && !rec.check.failed()) ctx.messages.succeeded();
  rec.schedule.clear();
  st.last = rec;  // the record without its schedule (`last` never carries one)
  st.shown = std::move(rec);
  st.shown.schedule = std::move(schedule);
  st.shown.schedule_simulated = schedule_simulated;
}

void LaunchScheduler::cancel(LabSlot& s, ViewContext& ctx, bool keep_continuous) {
  LaunchState& st = s.launch;
  if (!st.in_flight) return;
  const double ran_s = async_.running_ms() / 1000;
  async_.cancel();
  LaunchRecord rec = s.view->lab().plan(s.kernel, s.config);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ran_s);
  rec.status =
      Status::failure("cancelled after " + std::string(buf) + " s: the simulation of " + s.kernel + " was stopped",
                      "Run once (Ctrl+R) runs it again", "cancel", "cancelled");
  rec.refused = false;
  st.last = std::move(rec);
  // Continuous runs of fast launches start the next one at once; a slow one stays stopped (as
  // if continuous runs had paused for it), so Escape still stops a simulation one waits for.
  st.dirty = keep_continuous && st.continuous && !st.paused_slow && ran_s * 1000 < kSlowLaunchMs;
  ++records_kept_;
  ++news_kept_;
  ctx.messages.info("Cancelled the simulation of " + s.kernel + " after " + buf + " s");
}

void LaunchScheduler::problem_changed(LabSlot& s) {
  timings_.forget_lab(s.id());
  LaunchState& st = s.launch;
  ++st.problem_gen;
  st.dirty = true;
  st.paused_slow = false;
  st.check_for.clear();
  // The records go too, so nothing (the views, the status file) pairs the new data with a launch
  // that never saw it while the next one runs.
  st.last = LaunchRecord{};
  st.shown = LaunchRecord{};
}

void LaunchScheduler::compute_changed(std::vector<LabSlot>& slots) {
  timings_.clear();
  async_.drop_fork();
  for (LabSlot& s : slots) {
    LaunchState& st = s.launch;
    ++st.problem_gen;
    st.in_flight = false;
    st.no_async = false;
    st.last = LaunchRecord{};
    st.shown = LaunchRecord{};
    st.check = Check{};
    st.check_for.clear();
    st.dirty = true;
    st.paused_slow = false;
  }
}

// In the window, the CPU simulation launches on the worker thread, so frames keep coming while a
// slow rung runs. Headless runs launch on the frame loop: each frame then shows its own launch,
// which screenshots and tests rely on. GPU launches stay here too: they take microseconds, and
// interop maps GL buffers on this thread.
bool LaunchScheduler::launch_async(LabSlot& s, bool changed, bool trace_schedule, ViewContext& ctx) {
  LaunchState& st = s.launch;
  if (!options_.async_on_cpu || st.no_async || ctx.backend.kind != BackendKind::CpuSimulation) return false;
  AsyncLaunch::Request r;
  r.slot = s.id();
  r.problem_key = problem_key(s);
  r.kernel = s.kernel;
  r.config = s.config;
  r.options = run_options(s, changed, trace_schedule);
  r.changed = changed;
  if (auto failed = async_.start(s.view->lab(), r)) {
    st.no_async = true;  // the lab cannot fork: launch here from now on
    ctx.messages.warn("Launching on the frame loop: " + failed->status.message, failed->status.hint);
    st.dirty = true;
    return true;
  }
  st.in_flight = true;
  return true;
}

// A launch the worker finished: shown if it is still what the slot asks for, dropped otherwise
// (a newer selection or problem is on its way).
void LaunchScheduler::take_async_result(std::vector<LabSlot>& slots, ViewContext& ctx) {
  auto f = async_.take();
  if (!async_.busy())
    for (LabSlot& t : slots) t.launch.in_flight = false;
  if (!f) return;
  LabSlot* s = nullptr;
  for (LabSlot& t : slots)
    if (t.id() == f->request.slot) s = &t;
  if (!s || !s->view || f->cancelled) return;
  LaunchState& st = s->launch;
  if (f->request.problem_key != problem_key(*s) || f->request.kernel != s->kernel ||
      !(f->request.config == s->config)) {
    st.dirty = st.dirty || !async_.busy();
    return;
  }
  double pipeline_ms = f->wall_ms;
  if (f->record.ok()) {
    const auto t0 = now();
    if (!s->view->show_result(f->record, f->output, ctx)) {
      st.no_async = true;  // this view draws only what it launched itself
      st.dirty = true;
      return;
    }
    if (options_.finish) options_.finish();
    pipeline_ms += std::chrono::duration<double, std::milli>(now() - t0).count();
  }
  const std::string key = check_key(f->request.kernel, f->request.config, s->view->lab().problem().summary);
  keep_record(*s, std::move(f->record), pipeline_ms, f->request.changed, f->request.options.verify, key, ctx);
}

}  // namespace bs::app
