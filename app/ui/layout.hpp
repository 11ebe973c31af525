// The window's columns: the controls (left), the data view (centre) and the side tabs (right).
// Panel widths are the user's (LayoutPrefs, in font heights so they follow the text size), fitted
// to the window: the data view keeps at least 40% of the width (and 16 em); the controls keep
// their width first (they run everything), the side tabs take what is left, and a panel left
// with less than its minimum (13 em, the side tabs 20) folds to a strip (side tabs first) that unfolds with one click
// or when the window grows. Splitters between the columns resize the panels by dragging; a double-click gives the
// default width back.
//
// plan_columns() is plain arithmetic (tests/app/test_layout.cpp checks it at 800 x 600 and
// 2560 x 1440); the splitters and the wrapping tab strip draw with ImGui.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "state/app_state.hpp"

namespace bs::ui {

struct Columns {
  float left = 0, view = 0, side = 0;  // widths in pixels, gaps excluded
  bool left_open = true, side_open = true;
  bool left_folded_for_room = false, side_folded_for_room = false;  // open in prefs, no room now
};

inline constexpr float kStripEm = 1.8f;      // a folded panel's strip
inline constexpr float kMinPanelEm = 13.0f;  // an open panel is never narrower
inline constexpr float kMinSideEm = 20.0f;   // the side tabs' figures need more to stay readable
inline constexpr float kMinViewEm = 16.0f;
inline constexpr float kMinViewShare = 0.4f;

// `avail`: the width for the three columns and their two gaps of `gap` pixels each.
Columns plan_columns(float avail, float em, float gap, const app::LayoutPrefs& prefs);

// A vertical splitter `height` tall at the cursor, `width` wide. Dragging changes *width_em by
// the mouse's travel (negated when the panel is right of the splitter); a double-click sets
// `default_em`. Returns true while it changed something.
bool splitter(const char* id, float width, float height, float em, float* width_em, bool panel_on_right,
              float default_em);

// Tabs that wrap onto a second row instead of clipping their labels in a narrow panel (ImGui's
// tab bar shrinks labels to nothing). Returns the index chosen (current when none was clicked).
// `width`: the room for them (0: the rest of the line).
int wrapping_tabs(const char* id, const std::vector<std::string>& labels, int current, float width = 0);

// Before an item `width` wide that follows another in a row of choices (radio buttons): on the
// same line where it fits in the window's content region, else at the start of the next, so the
// row wraps instead of running past the panel's edge with nothing to say so.
void same_line_if_fits(float width);
// How wide ImGui::RadioButton(label) is.
float radio_width(const char* label);

}  // namespace bs::ui
