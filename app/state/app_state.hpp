// What the user chose, as plain data: the window, the headless runner and the command line all
// read and write this one struct, so any state reachable in the window can be reproduced from
// the command line (see cli/options.hpp).
#pragma once
#include <optional>
#include <string>

#include "core/dim.hpp"
#include "labs/grayscale/gray_kernels.hpp"
#include "state/matmul_state.hpp"

namespace bs::app {

enum class Lab { Grayscale, Matmul };
enum class CompareMode { Split, SideBySide, ResultOnly, OriginalOnly };
enum class OverlayMode { Off, BlockLines, ColourByBlock, ColourByWarp, ColourBySm };
enum class Panel { Stats, Schedule, Memory, Timings };

struct PixelPos {
  int x = 0, y = 0;
  friend bool operator==(const PixelPos&, const PixelPos&) = default;
};

struct ViewState {
  CompareMode compare = CompareMode::Split;
  float split = 0.5f;           // fraction of the view showing the original (Split mode)
  float zoom = 0;               // screen pixels per image pixel; 0 = fit to the view
  float center_x = -1, center_y = -1;  // image pixel at the view's centre; <0 = image centre
  OverlayMode overlay = OverlayMode::BlockLines;
  float overlay_opacity = 0.6f;
  std::optional<PixelPos> hover;  // forced hover (command line); the mouse overrides it
  std::optional<PixelPos> pinned; // a clicked (pinned) pixel
};

struct GrayState {
  gray::GrayKernel kernel = gray::GrayKernel::Flat1D;
  Dim3 block{256, 1, 1};
  bool trace_schedule = true;  // collect the per-block schedule on every launch
};

struct AppState {
  Lab lab = Lab::Grayscale;
  GrayState gray;
  MatmulState matmul;
  ViewState view;
  Panel panel = Panel::Stats;
  bool show_demo = false;
};

}  // namespace bs::app
