// The layout (ui/layout.hpp): the columns fit every window width from the smallest to 2560 px at
// every text size View offers, the data view keeps its share, the panels their least widths; and
// in the App, every row of the controls panel fits its width at the default and the smallest size.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "app_in_process.hpp"
#include "ui/layout.hpp"

namespace {

using namespace bs;
using namespace bs::app;
using bs::app::test::child_window;

// The window widths from the smallest the window allows to a 2560 px screen, at the text sizes
// View offers, each panel open and folded.
TEST(Layout, ColumnsFitTheWindowAndTheDataViewKeepsItsShare) {
  for (float width : {800.0f, 1024.0f, 1600.0f, 2560.0f}) {
    for (float text : {0.85f, 1.0f, 1.5f, 2.0f}) {
      for (bool left : {true, false}) {
        for (bool side : {true, false}) {
          LayoutPrefs prefs;
          prefs.text_scale = text;
          prefs.left_open = left;
          prefs.side_open = side;
          const float em = 14 * text, gap = 6, avail = width - 20;
          const ui::Columns c = ui::plan_columns(avail, em, gap, prefs);
          SCOPED_TRACE("width " + std::to_string(width) + " text " + std::to_string(text));
          EXPECT_NEAR(c.left + c.view + c.side + 2 * gap, avail, 0.5f);  // nothing overlaps, nothing left over
          EXPECT_GE(c.view, std::min(ui::kMinViewShare * avail, avail - 2 * gap - 2 * ui::kStripEm * em) - 0.5f);
          if (c.left_open) { EXPECT_GE(c.left, ui::kMinPanelEm * em - 0.5f); }
          if (c.side_open) { EXPECT_GE(c.side, ui::kMinSideEm * em - 0.5f); }
          if (!left) { EXPECT_FALSE(c.left_open); }
          if (!side) { EXPECT_FALSE(c.side_open); }
          EXPECT_LE(c.left, prefs.left_em * em + 0.5f);
        }
      }
    }
  }
  // 800 px: the data view is no longer squeezed to 240 px; the side tabs fold to a strip.
  const ui::Columns small = ui::plan_columns(780, 14, 6, LayoutPrefs{});
  EXPECT_GE(small.view, 400);
  EXPECT_TRUE(small.left_open);
  EXPECT_TRUE(small.side_folded_for_room);
  // 2560 px: both panels at their chosen widths.
  const ui::Columns large = ui::plan_columns(2540, 14, 6, LayoutPrefs{});
  EXPECT_TRUE(large.left_open && large.side_open);
  EXPECT_FLOAT_EQ(large.left, 21 * 14);
  EXPECT_FLOAT_EQ(large.side, 31 * 14);
}

class ControlsPanelLayout : public bs::app::test::AppInProcess {};

// Rows of choices wrap: at the default panel width the matmul lab's "colour elements by" row
// showed "warpgroup", "wa..." and nothing said "lane" and "mma tile" were past the edge. Every
// row of the controls panel fits its width, at the default size and at the smallest.
TEST_F(ControlsPanelLayout, RowsOfChoicesWrapInsideThePanel) {
  for (const auto& [w, h] : {std::pair{1600, 1000}, std::pair{kMinWindowWidth, kMinWindowHeight}}) {
    SCOPED_TRACE(std::to_string(w) + " x " + std::to_string(h));
    start("matmul", w, h);
    steps(3);
    ImGuiWindow* controls = child_window("controls");
    ASSERT_NE(controls, nullptr) << "the controls panel is open at this size";
    const float room = controls->ContentRegionRect.GetWidth();
    // A pixel or two of rounding (a row of buttons sized to share the width); the rows that ran
    // past the edge did by whole choices, tens of pixels.
    EXPECT_LE(controls->ContentSize.x, room + 3.0f)
        << "something in the controls panel runs " << controls->ContentSize.x - room << " px past its edge";
    stop();
  }
}

}  // namespace
