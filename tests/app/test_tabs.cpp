// One way to add a tab (issue 33): a tab a lab's view adds (LabView::tabs()) joins the shell's
// own in its dock, in the order of the table of tab names, and is drawn like them; a tab that
// says it has background work (Tab::background_s) keeps the frame loop from idling, with no list
// of rooms in the App. The whole App in-process on a headless context, behind a window whose
// input the test queues, with a fake lab (tests/app/fake_lab_view.hpp) whose view adds a tab.
#include <gtest/gtest.h>
#include <unistd.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "fake_lab_view.hpp"
#include "json_reader.hpp"
#include "screen_text.hpp"
#include "shell/app.hpp"
#include "shell/compute_session.hpp"
#include "skips.hpp"
#include "user_window.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bs;
using namespace bs::app;
using bs::app::test::FakeView;
using bs::app::test::UserWindow;

class LabTabs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bs_labtabs_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto headless = make_headless_window(1600, 1000);
    if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
    headless_ = std::move(headless.value());
    window_ = std::make_unique<UserWindow>(*headless_);
    auto session = open_compute_session(BackendChoice::Cpu, -1, false);
    ASSERT_TRUE(session.ok()) << session.status().describe();
    CliOptions options;
    options.headless = true;
    options.backend = BackendChoice::Cpu;
    options.status_file_path = (dir_ / "status.json").string();
    options.state.lab = "fake";
    options.state.lab_given = true;
    LabCatalog catalog = {app::test::fake_entry("fake", false, std::make_shared<app::test::FakeScript>(),
                                                std::make_shared<app::test::ViewSeen>(), {"k1"})};
    auto app = App::create(*window_, options, std::move(session.value()), std::move(catalog));
    ASSERT_TRUE(app.ok()) << app.status().describe();
    app_ = std::move(app.value());
    steps(2);
    view_ = dynamic_cast<FakeView*>(app_->current_view());
    ASSERT_NE(view_, nullptr);
    // The lab's own tab: a side tab, drawn with a line of its own; its work is the test's flag.
    Tab mine{.panel = Panel::Pipeline, .draw = [this](TabContext&) {
               ++drawn_;
               ImGui::TextUnformatted("the fake lab's own tab");
             }};
    mine.background_s = [this] { return working_ ? 0.25 : 0.0; };
    view_->added_tabs = {mine};
  }
  void TearDown() override {
    app_.reset();
    window_.reset();
    headless_.reset();
    if (!HasFailure()) fs::remove_all(dir_);
  }
  void steps(int n) {
    for (int i = 0; i < n; ++i) {
      app_->frame();
      app_->present();
    }
  }
  std::string status_panel() {
    std::ifstream in(dir_ / "status.json");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto v = bs::test::parse_json(text);
    return v ? v->at("ui").at("panel").str : std::string();
  }

  fs::path dir_;
  std::unique_ptr<Window> headless_;
  std::unique_ptr<UserWindow> window_;
  std::unique_ptr<App> app_;
  FakeView* view_ = nullptr;
  int drawn_ = 0;
  bool working_ = false;
};

TEST_F(LabTabs, ATabALabAddsAppearsInItsDockAfterTheShellsAndDraws) {
  app::test::ScreenText screen;
  app_->state().panel = Panel::Pipeline;
  steps(2);
  EXPECT_EQ(status_panel(), "pipeline");
  EXPECT_GT(drawn_, 0) << "the lab's tab was chosen but not drawn";
  EXPECT_TRUE(screen.shows("the fake lab's own tab")) << screen.last();
  // The side strip reads, in the table's order, the shell's tabs and then the lab's: its title
  // comes after Measured (the last of the shell's), and the centre's titles come before them.
  const std::string& text = screen.last();
  const auto at = [&](const char* word) { return text.find(word); };
  ASSERT_NE(at("Pipeline"), std::string::npos) << text;
  EXPECT_LT(at("Source"), at("Timings")) << text;
  EXPECT_LT(at("Timings"), at("Measured")) << text;
  EXPECT_LT(at("Measured"), at("Pipeline")) << text;

  // Without it (a lab that adds none), the choice stays but the first side tab shows; nothing
  // draws the lab's tab.
  view_->added_tabs.clear();
  const int before = drawn_;
  steps(2);
  EXPECT_EQ(drawn_, before);
  EXPECT_FALSE(screen.shows("Pipeline")) << screen.last();
  EXPECT_EQ(status_panel(), "timings");
  EXPECT_EQ(app_->state().panel, Panel::Pipeline) << "the choice is kept for a lab that has the tab";
}

TEST_F(LabTabs, ATabWithBackgroundWorkKeepsTheFrameLoopFromIdling) {
  window_->key(GLFW_KEY_R, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT);  // Run continuously: off
  // The frames that settle the key press: drawn until the window may sleep (the settling lasts
  // FramePacer::kSettleS after the last input), 10 s at most.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  do steps(1);
  while (app_->idle_wait_s() < 1.0 && std::chrono::steady_clock::now() < until);
  ASSERT_GE(app_->idle_wait_s(), 1.0) << "nothing to do: the window should sleep";
  // The lab's tab has work on another thread (not the tab shown: every open tab is asked).
  working_ = true;
  const double wait = app_->idle_wait_s();
  EXPECT_GT(wait, 0.0) << "progress is drawn at the tab's rate, not every frame";
  EXPECT_LE(wait, 0.25 + 1e-9) << "the tab's work must wake the window at its period";
  // Its work done: the window sleeps again.
  working_ = false;
  EXPECT_GE(app_->idle_wait_s(), 1.0);
}

}  // namespace
