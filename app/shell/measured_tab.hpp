// The shell's side of the Measured tab: the worker that profiles off the UI thread, the latest
// result per lab, and the headless --profile request. The App calls update() every frame before
// it launches anything (and launches nothing while busy()), and draw() inside the tab.
//
// Why the App holds its launches while a profile runs: the range profiler measures whatever
// kernel the context runs between a pass's start and stop, from any thread, so a launch of the
// window's own (continuous runs, a problem upload's reference kernel) inside a pass would be
// measured instead of, or besides, the launch under test. The wait is one profile (about 0.4 s);
// the window keeps drawing.
#pragma once
#include <map>
#include <string>

#include "core/launch_counters.hpp"
#include "core/launch_record.hpp"
#include "counters/counters.hpp"
#include "lab/lab.hpp"
#include "measured/counter_worker.hpp"
#include "ui/messages.hpp"

namespace bs::app {

// What a profiling worker's lab copy must hold to be reused (the Measured and Source tabs): the
// lab, its device, its problem and settings.
std::string problem_key(const lab::Lab& lab);

class MeasuredTab {
 public:
  // `cupti_library`: --cupti (empty: search). `profile_at_start`: --profile, profile the first
  // launch that runs.
  MeasuredTab(std::string cupti_library, bool profile_at_start);

  // Every frame, before launches: takes a finished profile (and says in the log when counters
  // could not be read), starts the --profile request once a launch has run.
  void update(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log);
  // True while a profile runs: the App makes no launches and no uploads of its own meanwhile.
  bool busy() const { return worker_.busy(); }
  // The tab's contents.
  void draw(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log);
  // Headless --profile: true until the profile asked for has finished and a frame has shown it.
  bool profile_pending() const;
  // --profile with --kernel-file: the profile asked for is the user kernel's (profiled in its
  // runner process), not the lab's kernel shown while it compiles.
  void wait_for_user_kernel() { wait_for_user_kernel_ = true; }
  // Lets go of the counter session until the next profile (the Source tab samples meanwhile:
  // CUPTI's PC sampling gathers nothing while a range profiler session exists).
  void release_counters() { worker_.release_session(); }
  // The latest profile of lab `lab_id` (counters attached), or nullptr.
  const LaunchRecord* result(const std::string& lab_id) const;

 private:
  void start(lab::Lab& lab, const LaunchRecord& shown, MessageLog& log);

  measured::CounterWorker worker_;
  std::map<std::string, LaunchRecord> results_;  // per lab id
  // blockscope's model of the launch shown, computed once per launch (kernel, configuration,
  // problem) while the tab is open: the tab shows it until a profile of that launch exists.
  std::string model_key_;
  LaunchCounters model_;
  enum class Request { None, Waiting, Running, ToShow, Shown } request_ = Request::None;
  bool wait_for_user_kernel_ = false;
  int frames_since_result_ = 0;
};

}  // namespace bs::app
