// Compare: two pinned configurations (A and B, from a sweep or from the controls) side by side:
// each one's data with its own launch overlay (drawn by the lab's view through `draw_data`), its
// timing with its spread, the ratio of the two and whether their intervals let them be ranked,
// occupancy and its limiter, waves, idle threads, and the sectors per request of the warp that
// stores the hovered element in each launch.
#pragma once
#include <imgui.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_record.hpp"
#include "lab/lab.hpp"
#include "state/app_state.hpp"

namespace bs::app {

struct Pin {
  LaunchRecord record;
  std::string from;  // "sweep" or "controls"
};

// Draws `record`'s data with its overlay into a `size` rectangle at the cursor; `slot` (0 = A,
// 1 = B) keeps the two panes' resources apart; highlights the thread storing `inspect`; returns
// the element under the mouse.
using DrawRecordFn = std::function<std::optional<PixelPos>(const LaunchRecord& record, int slot, ImVec2 size,
                                                           std::optional<PixelPos> inspect)>;

struct CompareInput {
  const std::optional<Pin>* a = nullptr;
  const std::optional<Pin>* b = nullptr;
  const lab::Lab* lab = nullptr;  // owner() and warp_accesses() of each pinned launch
  const DeviceLimits* limits = nullptr;
  ThroughputUnit unit = ThroughputUnit::GBPerS;
  std::vector<lab::Ceiling> ceilings;
  DrawRecordFn draw_data;
  std::optional<PixelPos> inspected;  // the data view's inspected element (fallback for hover)
  bool have_current = false;          // a launch of the controls exists to pin
};

struct CompareState {
  std::optional<PixelPos> hover;  // the element hovered in either pane last frame
};

struct CompareAction {
  int pin_current = -1;  // 0: pin the controls' launch as A, 1: as B
  int load = -1;         // 0: load A into the lab, 1: load B
  int clear = -1;        // 0, 1
  bool swap = false;
};

CompareAction draw_compare_view(const CompareInput& in, CompareState* state);

// The sectors per request of the warp that stores element `at` in `r` (all its loads and
// stores at that element's pass), and the requests counted; nullopt where the lab names no warp.
struct WarpSectors {
  unsigned requests = 0, sectors = 0, ideal = 0;
  Dim3 block;
  unsigned warp = 0;
  double per_request() const { return requests ? static_cast<double>(sectors) / requests : 0; }
};
std::optional<WarpSectors> warp_sectors(const lab::Lab& lab, const LaunchRecord& r, PixelPos at);

}  // namespace bs::app
