// Settings (state/settings_file.hpp, state/user_settings.hpp): every persisted field survives a
// write and a read; a corrupt file is a message and the defaults; the command line's flags win
// over the file group by group; and, with blockscope run as a user runs it, settings persist
// between two runs given a config folder, a corrupt file does not stop a run, and headless runs
// never read nor write the user's own settings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "app_in_process.hpp"
#include "app_runner.hpp"
#include "state/settings_file.hpp"
#include "state/user_settings.hpp"

namespace {

namespace fs = std::filesystem;
namespace runner = bs::app::test;  // run(), quote(): blockscope as a user runs it
using namespace bs;
using namespace bs::app;
using bs::app::test::fresh_dir;
using bs::app::test::slurp;

const std::vector<std::string> kLabs = {"gray", "matmul"};

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
                     << "ui.text_scale = 40\n"   // out of range
                     << "ui.left_em = banana\n"  // not a number
                     << "panel = sideways\n"     // not a panel
                     << "gray.block = 0x8\n"     // not a shape
                     << "lab = nosuchlab\n"      // not a lab
                     << "this line has no equals sign\n"
                     << "gray.kernel = gray_2d\n";  // fine
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

}  // namespace
