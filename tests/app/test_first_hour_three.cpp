// Issue 36, "The first hour, three", in the App without a real window: the whole App on a
// headless (EGL) context behind a window whose input the test queues (user_window.hpp), as the
// GLFW window queues a user's; what it reads is the text the App drew (screen_text.hpp). One test
// per item that a test in the App can catch; item 2's selection rule on fake labs is also in
// test_shell_rooms (the lab host), item 13's in the input queue's tests, and item 4's there too
// (the launch scheduler with the window's worker, which a headless App launches without).
//   item 1   rows of choices never run past the controls panel's edge (default and smallest size)
//   item 2   switching precision selects a kernel of the new list; no internal names, no empty fields
//   item 3   a drag pans the matmul data view
//   item 6   the exported sweep chart carries its whole caption, wrapped
//   item 8   the pinned card keeps clear of the note beside B, and scrolls with a scrollbar
//   item 9   a marked A or B cell names its lane, register and element on hover
//   item 13  Ctrl+Enter typed quickly compiles (Ctrl let go in the same frame, or never sent)
//   item 12  the editor shows the block and grid its kernel launches with, and changes the block
#include <gtest/gtest.h>

#include <imgui_internal.h>  // the windows' content sizes, the active item
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "cpu_app.hpp"
#include "experiments/exports.hpp"
#include "experiments/sweep_model.hpp"
#include "image/image_loader.hpp"
#include "labs/matmul/matmul_view.hpp"
#include "screen_text.hpp"
#include "shell/app.hpp"
#include "skips.hpp"
#include "user_window.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bs;
using namespace bs::app;
using bs::app::test::ScreenText;
using bs::app::test::UserWindow;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("bs_firsthour36_" + std::to_string(::getpid()) + "_" + name + "_" +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The child window of the main window whose name starts with `name` ("controls", "view"), from
// the frame drawn last; null when it was not drawn (a folded panel).
ImGuiWindow* child_window(const std::string& name) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  for (ImGuiWindow* w : g.Windows)
    if (w->Active && std::string(w->Name).find("/" + name + "_") != std::string::npos) return w;
  return nullptr;
}

class FirstHourThree : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_dir("app"); }
  void TearDown() override {
    app_.reset();
    window_.reset();
    headless_.reset();
    if (!HasFailure()) fs::remove_all(dir_);
  }
  void start(std::string lab, int width = 1600, int height = 1000) { start_with(std::move(lab), {}, width, height); }
  // T1 (WMMA) on M x N x K, as --set precision=bf16 --kernel tc1_wmma --matmul-size give it.
  void start_t1(const std::string& size, int width = 1600, int height = 1000) {
    CliOptions o;
    o.state.lab_settings["matmul"]["precision"] = "bf16";
    o.state.selection.kernel = "tc1_wmma";
    o.state.lab_options["--matmul-size"] = size;
    start_with("matmul", std::move(o), width, height);
  }
  void start_with(std::string lab, CliOptions options, int width, int height) {
    auto headless = make_headless_window(width, height);
    if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
    headless_ = std::move(headless.value());
    window_ = std::make_unique<UserWindow>(*headless_);
    options.config_dir = (dir_ / "cfg").string();
    options.state.lab = lab;
    options.state.lab_given = true;
    auto app = bs::app::test::open_cpu_app(*window_, options);
    ASSERT_TRUE(app.ok()) << app.status().describe();
    app_ = std::move(app.value());
    steps(3);
  }
  void steps(int n) {
    for (int i = 0; i < n; ++i) {
      app_->frame();
      app_->present();
    }
  }
  // A launch ran on the lab's data as it is now (a changed problem clears the records).
  bool ran() const { return !app_->shown_launch().kernel.empty() && app_->shown_launch().ok() && !app_->launch_in_flight(); }
  // The window as it is now, into $BS_SHOTS_DIR/NAME.png when that is set (to look at).
  void shot(const std::string& name) {
    if (const char* d = std::getenv("BS_SHOTS_DIR"); d && *d) {
      const Status st = app_->write_screenshot(fs::path(d) / (name + ".png"));
      EXPECT_TRUE(st.ok()) << st.describe();
    }
  }
  // Frames until `done` holds (the worker's launches finish on their own time), at most 120 s.
  template <class F>
  bool frames_until(F done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      steps(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return done();
  }

  fs::path dir_;
  std::unique_ptr<Window> headless_;
  std::unique_ptr<UserWindow> window_;
  std::unique_ptr<App> app_;
};

// Item 1: at the default panel width the matmul lab's "colour elements by" row showed
// "warpgroup", "wa..." and nothing said "lane" and "mma tile" were past the edge. Every row of
// the controls panel fits its width (it wraps), at the default size and at the smallest.
TEST_F(FirstHourThree, RowsOfChoicesWrapInsideTheControlsPanel) {
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
    app_.reset();
    window_.reset();
    headless_.reset();
  }
}

// Item 2: bf16 picked while k3 was selected left k3 selected and every launch refused, the card
// reading "... / MatmulLab::plan / set precision=fp32 / The views show the last launch that ran:
// , ." The nearest kernel of the bf16 list is selected and runs, and the card shows no internal
// function name and no empty fields.
TEST_F(FirstHourThree, SwitchingPrecisionSelectsAKernelOfTheNewList) {
  start("matmul");
  ScreenText screen;
  const lab::KernelInfo* k3 = app_->current_view()->lab().find_kernel("k3_smem_tiled");
  ASSERT_NE(k3, nullptr);
  ASSERT_TRUE(app_->select(k3->id, app_->current_view()->lab().default_config(*k3)).ok());
  ASSERT_TRUE(frames_until([&] { return app_->shown_launch().kernel == "k3_smem_tiled"; })) << app_->summary();
  app_->change_setting("precision", "bf16");
  ASSERT_TRUE(frames_until([&] { return ran(); })) << app_->summary();
  steps(2);
  EXPECT_EQ(app_->last_launch().kernel, "tc1_wmma") << "T3 of the new list needs a Hopper GPU: the first rung";
  EXPECT_TRUE(app_->last_launch().ok()) << app_->last_launch().status.describe();
  ASSERT_TRUE(screen.shows("precision")) << "the capture reads the controls:\n" << screen.last();
  EXPECT_FALSE(screen.shows("Refused")) << screen.last();
  EXPECT_FALSE(screen.shows("MatmulLab::")) << screen.last();
  EXPECT_FALSE(screen.shows(": , .")) << screen.last();
  shot("item2_bf16_after_k3");
  // Back to fp32: the same rule the other way.
  app_->change_setting("precision", "fp32");
  ASSERT_TRUE(frames_until([&] { return ran(); })) << app_->summary();
  EXPECT_EQ(app_->last_launch().kernel.rfind("k1", 0), 0u) << app_->last_launch().kernel << ": " << app_->summary();
}

// Item 3: the matmul view's hint says "drag to pan"; a left drag did nothing (the grayscale lab
// pans). It pans now, from fit too, and the release after a drag pins nothing.
TEST_F(FirstHourThree, ADragPansTheMatmulView) {
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

// Item 8: the pinned card covered the note above B ("lane N's A 16x16 and B 16x8 tiles...") and
// was cut mid-sentence with no scrollbar. The card starts below the note, and scrolls visibly.
TEST_F(FirstHourThree, ThePinnedCardKeepsClearOfTheNoteAndScrollsVisibly) {
  start_t1("512x512x512");
  ASSERT_TRUE(frames_until([&] { return ran(); })) << app_->summary();
  auto* view = dynamic_cast<MatmulView*>(app_->current_view());
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
  shot("item8_pinned_card");
  if (card->ContentSize.y > card->InnerRect.GetHeight() + 1) {
    EXPECT_TRUE(card->ScrollbarY) << "the card's text is cut with no scrollbar to say so";
  }
}

// Item 9: the marks on A and B showed which cells a lane feeds, not which register holds each.
// Hovering a marked cell names the lane, the register and the element, checked here against the
// PTX ISA's m16n8k16 .bf16 fragment tables (groupID = lane / 4, threadID_in_group = lane % 4).
TEST_F(FirstHourThree, AMarkedOperandCellNamesItsLaneAndRegister) {
  start_t1("32x32x32");
  ScreenText screen;
  ASSERT_TRUE(frames_until([&] { return ran(); })) << app_->summary();
  auto* view = dynamic_cast<MatmulView*>(app_->current_view());
  ASSERT_NE(view, nullptr);
  view->view_state().pinned = PixelPos{13, 21};  // C[21][13]
  steps(3);
  const std::vector<MatmulView::FedMark> marks = view->fed_marks();
  ASSERT_EQ(marks.size(), 12u) << "8 A and 4 B cells";
  ImGuiIO& io = ImGui::GetIO();
  for (const MatmulView::FedMark& k : marks) {
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
    if (&k == &marks.front()) shot("item9_hover_a");
    if (!k.a_side && &k == &marks.back()) shot("item9_hover_b");
  }
}

// Item 12: the learner's kernel ran at 16 x 16 while the controls showed 32 x 8 for the built-in
// one, and the editor never said which. Its toolbar shows the block and the grid the kernel
// launches with (the grid as the launch shown really had it: the screenshot, the editor being a
// window the text capture does not reach), and a block typed there relaunches with it.
TEST_F(FirstHourThree, TheEditorShowsAndChangesTheBlockItsKernelLaunchesWith) {
  start("gray");
  app_->edit_kernel();
  steps(2);
  editor::KernelEditor& ed = app_->kernel_editor();
  ASSERT_TRUE(ed.is_open());
  ed.compile();
  ASSERT_TRUE(frames_until([&] {
    return !ed.busy() && app_->shown_launch().ok() && app_->shown_launch().kernel.rfind("custom", 0) == 0;
  })) << app_->summary();
  steps(2);
  const LaunchRecord first = app_->shown_launch();
  const Dim3 other = first.config.block == Dim3{64, 1, 1} ? Dim3{128, 1, 1} : Dim3{64, 1, 1};
  ed.set_launch_block(other);
  ASSERT_TRUE(frames_until([&] {
    return app_->shown_launch().ok() && app_->shown_launch().config.block == other && !app_->launch_in_flight();
  })) << app_->summary();
  steps(2);
  const LaunchRecord second = app_->shown_launch();
  EXPECT_EQ(second.kernel, first.kernel) << "the same kernel, relaunched";
  EXPECT_NE(second.config.grid.x, first.config.grid.x);
  shot("item12_editor_launch_shape");
}

// Item 13: ctrl+Return sent within a few milliseconds inserted a newline instead of compiling.
// Ctrl pressed in one frame and let go right after Enter in the next; and a Ctrl+Enter whose
// modifier came only with the key (a synthetic event). Both compile, the code unchanged.
TEST_F(FirstHourThree, CtrlEnterTypedQuicklyCompilesInTheEditor) {
  start("gray");
  app_->edit_kernel();
  steps(3);
  editor::KernelEditor& ed = app_->kernel_editor();
  ASSERT_TRUE(ed.has_keyboard()) << "the editor takes the keyboard when it opens";
  ASSERT_NE(ed.active_code(), nullptr);
  const std::string code = ed.active_code()->text;
  using Event = UserWindow::Event;
  for (const bool with_ctrl_events : {true, false}) {
    SCOPED_TRACE(with_ctrl_events ? "Ctrl's own events" : "the modifier on the key alone");
    ASSERT_TRUE(frames_until([&] { return !ed.busy(); }));
    if (with_ctrl_events) {
      window_->events.push_back({Event::Kind::Key, GLFW_KEY_LEFT_CONTROL, Event::Press, 0, 0, 0});
      steps(1);
      window_->events.push_back({Event::Kind::Key, GLFW_KEY_ENTER, Event::Press, GLFW_MOD_CONTROL, 0, 0});
      window_->events.push_back({Event::Kind::Key, GLFW_KEY_LEFT_CONTROL, Event::Release, GLFW_MOD_CONTROL, 0, 0});
      window_->events.push_back({Event::Kind::Key, GLFW_KEY_ENTER, Event::Release, 0, 0, 0});
    } else {
      window_->key(GLFW_KEY_ENTER, GLFW_MOD_CONTROL);
    }
    bool compiling = false;
    for (int i = 0; i < 10 && !compiling; ++i) {
      steps(1);
      compiling = ed.busy();
    }
    EXPECT_TRUE(compiling) << "Ctrl+Enter did not compile";
    EXPECT_EQ(ed.active_code()->text, code) << "Ctrl+Enter typed a newline";
  }
  ASSERT_TRUE(frames_until([&] { return !ed.busy(); }));
}

// Item 6: the exported sweep chart's caption was cut after "... | time |": the device and the
// SIMULATED label never reached the PNG. At the smallest window the caption is wider than the
// chart: it wraps onto more lines, all inside the exported image.
TEST_F(FirstHourThree, TheExportedSweepChartCarriesItsWholeCaption) {
  start("gray", kMinWindowWidth, kMinWindowHeight);
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{32, 8, 1}}).ok());
  steps(2);
  app_->state().sweep.all_blocks = false;
  app_->state().sweep.ladder = false;
  app_->state().sweep.block_list = "32x8,16x16";
  ASSERT_TRUE(app_->start_sweep().ok());
  ASSERT_TRUE(frames_until([&] { return !app_->sweeping(); })) << "the sweep did not finish";
  steps(3);
  ASSERT_NE(app_->sweep_result(), nullptr);
  const fs::path png = dir_ / "chart.png";
  const Status exported = app_->export_to(ExportWhat::HeatmapPng, png);
  ASSERT_TRUE(exported.ok()) << exported.describe();
  auto img = load_image_file(png, LoadLimits{});
  ASSERT_TRUE(img.ok()) << img.status().describe();
  const std::string caption = sweep_chart_caption(*app_->sweep_result(), "gray_2d", HeatmapMetric::Time);
  ASSERT_NE(caption.find("SIMULATED"), std::string::npos) << caption;
  const float em = ImGui::GetFontSize();
  ASSERT_GT(ImGui::CalcTextSize(caption.c_str()).x, img->width) << "the test needs a caption wider than the chart";
  // The caption's own colour (the simulated one) in the PNG: rows of text, spanning more than one line.
  int top = -1, bottom = -1;
  for (int y = 0; y < img->height; ++y)
    for (int x = 0; x < img->width; ++x) {
      const std::uint8_t* p = &img->rgba[(static_cast<std::size_t>(y) * img->width + x) * 4];
      if (p[0] == 255 && p[1] == 200 && p[2] == 90) {
        if (top < 0) top = y;
        bottom = y;
      }
    }
  ASSERT_GE(top, 0) << "no caption in the PNG";
  EXPECT_GT(bottom - top, 1.5f * em) << "the caption is one cut line (" << caption << ")";
  if (const char* d = std::getenv("BS_SHOTS_DIR"); d && *d) fs::copy_file(png, fs::path(d) / "item6_chart.png", fs::copy_options::overwrite_existing);
}

}  // namespace
