#include "shell/source_tab.hpp"

#include <imgui.h>

#include "labs/custom/user_kernel_lab.hpp"
#include "labs/custom/user_kernels.hpp"
#include "measured/profile_lines.hpp"
#include "source/listing_parse.hpp"
#include "shell/measured_tab.hpp"
#include "ui/widgets.hpp"

namespace bs::app {

source::ListingRequest SourceTab::request_for(lab::Lab& lab, const LaunchRecord& shown) {
  source::ListingRequest r;
  r.kernel = shown.kernel;
  r.ran_on_gpu = shown.backend == BackendKind::Cuda;
  const DeviceLimits& limits = lab.backend().limits;
  r.cc = lab.backend().kind == BackendKind::Cuda ? limits.compute_major * 10 + limits.compute_minor : 0;
  if (custom::is_user_kernel_id(shown.kernel)) {
    r.kind = source::ListingRequest::Kind::User;
    if (auto* user = lab::layer<custom::UserKernelLab>(lab))
      if (auto k = user->book().find(shown.kernel)) {
        r.user_source = k->source;
        r.user_name = k->name;
        r.forms = {k->form};
      }
    return r;
  }
  const lab::KernelInfo* info = lab.find_kernel(shown.kernel);
  r.source_file = info ? info->file : std::string();
  r.kind = info && info->timed_only ? source::ListingRequest::Kind::Library : source::ListingRequest::Kind::BuiltIn;
  // The launched function's mangled name (cudaFuncGetName); empty on the CPU, where the listing
  // says there is no SASS anyway.
  r.function = shown.attributes.function;
  return r;
}

void SourceTab::set_sampler(sampling::SamplerHandle sampling, bool at_start) {
  sampler_problem_ = sampling.problem;
  lines_.set_sampler(std::move(sampling.sampler), sampling.problem);
  if (at_start) request_ = Request::Waiting;
}

Status SourceTab::refusal(const lab::Lab& lab, const LaunchRecord& shown) const {
  if (Status s = measured::lines_refusal(lab, shown.kernel); !s) return s;
  // The user's kernels are sampled (or, on the CPU, counted) by their runner process; on the
  // CPU a rung's lines are counted by blockscope-line-counter: neither needs this sampler.
  const lab::KernelInfo* k = lab.find_kernel(shown.kernel);
  const bool elsewhere = (k && k->group == KernelGroup::Custom) || lab.backend().kind != BackendKind::Cuda;
  if (!sampler_problem_.ok() && !elsewhere) return sampler_problem_;
  if (!shown.ok()) return Status::failure("the launch shown did not run", "run it first");
  return Status::success();
}

void SourceTab::update(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log) {
  if (auto done = lines_.take_finished()) {
    if (done->lines) {
      const LineProfile& p = *done->lines;
      // From the click to the table: the lab copy, the sampled launches, the correlation.
      const double click_to_table_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - profile_started_).count();
      last_request_to_table_s_ = click_to_table_s;
      if (p.ok() && p.measure == LineMeasure::Executions)
        log.info("Counted " + done->kernel + " (" + done->config_label + "): " + std::to_string(p.total_samples) +
                 " line executions on the CPU simulator, " + ui::sig(click_to_table_s, 3) +
                 " s from the request to the table; see the Source tab");
      else if (p.ok())
        log.info("Sampled " + done->kernel + " (" + done->config_label + "): " + std::to_string(p.total_samples) +
                 " stall samples in " + std::to_string(p.launches) + " launches, " + ui::sig(click_to_table_s, 3) +
                 " s from the request to the table; see the Source tab");
      else log.warn("Stall samples per line could not be taken: " + p.status.message, p.status.hint);
      show_profile(*done->lines, &*done);
      // The hottest line is where the eye should go: shown (its file, if another) and selected,
      // unless the user (or --source-line) chose a line already.
      if (p.ok() && !p.lines.empty() && view_.line == 0 && pending_line_ == 0) {
        LineSamples top = p.lines.front();
        // The kernel's own file first, when a line there (with what it inlines) holds a good
        // share: k3's time is in its loads, which shared_access.hpp carries out.
        if (listing_) {
          const std::vector<LineSamples> own = ui::lines_in_file(*listing_, p, listing_->source_file, false);
          if (!own.empty() && own.front().share_pct >= 20.0) top = own.front();
        }
        const std::string path = ui::embedded_path(top.file);
        const bool own = listing_ && source::same_source_file(top.file, listing_->source_file);
        if (top.line > 0 && (own || !source::embedded_source(path).empty())) {
          view_.kernel = p.kernel;
          view_.file = own ? std::string() : path;
          view_.line = top.line;
          view_.scroll_source = view_.scroll_ptx = view_.scroll_sass = true;
        }
      }
    }
    if (request_ == Request::Running) {
      request_ = Request::ToShow;
      frames_since_result_ = 0;
    }
  }
  if (lab.backend().kind != BackendKind::Cuda) lines_.drop_lab_copy();
  // --profile-lines with --kernel-file: the user's kernel, once it runs (the lab's own comes first).
  const bool wanted = !wait_for_user_kernel_ || custom::is_user_kernel_id(shown.kernel);
  if (request_ == Request::Waiting && shown.ok() && !shown.kernel.empty() && wanted) start_profile(lab, shown, log);
  // Shown once the listing is there too, so a headless screenshot has both.
  if (request_ == Request::ToShow && !waiting_ && frames_since_result_++ >= 1) request_ = Request::Shown;
}

void SourceTab::start_profile(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log) {
  const bool asked_at_start = request_ == Request::Waiting;
  if (Status s = refusal(lab, shown); !s) {
    LineProfile why = measured::lines_unavailable(s, shown.kernel);
    show_profile(std::move(why));
    if (asked_at_start) {
      log.warn("--profile-lines: " + s.message, s.hint);
      request_ = Request::ToShow;
    }
    return;
  }
  measured::CounterWorker::Job job{problem_key(lab), shown.kernel, shown.request, shown,
                                   measured::CounterWorker::What::Lines};
  job.model.counters.reset();
  job.model.lines.reset();
  profile_started_ = std::chrono::steady_clock::now();
  if (before_sampling_) before_sampling_();
  if (Status s = lines_.start(std::move(job), [&] { return lab.fork(); }); !s) {
    log.error(s);
    if (asked_at_start) request_ = Request::ToShow;
    return;
  }
  if (asked_at_start) request_ = Request::Running;
}

std::shared_ptr<const LineProfile> SourceTab::profile_of(const LaunchRecord& r) const {
  auto it = profiles_.find(r.kernel);
  if (it == profiles_.end() || !it->second.profile->ok()) return nullptr;
  if (it->second.config_label != r.config_label || it->second.problem != r.problem) return nullptr;
  return it->second.profile;
}

void SourceTab::draw(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log) {
  ui::SourceInput in;
  in.shown = &shown;
  if (shown.kernel.empty()) {
    ImGui::TextColored(ui::kDimColour, "No launch has run yet: the Source tab lists the kernel of the launch shown.");
    waiting_ = false;
    return;
  }
  const source::ListingRequest request = request_for(lab, shown);
  if (auto l = worker_.get(request)) listing_ = std::move(l);
  else if (!listing_ || listing_->kernel != shown.kernel) listing_.reset();  // another kernel's: not shown meanwhile
  const bool current = listing_ && worker_.get(request) == listing_;
  waiting_ = !current;
  in.listing = listing_.get();
  in.building = waiting_;
  if (auto it = profiles_.find(shown.kernel); it != profiles_.end()) in.profile = it->second.profile.get();
  if (shown.backend == BackendKind::CpuSimulation)
    in.no_profile =
        "not counted yet (Count lines: how often each line runs on the simulator; it has no warps "
        "stalling to sample, the GPU's Profile lines does)";
  else in.no_profile = "not profiled yet (the GPU's PC sampling of this launch gives the stall samples per line)";
  if (pending_line_ > 0 && listing_ && view_.listing == listing_.get()) {
    view_.line = pending_line_;
    view_.scroll_source = view_.scroll_ptx = view_.scroll_sass = true;
    pending_line_ = 0;
  }
  in.refusal = refusal(lab, shown);
  const measured::CounterWorker::Progress progress = lines_.progress();
  in.profiling = progress.busy && progress.kernel == shown.kernel;
  in.profiling_s = progress.elapsed_s;
  if (in.profiling) in.refusal = Status::failure("a profile is running");
  if (ui::draw_source_panel(in, &view_).profile && !lines_.busy()) start_profile(lab, shown, log);
}

void SourceTab::show_profile(LineProfile profile, const LaunchRecord* of) {
  std::string kernel = profile.kernel;
  Kept k;
  k.profile = std::make_shared<const LineProfile>(std::move(profile));
  if (of) k.config_label = of->config_label, k.problem = of->problem;
  profiles_[kernel] = std::move(k);
  view_.profile = nullptr;  // the view's per-line table is rebuilt from the new samples
}

}  // namespace bs::app
