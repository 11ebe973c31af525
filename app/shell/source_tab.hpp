// The shell's side of the Source tab (issue 22): which listing the launch shown needs (a built-in
// rung's file and compiled function, a user kernel's source, a library kernel's none), made off
// the UI thread (source/listing_worker.hpp) and drawn by ui/source_panel.hpp, with the launch's
// per-line stall samples beside it when the PC sampler has given some (show_profile).
//
// Why the lab is asked only through lab::Lab and the user-kernel layer: the shell never names a
// lab; a user kernel's source and form are the book's (labs/custom/user_kernels.hpp).
#pragma once
#include <map>
#include <memory>
#include <string>

#include "core/launch_record.hpp"
#include "core/line_profile.hpp"
#include "lab/lab.hpp"
#include "source/listing.hpp"
#include "source/listing_worker.hpp"
#include "ui/source_panel.hpp"

namespace bs::app {

class SourceTab {
 public:
  // The tab's contents for the launch shown (called only while the tab is visible).
  void draw(lab::Lab& lab, const LaunchRecord& shown);
  // Called on frames the tab is not drawn: nothing waits on a listing nobody looks at.
  void hidden() { waiting_ = false; }
  // The GPU's per-line samples of a launch (kernels/sampling): shown beside the source of its
  // kernel (profile.kernel) until another profile of that kernel replaces it.
  void show_profile(LineProfile profile);
  // The tab waits for a listing (the window redraws at a low rate; headless keeps drawing).
  bool pending() const { return waiting_ || pending_line_ > 0; }
  // Selects a line of the source once its listing is shown (--source-line).
  void select_line(int line) { pending_line_ = line; }

  // For tests: the listing drawn last, the view's selection, what was clicked last.
  const KernelListing* listing() const { return listing_.get(); }
  const ui::SourceViewState& view() const { return view_; }
  ui::SourceViewState& view() { return view_; }
  const ui::SourceAction& last_action() const { return last_action_; }

  // What the listing of `shown` needs (public for tests).
  static source::ListingRequest request_for(lab::Lab& lab, const LaunchRecord& shown);

 private:
  source::ListingWorker worker_;
  std::shared_ptr<const KernelListing> listing_;
  std::map<std::string, LineProfile> profiles_;  // by kernel id
  ui::SourceViewState view_;
  ui::SourceAction last_action_;
  bool waiting_ = false;
  int pending_line_ = 0;
};

}  // namespace bs::app
