// Where a frame's time goes, itemised: the App marks the end of each phase of App::frame() and
// App::present(), and this keeps the last frames' durations per phase. Headless runs print the
// medians when they end (run_modes.cpp), the status file carries the last frame's, so a frame that
// got slower names the phase that did (budgets.json: 8192^2 relaunched every frame < 8 ms).
//
// Phases, in the order a frame runs them:
//   input    poll events, queued keys, dropped files
//   results  a finished background launch taken in, sweep and editor results, faults
//   launch   the lab's relaunch (the kernel's launch, interop map/unmap, its check)
//   ui       ImGui's widgets and draw lists (ui_.draw, ImGui::Render)
//   gl       the GL draw of those lists, screenshots and exports cut from the frame
//   present  swapping buffers (where the driver waits for the GPU's GL work)
// GL-free and CUDA-free: plain host clocks, so a phase is what the host spent in it.
#pragma once
#include <array>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace bs::app {

class FramePhases {
 public:
  enum Phase : int { kInput, kResults, kLaunch, kUi, kGl, kPresent, kPhaseCount };
  using Clock = std::chrono::steady_clock;

  static const char* name(Phase p);

  // The frame begins now (App::frame's first line).
  void begin_frame(Clock::time_point now = Clock::now());
  // Phase `p` ended now: its time is from the previous mark (or the frame's begin).
  void end_phase(Phase p, Clock::time_point now = Clock::now());
  // What this frame's launch phase did, itemised (LaunchRecord::steps: plan, timed launches,
  // check, interop map and unmap, the copy to the texture), for the summary's breakdown.
  void launch_steps(const std::vector<std::pair<std::string, double>>& steps_s);

  // The last complete frame's milliseconds per phase, and their sum.
  const std::array<double, kPhaseCount>& last_ms() const { return last_; }
  double last_total_ms() const;
  std::size_t frames() const { return frames_; }
  // The median of each phase over the frames kept (at most kKeep, the first one skipped: it
  // compiles shaders and opens the lab), in one line: "input 0.02 | results 0.01 | launch 5.10
  // | ui 0.80 | gl 0.40 | present 1.20 | frame 7.53 ms (median of 219 frames)". Empty before two.
  std::string summary() const;
  // The launch phase's steps, each the median over the frames that had it: "plan 0.02 | timed
  // launches 4.90 | interop map 0.05 | ... ms (over 219 launches)". Empty without launches.
  std::string launch_summary() const;

  static constexpr std::size_t kKeep = 4096;

 private:
  Clock::time_point mark_{};
  bool open_ = false;
  std::array<double, kPhaseCount> current_{};
  std::array<double, kPhaseCount> last_{};
  std::array<std::vector<double>, kPhaseCount + 1> kept_;      // + the whole frame
  std::vector<std::pair<std::string, double>> current_steps_;  // ms, this frame's launch
  std::vector<std::pair<std::string, std::vector<double>>> kept_steps_;
  std::size_t launches_ = 0;
  std::size_t frames_ = 0;
};

}  // namespace bs::app
