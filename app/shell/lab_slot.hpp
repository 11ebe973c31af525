// One lab of the catalog as the shell holds it: its view once opened, what is selected in it, and
// the launch scheduler's state for it (when it launches next, the records it keeps). Plain data:
// the lab host (shell/lab_host.hpp) owns the slots, the launch scheduler
// (shell/launch_scheduler.hpp) reads and writes their `launch` part, and the shell's UI draws them.
#pragma once
#include <chrono>
#include <memory>
#include <string>

#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "labs/lab_view.hpp"

namespace bs::app {

// The launch scheduler's part of a slot: the policy's flags and the records it keeps.
struct LaunchState {
  LaunchRecord last;         // the latest attempt (may be refused)
  LaunchRecord shown;        // the last launch that ran: what the views show
  Check check;               // the latest verdict for the selection (kept between checks)
  std::string check_for;     // the kernel|config|problem `check` belongs to
  int problem_gen = 0;       // bumped whenever the lab's problem changes (the fork's key)
  bool dirty = true;         // launch at the next frame (the selection or the data changed)
  bool continuous = true;    // relaunch repeatedly (paced in the window: LaunchScheduler)
  bool in_flight = false;    // its launch runs on the worker thread
  bool no_async = false;     // its view or lab cannot take runs made elsewhere
  bool paused_slow = false;  // continuous runs paused: one launch took too long
  double slow_ms = 0;        // how long that launch took
  std::chrono::steady_clock::time_point verified_at{};
  std::chrono::steady_clock::time_point launched_at{};  // when its latest launch started
  // What the launch in flight on the CPU simulation should take, in seconds, and what that is
  // made from (LaunchScheduler::estimate); 0: not the simulation.
  double expected_s = 0;
  std::string expected_basis;
};

struct LabSlot {
  const LabEntry* entry = nullptr;
  std::unique_ptr<LabView> view;
  Status failure;      // why the view could not be made
  std::string kernel;  // the selection
  KernelConfig config;
  LaunchState launch;

  const std::string& id() const { return entry->id; }
};

}  // namespace bs::app
