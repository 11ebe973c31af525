// One tab of the window. The centre's tabs (Data, Sweep, Compare, Source) and the side panel's
// (Timings, Launch, ..., Memory, Pipeline) are the same kind of thing, whoever adds them: the
// shell makes its own (shell/shell_ui.cpp) and a lab's view adds its own (LabView::tabs(), e.g.
// the Memory tab of its data, matmul's Pipeline). The shell draws the tabs of a dock in the order
// of the one table of tab names (state/app_state.hpp, kPanelNames), which also gives each its
// title, its dock and the word --panel, the settings and the status file use.
//
// A tab with work on another thread (a recording, a listing, a profile, a sweep) says so through
// background_s, and the window wakes that often to show its progress; a tab whose work must be
// the only work on the device (a profile's passes) says so through holds_device, and a tab that
// starts work from what ran gets each frame's launch through follow. The frame loop asks the tabs
// and never lists them by hand.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "core/launch_record.hpp"
#include "lab/lab.hpp"
#include "state/app_state.hpp"
#include "ui/messages.hpp"

namespace bs::app {

// A kernel and configuration a tab asks the shell to load into the lab's controls (a sweep cell,
// a pin, a row of Runs).
struct LoadRequest {
  std::string kernel;
  KernelConfig config;
};

// What a tab gets while it draws.
struct TabContext {
  // The last launch that ran; while none has, the latest attempt (refused: its record says why).
  const LaunchRecord& shown;
  std::optional<LoadRequest> load;  // out: a configuration to load
};

struct Tab {
  Panel panel = Panel::Data;  // its title, dock, order and word: kPanelNames
  std::function<void(TabContext&)> draw = {};
  // Drawn only once a launch has run (the shell says why none has instead); false: drawn always.
  bool needs_launch = false;
  // How often (seconds) the window should wake to show this tab's work in progress; 0: it has none.
  std::function<double()> background_s = {};
  // Words after the title, e.g. " (running)"; empty: none.
  std::function<std::string()> title_note = {};
  // True, once, when the tab should come to the front (a sweep started, both pins are set).
  std::function<bool()> wants_front = {};
  // Called on frames the tab is not drawn (nothing waits on what nobody looks at).
  std::function<void()> hidden = {};
  // True while its work must be the only work on the device and the lab's data (a profile's
  // passes): the window's launches, repeats and new images wait.
  std::function<bool()> holds_device = {};
  // Every frame, drawn or not: the open lab and the launch it shows (a profile or a line count
  // asked for that launch starts here).
  std::function<void(lab::Lab&, const LaunchRecord& shown, MessageLog&)> follow = {};
};

}  // namespace bs::app
