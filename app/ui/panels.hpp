// The panels of the main window, one file each. Each takes plain read-only inputs plus the
// AppState it may change, and returns what it wants the app to do (relaunch, open a file...).
//   gray_lab_panel.cpp     kernel, blockDim sliders/typed/presets, refusals, view controls
//   pixel_inspector.cpp    what computed the pixel under the mouse (or pinned / --hover)
//   side_panel.cpp         tabs: timings, launch statistics, schedule, memory access
//   timings_panel.cpp      last/median/min/max, history plot, bandwidth against the copy ceiling
//   launch_stats_panel.cpp threads, warps, idle threads, occupancy and its limiter, waves
//   schedule_panel.cpp     per-SM (or per-worker) timeline of blocks, summary, JSON export
//   memory_panel.cpp       the hovered warp's addresses and 32-byte sectors per request
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/launch_record.hpp"
#include "image/image.hpp"
#include "mapping/thread_map.hpp"
#include "shell/timing_history.hpp"
#include "state/app_state.hpp"

namespace bs::ui {

struct GrayLabPanelInput {
  const Rgba8Image* image = nullptr;
  const LaunchRecord* last_launch = nullptr;       // latest attempt (may be refused)
  const LaunchRecord* last_good_launch = nullptr;  // what is on screen
  const DeviceLimits* limits = nullptr;
  BackendKind backend = BackendKind::CpuSimulation;
  KernelAttributes attributes;
};

struct GrayLabPanelActions {
  bool relaunch = false;
  bool open_file = false;
  bool fit_view = false;
  bool actual_size = false;
};

GrayLabPanelActions draw_gray_lab_panel(const GrayLabPanelInput& in, app::AppState* state,
                                        bool* run_continuously);

struct InspectorInput {
  const LaunchRecord* launch;
  mapping::IndexScheme scheme;
  int image_w, image_h;
  app::PixelPos pixel;
  bool pinned;
};
void draw_pixel_inspector(const InspectorInput& in);

struct SidePanelInput {
  const LaunchRecord* last_good_launch = nullptr;
  const app::TimingHistory* history = nullptr;
  double copy_gbs = 0;
  const std::string* copy_note = nullptr;
  BackendKind backend = BackendKind::CpuSimulation;
  const DeviceLimits* limits = nullptr;
  KernelAttributes attributes;
  const std::vector<BlockTrace>* schedule = nullptr;
  bool schedule_simulated = false;
  mapping::IndexScheme scheme = mapping::IndexScheme::Flat1D;
  int image_w = 0, image_h = 0;
  std::optional<app::PixelPos> inspected;
};
void draw_side_panel(const SidePanelInput& in, app::AppState* state);

void draw_timings_panel(const SidePanelInput& in);
void draw_launch_stats_panel(const SidePanelInput& in);
void draw_schedule_panel(const SidePanelInput& in);
void draw_memory_panel(const SidePanelInput& in);

}  // namespace bs::ui
