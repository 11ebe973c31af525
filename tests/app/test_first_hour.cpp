// What a new user tripped over in the first hour (issue 13) and the habits that were missing
// (issue 9: shortcuts, settings), tested without a window:
//   1. settings: the file's format, corrupt files, flags over the file, headless runs that
//      never touch the user's settings, and settings that persist between two real runs
//   2. the layout at 800 x 600 and 2560 x 1440 (ui/layout.hpp)
//   3. keyboard shortcuts: every one parses, the README lists every one, and pressing them in
//      the App (key presses through a stand-in window) does what they say, Escape included
//   4. fonts: "café_ñ_日本.png" is drawn with real glyphs, or visibly as U+FFFD without a font
//   5. the worker-thread launch: the frame loop gets its thread back at once, and the result
//      equals a launch on the frame loop, bit for bit
// The same things in a real window under Xvfb: test_first_hour_window.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "cpu_app.hpp"
#include "app_runner.hpp"
#include "json_reader.hpp"
#include "labs/catalog.hpp"
#include "platform/forwarding_window.hpp"
#include "shell/app.hpp"
#include "shell/async_launch.hpp"
#include "shell/compute_session.hpp"
#include "shell/run_modes.hpp"
#include "shell/shortcuts.hpp"
#include "state/settings_file.hpp"
#include "state/user_settings.hpp"
#include "ui/fonts.hpp"
#include "ui/layout.hpp"
#include "skips.hpp"

#include <GLFW/glfw3.h>

namespace {

namespace fs = std::filesystem;
namespace runner = bs::app::test;  // run(), quote(): blockscope as a user runs it
using namespace bs;
using namespace bs::app;
using namespace std::chrono_literals;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() /
                     ("bs_firsthour_" + std::to_string(::getpid()) + "_" + name + "_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::vector<std::string> kLabs = {"gray", "matmul"};

// ---------------------------------------------------------------------------------------------
// 1. settings
// ---------------------------------------------------------------------------------------------

TEST(Settings, EveryPersistedFieldSurvivesAWriteAndARead) {
  std::mt19937 rng(std::random_device{}());
  AppState s;
  s.lab = "matmul";
  s.panel = Panel::Schedule;
  s.trace_schedule = false;
  s.layout.text_scale = 1.3f;
  s.layout.left_em = std::uniform_int_distribution<int>(13, 40)(rng);
  s.layout.side_em = std::uniform_int_distribution<int>(20, 60)(rng);
  s.layout.side_open = false;
  LabMemory& g = s.remembered["gray"];
  g.selection.kernel = "gray_2d";
  g.selection.block = Dim3{1u << std::uniform_int_distribution<int>(0, 5)(rng), 8, 1};
  ViewState v;
  v.compare = CompareMode::SideBySide;
  v.split = 0.25f;
  v.overlay = OverlayMode::ColourByWarp;
  v.overlay_opacity = 0.7f;
  g.view = v;
  s.remembered["matmul"].selection.kernel = "k5_blocktile_2d";
  s.remembered["matmul"].selection.compiled = 3;
  s.remembered["matmul"].options["--matmul-size"] = "97x33x65";
  s.lab_settings["gray"]["layout"] = "rgba";
  s.sweep.all_blocks = false;
  s.sweep.block_list = "32x" + std::to_string(std::uniform_int_distribution<int>(1, 32)(rng)) + ",256";
  s.sweep.ladder = true;
  s.sweep.min_repeats = std::uniform_int_distribution<int>(3, 50)(rng);
  s.sweep.target_ci = 0.025;
  s.sweep.point_budget_ms = 250;
  s.sweep.flush_l2 = true;
  s.sweep.counters = true;
  // Any pick but the default, the measured counters' included.
  s.sweep.metric = static_cast<HeatmapMetric>(std::uniform_int_distribution<int>(1, kHeatmapMetrics - 1)(rng));

  const std::string text = user_settings_text(s, kLabs, {{"sweep.future_field", "7"}});
  const fs::path file = fresh_dir("roundtrip") / "settings.txt";
  ASSERT_TRUE(write_settings_file(file, text).ok());
  const LoadedSettings back = load_user_settings(file, kLabs);
  EXPECT_TRUE(back.found);
  EXPECT_TRUE(back.problems.empty()) << back.problems.front();
  const AppState& b = back.state;
  EXPECT_EQ(b.lab, "matmul");
  EXPECT_EQ(b.panel, Panel::Schedule);
  EXPECT_FALSE(b.trace_schedule);
  EXPECT_FLOAT_EQ(b.layout.text_scale, 1.3f);
  EXPECT_FLOAT_EQ(b.layout.left_em, s.layout.left_em);
  EXPECT_FLOAT_EQ(b.layout.side_em, s.layout.side_em);
  EXPECT_FALSE(b.layout.side_open);
  const LabMemory& gb = b.remembered.at("gray");
  EXPECT_EQ(gb.selection.kernel, "gray_2d");
  ASSERT_TRUE(gb.selection.block.has_value());
  EXPECT_EQ(*gb.selection.block, *g.selection.block);
  ASSERT_TRUE(gb.view.has_value());
  EXPECT_EQ(gb.view->compare, CompareMode::SideBySide);
  EXPECT_FLOAT_EQ(gb.view->split, 0.25f);
  EXPECT_EQ(gb.view->overlay, OverlayMode::ColourByWarp);
  EXPECT_FLOAT_EQ(gb.view->overlay_opacity, 0.7f);
  EXPECT_EQ(b.remembered.at("matmul").selection.compiled, 3);
  EXPECT_EQ(b.remembered.at("matmul").options.at("--matmul-size"), "97x33x65");
  EXPECT_EQ(b.lab_settings.at("gray").at("layout"), "rgba");
  EXPECT_FALSE(b.sweep.all_blocks);
  EXPECT_EQ(b.sweep.block_list, s.sweep.block_list);
  EXPECT_TRUE(b.sweep.ladder);
  EXPECT_EQ(b.sweep.min_repeats, s.sweep.min_repeats);
  EXPECT_NEAR(b.sweep.target_ci, 0.025, 1e-6);
  EXPECT_NEAR(b.sweep.point_budget_ms, 250, 1e-3);
  EXPECT_TRUE(b.sweep.flush_l2);
  EXPECT_TRUE(b.sweep.counters);
  EXPECT_EQ(b.sweep.metric, s.sweep.metric);
  // A key this version does not know is kept for the next write.
  EXPECT_EQ(back.unbound.at("sweep.future_field"), "7");
}

TEST(Settings, ACorruptFileIsAMessageAndTheDefaults) {
  const fs::path dir = fresh_dir("corrupt");
  const AppState defaults;
  // Not a settings file at all: random bytes.
  std::mt19937 rng(std::random_device{}());
  std::string junk(4096, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  const fs::path junk_file = dir / "junk.txt";
  std::ofstream(junk_file, std::ios::binary) << junk;
  LoadedSettings j = load_user_settings(junk_file, kLabs);
  EXPECT_FALSE(j.problems.empty());
  EXPECT_EQ(j.state.lab, defaults.lab);
  EXPECT_FLOAT_EQ(j.state.layout.text_scale, defaults.layout.text_scale);

  // Ours, with bad values: each bad one keeps its default and is named; the good ones apply.
  const fs::path bad = dir / "bad.txt";
  std::ofstream(bad) << kSettingsHeader << "\n"
                     << "ui.text_scale = 40\n"           // out of range
                     << "ui.left_em = banana\n"          // not a number
                     << "panel = sideways\n"             // not a panel
                     << "gray.block = 0x8\n"             // not a shape
                     << "lab = nosuchlab\n"              // not a lab
                     << "this line has no equals sign\n"
                     << "gray.kernel = gray_2d\n";       // fine
  LoadedSettings b = load_user_settings(bad, kLabs);
  EXPECT_GE(b.problems.size(), 6u);
  EXPECT_FLOAT_EQ(b.state.layout.text_scale, defaults.layout.text_scale);
  EXPECT_FLOAT_EQ(b.state.layout.left_em, defaults.layout.left_em);
  EXPECT_EQ(b.state.panel, defaults.panel);
  EXPECT_FALSE(b.state.remembered["gray"].selection.block.has_value());
  EXPECT_EQ(b.state.lab, defaults.lab);
  EXPECT_EQ(b.state.remembered["gray"].selection.kernel, "gray_2d");

  // Missing: no problem, defaults.
  LoadedSettings none = load_user_settings(dir / "absent.txt", kLabs);
  EXPECT_FALSE(none.found);
  EXPECT_TRUE(none.problems.empty());
}

TEST(Settings, FlagsWinGroupByGroup) {
  AppState saved;
  saved.lab = "matmul";
  saved.panel = Panel::Runs;
  saved.layout.text_scale = 1.5f;
  saved.remembered["gray"].selection.kernel = "gray_ilp4";
  saved.remembered["gray"].selection.block = Dim3{64, 1, 1};
  ViewState v;
  v.overlay = OverlayMode::BlockLines;
  saved.remembered["gray"].view = v;
  saved.lab_settings["gray"]["layout"] = "rgba";

  // The command line named the lab and the kernel (not the block): the saved block must not
  // ride along with another kernel; the saved view, settings, layout and panel stay.
  AppState cli;
  cli.lab = "gray";
  cli.lab_given = true;
  cli.selection.kernel = "gray_2d";
  merge_saved_under(cli, saved);
  EXPECT_EQ(cli.lab, "gray");
  EXPECT_EQ(cli.panel, Panel::Runs);
  EXPECT_FLOAT_EQ(cli.layout.text_scale, 1.5f);
  EXPECT_EQ(cli.remembered["gray"].selection.kernel, "gray_2d");
  EXPECT_FALSE(cli.remembered["gray"].selection.block.has_value());
  EXPECT_EQ(cli.remembered["gray"].view->overlay, OverlayMode::BlockLines);
  EXPECT_EQ(cli.lab_settings["gray"]["layout"], "rgba");

  // No flags: everything saved.
  AppState plain;
  merge_saved_under(plain, saved);
  EXPECT_EQ(plain.lab, "matmul");
  EXPECT_EQ(plain.remembered["gray"].selection.block->x, 64u);

  // --set and --panel win over the file.
  AppState set;
  set.lab_settings["gray"]["layout"] = "planar";
  set.panel = Panel::Memory;
  set.panel_given = true;
  merge_saved_under(set, saved);
  EXPECT_EQ(set.lab_settings["gray"]["layout"], "planar");
  EXPECT_EQ(set.panel, Panel::Memory);

  // --blocks: its shapes win; the saved counters, flush and colours stay.
  saved.sweep.counters = true;
  saved.sweep.flush_l2 = true;
  saved.sweep.metric = HeatmapMetric::AchievedOccupancy;
  saved.sweep.block_list = "8x8";
  AppState blocks;
  blocks.sweep.all_blocks = false;
  blocks.sweep.block_list = "32x8,256";
  blocks.sweep_given = true;
  merge_saved_under(blocks, saved);
  EXPECT_FALSE(blocks.sweep.all_blocks);
  EXPECT_EQ(blocks.sweep.block_list, "32x8,256");
  EXPECT_TRUE(blocks.sweep.counters);
  EXPECT_TRUE(blocks.sweep.flush_l2);
  EXPECT_EQ(blocks.sweep.metric, HeatmapMetric::AchievedOccupancy);
  AppState every;  // --blocks all keeps the saved list for later
  every.sweep.all_blocks = true;
  every.sweep_given = true;
  merge_saved_under(every, saved);
  EXPECT_TRUE(every.sweep.all_blocks);
  EXPECT_EQ(every.sweep.block_list, "8x8");
}

class SettingsRuns : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_dir("runs"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // blockscope headless with its XDG folder here (what a user's own settings would be).
  runner::RunResult run(const std::string& args) {
    return runner::run("--headless --backend cpu --frames 1 " + args,
                     "env -u BLOCKSCOPE_CONFIG_DIR XDG_CONFIG_HOME=" + runner::quote((dir_ / "xdg").string()));
  }
  fs::path dir_;
};

TEST_F(SettingsRuns, SettingsPersistBetweenRunsGivenAConfigDir) {
  const std::string cfg = "--config-dir " + runner::quote((dir_ / "cfg").string());
  auto first = run(cfg + " --kernel gray_2d --block 32x4 --overlay lines --panel schedule");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string text = slurp(dir_ / "cfg" / "settings.txt");
  EXPECT_NE(text.find("gray.kernel = gray_2d"), std::string::npos) << text;
  EXPECT_NE(text.find("gray.block = 32x4x1"), std::string::npos) << text;
  EXPECT_NE(text.find("gray.view.overlay = lines"), std::string::npos) << text;
  EXPECT_NE(text.find("panel = schedule"), std::string::npos) << text;

  // No flags: the saved selection launches.
  auto second = run(cfg);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("launch: gray_2d [block 32x4]"), std::string::npos) << second.output;

  // A flag wins over the file, and the file then keeps the flag's choice.
  auto third = run(cfg + " --kernel gray_1d_flat --block 128");
  EXPECT_NE(third.output.find("launch: gray_1d_flat [block 128]"), std::string::npos) << third.output;
  EXPECT_NE(slurp(dir_ / "cfg" / "settings.txt").find("gray.block = 128x1x1"), std::string::npos);
}

TEST_F(SettingsRuns, ACorruptFileIsAMessageAndTheRunGoesOnWithDefaults) {
  fs::create_directories(dir_ / "cfg");
  std::ofstream(dir_ / "cfg" / "settings.txt", std::ios::binary) << std::string("\x89PNG\r\n\x1a\n\0\0garbage", 18);
  auto r = run("--config-dir " + runner::quote((dir_ / "cfg").string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Settings:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("launch: gray_1d_flat [block 256]"), std::string::npos) << r.output;
}

TEST_F(SettingsRuns, HeadlessRunsNeitherReadNorWriteTheUsersSettings) {
  // The user's own settings say gray_2d at 8x8: a headless run without --config-dir must not
  // use them, and must leave the file exactly as it was.
  const fs::path user = dir_ / "xdg" / "blockscope" / "settings.txt";
  fs::create_directories(user.parent_path());
  const std::string mine = std::string(kSettingsHeader) + "\ngray.kernel = gray_2d\ngray.block = 8x8x1\n";
  std::ofstream(user) << mine;
  auto r = run("--kernel gray_ilp4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("launch: gray_ilp4"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(user), mine);
  auto d = run("");
  EXPECT_NE(d.output.find("launch: gray_1d_flat [block 256]"), std::string::npos) << d.output;
  EXPECT_EQ(slurp(user), mine);
  EXPECT_EQ(std::distance(fs::directory_iterator(user.parent_path()), fs::directory_iterator()), 1);
}

// ---------------------------------------------------------------------------------------------
// 2. the layout
// ---------------------------------------------------------------------------------------------

// The window sizes the first hour tried (issue 13, item 14), at the text sizes View offers.
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
          if (c.left_open) {
            EXPECT_GE(c.left, ui::kMinPanelEm * em - 0.5f);
          }
          if (c.side_open) {
            EXPECT_GE(c.side, ui::kMinSideEm * em - 0.5f);
          }
          if (!left) {
            EXPECT_FALSE(c.left_open);
          }
          if (!side) {
            EXPECT_FALSE(c.side_open);
          }
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

// ---------------------------------------------------------------------------------------------
// 3. keyboard shortcuts, in the App
// ---------------------------------------------------------------------------------------------

// The headless window, with key presses a test queues (what GLFW's key callback gives a real one).
class KeyWindow final : public ForwardingWindow {
 public:
  using ForwardingWindow::ForwardingWindow;
  std::vector<KeyPress> queued;
  void press(int key, int mods = 0) { queued.push_back({key, mods}); }
  std::vector<KeyPress> take_key_presses() override {
    std::vector<KeyPress> k;
    k.swap(queued);
    return k;
  }
};

class Shortcuts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir("keys");
    auto headless = make_headless_window(1000, 700);
    if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
    headless_ = std::move(headless.value());
    window_ = std::make_unique<KeyWindow>(*headless_);
    CliOptions options;
    options.status_file_path = (dir_ / "status.json").string();
    options.config_dir = (dir_ / "cfg").string();
    auto app = runner::open_cpu_app(*window_, options);
    ASSERT_TRUE(app.ok()) << app.status().describe();
    app_ = std::move(app.value());
    step();
  }
  void TearDown() override {
    app_.reset();
    window_.reset();
    headless_.reset();
    if (!HasFailure()) fs::remove_all(dir_);
  }
  void step() {
    app_->frame();
    app_->present();
  }
  bs::test::JsonValue status() {
    auto v = bs::test::parse_json(slurp(dir_ / "status.json"));
    return v ? *v : bs::test::JsonValue{};
  }
  bool ui(const char* field) { return status().at("ui").at(field).boolean; }

  fs::path dir_;
  std::unique_ptr<Window> headless_;
  std::unique_ptr<KeyWindow> window_;
  std::unique_ptr<App> app_;
};

// The status file names the tabs shown with the word the command line takes for them (the
// Measured tab was "other" while the status file kept its own copy of the names). The matmul lab
// is open: it adds Memory and Pipeline, so every side tab exists.
TEST_F(Shortcuts, TheStatusFileNamesEveryTabAsTheCommandLineDoes) {
  ASSERT_TRUE(app_->open_lab("matmul").ok());
  step();
  const std::vector<LabFlags> flags = lab_flags(built_in_labs());
  // The words `blockscope --help` documents for --panel.
  for (const char* word : {"timings", "launch", "schedule", "memory", "runs", "measured", "pipeline"}) {
    SCOPED_TRACE(word);
    auto parsed = parse_command_line({"--headless", "--panel", word}, flags);
    ASSERT_TRUE(parsed.ok()) << parsed.status().describe();
    app_->state().panel = parsed->state.panel;
    step();
    EXPECT_EQ(status().at("ui").at("panel").str, word);
  }
  for (const char* word : {"sweep", "compare", "source", "data"}) {
    SCOPED_TRACE(word);
    auto parsed = parse_command_line({"--headless", "--panel", word}, flags);
    ASSERT_TRUE(parsed.ok()) << parsed.status().describe();
    app_->state().centre = parsed->state.centre;
    step();
    EXPECT_EQ(status().at("ui").at("centre").str, word);
  }
}

TEST_F(Shortcuts, EveryShortcutParsesAndTheReadmeListsIt) {
  const std::string readme = slurp(fs::path(BLOCKSCOPE_SOURCE_DIR) / "README.md");
  ASSERT_FALSE(readme.empty());
  ASSERT_GE(app_->shortcuts().all().size(), 10u);
  for (const Shortcut& s : app_->shortcuts().all()) {
    EXPECT_FALSE(s.chords.empty()) << s.id << ": keys '" << s.keys << "' do not parse";
    auto parsed = parse_keys(s.keys);
    EXPECT_TRUE(parsed.ok()) << parsed.status().describe();
    const std::string row = "| " + s.keys + " | " + s.what + " |";
    EXPECT_NE(readme.find(row), std::string::npos) << "README.md lacks the line: " << row;
  }
  // Names that are not keys are refused with the name.
  EXPECT_FALSE(parse_keys("Ctrl+Banana").ok());
  EXPECT_FALSE(parse_keys("F13").ok());
}

TEST_F(Shortcuts, KeysDoWhatTheHelpSays) {
  // F1: the help overlay; Escape closes it.
  window_->press(GLFW_KEY_F1);
  step();
  step();
  EXPECT_TRUE(ui("help"));
  window_->press(GLFW_KEY_ESCAPE);
  step();
  step();
  EXPECT_FALSE(ui("help"));
  // "?" (Shift+/) opens it too.
  window_->press(GLFW_KEY_SLASH, GLFW_MOD_SHIFT);
  step();
  step();
  EXPECT_TRUE(ui("help"));
  window_->press(GLFW_KEY_ESCAPE);
  step();
  // Ctrl+O: the file browser; Escape closes it.
  window_->press(GLFW_KEY_O, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_TRUE(ui("file_browser"));
  window_->press(GLFW_KEY_ESCAPE);
  step();
  step();
  EXPECT_FALSE(ui("file_browser"));
  // Ctrl+M: the messages; Escape closes them.
  window_->press(GLFW_KEY_M, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_TRUE(ui("messages_window"));
  window_->press(GLFW_KEY_ESCAPE);
  step();
  step();
  EXPECT_FALSE(ui("messages_window"));
  // Text size, larger twice then back to 100%.
  window_->press(GLFW_KEY_EQUAL, GLFW_MOD_CONTROL);
  window_->press(GLFW_KEY_EQUAL, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_NEAR(status().at("ui").at("text_scale").number, 1.3, 1e-3);
  // Panels fold and come back.
  window_->press(GLFW_KEY_RIGHT_BRACKET, GLFW_MOD_CONTROL);
  window_->press(GLFW_KEY_LEFT_BRACKET, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_FALSE(ui("side_open"));
  EXPECT_FALSE(ui("left_open"));
  // Zoom: "+" leaves fit for a real zoom, "0" goes back to fit.
  LabView* view = app_->current_view();
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->view_state().zoom, 0.0f);
  window_->press(GLFW_KEY_EQUAL, GLFW_MOD_SHIFT);  // "+"
  step();
  EXPECT_GT(view->view_state().zoom, 0.0f);
  const float zoomed = view->view_state().zoom;
  window_->press(GLFW_KEY_KP_ADD);
  step();
  EXPECT_NEAR(view->view_state().zoom, zoomed * 1.25f, 1e-3);
  window_->press(GLFW_KEY_0);
  step();
  EXPECT_EQ(view->view_state().zoom, 0.0f);
  // The text size and the folds are remembered.
  app_->save_settings();
  const std::string saved = slurp(app_->settings_file());
  EXPECT_NE(saved.find("ui.text_scale = 1.3"), std::string::npos) << saved;
  EXPECT_NE(saved.find("ui.side_open = false"), std::string::npos) << saved;
  // Reset to defaults puts them back.
  app_->reset_to_defaults();
  step();
  step();
  EXPECT_NEAR(status().at("ui").at("text_scale").number, 1.0, 1e-3);
  EXPECT_TRUE(ui("side_open"));
  EXPECT_NE(slurp(app_->settings_file()).find("ui.side_open = true"), std::string::npos);
}

// The shortcuts the later rooms registered: Ctrl+E opens the kernel editor on the selected kernel,
// and F5 then belongs to the editor (it compiles; the app's run-once stands aside); Ctrl+W starts a
// sweep and, pressed again, cancels it keeping what it measured; Ctrl+Shift+E asks where to export.
TEST_F(Shortcuts, EditorSweepAndExportKeys) {
  EXPECT_FALSE(app_->kernel_editor().is_open());
  window_->press(GLFW_KEY_E, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_TRUE(app_->kernel_editor().is_open());
  step();
  EXPECT_TRUE(app_->kernel_editor().has_keyboard());
  // Close it (its window's own close), so the app has the keyboard back.
  app_->kernel_editor().close();
  step();
  EXPECT_FALSE(app_->kernel_editor().has_keyboard());

  EXPECT_FALSE(app_->sweeping());
  window_->press(GLFW_KEY_W, GLFW_MOD_CONTROL);
  step();
  EXPECT_TRUE(app_->sweeping());
  step();
  window_->press(GLFW_KEY_W, GLFW_MOD_CONTROL);
  for (int i = 0; i < 400 && app_->sweeping(); ++i) step();
  EXPECT_FALSE(app_->sweeping());

  window_->press(GLFW_KEY_E, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT);
  step();
  step();
  EXPECT_TRUE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) << "the export dialog is a popup";
}

// First-hour items 2, 3 and 4 in the App: what the status bar reads is the open lab's current
// attempt (a refusal is gone once a good shape runs, and another lab does not inherit it); each
// lab keeps its own pin; a refused matmul shape leaves the views on the launch that ran.
TEST_F(Shortcuts, RefusalsPinsAndTilesStayWithTheirLabAndTheirLaunch) {
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{33, 33, 1}}).ok());
  step();
  EXPECT_TRUE(app_->last_launch().refused) << app_->summary();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{32, 8, 1}}).ok());
  step();
  EXPECT_TRUE(app_->last_launch().ok()) << app_->summary();
  EXPECT_EQ(app_->summary().find("refused"), std::string::npos) << "item 2: no stale refusal: " << app_->summary();
  // Item 3: a gray pin stays in gray.
  app_->current_view()->view_state().pinned = PixelPos{156, 96};
  ASSERT_TRUE(app_->open_lab("matmul").ok());
  step();
  step();
  ASSERT_EQ(app_->lab_id(), "matmul");
  EXPECT_FALSE(app_->current_view()->view_state().pinned) << "item 3: the gray pin leaked into matmul";
  EXPECT_FALSE(app_->last_launch().refused) << "item 2: gray's refusal leaked into matmul";
  // Item 4: a refused matmul shape draws nothing new: the shown launch is the last that ran.
  const LaunchRecord ran = app_->shown_launch();
  ASSERT_TRUE(ran.ok()) << app_->summary();
  ASSERT_TRUE(app_->select("k1_naive", KernelConfig{Dim3{33, 33, 1}}).ok());
  step();
  EXPECT_TRUE(app_->last_launch().refused);
  EXPECT_EQ(app_->shown_launch().config.block, ran.config.block) << "item 4: the views moved to a launch that never ran";
  app_->current_view()->view_state().pinned = PixelPos{3, 4};
  ASSERT_TRUE(app_->open_lab("gray").ok());
  step();
  ASSERT_TRUE(app_->current_view()->view_state().pinned.has_value());
  EXPECT_EQ(*app_->current_view()->view_state().pinned, (PixelPos{156, 96})) << "item 3: gray keeps its own pin";
}

// ---------------------------------------------------------------------------------------------
// 4. fonts
// ---------------------------------------------------------------------------------------------

class Fonts : public ::testing::Test {
 protected:
  void SetUp() override { ImGui::CreateContext(); }
  void TearDown() override { ImGui::DestroyContext(); }
};

TEST_F(Fonts, NonLatinNamesGetRealGlyphsOrAVisibleFallback) {
  const ui::FontFiles files = ui::find_font_files();
  if (files.text.empty() || files.fallback.empty())
    BS_SKIP() << "fonts-dejavu-core and fonts-droid-fallback are not installed (.ci/install-deps.sh installs them)";
  const std::string name = "caf\xc3\xa9_\xc3\xb1_\xe6\x97\xa5\xe6\x9c\xac.png";  // café_ñ_日本.png
  ui::FontSet fonts(files);
  fonts.need(name);
  EXPECT_TRUE(fonts.rebuild_due());
  fonts.build(14);
  EXPECT_TRUE(fonts.missing().empty());
  ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  for (ImWchar c : {ImWchar(0xE9), ImWchar(0xF1), ImWchar(0x65E5), ImWchar(0x672C)})
    EXPECT_NE(font->FindGlyphNoFallback(c), nullptr) << "U+" << std::hex << c;
  // Seen once, it needs no rebuild again.
  fonts.need(name);
  EXPECT_FALSE(fonts.rebuild_due());

  // Without the CJK font: the two ideographs are missing, and draw as U+FFFD, not '?'.
  ui::FontSet latin_only(ui::FontFiles{files.text, {}});
  latin_only.need(name);
  latin_only.build(14);
  EXPECT_EQ(latin_only.missing().size(), 2u);
  EXPECT_EQ(ImGui::GetIO().Fonts->Fonts[0]->FallbackChar, ImWchar(0xFFFD));
}

// ---------------------------------------------------------------------------------------------
// 5. the worker-thread launch
// ---------------------------------------------------------------------------------------------

TEST(AsyncLaunchTest, ASlowSimulatedLaunchLeavesTheCallerFreeAndMatchesTheFrameLoopsOwn) {
  auto session = open_compute_session(BackendChoice::Cpu, -1, false);
  ASSERT_TRUE(session.ok());
  const LabCatalog catalog = built_in_labs();
  auto lab = catalog[1].make_lab(session->backend);  // matmul
  ASSERT_TRUE(lab.ok()) << lab.status().describe();
  std::mt19937 rng(std::random_device{}());
  const int m = std::uniform_int_distribution<int>(60, 90)(rng) | 1;
  ASSERT_TRUE(lab.value()->set_random_problem(std::to_string(m) + "x" + std::to_string(m + 6) + "x" + std::to_string(m - 4)).ok());
  const lab::KernelInfo* k = lab.value()->find_kernel("k3_smem_tiled");
  ASSERT_NE(k, nullptr);
  ASSERT_TRUE(k->uses_barriers);  // the slow kind on the simulator
  const KernelConfig config = lab.value()->default_config(*k);

  AsyncLaunch async;
  AsyncLaunch::Request r;
  r.slot = "matmul";
  r.problem_key = "p1";
  r.kernel = k->id;
  r.config = config;
  r.options.timing = TimingPolicy::once();
  r.options.verify = true;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_FALSE(async.start(*lab.value(), r).has_value());
  const double start_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::optional<AsyncLaunch::Finished> f;
  int polls = 0;
  while (!(f = async.take())) {
    ++polls;  // the caller's loop keeps running: this is where frames are drawn
    std::this_thread::sleep_for(2ms);
    ASSERT_LT(polls, 60000) << "no answer in 2 minutes";
  }
  EXPECT_GT(polls, 0) << "the launch finished before start() returned: it ran on the caller's thread";
  ASSERT_TRUE(f->record.ok()) << f->record.status.describe();
  EXPECT_TRUE(f->record.check.passed()) << f->record.check.summary();
  EXPECT_FALSE(f->cancelled);
  RecordProperty("start_ms", std::to_string(start_ms));  // the figure, for reports (not asserted)

  // The same launch on the lab itself (the frame loop's way): the same bytes.
  std::vector<std::uint8_t> own(lab.value()->output_bytes());
  lab::RunOptions o = r.options;
  o.output = own.data();
  const LaunchRecord rec = lab.value()->run(k->id, config, o);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(own, f->output);
  EXPECT_EQ(rec.config.grid, f->record.config.grid);

  // A second request on the same problem reuses the fork; a cancelled one comes back marked.
  r.problem_key = "p1";
  ASSERT_FALSE(async.start(*lab.value(), r).has_value());
  async.cancel();
  for (int i = 0; i < 60000 && async.busy(); ++i) std::this_thread::sleep_for(2ms);
  EXPECT_FALSE(async.busy());
  if (auto c = async.take()) {
    EXPECT_TRUE(c->cancelled || c->record.ok());
  }
}

}  // namespace
