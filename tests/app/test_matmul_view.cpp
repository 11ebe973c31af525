// The matmul lab's data view, driven as a user drives it: a left drag pans the matrices (from
// fit too, and the release pins nothing); the pinned element's card keeps clear of the note
// beside B and scrolls visibly; a marked A or B cell of a tensor-core rung names, on hover, the
// lane, the register and the half that hold it, checked against the PTX ISA's m16n8k16 .bf16
// fragment tables. The App in-process (app_in_process.hpp); what is read is the text the App drew
// (screen_text.hpp). BS_SHOTS_DIR=FOLDER keeps screenshots of the cases, to look at.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app_in_process.hpp"
#include "labs/matmul/matmul_view.hpp"
#include "screen_text.hpp"

namespace {

using namespace bs;
using bs::app::PixelPos;
using bs::app::ViewState;
using bs::app::test::child_window;
using bs::app::test::ScreenText;

class MatmulView : public bs::app::test::AppInProcess {
 protected:
  // T1 (WMMA) on M x N x K, as --set precision=bf16 --kernel tc1_wmma --matmul-size give it.
  void start_t1(const std::string& size) {
    bs::app::CliOptions o;
    o.state.lab_settings["matmul"]["precision"] = "bf16";
    o.state.selection.kernel = "tc1_wmma";
    o.state.lab_options["--matmul-size"] = size;
    start_with("matmul", std::move(o));
  }
};

// The matmul view's hint says "drag to pan"; a left drag did nothing (the grayscale lab
// pans). It pans now, from fit too, and the release after a drag pins nothing.
TEST_F(MatmulView, ADragPansTheView) {
  start("matmul");
  steps(3);
  ImGuiWindow* view = child_window("view");
  ASSERT_NE(view, nullptr);
  ASSERT_LE(app_->current_view()->view_state().zoom, 0.0f) << "the view starts fitted";
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 at{view->Pos.x + view->Size.x * 0.6f, view->Pos.y + view->Size.y * 0.6f};
  io.MousePos = at;
  steps(1);
  io.MouseDown[0] = true;
  steps(1);
  for (int i = 1; i <= 8; ++i) {
    io.MousePos = ImVec2(at.x + 10.0f * i, at.y + 6.0f * i);
    steps(1);
  }
  io.MouseDown[0] = false;
  steps(2);
  const ViewState& v = app_->current_view()->view_state();
  EXPECT_GT(v.zoom, 0.0f) << "a drag leaves fit";
  EXPECT_LT(v.center_x, 0.5f) << "dragging right moves the matrices right: the centre moves left";
  EXPECT_LT(v.center_y, 0.5f);
  EXPECT_FALSE(v.pinned.has_value()) << "a drag is not a click";
}

// The pinned card covered the note above B ("lane N's A 16x16 and B 16x8 tiles...") and
// was cut mid-sentence with no scrollbar. The card starts below the note, and scrolls visibly.
TEST_F(MatmulView, ThePinnedCardKeepsClearOfTheNoteAndScrollsVisibly) {
  start_t1("512x512x512");
  ASSERT_TRUE(frames_until([&] { return ran(); })) << app_->summary();
  auto* view = dynamic_cast<bs::app::MatmulView*>(app_->current_view());
  ASSERT_NE(view, nullptr);
  view->view_state().pinned = PixelPos{300, 200};  // what a click on C[200][300] pins
  steps(3);
  ASSERT_TRUE(view->fed_note().has_value()) << "no note beside B for the pinned element";
  ImGuiWindow* card = child_window("matmul_inspector");
  ASSERT_NE(card, nullptr) << "no pinned card at this size";
  const auto [n0, n1] = *view->fed_note();
  const ImVec2 c0 = card->Pos, c1{card->Pos.x + card->Size.x, card->Pos.y + card->Size.y};
  const bool overlap = n0.x < c1.x && n1.x > c0.x && n0.y < c1.y && n1.y > c0.y;
  EXPECT_FALSE(overlap) << "note " << n0.x << "," << n0.y << " .. " << n1.x << "," << n1.y << "; card " << c0.x << ","
                        << c0.y << " .. " << c1.x << "," << c1.y;
  shot("matmul_view_pinned_card");
  if (card->ContentSize.y > card->InnerRect.GetHeight() + 1) {
    EXPECT_TRUE(card->ScrollbarY) << "the card's text is cut with no scrollbar to say so";
  }
}

// The marks on A and B showed which cells a lane feeds, not which register holds each.
// Hovering a marked cell names the lane, the register and the element, checked here against the
// PTX ISA's m16n8k16 .bf16 fragment tables (groupID = lane / 4, threadID_in_group = lane % 4).
TEST_F(MatmulView, AMarkedOperandCellNamesItsLaneAndRegister) {
  start_t1("32x32x32");
  ScreenText screen;
  ASSERT_TRUE(frames_until([&] { return ran(); })) << app_->summary();
  auto* view = dynamic_cast<bs::app::MatmulView*>(app_->current_view());
  ASSERT_NE(view, nullptr);
  view->view_state().pinned = PixelPos{13, 21};  // C[21][13]
  steps(3);
  const std::vector<bs::app::MatmulView::FedMark> marks = view->fed_marks();
  ASSERT_EQ(marks.size(), 12u) << "8 A and 4 B cells";
  ImGuiIO& io = ImGui::GetIO();
  for (const bs::app::MatmulView::FedMark& k : marks) {
    io.MousePos = ImVec2((k.p0.x + k.p1.x) / 2, (k.p0.y + k.p1.y) / 2);
    steps(2);
    const long long g = k.lane / 4, t = k.lane % 4;
    int element = 0;
    if (k.a_side) {  // a_i: row g (+8 for i = 2,3,6,7), col 2t + (i & 1) (+8 for i >= 4)
      const long long r = k.row % 16, c = k.col % 16;
      EXPECT_EQ(r % 8, g) << "A[" << k.row << "][" << k.col << "] is not lane " << k.lane << "'s";
      EXPECT_EQ(c % 8 / 2, t);
      element = 4 * (c >= 8) + 2 * (r >= 8) + static_cast<int>(c % 2);
    } else {  // b_i: row (k) 2t + (i & 1) (+8 for i >= 2), col (n) g
      const long long r = k.row % 16, c = k.col % 8;
      EXPECT_EQ(c, g) << "B[" << k.row << "][" << k.col << "] is not lane " << k.lane << "'s";
      EXPECT_EQ(r % 8 / 2, t);
      element = 2 * (r >= 8) + static_cast<int>(r % 2);
    }
    const std::string want = std::string(k.a_side ? "A" : "B") + "[" + std::to_string(k.row) + "][" +
                             std::to_string(k.col) + "]: lane " + std::to_string(k.lane) + ", register " +
                             (k.a_side ? "a" : "b") + std::to_string(element / 2) + ", " +
                             (element % 2 ? "high" : "low") + " half";
    EXPECT_TRUE(screen.shows(want)) << "hovering the mark shows no '" << want << "':\n" << screen.last();
    if (&k == &marks.front()) shot("matmul_view_hover_a");
    if (!k.a_side && &k == &marks.back()) shot("matmul_view_hover_b");
  }
}

}  // namespace
