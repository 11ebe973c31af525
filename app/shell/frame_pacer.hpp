// When the window draws its next frame. A desktop app sleeps while nothing changes: the window
// waits in the event loop (Window::wait_events) and draws when
//   - input arrives (and a few frames after it, so ImGui's hover, popups and layout settle),
//   - something changes every frame (a launch is due, continuous runs on the GPU: at most
//     kMaxFps frames a second, a window without vsync included),
//   - work elsewhere shows progress (a launch on the worker thread, a sweep, images loading, a
//     compile, a profile): one frame per period, so the window does not compete with that work
//     (a sweep on the CPU measures the kernel, not the UI), and at once when a worker wakes the
//     window (Window::wake: a launch finished),
//   - otherwise once every kIdleS, a safety net that costs nothing measurable.
// GL-free and ImGui-free, with a clock the tests give (tests/app/test_shell_rooms).
#pragma once
#include <chrono>

namespace bs::app {

class FramePacer {
 public:
  using Clock = std::chrono::steady_clock;

  static constexpr int kSettleFrames = 3;   // frames drawn after input or a change...
  static constexpr double kSettleS = 0.25;  // ...and for at least this long
  static constexpr double kMaxFps = 60;     // frames that change every time: at most this often
  static constexpr double kIdleS = 10;      // nothing at all: one frame this often

  // What the app is doing, asked before each wait.
  struct Needs {
    bool input_pending = false;    // input events wait for a frame (shell/input_queue.hpp)
    bool every_frame = false;      // a launch is due, continuous runs, a request to act on
    double progress_period_s = 0;  // > 0: progress of work elsewhere, shown this often
    double deadline_s = -1;        // >= 0: something on screen changes in this many seconds
  };

  // After each frame: `active` when it handled input or showed something new (a launch result,
  // a message), which starts the settling frames.
  void drew(Clock::time_point now, bool active);
  // Forgets the settling frames still due (a sweep starts: it must have the machine).
  void calm() {
    settle_frames_left_ = 0;
    last_active_ = {};
  }
  // How long the window may wait for events before drawing the next frame (0: draw now).
  double wait_s(const Needs& needs, Clock::time_point now) const;

 private:
  Clock::time_point last_frame_{};
  Clock::time_point last_active_{};
  int settle_frames_left_ = kSettleFrames;  // the first frames settle too
};

}  // namespace bs::app
