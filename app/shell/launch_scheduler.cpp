#include "shell/launch_scheduler.hpp"

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

LaunchScheduler::LaunchScheduler(Options options) : options_(std::move(options)), async_(options_.wake) {}

LaunchScheduler::Clock::time_point LaunchScheduler::now() const {
  return options_.now ? options_.now() : Clock::now();
}

void LaunchScheduler::step(LabSlot& s, const lab::ProblemInfo& problem, bool trace_schedule, ViewContext& ctx) {
  LaunchState& st = s.launch;
  const bool continuous = st.continuous && !st.paused_slow && st.last.ok();
  if (problem.ready && (st.dirty || continuous)) {
    relaunch(s, trace_schedule, ctx);
  } else if (!problem.ready && st.dirty) {
    // Nothing to run on: the selection's record says why (the problem's own reason).
    st.last = s.view->lab().plan(s.kernel, s.config);
    if (st.last.ok()) st.last.status = problem.status;
    st.last.refused = true;
    st.dirty = false;
    ++records_kept_;
  }
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
  if (launch_async(s, changed, trace_schedule, ctx)) return;
  const lab::RunOptions options = run_options(s, changed, trace_schedule);
  const std::string key = check_key(s.kernel, s.config, s.view->lab().problem().summary);
  const auto t0 = now();
  LaunchRecord rec = s.view->launch(s.kernel, s.config, options, ctx);
  // The pipeline time includes getting the result on screen, not just its submission.
  if (options_.finish) options_.finish();
  const double pipeline_ms = std::chrono::duration<double, std::milli>(now() - t0).count();
  keep_record(s, std::move(rec), pipeline_ms, changed, options.verify, key, ctx);
}

// What the views, the timings and the status bar keep of a launch, run here or on the worker.
void LaunchScheduler::keep_record(LabSlot& s, LaunchRecord rec, double pipeline_ms, bool changed, bool verified,
                                  const std::string& key, ViewContext& ctx) {
  LaunchState& st = s.launch;
  ++records_kept_;
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
  // A slow simulated launch relaunched every frame would keep both cores busy for nothing the
  // user reads: continuous runs pause and say why (the window itself stays live: the launch
  // runs on the worker thread).
  if (st.continuous && rec.timing.simulated && pipeline_ms > kSlowLaunchMs) {
    st.paused_slow = true;
    st.slow_ms = pipeline_ms;
  }
  if (rec.schedule.empty() && !changed && st.shown.kernel == rec.kernel &&
      st.shown.config_label == rec.config_label && st.shown.problem == rec.problem) {
    rec.schedule = std::move(st.shown.schedule);  // keep the trace of this configuration
    rec.schedule_simulated = st.shown.schedule_simulated;
  }
  // A new selection or new data ran: the messages before it (a refusal, a failed load) are no
  // longer the news. Repeats of the same launch are not news.
  if (changed && !rec.check.failed()) ctx.messages.succeeded();
  st.shown = rec;
  st.last = std::move(rec);
  st.last.schedule.clear();
}

void LaunchScheduler::cancel(LabSlot& s, ViewContext& ctx, bool keep_continuous) {
  LaunchState& st = s.launch;
  if (!st.in_flight) return;
  const double ran_s = async_.running_ms() / 1000;
  async_.cancel();
  LaunchRecord rec = s.view->lab().plan(s.kernel, s.config);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ran_s);
  rec.status = Status::failure("cancelled after " + std::string(buf) + " s: the simulation of " + s.kernel + " was stopped",
                               "Run once (Ctrl+R) runs it again", "cancel", "cancelled");
  rec.refused = false;
  st.last = std::move(rec);
  // Continuous runs of fast launches start the next one at once; a slow one stays stopped (as
  // if continuous runs had paused for it), so Escape still stops a simulation one waits for.
  st.dirty = keep_continuous && st.continuous && !st.paused_slow && ran_s * 1000 < kSlowLaunchMs;
  ++records_kept_;
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
  if (f->request.problem_key != problem_key(*s) || f->request.kernel != s->kernel || !(f->request.config == s->config)) {
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
