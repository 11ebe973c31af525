#include "shell/measured_tab.hpp"

#include <utility>

#include "labs/custom/user_kernels.hpp"
#include "measured/profile_launch.hpp"
#include "ui/measured_panel.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

std::string detail_of(const Status& s) {
  std::string d = s.call;
  if (!s.code.empty()) d += (d.empty() ? "" : ": ") + s.code;
  if (!s.hint.empty()) d += (d.empty() ? "" : " - ") + s.hint;
  return d;
}

}  // namespace

// What the kept lab copy must hold to be reused: the same lab on the same device, the same
// problem and settings. (A file reloaded under the same name and size reads as the same problem;
// its counters would not differ for these kernels, whose traffic does not depend on the pixels.)
std::string problem_key(const lab::Lab& lab) {
  std::string key = std::string(lab.id()) + "|" + lab.backend().label + "|" + std::to_string(lab.backend().cuda_device);
  const lab::ProblemInfo p = lab.problem();
  key += "|" + p.name + "|" + p.summary;
  for (const auto& [k, v] : lab.setting_values()) key += "|" + k + "=" + v;
  // A user kernel rebuilt (an edit compiled) makes the copy stale: it holds the kernels as they
  // were when it was forked.
  key += "|kernels " + std::to_string(lab.kernels_version());
  return key;
}

MeasuredTab::MeasuredTab(std::string cupti_library, bool profile_at_start)
    : worker_(counters::CounterOptions{.cupti_library = std::move(cupti_library)}),
      request_(profile_at_start ? Request::Waiting : Request::None) {}

void MeasuredTab::update(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log) {
  if (auto done = worker_.take_finished()) {
    const LaunchCounters& c = *done->counters;
    if (c.measured())
      log.info("Profiled " + done->kernel + " (" + done->config_label + "): " + std::to_string(c.passes) +
               " passes in " + ui::sig(c.profile_wall_ms / 1000.0, 2) + " s; see the Measured tab");
    else log.warn("Hardware counters could not be read: " + c.status.message, detail_of(c.status));
    results_[done->lab] = std::move(*done);
    if (request_ == Request::Running) {
      request_ = Request::ToShow;
      frames_since_result_ = 0;
    }
  }
  // A lab copy on a GPU the app no longer computes on is memory for nothing.
  if (lab.backend().kind != BackendKind::Cuda) worker_.drop_lab_copy();
  const bool wanted = !wait_for_user_kernel_ || custom::is_user_kernel_id(shown.kernel);
  if (request_ == Request::Waiting && shown.ok() && !shown.kernel.empty() && wanted) start(lab, shown, log);
  if (request_ == Request::ToShow && frames_since_result_++ >= 1) request_ = Request::Shown;
}

void MeasuredTab::start(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log) {
  const bool asked_at_start = request_ == Request::Waiting;
  if (Status s = measured::profile_refusal(lab, shown.kernel); !s) {
    // The tab shows the refusal itself; nothing runs. Asked for on the command line, it is said
    // in the log too (headless runs print it).
    if (asked_at_start) {
      log.warn("--profile: " + s.message, s.hint);
      request_ = Request::ToShow;
    }
    return;
  }
  measured::CounterWorker::Job job{problem_key(lab), shown.kernel, shown.request, shown};
  job.model.counters.reset();
  if (Status s = worker_.start(std::move(job), [&] { return lab.fork(); }); !s) {
    log.error(s);
    if (asked_at_start) request_ = Request::ToShow;
    return;
  }
  if (asked_at_start) request_ = Request::Running;
}

void MeasuredTab::draw(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log) {
  ui::MeasuredInput in;
  in.shown = &shown;
  in.result = result(std::string(lab.id()));
  if (!shown.kernel.empty()) in.refusal = measured::profile_refusal(lab, shown.kernel);
  // The CPU simulation has no counters to read, whatever this build could read on a GPU: the
  // button is greyed with the reason rather than clickable for nothing.
  if (in.refusal.ok() && lab.backend().kind != BackendKind::Cuda)
    in.refusal = Status::failure("the CPU simulation has no hardware counters: they are the GPU's own",
                                 "choose a GPU in the Compute menu, then profile the launch there");
  in.progress = worker_.progress();
  if (shown.ok()) {
    std::string key = problem_key(lab) + "|" + shown.kernel + "|" + shown.config_label + "|" + shown.problem;
    if (key != model_key_) {
      // A small sample (16 blocks, 8 steps): this runs on the UI thread, once per launch shown.
      model_ = LaunchCounters{};
      measured::add_model(model_, lab, shown, 16, 8);
      model_key_ = std::move(key);
    }
    in.model = &model_;
  }
  in.launches_paused = in.progress.busy;
  if (ui::draw_measured_panel(in)) start(lab, shown, log);
}

bool MeasuredTab::profile_pending() const {
  return request_ == Request::Waiting || request_ == Request::Running || request_ == Request::ToShow;
}

const LaunchRecord* MeasuredTab::result(const std::string& lab_id) const {
  auto it = results_.find(lab_id);
  return it == results_.end() ? nullptr : &it->second;
}

}  // namespace bs::app
