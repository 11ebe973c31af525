// The sweep result view: for a free-blockDim kernel a heatmap of block x against block y drawn
// with ImDrawList (time, throughput or occupancy, as the user picks), best and worst marked, the
// occupancy API's thread count marked and compared with the measured best, cells that cannot be
// ranked against the best marked; for compiled configurations (and a ladder's best of each
// kernel) a sorted bar chart with each point's 95% interval. Hovering a point shows its median
// and spread, occupancy and its limiter, waves and the last wave's fill, idle threads and
// registers; a click loads it into the lab; a right-click pins it for Compare. Under the chart,
// the noise in plain words: repeats per point, spreads, the SM clock before and after, what
// cannot be ranked. Simulated (CPU) timings say so.
#pragma once
#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "experiments/sweep_model.hpp"
#include "lab/sweep.hpp"
#include "state/sweep_settings.hpp"

namespace bs::app {

struct SweepViewState {
  std::string kernel;           // shown; empty: the first swept (or, in a ladder, "best of each" below)
  bool ladder_summary = false;  // a ladder sweep's best point of every kernel
  unsigned z = 1;
};

struct SweepViewInput {
  const lab::SweepResult* result = nullptr;
  const std::vector<PointFacts>* facts = nullptr;
  bool running = false;
  std::optional<lab::SweepPoint> measuring;  // the point being measured now
  HeatmapMetric* metric = nullptr;           // the user's pick (sweep settings)
};

struct SweepViewAction {
  int load = -1;  // record index to load into the lab
  int pin_a = -1, pin_b = -1;
};

// Draws into the current window's remaining space. *chart_min/*chart_max: where the heatmap or
// bar chart landed on screen (for its PNG export).
SweepViewAction draw_sweep_view(const SweepViewInput& in, SweepViewState* state, ImVec2* chart_min, ImVec2* chart_max);

// The tooltip lines of one point (also the compare view's).
void draw_point_details(const LaunchRecord& r, const PointFacts& f, const std::string& unit,
                        const std::vector<lab::Ceiling>& ceilings);

// Viridis, t in [0, 1].
ImU32 colour_map(double t, int alpha = 255);

}  // namespace bs::app
