// The whole App in-process on the CPU simulation, on a headless (EGL) context behind a window
// whose input and drops the test queues (user_window.hpp), as the GLFW window queues a user's.
// The fixture the tests that drive the App as a user would share: start it (a lab, a window size,
// the command line's options), draw frames, wait for what the worker thread finishes, click a
// text field, read the status file (--status-file) and the child windows ImGui drew.
//
//   class MatmulView : public bs::app::test::AppInProcess {};
//   TEST_F(MatmulView, ...) { start("matmul"); ASSERT_TRUE(frames_until([&] { return ran(); })); ... }
#pragma once
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>  // the windows drawn, the active item
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include "cpu_app.hpp"
#include "json_reader.hpp"
#include "shell/app.hpp"
#include "skips.hpp"
#include "user_window.hpp"
#include "wait_until.hpp"

namespace bs::app::test {

// A folder of its own for the running test (pid and test name), emptied.
inline std::filesystem::path fresh_dir(const std::string& what) {
  namespace fs = std::filesystem;
  const fs::path d = fs::temp_directory_path() / ("bs_" + what + "_" + std::to_string(::getpid()) + "_" +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The child window of the main window whose name starts with `name` ("controls", "view"), from
// the frame drawn last; null when it was not drawn (a folded panel).
inline ImGuiWindow* child_window(const std::string& name) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  for (ImGuiWindow* w : g.Windows)
    if (w->Active && std::string(w->Name).find("/" + name + "_") != std::string::npos) return w;
  return nullptr;
}

class AppInProcess : public ::testing::Test {
 protected:
  static constexpr int kWidth = 1600, kHeight = 1000;

  // The headless context is made here, so that where there is none the test skips (or fails,
  // BLOCKSCOPE_REQUIRE_GL) before its body runs.
  void SetUp() override {
    dir_ = fresh_dir("app");
    auto headless = make_headless_window(kWidth, kHeight);
    if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
    headless_ = std::move(headless.value());
  }
  void TearDown() override {
    stop();
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  // The App on `lab` (as --lab gives it) in a width x height window, three frames drawn.
  void start(std::string lab = "gray", int width = kWidth, int height = kHeight) {
    start_with(std::move(lab), {}, width, height);
  }
  // The same with the command line's other options (files, settings, a selection); the status
  // file and the settings folder are the test's own.
  void start_with(std::string lab, CliOptions options, int width = kWidth, int height = kHeight) {
    if (!headless_ || headless_->framebuffer_size() != std::pair{width, height}) {
      headless_.reset();
      auto headless = make_headless_window(width, height);
      ASSERT_TRUE(headless.ok()) << "no second headless OpenGL context: " << headless.status().describe();
      headless_ = std::move(headless.value());
    }
    window_ = std::make_unique<UserWindow>(*headless_);
    options.status_file_path = (dir_ / "status.json").string();
    options.config_dir = (dir_ / "cfg").string();
    options.state.lab = std::move(lab);
    options.state.lab_given = true;  // as --lab gives it (else the saved settings choose)
    auto app = open_cpu_app(*window_, std::move(options));
    ASSERT_TRUE(app.ok()) << app.status().describe();
    app_ = std::move(app.value());
    steps(3);
  }
  // Ends the App (it saves what it keeps) and its window; start() makes new ones.
  void stop() {
    app_.reset();
    window_.reset();
    headless_.reset();
  }
  void steps(int n) {
    for (int i = 0; i < n; ++i) {
      app_->frame();
      app_->present();
    }
  }
  // Frames until `done` holds (the worker's launches, compiles and sweeps finish on their own
  // time); false if it never does.
  template <class F>
  bool frames_until(F done, std::chrono::milliseconds timeout = bs::test::kGenerousTimeout) {
    return bs::test::wait_until(
        [&] {
          if (done()) return true;
          steps(1);
          return false;
        },
        timeout, std::chrono::milliseconds(5));
  }
  // Frames until the queued input is all handed over and settled (a slow window draws them).
  void drain() { steps(60); }
  // A launch ran on the lab's data as it is now (a changed problem clears the records).
  bool ran() const {
    return !app_->shown_launch().kernel.empty() && app_->shown_launch().ok() && !app_->launch_in_flight();
  }
  bs::test::JsonValue status() {
    auto v = bs::test::parse_json(slurp(dir_ / "status.json"));
    return v ? *v : bs::test::JsonValue{};
  }
  std::string status_text() { return slurp(dir_ / "status.json"); }
  // A click on a text field of the controls panel at (x, y) (the 1600 x 1000 layout: the typed
  // blockDim.x field of the grayscale lab, the matmul lab's M), as the mouse gives it the
  // keyboard: the field is active afterwards, or the layout moved and the test says so.
  void click_field(float x, float y) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(x, y);
    io.MouseDown[0] = true;
    steps(1);
    io.MouseDown[0] = false;
    steps(1);
    ImGuiContext& g = *ImGui::GetCurrentContext();
    ASSERT_NE(g.ActiveId, 0u) << "nothing took the click at " << x << "," << y;
    ASSERT_EQ(g.InputTextState.ID, g.ActiveId) << "the click at " << x << "," << y << " did not reach a text field";
  }
  // The window as it is now, into $BS_SHOTS_DIR/NAME.png when that is set (to look at).
  void shot(const std::string& name) {
    if (const char* d = std::getenv("BS_SHOTS_DIR"); d && *d) {
      const Status st = app_->write_screenshot(std::filesystem::path(d) / (name + ".png"));
      EXPECT_TRUE(st.ok()) << st.describe();
    }
  }

  std::filesystem::path dir_;
  std::unique_ptr<Window> headless_;
  std::unique_ptr<UserWindow> window_;
  std::unique_ptr<App> app_;
};

}  // namespace bs::app::test
