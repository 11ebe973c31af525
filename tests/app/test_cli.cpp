// Every flag maps onto the state it names, in any order; bad values are refused with the flag
// named. The labs' own flags come from the real catalog (labs/catalog.hpp), so a lab that adds
// a flag is parsed and documented by the same code.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "cli/options.hpp"
#include "labs/catalog.hpp"
#include "shell/run_modes.hpp"
#include "state/user_settings.hpp"

namespace {

using namespace bs::app;

const std::vector<LabFlags>& flags() {
  static const std::vector<LabFlags> f = lab_flags(built_in_labs());
  return f;
}

bs::Result<CliOptions> parse(std::vector<std::string> args) { return parse_command_line(args, flags()); }

TEST(Cli, NoArgumentsOpensTheWindowOnTheSample) {
  auto o = parse({});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->headless);
  EXPECT_TRUE(o->images.empty());
  EXPECT_EQ(o->backend, BackendChoice::Auto);
  EXPECT_EQ(o->state.lab, "gray");
  EXPECT_TRUE(o->state.selection.kernel.empty());
}

TEST(Cli, HeadlessStateFlagsReachTheState) {
  auto o = parse({"img.png",  "--headless", "--frames", "5",      "--screenshot",  "s.png",    "--gray-out", "g.png",
                  "--kernel", "gray_2d",    "--block",  "32x8",   "--backend",     "cpu",      "--overlay",  "warp",
                  "--hover",  "12,34",      "--pin",    "5,6",    "--panel",       "schedule", "--view",     "side",
                  "--zoom",   "4",          "--center", "100,50", "--window-size", "800x600"});
  ASSERT_TRUE(o.ok()) << o.status().describe();
  EXPECT_TRUE(o->headless);
  EXPECT_EQ(o->frames, 5);
  EXPECT_EQ(o->images, std::vector<std::string>{"img.png"});
  EXPECT_EQ(o->output_path, "g.png");
  EXPECT_EQ(o->state.selection.kernel, "gray_2d");
  ASSERT_TRUE(o->state.selection.block.has_value());
  EXPECT_EQ(*o->state.selection.block, (bs::Dim3{32, 8, 1}));
  EXPECT_EQ(o->backend, BackendChoice::Cpu);
  EXPECT_EQ(o->state.view.overlay, OverlayMode::ColourByWarp);
  ASSERT_TRUE(o->state.view.hover.has_value());
  EXPECT_EQ(o->state.view.hover->x, 12);
  EXPECT_EQ(o->state.view.hover->y, 34);
  EXPECT_EQ(o->state.view.pinned->x, 5);
  EXPECT_EQ(o->state.panel, Panel::Schedule);
  EXPECT_EQ(o->state.view.compare, CompareMode::SideBySide);
  EXPECT_FLOAT_EQ(o->state.view.zoom, 4.0f);
  EXPECT_TRUE(o->state.view_given);
  EXPECT_EQ(o->width, 800);
  EXPECT_EQ(o->height, 600);
}

TEST(Cli, StatusFileWorksInTheWindowAndHeadless) {
  auto window = parse({"--status-file", "state.json"});
  ASSERT_TRUE(window.ok()) << window.status().describe();
  EXPECT_EQ(window->status_file_path, "state.json");
  EXPECT_FALSE(window->headless);
  auto headless = parse({"--headless", "--status-file", "/tmp/s t.json"});
  ASSERT_TRUE(headless.ok()) << headless.status().describe();
  EXPECT_EQ(headless->status_file_path, "/tmp/s t.json");
}

// `--block 32x8 --kernel 2d` once ran 16x16: the parser only records what was asked, so every
// permutation of the same flags gives the same state.
TEST(Cli, EveryOrderOfFlagsGivesTheSameState) {
  const std::vector<std::vector<std::string>> groups = {{"--kernel", "gray_2d"}, {"--block", "32x8"}, {"--lab", "gray"},
                                                        {"--overlay", "sm"},     {"--config", "2"},   {"--pin", "3,4"},
                                                        {"--backend", "cpu"}};
  std::vector<std::size_t> order(groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 rng(std::random_device{}());
  std::optional<AppState> first;
  for (int trial = 0; trial < 40; ++trial) {
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::string> args;
    for (std::size_t i : order) args.insert(args.end(), groups[i].begin(), groups[i].end());
    auto o = parse(args);
    ASSERT_TRUE(o.ok()) << o.status().describe();
    const AppState& s = o->state;
    EXPECT_EQ(s.selection.kernel, "gray_2d");
    EXPECT_EQ(*s.selection.block, (bs::Dim3{32, 8, 1}));
    EXPECT_EQ(*s.selection.compiled, 2);
    EXPECT_EQ(s.view.overlay, OverlayMode::ColourBySm);
    EXPECT_EQ(s.view.pinned->x, 3);
  }
}

TEST(Cli, BlockParsingAcceptsOneToThreeDimensions) {
  EXPECT_EQ(parse_block("256").value(), (bs::Dim3{256, 1, 1}));
  EXPECT_EQ(parse_block("16x16").value(), (bs::Dim3{16, 16, 1}));
  EXPECT_EQ(parse_block("8x8x4").value(), (bs::Dim3{8, 8, 4}));
  // Zero is the lab's to refuse (with CUDA's reason), not the parser's.
  EXPECT_EQ(parse_block("0x4").value(), (bs::Dim3{0, 4, 1}));
  for (const char* bad : {"", "x", "16x", "a", "1x2x3x4", "-5", "16*16"}) EXPECT_FALSE(parse_block(bad).ok()) << bad;
}

TEST(Cli, BenchOptions) {
  auto o = parse({"bench", "gray", "--size", "8192x8192", "--size", "1023x767", "--block", "256", "--block", "16x16",
                  "--json", "out.json", "--csv", "out.csv", "--repeats", "7", "--kernel", "gray_2d", "--no-flush"});
  ASSERT_TRUE(o.ok()) << o.status().describe();
  ASSERT_TRUE(o->bench.has_value());
  EXPECT_EQ(o->bench->lab, "gray");
  EXPECT_EQ(o->bench->sizes, (std::vector<std::string>{"8192x8192", "1023x767"}));
  EXPECT_EQ(o->bench->blocks.size(), 2u);
  EXPECT_EQ(o->bench->kernels, std::vector<std::string>{"gray_2d"});
  EXPECT_EQ(o->bench->json_path, "out.json");
  EXPECT_EQ(o->bench->csv_path, "out.csv");
  EXPECT_EQ(o->bench->repeats, 7);
  EXPECT_FALSE(o->bench->flush_l2);
  auto m = parse({"bench", "matmul", "--size", "4096x4096x4096", "--backend", "cuda", "--kernel", "all"});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->bench->lab, "matmul");
  EXPECT_TRUE(m->bench->kernels.empty());  // all
}

// The window's sweep flushes the L2 when asked, as `blockscope sweep --flush-l2` does (a problem
// that fits in the L2 times differently with warm caches); without --sweep the flag is refused.
TEST(Cli, TheWindowsSweepTakesFlushL2) {
  auto w = parse({"--flush-l2", "--sweep", "--blocks", "32x8,16x16", "--kernel", "gray_2d"});
  ASSERT_TRUE(w.ok()) << w.status().describe();
  EXPECT_TRUE(w->sweep);
  EXPECT_TRUE(w->state.sweep.flush_l2);
  // Over saved settings that did not flush, the flag wins; the saved block list is not touched.
  AppState saved;
  saved.sweep.flush_l2 = false;
  saved.sweep.all_blocks = false;
  saved.sweep.block_list = "64x4";
  auto only_flush = parse({"--flush-l2", "--sweep"});
  ASSERT_TRUE(only_flush.ok());
  AppState merged = only_flush->state;
  merge_saved_under(merged, saved);
  EXPECT_TRUE(merged.sweep.flush_l2);
  EXPECT_EQ(merged.sweep.block_list, "64x4");
  auto plain = parse({"--sweep"});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->state.sweep.flush_l2);
  auto lone = parse({"--headless", "--flush-l2"});
  ASSERT_FALSE(lone.ok());
  EXPECT_NE(lone.status().message.find("--flush-l2 belongs to --sweep"), std::string::npos) << lone.status().message;
  auto sweep = parse({"sweep", "gray", "--flush-l2"});
  ASSERT_TRUE(sweep.ok());
  EXPECT_TRUE(sweep->bench->flush_l2);
}

TEST(Cli, SettingsGoToTheLabTheWindowOpensAndBenchTakesSeveral) {
  // --set before --lab: the window's settings belong to the lab it opens, whatever the order.
  auto w = parse({"--set", "layout=rgba", "--lab", "gray", "--headless"});
  ASSERT_TRUE(w.ok()) << w.status().describe();
  EXPECT_EQ(w->state.lab_settings.at("gray").at("layout"), "rgba");
  auto b = parse({"bench", "gray", "--set", "layout=planar,rgba", "--set", "x=1"});
  ASSERT_TRUE(b.ok()) << b.status().describe();
  ASSERT_EQ(b->settings.size(), 2u);
  EXPECT_EQ(b->settings[0].first, "layout");
  EXPECT_EQ(b->settings[0].second, (std::vector<std::string>{"planar", "rgba"}));
  EXPECT_EQ(b->settings[1].second, std::vector<std::string>{"1"});
  EXPECT_TRUE(b->state.lab_settings.empty()) << "bench applies its own, per run";
}

TEST(Cli, BadInputNamesTheProblem) {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  const Case cases[] = {{{"--frames"}, "--frames"},
                        {{"--frames", "0"}, "--frames"},
                        {{"--backend", "opencl"}, "opencl"},
                        {{"--lab", "fft"}, "fft"},
                        {{"--bogus"}, "--bogus"},
                        {{"--hover", "1"}, "X,Y"},
                        {{"--screenshot", "x.png"}, "--headless"},
                        {{"--output", "x.png"}, "--headless"},
                        {{"bench"}, "gray"},
                        {{"bench", "fft"}, "matmul"},
                        {{"--size", "3x3"}, "bench"},
                        {{"--config", "-1"}, "--config"},
                        {{"--split", "2"}, "--split"},
                        {{"--status-file"}, "--status-file"},
                        {{"bench", "gray", "--status-file", "s.json"}, "--status-file"},
                        {{"--set", "layout"}, "KEY=VALUE"},
                        {{"--set", "=rgba"}, "KEY=VALUE"},
                        {{"--set", "layout=planar,rgba"}, "bench"},
                        {{"bench", "gray", "--set", "layout=planar,,rgba"}, "empty"}};
  for (const auto& c : cases) {
    auto o = parse(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0];
    EXPECT_NE(o.status().message.find(c.expect), std::string::npos)
        << "'" << o.status().message << "' should mention " << c.expect;
  }
}

TEST(Cli, HelpDocumentsEveryFlagAndTheExitCodes) {
  const std::string help = help_text(flags());
  for (const char* flag :
       {"--backend", "--device",     "--lab",     "--kernel",   "--block",         "--config",   "--headless",
        "--frames",  "--screenshot", "--output",  "--gray-out", "--schedule-json", "--overlay",  "--hover",
        "--pin",     "--panel",      "--view",    "--split",    "--zoom",          "--center",   "--window-size",
        "--size",    "--json",       "--csv",     "--repeats",  "--warmup",        "--no-flush", "--status-file",
        "--set",     "AUTOMATION",   "EXIT CODES"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  // Every lab's own flags are listed under that lab.
  for (const auto& l : flags())
    for (const auto& e : l.options) EXPECT_NE(help.find(e.flag), std::string::npos) << e.flag;
  // The test tools' flags are not the user's: soak and fault injection live in blockscope-selftest.
  for (const char* gone : {"soak", "--inject-fault", "--leak-bytes"})
    EXPECT_EQ(help.find(gone), std::string::npos) << gone;
}

TEST(Cli, MatmulFlagsReachTheLabOptions) {
  auto o =
      parse({"--headless", "--lab", "matmul", "--matmul-size", "129x67x131", "--kernel", "k5_blocktile_2d", "--config",
             "2", "--matmul-pattern", "structured", "--matmul-seed", "77", "--matmul-phase", "3", "--hover", "37,70"});
  ASSERT_TRUE(o.ok()) << o.status().describe();
  EXPECT_EQ(o->state.lab, "matmul");
  EXPECT_EQ(o->state.lab_options.at("--matmul-size"), "129x67x131");
  EXPECT_EQ(o->state.lab_options.at("--matmul-pattern"), "structured");
  EXPECT_EQ(o->state.lab_options.at("--matmul-seed"), "77");
  EXPECT_EQ(o->state.lab_options.at("--matmul-phase"), "3");
  EXPECT_EQ(o->state.selection.kernel, "k5_blocktile_2d");
  EXPECT_EQ(*o->state.selection.compiled, 2);
  ASSERT_TRUE(o->state.view.hover.has_value());  // column 37, row 70 of C
  EXPECT_EQ(o->state.view.hover->x, 37);
  EXPECT_EQ(o->state.view.hover->y, 70);
}

TEST(Cli, BadMatmulFlagsNameTheProblem) {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  const Case cases[] = {{{"--matmul-size", "12x12"}, "MxNxK"},      {{"--matmul-size", "0x4x4"}, "MxNxK"},
                        {{"--matmul-size", "4x-4x4"}, "MxNxK"},     {{"--matmul-pattern", "plaid"}, "--matmul-pattern"},
                        {{"--matmul-seed", "-3"}, "--matmul-seed"}, {{"--matmul-phase", "first"}, "--matmul-phase"},
                        {{"--matmul-size"}, "--matmul-size"}};
  for (const auto& c : cases) {
    auto o = parse(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0] << " " << (c.args.size() > 1 ? c.args[1] : "");
    EXPECT_NE(o.status().message.find(c.expect), std::string::npos)
        << "'" << o.status().message << "' should mention " << c.expect;
  }
}

}  // namespace
