// Issue 24, "The first hour, again", in the App without a real window: the whole App on a
// headless (EGL) context behind a window whose input and drops the test queues, as the GLFW
// window queues a user's (platform/window.hpp, take_input_events). One test per item that a test
// in the App can catch; the real window's cases are in test_first_hour_window.cpp, the policy
// rooms' in test_shell_rooms (input queue, frame pacer, launch scheduler).
//   item 1   an idle window waits for events; input, a due launch and continuous runs do not
//   item 2   a sweep: no launches of the window's own, progress drawn once a second
//   item 3   keys typed faster than the frames reach the fields as typed ("32 Tab 8 Enter")
//   item 4   the matmul size fields: "257 Tab 129 Tab 65 Enter" is 257 x 129 x 65
//   item 6   a refused matmul size keeps the matrices and the last launch
//   item 8   a file that does not load is said in the status bar (its notice), not only in Messages
//   item 9   --kernel nope in the window's modes exits 2 naming the lab's kernels
//   item 11  the launch export writes what the panel shows (the median of its runs)
//   item 13  `blockscope sweep` without --json: stdout is the JSON alone
//   item 15  the status file's message is not an old error once a new launch ran
//   item 16  unsaved editor tabs are kept across a restart
#include <gtest/gtest.h>

#include <imgui_internal.h>  // ActiveId, InputTextState: did the click reach a text field
#include <unistd.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cpu_app.hpp"
#include "app_runner.hpp"
#include "json_reader.hpp"
#include "shell/app.hpp"
#include "skips.hpp"
#include "user_window.hpp"

namespace {

namespace fs = std::filesystem;
namespace runner = bs::app::test;
using namespace bs;
using namespace bs::app;
using Event = Window::InputEvent;
using bs::app::test::UserWindow;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("bs_firsthour24_" + std::to_string(::getpid()) + "_" + name + "_" +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class FirstHourAgain : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_dir("app"); }
  void TearDown() override {
    app_.reset();
    window_.reset();
    headless_.reset();
    if (!HasFailure()) fs::remove_all(dir_);
  }
  void start(std::vector<std::string> images = {}, std::string lab = "gray") {
    auto headless = make_headless_window(1600, 1000);
    if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
    headless_ = std::move(headless.value());
    window_ = std::make_unique<UserWindow>(*headless_);
    CliOptions options;
    options.status_file_path = (dir_ / "status.json").string();
    options.config_dir = (dir_ / "cfg").string();
    options.images = std::move(images);
    options.state.lab = lab;
    options.state.lab_given = true;  // as --lab gives it (else the saved settings choose)
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
  bs::test::JsonValue status() {
    auto v = bs::test::parse_json(slurp(dir_ / "status.json"));
    return v ? *v : bs::test::JsonValue{};
  }
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
  // Frames until the queued input is all handed over and settled (a slow window draws them).
  void drain() {
    for (int i = 0; i < 60; ++i) steps(1);
  }

  fs::path dir_;
  std::unique_ptr<Window> headless_;
  std::unique_ptr<UserWindow> window_;
  std::unique_ptr<App> app_;
};

// Item 1: the window sleeps while nothing changes; a due launch, continuous runs and input keep
// it drawing.
TEST_F(FirstHourAgain, AnIdleWindowWaitsForEventsAndInputWakesIt) {
  start();
  // Continuous runs (the default): a frame is due at once (at most 60 a second).
  EXPECT_LE(app_->idle_wait_s(), 1.0 / 60 + 1e-9);
  window_->key(GLFW_KEY_R, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT);  // Run continuously: off
  steps(1);
  steps(FramePacer::kSettleFrames + 2);
  // Nothing changes now: the loop may sleep long (it waits for events; a wake-up ends it).
  EXPECT_GE(app_->idle_wait_s(), 1.0) << "an idle window must not draw frames";
  const std::size_t launches = app_->launch_records_kept();
  steps(5);
  EXPECT_EQ(app_->launch_records_kept(), launches) << "no launches while idle";
  // Input waiting: draw at once.
  window_->key(GLFW_KEY_F1);
  window_->key(GLFW_KEY_F1);
  steps(1);
  EXPECT_EQ(app_->idle_wait_s(), 0.0) << "queued input and the frames after it are drawn at once";
  // Run once (Ctrl+R): the launch is due at once.
  window_->key(GLFW_KEY_R, GLFW_MOD_CONTROL);
  steps(1);
  EXPECT_EQ(app_->idle_wait_s(), 0.0) << "a launch is due";
  // On the CPU simulation it runs on the worker: its record is kept when it finishes.
  for (int i = 0; i < 2000 && app_->launch_records_kept() == launches; ++i) {
    steps(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(app_->launch_records_kept(), launches);
}

// Item 2: while a sweep measures, the window launches nothing of its own and draws its progress
// once a second.
TEST_F(FirstHourAgain, ASweepHasTheMachineToItselfTheWindowDrawsItsProgressSlowly) {
  start();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{32, 8, 1}}).ok());
  steps(2);
  app_->state().sweep.all_blocks = false;
  app_->state().sweep.block_list = "32x8,16x16,64x4,8x8";
  ASSERT_TRUE(app_->start_sweep().ok());
  const std::size_t launches = app_->launch_records_kept();
  int frames = 0;
  bool slow_progress = false;
  while (app_->sweeping() && frames < 20000) {
    steps(1);
    ++frames;
    if (frames > FramePacer::kSettleFrames + 2) slow_progress = slow_progress || app_->idle_wait_s() > 0.5;
  }
  ASSERT_FALSE(app_->sweeping());
  const std::size_t launches_during = app_->launch_records_kept();
  steps(1);  // the frame after the worker ended takes its whole result (and may launch again)
  EXPECT_EQ(launches_during, launches) << "the window relaunched its kernel during the sweep";
  EXPECT_TRUE(slow_progress || frames <= FramePacer::kSettleFrames + 3)
      << "the sweep's progress asked for frames faster than once per half second";
  ASSERT_NE(app_->sweep_result(), nullptr);
  EXPECT_EQ(app_->sweep_result()->records.size(), 4u);
}

// Item 3: "32 Tab 8 Enter" typed between two frames sets blockDim to 32 x 8 (ImGui 1.86 saw the
// keys' final state only: the Tab and the Enter were lost and "328" stayed in the first field).
TEST_F(FirstHourAgain, KeysTypedFasterThanTheFramesReachTheFieldsAsTyped) {
  start();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{16, 16, 1}}).ok());
  steps(3);
  click_field(52, 523);  // the typed blockDim.x field; all that follows is queued before a frame
  window_->type("32");
  window_->key(GLFW_KEY_TAB);
  window_->type("8");
  window_->key(GLFW_KEY_ENTER);
  drain();
  EXPECT_EQ(app_->shown_launch().config.block, (Dim3{32, 8, 1})) << app_->summary();
}

// Item 4: the matmul size fields keep what was typed when Tab moves on, in order M, N, K.
TEST_F(FirstHourAgain, MatmulSizeFieldsTakeTabAndKeepTheValue) {
  start({}, "matmul");
  steps(3);
  click_field(52, 159);  // M
  window_->type("57");
  window_->key(GLFW_KEY_TAB);
  window_->type("29");
  window_->key(GLFW_KEY_TAB);
  window_->type("13");
  window_->key(GLFW_KEY_ENTER);
  drain();
  ASSERT_NE(app_->current_view(), nullptr);
  const auto options = app_->current_view()->option_values();
  ASSERT_TRUE(options.count("--matmul-size"));
  EXPECT_EQ(options.at("--matmul-size"), "57x29x13");
  EXPECT_NE(app_->current_view()->lab().problem().summary.find("57"), std::string::npos)
      << app_->current_view()->lab().problem().summary;
}

// Item 6: a size the CPU simulator refuses leaves the matrices and the last launch that ran (the
// Launch tab and the data view keep showing them), and the status bar says why.
TEST_F(FirstHourAgain, ARefusedMatmulSizeKeepsTheMatricesAndTheLastLaunch) {
  start({}, "matmul");
  steps(3);
  const LaunchRecord ran = app_->shown_launch();
  ASSERT_TRUE(ran.ok()) << app_->summary();
  const std::string problem = app_->current_view()->lab().problem().summary;
  click_field(52, 159);  // M
  window_->type("600");
  window_->key(GLFW_KEY_TAB);
  window_->type("600");
  window_->key(GLFW_KEY_TAB);
  window_->type("600");
  window_->key(GLFW_KEY_ENTER);
  drain();
  EXPECT_TRUE(app_->current_view()->lab().problem().ready) << "the matrices went";
  EXPECT_EQ(app_->current_view()->lab().problem().summary, problem);
  EXPECT_TRUE(app_->shown_launch().ok()) << "the Launch tab lost the launch that ran";
  EXPECT_EQ(app_->shown_launch().kernel, ran.kernel);
  const auto s = status();
  EXPECT_NE(s.at("ui").at("notice").str.find("refused"), std::string::npos) << slurp(dir_ / "status.json");
}

// Item 8: a dropped file that does not load is said where the user looks (the status bar's
// notice), and so is starting with only bad files (the sample is shown).
TEST_F(FirstHourAgain, AFileThatDoesNotLoadIsSaidInTheStatusBar) {
  std::ofstream(dir_ / "notes.txt") << "not an image\n";
  start({(dir_ / "notes.txt").string()});
  EXPECT_NE(status().at("ui").at("notice").str.find("notes.txt"), std::string::npos)
      << "started with only a bad file: " << slurp(dir_ / "status.json");
  fs::create_directories(dir_ / "a folder");
  window_->drops.push_back((dir_ / "a folder").string());
  for (int i = 0; i < 200 && app_->loading(); ++i) steps(1);
  steps(3);
  const auto s = status();
  EXPECT_NE(s.at("ui").at("notice").str.find("a folder"), std::string::npos) << slurp(dir_ / "status.json");
  EXPECT_EQ(s.at("ui").at("notice").str.find("is_directory"), std::string::npos) << "no internal codes";
}

// Item 17: Ctrl+E on a built-in kernel shows its tab again (it opened another "untitled (gray_1d)"
// each time).
TEST_F(FirstHourAgain, CtrlEOnTheSameKernelShowsItsTabAgain) {
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

// Item 19: the export dialog takes the keyboard when it opens, and Enter writes (it needed a
// click in the path, and Enter did nothing).
TEST_F(FirstHourAgain, TheExportDialogTakesTheKeyboardAndEnterWrites) {
  start();
  steps(4);  // a launch ran: the launch is what there is to export
  ASSERT_TRUE(app_->shown_launch().ok()) << app_->summary();
  const fs::path before = fs::current_path();
  fs::current_path(dir_);  // the dialog's default path is relative to where blockscope started
  window_->key(GLFW_KEY_E, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT);
  steps(4);
  EXPECT_TRUE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) << "the export dialog";
  EXPECT_NE(ImGui::GetCurrentContext()->ActiveId, 0u) << "the path field has the keyboard";
  window_->key(GLFW_KEY_ENTER);
  steps(4);
  fs::current_path(before);
  // The default name carries the time it was asked at: blockscope-gray-launch-YYYYMMDD-HHMMSS.json.
  fs::path written;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename().string().rfind("blockscope-gray-launch-", 0) == 0) written = e.path();
  ASSERT_FALSE(written.empty()) << "Enter wrote nothing into " << dir_;
  const auto doc = bs::test::parse_json(slurp(written));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->at("results").at(0).at("kernel").str, app_->shown_launch().kernel);
  EXPECT_FALSE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) << "Enter closed it";
}

// Item 11: the launch JSON carries the runs the panel's median is of, not one run.
TEST_F(FirstHourAgain, TheLaunchExportWritesWhatThePanelShows) {
  start();
  steps(12);  // continuous runs: one a frame
  const fs::path out = dir_ / "launch.json";
  ASSERT_TRUE(app_->export_to(ExportWhat::LaunchJson, out).ok());
  const auto doc = bs::test::parse_json(slurp(out));
  ASSERT_TRUE(doc);
  const auto& r = doc->at("results").at(0);
  EXPECT_GE(r.at("repeats").number, 10) << slurp(out);
  EXPECT_GT(r.at("ci_high_ms").number, 0);
}

// Item 15: after a refused shape, a shape that runs: the status file's message is no longer the
// refusal.
TEST_F(FirstHourAgain, TheStatusFileForgetsAnOldErrorOnceANewLaunchRan) {
  start();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{33, 33, 1}}).ok());
  steps(2);
  EXPECT_NE(status().at("status_message").str.find("refused"), std::string::npos) << slurp(dir_ / "status.json");
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{32, 8, 1}}).ok());
  steps(2);
  ASSERT_TRUE(app_->last_launch().ok());
  EXPECT_EQ(status().at("status_message").str.find("refused"), std::string::npos) << slurp(dir_ / "status.json");
}

// Item 16: editor tabs not saved to a file are kept in the settings folder when the app ends and
// given back at the next start, never lost by quitting.
TEST_F(FirstHourAgain, UnsavedKernelTabsAreKeptAcrossARestart) {
  const std::string source = "__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {\n"
                             "  // my edit " + std::to_string(::getpid()) + "\n}\n";
  fs::create_directories(dir_ / "cfg" / "unsaved");
  std::ofstream(dir_ / "cfg" / "unsaved" / "kernel1.cu")
      << "// blockscope unsaved kernel | lab=gray | template=gray_1d | path= | title=untitled (gray_1d)\n" << source;
  start();
  EXPECT_TRUE(app_->kernel_editor().is_open()) << "the kept tab is shown";
  bool said = false;
  for (const auto& m : app_->messages().all()) said = said || m.text.find("unsaved tab") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_FALSE(fs::exists(dir_ / "cfg" / "unsaved" / "kernel1.cu")) << "the kept copy is taken back";
  // Quitting again keeps it again, as it was.
  app_.reset();
  ASSERT_TRUE(fs::exists(dir_ / "cfg" / "unsaved" / "kernel1.cu"));
  const std::string kept = slurp(dir_ / "cfg" / "unsaved" / "kernel1.cu");
  EXPECT_NE(kept.find(source), std::string::npos) << kept;
  EXPECT_NE(kept.find("lab=gray"), std::string::npos) << kept;
}

// Item 9: an unknown kernel in the window's modes is a bad command line, as for bench and sweep.
TEST(FirstHourAgainCli, AnUnknownKernelExitsTwoAndListsTheLabsKernels) {
  const auto r = runner::run("--headless --backend cpu --frames 1 --kernel nope",
                             "env -u BLOCKSCOPE_CONFIG_DIR XDG_CONFIG_HOME=/nonexistent");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no kernel 'nope'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gray_2d"), std::string::npos) << "the lab's kernels are listed: " << r.output;
  const auto m = runner::run("--headless --backend cpu --frames 1 --lab matmul --kernel gray_2d",
                             "env -u BLOCKSCOPE_CONFIG_DIR XDG_CONFIG_HOME=/nonexistent");
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find("k1_naive"), std::string::npos) << m.output;
}

// Item 13: `blockscope sweep` without --json writes the JSON alone to stdout (the table and the
// notes go to stderr), so a pipe can parse it; `bench` does the same.
TEST(FirstHourAgainCli, SweepAndBenchWithoutJsonKeepStdoutParseable) {
  for (const char* cmd : {"sweep gray --backend cpu --size 40x24 --kernel gray_2d --blocks 32x8,16x16",
                          "bench gray --backend cpu --size 40x24 --kernel gray_2d --block 32x8 --repeats 2 --set layout=planar"}) {
    SCOPED_TRACE(cmd);
    const std::string line = runner::quote(runner::executable()) + " " + cmd + " 2>/dev/null";
    FILE* p = popen(line.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
    const int rc = pclose(p);
    EXPECT_EQ(WEXITSTATUS(rc), 0) << out;
    const auto doc = bs::test::parse_json(out);
    ASSERT_TRUE(doc) << "stdout is not JSON alone:\n" << out.substr(0, 2000);
    EXPECT_GE(doc->at("results").items.size(), 1u);
  }
}

}  // namespace
