#include "shell/source_tab.hpp"

#include <imgui.h>

#include "labs/custom/user_kernel_lab.hpp"
#include "labs/custom/user_kernels.hpp"
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
  // The launched function's mangled name is not in the record yet (cudaFuncGetName in
  // device/device_limits.cu's query_kernel_attributes would give it): the listing finds the
  // functions compiled from the rung's file by their line table meanwhile.
  return r;
}

void SourceTab::draw(lab::Lab& lab, const LaunchRecord& shown) {
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
  if (auto it = profiles_.find(shown.kernel); it != profiles_.end()) in.profile = &it->second;
  if (shown.backend == BackendKind::CpuSimulation)
    in.no_profile = "CPU backend (the simulator cannot sample stalls); on the GPU, profiling the launch samples "
                    "where its warps wait, per line";
  else
    in.no_profile = "not profiled yet (the GPU's PC sampling of this launch gives the stall samples per line)";
  if (pending_line_ > 0 && listing_ && view_.listing == listing_.get()) {
    view_.line = pending_line_;
    view_.scroll_source = view_.scroll_ptx = view_.scroll_sass = true;
    pending_line_ = 0;
  }
  last_action_ = ui::draw_source_panel(in, &view_);
}

void SourceTab::show_profile(LineProfile profile) {
  std::string kernel = profile.kernel;
  profiles_[kernel] = std::move(profile);
  view_.profile = nullptr;  // the view's per-line table is rebuilt from the new samples
}

}  // namespace bs::app
