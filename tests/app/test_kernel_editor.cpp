// The kernel editor in the App, used as a learner uses it: Ctrl+E on the same built-in kernel
// shows its tab again (never a second copy); tabs not saved to a file are kept in the settings
// folder when the app ends and given back at the next start; the toolbar shows the block and the
// grid the kernel launches with, and a block typed there relaunches it; Ctrl+Enter typed quickly
// compiles (Ctrl let go in the same frame, or never sent on its own). The App in-process on the
// CPU (app_in_process.hpp); the editor's PTX and SASS pane is in test_editor_listing.cpp.
#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app_in_process.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bs;
using namespace bs::app;
using bs::app::test::slurp;
using bs::app::test::UserWindow;

class KernelEditor : public bs::app::test::AppInProcess {};

// Ctrl+E on a built-in kernel shows its tab again (it opened another "untitled (gray_1d)" each
// time).
TEST_F(KernelEditor, CtrlEOnTheSameKernelShowsItsTabAgain) {
  start();
  for (int i = 0; i < 3; ++i) {
    window_->key(GLFW_KEY_E, GLFW_MOD_CONTROL);
    steps(3);
    EXPECT_TRUE(app_->kernel_editor().is_open());
    EXPECT_EQ(app_->kernel_editor().tab_count(), 1u) << "Ctrl+E #" << i + 1;
    app_->kernel_editor().close();
    steps(2);
  }
}

// Editor tabs not saved to a file are kept in the settings folder when the app ends and
// given back at the next start, never lost by quitting.
TEST_F(KernelEditor, UnsavedTabsAreKeptAcrossARestart) {
  const std::string source =
      "__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {\n"
      "  // my edit " +
      std::to_string(::getpid()) + "\n}\n";
  fs::create_directories(dir_ / "cfg" / "unsaved");
  std::ofstream(dir_ / "cfg" / "unsaved" / "kernel1.cu")
      << "// blockscope unsaved kernel | lab=gray | template=gray_1d | path= | title=untitled (gray_1d)\n"
      << source;
  start();
  EXPECT_TRUE(app_->kernel_editor().is_open()) << "the kept tab is shown";
  bool said = false;
  for (const auto& m : app_->messages().all()) said = said || m.text.find("unsaved tab") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_FALSE(fs::exists(dir_ / "cfg" / "unsaved" / "kernel1.cu")) << "the kept copy is taken back";
  // Quitting again keeps it again, as it was.
  stop();
  ASSERT_TRUE(fs::exists(dir_ / "cfg" / "unsaved" / "kernel1.cu"));
  const std::string kept = slurp(dir_ / "cfg" / "unsaved" / "kernel1.cu");
  EXPECT_NE(kept.find(source), std::string::npos) << kept;
  EXPECT_NE(kept.find("lab=gray"), std::string::npos) << kept;
}

// The learner's kernel ran at 16 x 16 while the controls showed 32 x 8 for the built-in
// one, and the editor never said which. Its toolbar shows the block and the grid the kernel
// launches with (the grid as the launch shown really had it: the screenshot, the editor being a
// window the text capture does not reach), and a block typed there relaunches with it.
TEST_F(KernelEditor, ShowsAndChangesTheBlockItsKernelLaunchesWith) {
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
  shot("kernel_editor_launch_shape");
}

// Ctrl+Return sent within a few milliseconds inserted a newline instead of compiling.
// Ctrl pressed in one frame and let go right after Enter in the next; and a Ctrl+Enter whose
// modifier came only with the key (a synthetic event). Both compile, the code unchanged.
TEST_F(KernelEditor, CtrlEnterTypedQuicklyCompiles) {
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

}  // namespace
