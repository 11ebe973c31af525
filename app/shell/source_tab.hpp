// The shell's side of the Source tab (issue 22): which listing the launch shown needs (a built-in
// rung's file and compiled function, a user kernel's source, a library kernel's none), made off
// the UI thread (source/listing_worker.hpp) and drawn by ui/source_panel.hpp, with the launch's
// per-line stall samples beside it when the PC sampler has given some (show_profile).
//
// Why the lab is asked only through lab::Lab and the user-kernel layer: the shell never names a
// lab; a user kernel's source and form are the book's (labs/custom/user_kernels.hpp).
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/launch_record.hpp"
#include "core/line_profile.hpp"
#include "lab/lab.hpp"
#include "measured/counter_worker.hpp"
#include "sampling/pc_sampler.hpp"
#include "source/listing.hpp"
#include "source/listing_worker.hpp"
#include "ui/messages.hpp"
#include "ui/source_panel.hpp"

namespace bs::app {

class SourceTab {
 public:
  // The process's PC sampler (made before the first launch), or why there is none; `at_start`:
  // --profile-lines, sample the first launch shown.
  void set_sampler(sampling::SamplerHandle sampling, bool at_start);
  // Called before each sampling starts (the shell lets go of the Measured tab's counter session:
  // PC sampling gathers nothing while one exists in the process).
  void set_before_sampling(std::function<void()> f) { before_sampling_ = std::move(f); }
  // Every frame, before launches: takes a finished profile (said in the log), starts the
  // --profile-lines request once a launch has run.
  void update(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log);
  // True while a profile samples: the App makes no launches of its own meanwhile (the samples
  // must be the launch's under test only).
  bool busy() const { return lines_.busy(); }
  // The tab's contents for the launch shown (called only while the tab is visible).
  void draw(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log);
  // Called on frames the tab is not drawn: nothing waits on a listing nobody looks at.
  void hidden() { waiting_ = false; }
  // The GPU's per-line samples of a launch (kernels/sampling): shown beside the source of its
  // kernel (profile.kernel) until another profile of that kernel replaces it. `of`: the launch
  // sampled (null: not known), so profile_of() can tell which launch the samples are of.
  void show_profile(LineProfile profile, const LaunchRecord* of = nullptr);
  // Seconds from the latest request (a click, --profile-lines) to its table; < 0: none finished.
  double last_request_to_table_s() const { return last_request_to_table_s_; }
  // Samples the next launch shown (as --profile-lines does for the first).
  void profile_next_launch() { request_ = Request::Waiting; }
  // The request at start waits for a user kernel's launch (--kernel-file with --profile-lines).
  void wait_for_user_kernel() { wait_for_user_kernel_ = true; }
  // The samples of exactly this launch (kernel, configuration, problem), or null: Compare pins
  // a launch with them.
  std::shared_ptr<const LineProfile> profile_of(const LaunchRecord& r) const;
  // The tab waits for a listing (the window redraws at a low rate; headless keeps drawing).
  // Running too: the worker may be done with the result not yet taken (a count on the CPU ends
  // between two frames), and headless must not stop there.
  bool pending() const {
    return waiting_ || pending_line_ > 0 || lines_.busy() || request_ == Request::Waiting ||
           request_ == Request::Running || request_ == Request::ToShow;
  }
  // Selects a line of the source once its listing is shown (--source-line).
  void select_line(int line) { pending_line_ = line; }

  // For tests: the listing drawn last, the view's selection.
  const KernelListing* listing() const { return listing_.get(); }
  const ui::SourceViewState& view() const { return view_; }
  ui::SourceViewState& view() { return view_; }

  // What the listing of `shown` needs (public for tests).
  static source::ListingRequest request_for(lab::Lab& lab, const LaunchRecord& shown);

 private:
  void start_profile(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log);
  Status refusal(const lab::Lab& lab, const LaunchRecord& shown) const;

  source::ListingWorker worker_;
  measured::CounterWorker lines_;  // What::Lines jobs: the PC sampler on a lab copy, off the UI thread
  Status sampler_problem_;
  std::function<void()> before_sampling_;
  enum class Request { None, Waiting, Running, ToShow, Shown } request_ = Request::None;
  bool wait_for_user_kernel_ = false;
  int frames_since_result_ = 0;
  std::chrono::steady_clock::time_point profile_started_{};  // the click (or --profile-lines)
  double last_request_to_table_s_ = -1;
  std::shared_ptr<const KernelListing> listing_;
  // The latest profile of each kernel and the launch it sampled (configuration, problem).
  struct Kept {
    std::shared_ptr<const LineProfile> profile;
    std::string config_label, problem;
  };
  std::map<std::string, Kept> profiles_;  // by kernel id
  ui::SourceViewState view_;
  bool waiting_ = false;
  int pending_line_ = 0;
};

}  // namespace bs::app
