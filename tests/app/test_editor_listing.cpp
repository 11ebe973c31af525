// The kernel editor's lower pane (issue 22): Results | PTX | SASS of the kernel being edited. The
// App in-process on the CPU backend behind a headless window: the editor opens on the grayscale
// template and compiles it; the listing comes (NVRTC's PTX, here without a GPU; SASS where the
// toolkit's nvdisasm exists, else the pane says why); a click on a line of the code highlights that
// line's PTX instructions and brings them into view; a click on an instruction of another line
// puts the editor's cursor on it; a source that does not compile leaves the last good listing,
// marked stale. BS_SOURCE_PANEL_PNG=FOLDER writes the frames as PNGs, to look at.
#include <gtest/gtest.h>

#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "app_in_process.hpp"
#include "platform/png.hpp"
#include "platform/window.hpp"
#include "skips.hpp"
#include "source/listing_parse.hpp"

namespace {

using namespace bs;

ImGuiWindow* window_named(const char* part) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  for (ImGuiWindow* w : g.Windows)
    if (w->Active && std::string(w->Name).find(part) != std::string::npos) return w;
  return nullptr;
}

void save_png(Window& window, const std::string& name) {
  const char* dir = std::getenv("BS_SOURCE_PANEL_PNG");
  if (!dir || !*dir) return;
  const auto [w, h] = window.framebuffer_size();
  const std::vector<std::uint8_t> px = window.read_pixels_rgba();
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(write_png(std::filesystem::path(dir) / (name + ".png"), w, h, 4, px.data()).ok());
}

class EditorListing : public app::test::AppInProcess {
 protected:
  void SetUp() override {
    AppInProcess::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    start("gray");
  }
  void frame() { steps(1); }
  void click(ImVec2 at) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = at;
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
    frame();
  }
  editor::KernelEditor& ed() { return app_->kernel_editor(); }
};

TEST_F(EditorListing, PtxAndSassOfTheEditedKernelFollowTheCursorAndAFailedCompileLeavesThemStale) {
  frame();
  app_->edit_kernel();
  frame();
  ASSERT_TRUE(ed().is_open());
  ASSERT_NE(ed().active_code(), nullptr);
  const std::string good = ed().active_code()->text;
  ed().compile();
  ASSERT_TRUE(frames_until([&] { return ed().listing() && !ed().busy(); }))
      << "no listing within 120 s after the compile";
  const KernelListing& l = *ed().listing();
  EXPECT_EQ(l.source, good);
  EXPECT_FALSE(ed().listing_stale());
  if (!l.ptx_status.ok() && l.ptx_status.call == "dlopen") BS_SKIP() << "no NVRTC here: " << l.ptx_status.describe();
  ASSERT_TRUE(l.ptx_status.ok()) << l.ptx_status.describe();
  // SASS: where nvdisasm exists, with live registers where it gives life ranges; else the reason.
  if (l.sass.empty()) { EXPECT_FALSE(l.sass_status.ok()); }

  // The lines of the kernel that have PTX instructions, counted here from the listing.
  std::map<int, int> first_at;  // line -> index of its first PTX instruction
  for (std::size_t i = 0; i < l.ptx.size(); ++i)
    if (l.ptx[i].line > 0 && source::same_source_file(l.ptx[i].file, l.source_file))
      first_at.emplace(l.ptx[i].line, static_cast<int>(i));
  ASSERT_GE(first_at.size(), 2u) << "too few lines with PTX to test";

  ed().show_lower(editor::KernelEditor::Lower::Ptx);
  frame();
  frame();
  EXPECT_EQ(ed().lower(), editor::KernelEditor::Lower::Ptx);
  ImGuiWindow* ptx = window_named("editor_ptx");
  ASSERT_NE(ptx, nullptr) << "the PTX tab of the lower pane is not on screen";
  save_png(*headless_, "editor_ptx");

  // A click on a line of the code (the last line with PTX: its instructions are furthest down).
  const int line = first_at.rbegin()->first;
  ImGuiWindow* code = window_named("##code_scroll");
  ASSERT_NE(code, nullptr);
  const float h = ImGui::GetTextLineHeight();
  const float row = ImGui::GetTextLineHeightWithSpacing();
  click(
      ImVec2(code->Pos.x + 80, code->DC.CursorStartPos.y + ImGui::GetStyle().FramePadding.y + h * (line - 1) + h / 2));
  EXPECT_EQ(ed().active_code()->cursor_line, line);
  ptx = window_named("editor_ptx");
  ASSERT_NE(ptx, nullptr);
  const float y = static_cast<float>(first_at[line]) * row;
  EXPECT_LE(ptx->Scroll.y, y);
  EXPECT_GE(ptx->Scroll.y + ptx->Size.y, y + row) << "the line's first PTX instruction was not brought into view";
  save_png(*headless_, "editor_ptx_line");

  // A click on an instruction of another line: the cursor goes to that line.
  int target = -1;
  const int first_visible = static_cast<int>(ptx->Scroll.y / row) + 1;  // the first whole row
  const int rows = static_cast<int>(ptx->Size.y / row) - 2;
  for (int i = first_visible; i < first_visible + rows && i < static_cast<int>(l.ptx.size()); ++i)
    if (l.ptx[static_cast<std::size_t>(i)].line > 0 && l.ptx[static_cast<std::size_t>(i)].line != line &&
        source::same_source_file(l.ptx[static_cast<std::size_t>(i)].file, l.source_file)) {
      target = i;
      break;
    }
  ASSERT_GE(target, 0) << "no instruction of another line on screen";
  click(ImVec2(ptx->Pos.x + 60, ptx->DC.CursorStartPos.y + row * target + row / 2));
  for (int i = 0; i < 3; ++i) frame();  // the field takes the keyboard, then moves its cursor
  EXPECT_EQ(ed().active_code()->goto_line, 0) << "the click's line was not taken";
  EXPECT_EQ(ed().active_code()->cursor_line, l.ptx[static_cast<std::size_t>(target)].line);

  ed().show_lower(editor::KernelEditor::Lower::Sass);
  frame();
  frame();
  EXPECT_EQ(ed().lower(), editor::KernelEditor::Lower::Sass);
  save_png(*headless_, "editor_sass");

  // A compile error: the listing stays (the good source's), marked stale.
  const KernelListing* before = ed().listing();
  editor::replace_text(*ed().active_code(), good + "\n__global__ void broken( { this is not CUDA }\n");
  ed().compile();
  ASSERT_TRUE(frames_until([&] { return !ed().busy(); }));
  frame();
  frame();
  // The compile's outcome is the news: the lower pane shows Results, not the SASS it was left on.
  EXPECT_EQ(ed().lower(), editor::KernelEditor::Lower::Results);
  EXPECT_EQ(ed().listing(), before);
  EXPECT_EQ(ed().listing()->source, good);
  EXPECT_TRUE(ed().listing_stale());
  ed().show_lower(editor::KernelEditor::Lower::Ptx);
  frame();
  frame();
  save_png(*headless_, "editor_stale");
}

}  // namespace
