// The lab host: the labs of the catalog as slots, which one is open, what is selected in each,
// the settings asked for applied to them, the compute session they run on (switching it, and
// moving to the CPU after a device fault), and where an image goes. GL-free and ImGui-free: it
// reaches labs only through lab::Lab and LabView, so it is unit-tested with a lab of the test's
// own (tests/app/test_lab_host.cpp). The shell's UI and the App drive it; the launch scheduler
// (shell/launch_scheduler.hpp) decides when each slot launches.
#pragma once
#include <string>
#include <vector>

#include "image/image.hpp"
#include "shell/compute_session.hpp"
#include "shell/lab_slot.hpp"
#include "shell/launch_scheduler.hpp"
#include "state/app_state.hpp"
#include "ui/messages.hpp"

namespace bs::app {

class LabHost {
 public:
  // `state` names the open lab and what the command line and the settings file asked for.
  // `headless`: the views draw into an offscreen frame (ViewContext::headless).
  LabHost(AppState& state, MessageLog& messages, ComputeSession compute, LabCatalog catalog, LaunchScheduler& launches,
          bool headless);
  LabHost(const LabHost&) = delete;
  LabHost& operator=(const LabHost&) = delete;

  // What the views are given while they work or draw; `frame` is the App's frame counter.
  ViewContext context();
  void set_frame(int frame) { frame_ = frame; }
  int frame() const { return frame_; }

  // The slots, one per catalog entry, in catalog order.
  std::vector<LabSlot>& slots() { return slots_; }
  const std::vector<LabSlot>& slots() const { return slots_; }
  LabSlot* slot(const std::string& id);
  const LabSlot* slot(const std::string& id) const;
  // The open lab's slot (the first one when the state names none of them).
  LabSlot& current();
  const LabSlot& current() const;
  std::vector<std::string> lab_ids() const;

  // Makes the lab and its view the first time they are needed, with the settings, options and
  // selection asked for; a failure is kept (and said once).
  Status ensure_view(LabSlot& s);
  Status open_lab(const std::string& id);
  // The kernel the command line asked for (--kernel) exists in the open lab; else a failure
  // naming the flag and listing the lab's kernels (the run modes exit 2, as bench does).
  Status check_selection_request() const;
  // Selects a kernel and configuration in the open lab (the UI's kernel list, tests).
  Status select(const std::string& kernel, const KernelConfig& config);
  // Loads a configuration into a slot (a sweep cell, a run, the editor's kernel): it relaunches,
  // and continuous runs resume.
  void choose(LabSlot& s, const std::string& kernel, const KernelConfig& config);
  // One of the lab's problem settings (the UI's combos): kept in the state and the problem
  // changes; a refused value is said.
  void change_setting(LabSlot& s, const std::string& key, const std::string& value);

  // An image goes to the open lab if it takes images, else to the first lab that does, which is
  // then opened. On failure the lab keeps its previous image.
  Status install_image(Rgba8Image image);
  // The lab's data changed: its records and timings go (the launch scheduler's problem_changed).
  void problem_changed(LabSlot& s);

  const ComputeSession& compute() const { return compute_; }
  const lab::Backend& backend() const { return compute_.backend; }
  // Moves every open lab to another compute session (another GPU, or the CPU simulation); each
  // view re-installs its problem there, so nothing the user loaded is lost.
  void switch_compute(ComputeSession next);
  // A sticky fault (illegal address, launch failure, timeout) leaves the CUDA context unusable
  // until the process ends: every lab moves to the CPU simulation, keeping its problem.
  void handle_device_fault(const Status& fault);
  bool device_faulted() const { return device_faulted_; }

  // View > Reset to defaults, for the labs: every lab's settings, options, view and selection as
  // on a first launch; the data loaded stays.
  void reset_to_defaults();
  // The views (and their GL objects) go, before the GL context does; the host is done after this.
  void close_views() { slots_.clear(); }

 private:
  void apply_settings(LabSlot& s);
  void apply_selection_request(LabSlot& s, const SelectionRequest& request);

  AppState& state_;
  MessageLog& messages_;
  ComputeSession compute_;
  LabCatalog catalog_;
  LaunchScheduler& launches_;
  std::vector<LabSlot> slots_;
  bool headless_ = false;
  int frame_ = 0;
  bool device_faulted_ = false;
};

}  // namespace bs::app
