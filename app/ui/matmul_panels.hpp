// The matmul lab's panels, one file each, drawn from a read-only MatmulSession and the AppState
// they may change (the session reacts to the state on the next frame):
//   matmul_lab_panel.cpp    lab tabs; matrices, the kernel ladder, its configurations and
//                           refusals, the result card (time and correctness side by side), phases
//   matmul_view.cpp         A, B, C and |C - reference| as heatmaps laid out like the product
//                           (A left of C, B above it), block tiles, the hovered element's tile,
//                           panels and shared-memory phase, legends
//   matmul_side_panel.cpp   live numbers (GFLOP/s, % of cuBLAS and of peak, correctness, history
//                           per kernel) above tabs: the ladder so far, launch, memory, schedule
#pragma once
#include <optional>

#include "state/app_state.hpp"

namespace bs::app {
class MatmulSession;
}

namespace bs::ui {

// Grayscale | Matmul, at the top of the controls panel.
void draw_lab_tabs(app::Lab* lab);

struct MatmulControlsActions {
  bool run_once = false;
};
MatmulControlsActions draw_matmul_controls(const app::MatmulSession& session, app::AppState* state);

struct MatmulViewOutput {
  std::optional<app::PixelPos> mouse_element;  // the element of C under the mouse (x = column)
  bool linear_filter[4] = {};                  // per heatmap: shown smaller than its texture
};
MatmulViewOutput draw_matmul_view(const app::MatmulSession& session, app::AppState* state);

void draw_matmul_side_panel(const app::MatmulSession& session, app::AppState* state);

}  // namespace bs::ui
